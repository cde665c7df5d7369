//! The IR: MLIR's structure of operations, regions, blocks and SSA values, with builtin
//! types, attributes, affine maps and locations.

pub mod affine;
pub mod affine_bounds;
pub mod attributes;
pub mod builder;
pub mod context;
pub mod dense;
pub mod float;
pub mod identifier;
pub mod location;
pub mod resources;
pub mod rewriter;
pub mod types;

pub use affine::{AffineExpr, AffineMap, IntegerSet};
pub use attributes::{AttrKind, Attribute, DenseArray, DenseLiteral, FloatBits, NamedAttribute};
pub use builder::{Builder, InsertionPoint, OpDraft};
pub use context::{
    BlockId, Context, OpId, OperationData, OperationState, RegionId, SourceFile, TextAlias, Use,
    Value, ValueDef, WalkOrder,
};
pub use dense::dense_values_f64;
pub use float::FloatFormat;
pub use identifier::Identifier;
pub use location::{Location, Span};
pub use resources::{
    Blob, FileResources, ResourceGroup, ResourceValue, element_byte_size, encode_elements,
};
pub use rewriter::{RewriteError, Rewriter};
pub use types::{DYNAMIC, FloatKind, Signedness, Type, TypeKind};
