//! rtile's ONNX front end (issue 13): an ONNX `ModelProto` becomes one `func.func` of
//! `te.compute` ops (plus `tensor` reshapes), initializers become `dense_resource`
//! constants, and shape subgraphs are folded at import.
//!
//! - [`ops`]: every supported operator as an [`ops::Expansion`]: the te stages one node
//!   becomes, built from the node's input types, constant inputs and attributes.
//! - [`proto`]: the ONNX protobuf messages (prost, from the vendored `onnx.proto`).
//! - [`import`]: [`import_model`], the ModelProto → IR importer, with constant folding.
//! - [`eval`]: runs an expansion with the te interpreter (tests, constant folding).

pub mod eval;
pub mod import;
pub mod ops;
pub mod proto;
pub mod tensor_file;

pub use import::{ImportError, ImportOptions, import_model};
