//! Builtin types with MLIR's meaning (mlir/IR/BuiltinTypes.td).
//!
//! Types are plain values: cheap enough to clone, compared structurally. The printed
//! form lives in `crate::printer`, the parsed form in `crate::parser`.

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

/// A builtin or dialect type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
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
        elem: Box<Type>,
        encoding: Option<Box<Attribute>>,
    },
    /// `tensor<*xf32>`.
    UnrankedTensor { elem: Box<Type> },
    /// `memref<4x4xf32, #layout, 3>`.
    MemRef {
        shape: Vec<i64>,
        elem: Box<Type>,
        layout: Option<Box<Attribute>>,
        memory_space: Option<Box<Attribute>>,
    },
    /// `memref<*xf32, 1>`.
    UnrankedMemRef {
        elem: Box<Type>,
        memory_space: Option<Box<Attribute>>,
    },
    /// `vector<4x[8]xf32>`: `scalable[i]` marks `[8]` dimensions.
    Vector {
        shape: Vec<i64>,
        scalable: Vec<bool>,
        elem: Box<Type>,
    },
    /// `complex<f32>`.
    Complex(Box<Type>),
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

impl Type {
    /// `iN`.
    pub fn int(width: u32) -> Type {
        Type::Integer {
            width,
            signedness: Signedness::Signless,
        }
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
    /// `f32`.
    pub fn f32() -> Type {
        Type::Float(FloatKind::F32)
    }
    /// `f64`.
    pub fn f64() -> Type {
        Type::Float(FloatKind::F64)
    }
    /// `tensor<shape x elem>` with static or dynamic extents.
    pub fn tensor(shape: Vec<i64>, elem: Type) -> Type {
        Type::Tensor {
            shape,
            elem: Box::new(elem),
            encoding: None,
        }
    }
    /// `memref<shape x elem>` with the identity layout in the default memory space.
    pub fn memref(shape: Vec<i64>, elem: Type) -> Type {
        Type::MemRef {
            shape,
            elem: Box::new(elem),
            layout: None,
            memory_space: None,
        }
    }
    /// A function type.
    pub fn function(inputs: Vec<Type>, results: Vec<Type>) -> Type {
        Type::Function { inputs, results }
    }

    /// True for integer and `index` types.
    pub fn is_integer_like(&self) -> bool {
        matches!(self, Type::Integer { .. } | Type::Index)
    }
    /// True for builtin float types.
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float(_))
    }
    /// Shape of a ranked shaped type (tensor, memref, vector).
    pub fn shape(&self) -> Option<&[i64]> {
        match self {
            Type::Tensor { shape, .. }
            | Type::MemRef { shape, .. }
            | Type::Vector { shape, .. } => Some(shape),
            _ => None,
        }
    }
    /// Element type of a shaped type (tensor, memref, vector, complex).
    pub fn element_type(&self) -> Option<&Type> {
        match self {
            Type::Tensor { elem, .. }
            | Type::UnrankedTensor { elem }
            | Type::MemRef { elem, .. }
            | Type::UnrankedMemRef { elem, .. }
            | Type::Vector { elem, .. }
            | Type::Complex(elem) => Some(elem),
            _ => None,
        }
    }
    /// Bit width of an integer or float type (`index` counts as 64).
    pub fn bit_width(&self) -> Option<u32> {
        match self {
            Type::Integer { width, .. } => Some(*width),
            Type::Float(k) => Some(k.width()),
            Type::Index => Some(64),
            _ => None,
        }
    }
    /// True when every extent of a ranked shaped type is static.
    pub fn has_static_shape(&self) -> bool {
        self.shape()
            .is_some_and(|s| s.iter().all(|&d| d != DYNAMIC))
    }
}
