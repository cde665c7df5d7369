//! The importer: an ONNX `ModelProto` becomes one `func.func` in a `builtin.module`.
//!
//! - The function's arguments are the graph inputs that are not initializers (static
//!   shapes: symbolic dims come from [`ImportOptions::input_shapes`]), its results the
//!   graph outputs.
//! - Nodes are taken in a topological order (the graph's own when it is one); each is
//!   expanded by [`crate::ops::expand`] and its steps become `te.compute`s and `tensor`
//!   reshapes.
//! - A node whose inputs are all known at import time is folded: shape arithmetic over
//!   int64 and data movement by [`fold`], float nodes by running their expansion with
//!   the te interpreter ([`crate::eval::eval_expansion`], `Accumulate::Native`).
//! - Constants that te stages read become `arith.constant dense_resource<handle>` with
//!   the blob in the module's `{-# dialect_resources #-}` (handles from the initializer
//!   or node names, sanitised and unique).

pub mod attrs;
pub mod emit;
pub mod fold;
mod graph;
pub mod tensor;

use crate::ops::{ConstTensor, ValueType};
use crate::proto::ModelProto;
use prost::Message;
use rtile::ir::{Context, OpId};
use std::sync::Arc;

/// What the importer needs besides the model.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Static shapes for graph inputs, by input name (`--input-shape x=1x3x224x224`):
    /// required for inputs with symbolic or unknown dims, checked against the others.
    pub input_shapes: Vec<(String, Vec<i64>)>,
}

impl ImportOptions {
    /// Parses `name=1x3x224x224` (a scalar is `name=`).
    pub fn parse_input_shape(s: &str) -> Result<(String, Vec<i64>), String> {
        let (name, dims) = s
            .rsplit_once('=')
            .ok_or_else(|| format!("expected NAME=DxDx..., got '{s}'"))?;
        if name.is_empty() {
            return Err(format!("expected NAME=DxDx..., got '{s}'"));
        }
        let dims = if dims.is_empty() {
            Vec::new()
        } else {
            dims.split('x')
                .map(|d| match d.trim().parse::<i64>() {
                    Ok(v) if v > 0 => Ok(v),
                    _ => Err(format!("'{d}' in '{s}' is not a positive dimension")),
                })
                .collect::<Result<_, _>>()?
        };
        Ok((name.to_string(), dims))
    }
}

/// Why a model cannot be imported.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// The bytes are not a `ModelProto`.
    #[error("malformed ONNX model: {0}")]
    Decode(String),
    /// Something about the model or graph as a whole (inputs, outputs, opsets).
    #[error("{0}")]
    Model(String),
    /// One node cannot be imported.
    #[error("node #{index} '{name}' ({op_type}): {message}")]
    Node {
        /// Position in the graph's node list.
        index: usize,
        name: String,
        op_type: String,
        message: String,
    },
}

/// A value of the graph while importing: known at import time, or an SSA value.
#[derive(Clone, Debug)]
enum Val {
    Const(Arc<ConstTensor>),
    Dyn(ValueType, rtile::ir::Value),
}

/// Imports a serialised `ModelProto`: the context (with the `te`, `func`, `arith` and
/// `tensor` dialects registered, blobs in `ctx.resources`) and the module op.
pub fn import_model(bytes: &[u8], opts: &ImportOptions) -> Result<(Context, OpId), ImportError> {
    let model = ModelProto::decode(bytes).map_err(|e| ImportError::Decode(e.to_string()))?;
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| ImportError::Model("the model has no graph".into()))?;
    let opset = model
        .opset_import
        .iter()
        .find(|o| matches!(o.domain(), "" | "ai.onnx"))
        .map(|o| o.version())
        .ok_or_else(|| {
            ImportError::Model("the model imports no version of the default ONNX opset".into())
        })?;
    let mut ctx = Context::new(Arc::new(rtile_dialects::dialect_registry()));
    let (module, block) = emit::new_module(&mut ctx);
    graph::import_graph(&mut ctx, block, graph, opset, opts)?;
    if let Err(diags) = rtile::verifier::verify(&ctx, module) {
        let msgs: Vec<String> = diags.iter().map(|d| d.message.clone()).collect();
        return Err(ImportError::Model(format!(
            "internal error: the imported module does not verify: {}",
            msgs.join("; ")
        )));
    }
    Ok((ctx, module))
}
