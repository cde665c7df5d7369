//! Tensor files given to and written by `rtile-run`: `.npy` here, and any other format
//! through a [`TensorFiles`] the caller supplies. The tools pass one that also reads and
//! writes ONNX `TensorProto` `.pb` files (the ONNX test data format, decoded by
//! `rtile-onnx`), so this crate needs no protobuf.

use std::path::Path;

use rtile_dialects::te::model::ElemType;

use crate::npy::{read_npy, write_npy};
use crate::tensor::Tensor;

/// Reads a tensor file whose elements the caller expects to be of the given type.
pub type ReadTensor = fn(&Path, ElemType) -> Result<Tensor, String>;
/// Writes a tensor file.
pub type WriteTensor = fn(&Path, &Tensor) -> Result<(), String>;

/// How input files are read and outputs written (default: `.npy` only).
#[derive(Clone, Copy, Debug)]
pub struct TensorFiles {
    pub read: ReadTensor,
    pub write: WriteTensor,
}

impl Default for TensorFiles {
    fn default() -> Self {
        TensorFiles {
            read: read_npy,
            write: write_npy,
        }
    }
}
