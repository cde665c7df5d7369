//! ONNX operators: the basic family (see [`super`]).

use super::{Expansion, NodeAttrs, NodeInfo, OpError, OpInput};

/// Expands a node of this family; `None` for op types it does not know.
pub fn expand(
    _info: NodeInfo,
    _inputs: &[Option<OpInput>],
    _attrs: &dyn NodeAttrs,
) -> Option<Result<Expansion, OpError>> {
    None
}
