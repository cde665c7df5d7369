//! Builtin attributes with MLIR's meaning (mlir/IR/BuiltinAttributes.td).

use super::affine::{AffineMap, IntegerSet};
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
    /// `dense<>`... not valid; `dense<[]>` is an empty list.
    Empty,
}

/// A name/attribute pair, the element of dictionaries and op attribute lists.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamedAttribute {
    pub name: String,
    pub value: Attribute,
}

/// A builtin or dialect attribute.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Attribute {
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
    /// byte for byte; optionally typed as [`Attribute::String`].
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
    Distinct { id: u64, value: Box<Attribute> },
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

impl Attribute {
    /// `value : i64`.
    pub fn i64(value: i64) -> Attribute {
        Attribute::Integer {
            value: value as i128,
            ty: Type::i64(),
        }
    }
    /// `value : ty` for an integer or index type.
    pub fn int(value: i64, ty: Type) -> Attribute {
        Attribute::Integer {
            value: value as i128,
            ty,
        }
    }
    /// `value : ty` for a float type.
    pub fn float(value: f64, ty: Type) -> Attribute {
        Attribute::Float {
            value: FloatBits::new(value),
            ty,
        }
    }
    /// `"value"`.
    pub fn string(value: impl Into<String>) -> Attribute {
        Attribute::String {
            value: value.into(),
            ty: None,
        }
    }
    /// `@name`.
    pub fn symbol(name: impl Into<String>) -> Attribute {
        Attribute::SymbolRef {
            root: name.into(),
            nested: Vec::new(),
        }
    }
    /// `array<i64: ...>`.
    pub fn dense_i64_array(values: Vec<i64>) -> Attribute {
        Attribute::DenseArray(DenseArray::Int {
            elem: Type::i64(),
            values,
        })
    }
    /// A dictionary, sorted by name.
    pub fn dictionary(mut entries: Vec<NamedAttribute>) -> Attribute {
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Attribute::Dictionary(entries)
    }

    /// The integer of an integer or bool attribute.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Attribute::Integer { value, .. } => i64::try_from(*value).ok(),
            Attribute::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }
    /// The value of a float attribute.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            Attribute::Float { value, .. } => Some(value.get()),
            _ => None,
        }
    }
    /// The contents of a string attribute.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attribute::String { value, .. } => Some(value),
            _ => None,
        }
    }
    /// The elements of an array attribute.
    pub fn as_array(&self) -> Option<&[Attribute]> {
        match self {
            Attribute::Array(v) => Some(v),
            _ => None,
        }
    }
    /// The values of an integer dense array (`array<i64: ...>` and friends).
    pub fn as_dense_ints(&self) -> Option<&[i64]> {
        match self {
            Attribute::DenseArray(DenseArray::Int { values, .. }) => Some(values),
            _ => None,
        }
    }
    /// The type of a type attribute.
    pub fn as_type(&self) -> Option<&Type> {
        match self {
            Attribute::Type(t) => Some(t),
            _ => None,
        }
    }
    /// The map of an affine map attribute.
    pub fn as_affine_map(&self) -> Option<&AffineMap> {
        match self {
            Attribute::AffineMap(m) => Some(m),
            _ => None,
        }
    }
    /// The root name of a symbol reference with no nested references.
    pub fn as_flat_symbol(&self) -> Option<&str> {
        match self {
            Attribute::SymbolRef { root, nested } if nested.is_empty() => Some(root),
            _ => None,
        }
    }
    /// The entries of a dictionary attribute.
    pub fn as_dictionary(&self) -> Option<&[NamedAttribute]> {
        match self {
            Attribute::Dictionary(v) => Some(v),
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
