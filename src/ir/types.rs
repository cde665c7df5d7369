//! Builtin types with MLIR's meaning (mlir/IR/BuiltinTypes.td).
//!
//! Types are uniqued, as MLIR's `StorageUniquer` uniques them: a [`Type`] is a `Copy`
//! handle to the one stored copy of its [`TypeKind`], so handles compare and hash by
//! identity in O(1), and a shape or element type used by a million values is stored once.
//! Inspect a type through `Deref` (`ty.shape()`, `match ty.kind() { TypeKind::... }`);
//! build one with the constructors (`Type::tensor(..)`) or `Type::new(TypeKind::...)`.
//! The printed form lives in `crate::printer`, the parsed form in `crate::parser`.

use std::fmt;
use std::ops::Deref;

use internment::Intern;

use super::attributes::Attribute;

/// The dynamic extent marker in shapes, as `ShapedType::kDynamic` in MLIR (`?` in text).
pub const DYNAMIC: i64 = i64::MIN;

/// Signedness semantics of an integer type (`i32`, `si32`, `ui32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signedness {
    /// `iN`: no signedness semantics.
    Signless,
    /// `siN`.
    Signed,
    /// `uiN`.
    Unsigned,
}

/// The builtin floating-point formats that MLIR spells with a keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatKind {
    F16,
    BF16,
    F32,
    F64,
    F80,
    F128,
    TF32,
    F8E4M3FN,
    F8E5M2,
    F8E4M3,
    F8E5M2FNUZ,
    F8E4M3FNUZ,
    F8E4M3B11FNUZ,
    F8E3M4,
    F8E8M0FNU,
    F6E2M3FN,
    F6E3M2FN,
    F4E2M1FN,
}

impl FloatKind {
    /// Every kind with its keyword, in the order the lexer should try them.
    pub const ALL: [(FloatKind, &'static str); 18] = [
        (FloatKind::F16, "f16"),
        (FloatKind::BF16, "bf16"),
        (FloatKind::F32, "f32"),
        (FloatKind::F64, "f64"),
        (FloatKind::F80, "f80"),
        (FloatKind::F128, "f128"),
        (FloatKind::TF32, "tf32"),
        (FloatKind::F8E4M3FN, "f8E4M3FN"),
        (FloatKind::F8E5M2, "f8E5M2"),
        (FloatKind::F8E4M3, "f8E4M3"),
        (FloatKind::F8E5M2FNUZ, "f8E5M2FNUZ"),
        (FloatKind::F8E4M3FNUZ, "f8E4M3FNUZ"),
        (FloatKind::F8E4M3B11FNUZ, "f8E4M3B11FNUZ"),
        (FloatKind::F8E3M4, "f8E3M4"),
        (FloatKind::F8E8M0FNU, "f8E8M0FNU"),
        (FloatKind::F6E2M3FN, "f6E2M3FN"),
        (FloatKind::F6E3M2FN, "f6E3M2FN"),
        (FloatKind::F4E2M1FN, "f4E2M1FN"),
    ];

    /// The keyword MLIR uses for this kind (`f32`, `bf16`, ...).
    pub fn keyword(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(k, _)| *k == self)
            .map(|(_, s)| *s)
            .unwrap_or("f32")
    }

    /// Looks a keyword up.
    pub fn from_keyword(s: &str) -> Option<FloatKind> {
        Self::ALL.iter().find(|(_, k)| *k == s).map(|(k, _)| *k)
    }

    /// Storage width in bits.
    pub fn width(self) -> u32 {
        match self {
            FloatKind::F16 | FloatKind::BF16 => 16,
            FloatKind::F32 | FloatKind::TF32 => 32,
            FloatKind::F64 => 64,
            FloatKind::F80 => 80,
            FloatKind::F128 => 128,
            FloatKind::F6E2M3FN | FloatKind::F6E3M2FN => 6,
            FloatKind::F4E2M1FN => 4,
            _ => 8,
        }
    }
}

/// A builtin or dialect type: a uniqued, `Copy` handle to its [`TypeKind`].
///
/// Storage is process-wide and lives as long as the process (see docs/ir.md,
/// "Uniqued types and attributes"): a handle never dangles, needs no `Context` to be
/// read, and two handles are equal exactly when their kinds are.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Type(Intern<TypeKind>);

/// What a [`Type`] is: MLIR's builtin types, and dialect types kept as text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `i32`, `si8`, `ui64`, `i1`.
    Integer { width: u32, signedness: Signedness },
    /// `f32`, `bf16`, ...
    Float(FloatKind),
    /// `index`.
    Index,
    /// `none`.
    None,
    /// `tensor<4x?xf32>`, `tensor<4xf32, #enc>`; dynamic extents are [`DYNAMIC`].
    Tensor {
        shape: Vec<i64>,
        elem: Type,
        encoding: Option<Attribute>,
    },
    /// `tensor<*xf32>`.
    UnrankedTensor { elem: Type },
    /// `memref<4x4xf32, #layout, 3>`.
    MemRef {
        shape: Vec<i64>,
        elem: Type,
        layout: Option<Attribute>,
        memory_space: Option<Attribute>,
    },
    /// `memref<*xf32, 1>`.
    UnrankedMemRef {
        elem: Type,
        memory_space: Option<Attribute>,
    },
    /// `vector<4x[8]xf32>`: `scalable[i]` marks `[8]` dimensions.
    Vector {
        shape: Vec<i64>,
        scalable: Vec<bool>,
        elem: Type,
    },
    /// `complex<f32>`.
    Complex(Type),
    /// `tuple<i32, f32>`.
    Tuple(Vec<Type>),
    /// `(i32, f32) -> f64`.
    Function {
        inputs: Vec<Type>,
        results: Vec<Type>,
    },
    /// A dialect type, kept as text: `!dialect.body` where `body` is everything after the
    /// dot, verbatim (e.g. `!llvm.ptr<1>` is `{dialect: "llvm", body: "ptr<1>"}`), or the
    /// namespace form `!dialect<...>` with `body` the angle-bracketed text verbatim
    /// (`!foo<"x">` is `{dialect: "foo", body: "<\"x\">"}`).
    Dialect { dialect: String, body: String },
}

impl Deref for Type {
    type Target = TypeKind;
    fn deref(&self) -> &TypeKind {
        &self.0
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<TypeKind> for Type {
    fn from(kind: TypeKind) -> Type {
        Type::new(kind)
    }
}

impl Type {
    /// The uniqued type of `kind`.
    pub fn new(kind: TypeKind) -> Type {
        Type(Intern::new(kind))
    }
    /// What this type is, for matching: `match ty.kind() { TypeKind::Tensor { .. } => .. }`.
    pub fn kind(&self) -> &'static TypeKind {
        self.0.as_ref()
    }
    /// `iN`.
    pub fn int(width: u32) -> Type {
        Type::new(TypeKind::Integer {
            width,
            signedness: Signedness::Signless,
        })
    }
    /// `i1`.
    pub fn i1() -> Type {
        Type::int(1)
    }
    /// `i32`.
    pub fn i32() -> Type {
        Type::int(32)
    }
    /// `i64`.
    pub fn i64() -> Type {
        Type::int(64)
    }
    /// `index`.
    pub fn index() -> Type {
        Type::new(TypeKind::Index)
    }
    /// A float type.
    pub fn float(kind: FloatKind) -> Type {
        Type::new(TypeKind::Float(kind))
    }
    /// `f32`.
    pub fn f32() -> Type {
        Type::float(FloatKind::F32)
    }
    /// `f64`.
    pub fn f64() -> Type {
        Type::float(FloatKind::F64)
    }
    /// `tensor<shape x elem>` with static or dynamic extents.
    pub fn tensor(shape: Vec<i64>, elem: Type) -> Type {
        Type::new(TypeKind::Tensor {
            shape,
            elem,
            encoding: None,
        })
    }
    /// `memref<shape x elem>` with the identity layout in the default memory space.
    pub fn memref(shape: Vec<i64>, elem: Type) -> Type {
        Type::new(TypeKind::MemRef {
            shape,
            elem,
            layout: None,
            memory_space: None,
        })
    }
    /// `vector<shape x elem>` with no scalable dimension.
    pub fn vector(shape: Vec<i64>, elem: Type) -> Type {
        let scalable = vec![false; shape.len()];
        Type::new(TypeKind::Vector {
            shape,
            scalable,
            elem,
        })
    }
    /// A function type.
    pub fn function(inputs: Vec<Type>, results: Vec<Type>) -> Type {
        Type::new(TypeKind::Function { inputs, results })
    }
    /// A dialect type kept as text (see [`TypeKind::Dialect`]).
    pub fn dialect(dialect: impl Into<String>, body: impl Into<String>) -> Type {
        Type::new(TypeKind::Dialect {
            dialect: dialect.into(),
            body: body.into(),
        })
    }
}

impl TypeKind {
    /// True for integer and `index` types.
    pub fn is_integer_like(&self) -> bool {
        matches!(self, TypeKind::Integer { .. } | TypeKind::Index)
    }
    /// True for builtin float types.
    pub fn is_float(&self) -> bool {
        matches!(self, TypeKind::Float(_))
    }
    /// True for `index`.
    pub fn is_index(&self) -> bool {
        matches!(self, TypeKind::Index)
    }
    /// Shape of a ranked shaped type (tensor, memref, vector).
    pub fn shape(&self) -> Option<&[i64]> {
        match self {
            TypeKind::Tensor { shape, .. }
            | TypeKind::MemRef { shape, .. }
            | TypeKind::Vector { shape, .. } => Some(shape),
            _ => None,
        }
    }
    /// Element type of a shaped type (tensor, memref, vector, complex).
    pub fn element_type(&self) -> Option<&Type> {
        match self {
            TypeKind::Tensor { elem, .. }
            | TypeKind::UnrankedTensor { elem }
            | TypeKind::MemRef { elem, .. }
            | TypeKind::UnrankedMemRef { elem, .. }
            | TypeKind::Vector { elem, .. }
            | TypeKind::Complex(elem) => Some(elem),
            _ => None,
        }
    }
    /// Bit width of an integer or float type (`index` counts as 64).
    pub fn bit_width(&self) -> Option<u32> {
        match self {
            TypeKind::Integer { width, .. } => Some(*width),
            TypeKind::Float(k) => Some(k.width()),
            TypeKind::Index => Some(64),
            _ => None,
        }
    }
    /// True when every extent of a ranked shaped type is static.
    pub fn has_static_shape(&self) -> bool {
        self.shape()
            .is_some_and(|s| s.iter().all(|&d| d != DYNAMIC))
    }
}
