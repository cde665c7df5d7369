//! The ONNX protobuf messages (`ModelProto`, `GraphProto`, `TensorProto`, ...), generated
//! by prost from the vendored `proto/onnx.proto` (see `proto/README.md`).

#![allow(missing_docs, clippy::all, clippy::pedantic)]

include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
