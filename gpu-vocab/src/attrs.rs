//! The enums that gpu-level ops carry in their properties, declared once: comparison
//! predicates, fastmath flags and memory address spaces.

use rtile::ir::{AttrKind, Attribute};
use rtile_dialects::arith::CMPF_PREDICATES;
pub use rtile_dialects::arith::CmpIPredicate;

/// `arith.cmpf`'s predicate as upstream's `arith::CmpFPredicate`: the discriminant is the
/// number stored in the `predicate` property, the keyword its `CMPF_PREDICATES` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpFPredicate {
    AlwaysFalse = 0,
    Oeq = 1,
    Ogt = 2,
    Oge = 3,
    Olt = 4,
    Ole = 5,
    One = 6,
    Ord = 7,
    Ueq = 8,
    Ugt = 9,
    Uge = 10,
    Ult = 11,
    Ule = 12,
    Une = 13,
    Uno = 14,
    AlwaysTrue = 15,
}

/// Every `arith.cmpf` predicate, in upstream's enum order.
pub const ALL_CMPF: [CmpFPredicate; 16] = {
    use CmpFPredicate::*;
    [
        AlwaysFalse,
        Oeq,
        Ogt,
        Oge,
        Olt,
        Ole,
        One,
        Ord,
        Ueq,
        Ugt,
        Uge,
        Ult,
        Ule,
        Une,
        Uno,
        AlwaysTrue,
    ]
};

/// Every `arith.cmpi` predicate, in upstream's enum order.
pub const ALL_CMPI: [CmpIPredicate; 10] = {
    use CmpIPredicate::*;
    [Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge]
};

impl CmpFPredicate {
    /// The number stored in the `predicate` property.
    pub fn value(self) -> i64 {
        self as i64
    }
    /// The keyword (`olt`, `une`, `false`, ...), as LLVM's `fcmp` also spells it.
    pub fn keyword(self) -> &'static str {
        CMPF_PREDICATES[self as usize]
    }
    /// The predicate with this property number.
    pub fn from_value(v: i64) -> Option<Self> {
        usize::try_from(v)
            .ok()
            .and_then(|i| ALL_CMPF.get(i).copied())
    }
    /// The predicate with this keyword.
    pub fn from_keyword(k: &str) -> Option<Self> {
        ALL_CMPF.iter().copied().find(|p| p.keyword() == k)
    }
}

/// The `arith.cmpi` predicate with this property number.
pub fn cmpi_from_value(v: i64) -> Option<CmpIPredicate> {
    usize::try_from(v)
        .ok()
        .and_then(|i| ALL_CMPI.get(i).copied())
}

/// The `arith.cmpi` predicate with this keyword.
pub fn cmpi_from_keyword(k: &str) -> Option<CmpIPredicate> {
    ALL_CMPI.iter().copied().find(|p| p.keyword() == k)
}

/// A `predicate` property: the integer upstream stores, or an enum attribute whose last
/// word that is a predicate keyword names it (`#arith<cmpfpredicate olt>`).
pub(crate) fn predicate_of<P: Copy>(
    attr: Option<&Attribute>,
    from_value: impl Fn(i64) -> Option<P>,
    from_keyword: impl Fn(&str) -> Option<P>,
) -> Option<P> {
    let a = attr?;
    if let Some(v) = a.as_int() {
        return from_value(v);
    }
    attr_words(a).iter().rev().find_map(|w| from_keyword(w))
}

/// The words of an enum-like dialect attribute body: `#arith.fastmath<nnan, ninf>` →
/// `["nnan", "ninf"]`, `#gpu<shuffle_mode xor>` → `["shuffle_mode", "xor"]`.
pub fn attr_words(attr: &Attribute) -> Vec<String> {
    match attr.kind() {
        AttrKind::Dialect { body, .. } => body
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect(),
        AttrKind::String { value, .. } => vec![value.clone()],
        _ => Vec::new(),
    }
}

/// `#arith.fastmath<...>` flags, in LLVM's order (the order the LLVM IR emitter prints them
/// in is the attribute's, so the flags keep the words as written).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FastMathFlags {
    /// The flags LLVM knows (`fast reassoc nnan ninf nsz arcp contract afn`), as written;
    /// `none` and unknown words are dropped.
    pub words: Vec<&'static str>,
}

/// The fastmath words LLVM's `fcmp`/float instructions accept.
const FASTMATH_WORDS: [&str; 8] = [
    "fast", "reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn",
];

impl FastMathFlags {
    /// The flags of a `fastmath` property (none when absent).
    pub fn of(attr: Option<&Attribute>) -> FastMathFlags {
        let words = attr
            .map(attr_words)
            .unwrap_or_default()
            .iter()
            .filter_map(|w| FASTMATH_WORDS.iter().copied().find(|f| f == w))
            .collect();
        FastMathFlags { words }
    }
    /// No flag is set.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// Where a memref lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    /// Default/global memory (kernel arguments).
    Global,
    /// `#gpu.address_space<workgroup>` or `3`: shared memory.
    Workgroup,
    /// `#gpu.address_space<private>` or `5`: per-thread memory.
    Private,
}

impl AddressSpace {
    /// The address space of a memref's memory-space attribute (`None`: unknown).
    pub fn of(attr: Option<&Attribute>) -> Option<AddressSpace> {
        match attr.map(|x| x.kind()) {
            None => Some(AddressSpace::Global),
            Some(AttrKind::Integer { value, .. }) => match value {
                0 | 1 => Some(AddressSpace::Global),
                3 => Some(AddressSpace::Workgroup),
                5 => Some(AddressSpace::Private),
                _ => None,
            },
            Some(AttrKind::Dialect { dialect, body }) if dialect == "gpu" => {
                let b: String = body.chars().filter(|c| !c.is_whitespace()).collect();
                match b.as_str() {
                    "address_space<global>" | "<address_spaceglobal>" => Some(AddressSpace::Global),
                    "address_space<workgroup>" => Some(AddressSpace::Workgroup),
                    "address_space<private>" => Some(AddressSpace::Private),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
