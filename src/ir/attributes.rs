//! Builtin attributes with MLIR's meaning (mlir/IR/BuiltinAttributes.td).
//!
//! Attributes are uniqued like types ([`super::types`]): an [`Attribute`] is a `Copy`
//! handle to the one stored copy of its [`AttrKind`], so dense element data and long
//! strings are stored once however many ops hold them, and handles compare and hash in
//! O(1).

use std::fmt;
use std::ops::Deref;

use internment::Intern;

use super::affine::{AffineMap, IntegerSet};
use super::identifier::Identifier;
use super::location::Location;
use super::types::Type;

/// A float stored by its bits so that attributes can be hashed and compared exactly
/// (NaN payloads and signed zeros included), as MLIR's APFloat attributes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FloatBits(pub u64);

impl FloatBits {
    /// Stores an f64.
    pub fn new(v: f64) -> Self {
        FloatBits(v.to_bits())
    }
    /// The value as an f64.
    pub fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

/// `array<i64: 1, 2>`: a dense array of one scalar type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DenseArray {
    /// `i1`, `i8` ... `i64` element types; `bool` values are 0/1.
    Int { elem: Type, values: Vec<i64> },
    /// `f32` or `f64` element types.
    Float { elem: Type, values: Vec<FloatBits> },
}

/// The literal inside `dense<...>`: nested lists, scalars, or a hex blob.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DenseLiteral {
    Int(i128),
    Float(FloatBits),
    Bool(bool),
    /// `(1.0, 2.0)` complex element.
    Complex(Box<DenseLiteral>, Box<DenseLiteral>),
    /// `[a, b, ...]`.
    List(Vec<DenseLiteral>),
    /// `"0xDEADBEEF"`: the raw hex string, without quotes.
    Hex(String),
    /// `"abc"`: a string element (MLIR's `DenseStringElementsAttr`, for element types that
    /// are not builtin numbers), as the bytes its escapes spell.
    Str(Vec<u8>),
    /// `dense<>`... not valid; `dense<[]>` is an empty list.
    Empty,
}

/// A name/attribute pair, the element of dictionaries and op attribute lists.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamedAttribute {
    /// Interned: the same few names recur on every op.
    pub name: Identifier,
    pub value: Attribute,
}

/// A builtin or dialect attribute: a uniqued, `Copy` handle to its [`AttrKind`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Attribute(Intern<AttrKind>);

/// What an [`Attribute`] is: MLIR's builtin attributes, and dialect attributes kept as
/// text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AttrKind {
    /// `unit`, or an attribute name with no value in a dictionary.
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// `42 : i32`; the type defaults to `i64` when omitted in text.
    Integer { value: i128, ty: Type },
    /// `1.0 : f32`; the type defaults to `f64` when omitted in text.
    Float { value: FloatBits, ty: Type },
    /// `"text"`, optionally typed (`"text" : i32`).
    String { value: String, ty: Option<Type> },
    /// A string whose `\XX` escapes spell bytes that are not UTF-8 (`"\FF"`), kept
    /// byte for byte; optionally typed as [`AttrKind::String`].
    Bytes { value: Vec<u8>, ty: Option<Type> },
    /// A type used as an attribute (`i32`, `tensor<4xf32>`).
    Type(Type),
    /// `[a, b]`.
    Array(Vec<Attribute>),
    /// `array<i64: 1, 2>`.
    DenseArray(DenseArray),
    /// `{a = 1, b}`: kept sorted by name as MLIR's DictionaryAttr is.
    Dictionary(Vec<NamedAttribute>),
    /// `@root::@nested::@leaf`.
    SymbolRef { root: String, nested: Vec<String> },
    /// `affine_map<(d0)[s0] -> (d0 + s0)>`.
    AffineMap(AffineMap),
    /// `affine_set<(d0) : (d0 - 1 >= 0)>`.
    IntegerSet(IntegerSet),
    /// `dense<[1, 2]> : tensor<2xi32>`; a splat is a scalar literal.
    DenseElements { literal: DenseLiteral, ty: Type },
    /// `strided<[4, 1], offset: ?>`; dynamic entries are [`super::types::DYNAMIC`].
    Strided { strides: Vec<i64>, offset: i64 },
    /// `loc(...)` used as an attribute.
    Location(Location),
    /// `distinct[id]<value>`: a unique attribute; `id` identifies it within the file it
    /// was read from (the printer renumbers in print order, as MLIR does). A `unit`
    /// value is written `distinct[id]<>`.
    Distinct { id: u64, value: Attribute },
    /// `sparse<indices, values> : tensor<...>`: `indices` is an N x rank list of i64
    /// coordinates (`index_shape`), `values` the N values (`value_shape`); a splat
    /// literal has shape `[1, rank]` / `[1]`. No indices at all is `sparse<>`.
    Sparse {
        indices: DenseLiteral,
        index_shape: Vec<i64>,
        values: DenseLiteral,
        value_shape: Vec<i64>,
        ty: Type,
    },
    /// `dense_resource<handle> : tensor<...>`: elements in the blob `handle` of the file's
    /// `{-# dialect_resources: { builtin: {...} } #-}` section
    /// ([`crate::ir::Context::resources`]).
    DenseResource { handle: String, ty: Type },
    /// A dialect attribute kept as text and followed by `: type` (`#foo.bar : i32`).
    TypedDialect {
        dialect: String,
        body: String,
        ty: Type,
    },
    /// A dialect attribute kept as text: `#dialect.body` where `body` is everything after
    /// the dot verbatim (`#gpu.address_space<workgroup>` is
    /// `{dialect: "gpu", body: "address_space<workgroup>"}`), or the namespace form
    /// `#dialect<...>` with `body` the angle-bracketed text verbatim (`#gpu<dim x>` is
    /// `{dialect: "gpu", body: "<dim x>"}`).
    Dialect { dialect: String, body: String },
}

impl Deref for Attribute {
    type Target = AttrKind;
    fn deref(&self) -> &AttrKind {
        &self.0
    }
}

impl fmt::Debug for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<AttrKind> for Attribute {
    fn from(kind: AttrKind) -> Attribute {
        Attribute::new(kind)
    }
}

impl Attribute {
    /// The uniqued attribute of `kind`.
    pub fn new(kind: AttrKind) -> Attribute {
        Attribute(Intern::new(kind))
    }
    /// What this attribute is, for matching.
    pub fn kind(&self) -> &'static AttrKind {
        self.0.as_ref()
    }
    /// `unit`.
    pub fn unit() -> Attribute {
        Attribute::new(AttrKind::Unit)
    }
    /// `true` / `false`.
    pub fn bool(value: bool) -> Attribute {
        Attribute::new(AttrKind::Bool(value))
    }
    /// A type used as an attribute.
    pub fn ty(ty: Type) -> Attribute {
        Attribute::new(AttrKind::Type(ty))
    }
    /// `[a, b, ...]`.
    pub fn array(values: Vec<Attribute>) -> Attribute {
        Attribute::new(AttrKind::Array(values))
    }
    /// A dialect attribute kept as text (see [`AttrKind::Dialect`]).
    pub fn dialect(dialect: impl Into<String>, body: impl Into<String>) -> Attribute {
        Attribute::new(AttrKind::Dialect {
            dialect: dialect.into(),
            body: body.into(),
        })
    }
    /// `value : i64`.
    pub fn i64(value: i64) -> Attribute {
        Attribute::new(AttrKind::Integer {
            value: value as i128,
            ty: Type::i64(),
        })
    }
    /// `value : ty` for an integer or index type.
    pub fn int(value: i64, ty: Type) -> Attribute {
        Attribute::new(AttrKind::Integer {
            value: value as i128,
            ty,
        })
    }
    /// `value : ty` for a float type.
    pub fn float(value: f64, ty: Type) -> Attribute {
        Attribute::new(AttrKind::Float {
            value: FloatBits::new(value),
            ty,
        })
    }
    /// `"value"`.
    pub fn string(value: impl Into<String>) -> Attribute {
        Attribute::new(AttrKind::String {
            value: value.into(),
            ty: None,
        })
    }
    /// `@name`.
    pub fn symbol(name: impl Into<String>) -> Attribute {
        Attribute::new(AttrKind::SymbolRef {
            root: name.into(),
            nested: Vec::new(),
        })
    }
    /// `array<i64: ...>`.
    pub fn dense_i64_array(values: Vec<i64>) -> Attribute {
        Attribute::new(AttrKind::DenseArray(DenseArray::Int {
            elem: Type::i64(),
            values,
        }))
    }
    /// A dictionary, sorted by name.
    pub fn dictionary(mut entries: Vec<NamedAttribute>) -> Attribute {
        entries.sort_by_key(|a| a.name);
        Attribute::new(AttrKind::Dictionary(entries))
    }
}

impl AttrKind {
    /// The integer of an integer or bool attribute.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrKind::Integer { value, .. } => i64::try_from(*value).ok(),
            AttrKind::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }
    /// The value of a float attribute.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            AttrKind::Float { value, .. } => Some(value.get()),
            _ => None,
        }
    }
    /// The contents of a string attribute.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrKind::String { value, .. } => Some(value),
            _ => None,
        }
    }
    /// The elements of an array attribute.
    pub fn as_array(&self) -> Option<&[Attribute]> {
        match self {
            AttrKind::Array(v) => Some(v),
            _ => None,
        }
    }
    /// The values of an integer dense array (`array<i64: ...>` and friends).
    pub fn as_dense_ints(&self) -> Option<&[i64]> {
        match self {
            AttrKind::DenseArray(DenseArray::Int { values, .. }) => Some(values),
            _ => None,
        }
    }
    /// The type of a type attribute.
    pub fn as_type(&self) -> Option<&Type> {
        match self {
            AttrKind::Type(t) => Some(t),
            _ => None,
        }
    }
    /// The map of an affine map attribute.
    pub fn as_affine_map(&self) -> Option<&AffineMap> {
        match self {
            AttrKind::AffineMap(m) => Some(m),
            _ => None,
        }
    }
    /// The root name of a symbol reference with no nested references.
    pub fn as_flat_symbol(&self) -> Option<&str> {
        match self {
            AttrKind::SymbolRef { root, nested } if nested.is_empty() => Some(root),
            _ => None,
        }
    }
    /// The entries of a dictionary attribute.
    pub fn as_dictionary(&self) -> Option<&[NamedAttribute]> {
        match self {
            AttrKind::Dictionary(v) => Some(v),
            _ => None,
        }
    }
    /// Looks up `name` in a dictionary attribute.
    pub fn dict_get(&self, name: &str) -> Option<&Attribute> {
        self.as_dictionary()?
            .iter()
            .find(|n| n.name == name)
            .map(|n| &n.value)
    }
}
