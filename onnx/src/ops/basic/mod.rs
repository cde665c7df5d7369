//! ONNX operators: the basic family (see [`super`]): elementwise arithmetic and
//! activations ([`elementwise`]), shapes and constants ([`shape`]), data movement
//! ([`movement`]). Semantics and defaults follow the ONNX operator specification
//! (`onnx/defs`, opsets 7 to 23); each function cites the opset versions it reads.

pub mod elementwise;
pub mod movement;
pub mod shape;
pub mod util;

#[cfg(test)]
mod tests;

use super::{Expansion, NodeAttrs, NodeInfo, OpError, OpInput};

/// Expands a node of this family; `None` for op types it does not know.
pub fn expand(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Option<Result<Expansion, OpError>> {
    elementwise::expand(info, inputs, attrs)
        .or_else(|| shape::expand(info, inputs, attrs))
        .or_else(|| movement::expand(info, inputs, attrs))
}
