//! ONNX operators: the nn family (see [`super`]): convolutions, Gemm/MatMul,
//! normalizations, pooling, softmax, reductions and activations, with the semantics and
//! defaults of the ONNX operator specification (opset 6/7 through 23; see
//! <https://onnx.ai/onnx/operators/>).
//!
//! - [`conv`]: Conv, ConvTranspose (1-D/2-D/3-D, groups, dilations, strides, pads,
//!   auto_pad, output_padding, output_shape; ConvTranspose is a gather whose stride
//!   divisibility is a read of a constant 0/1 mask).
//! - [`gemm`]: Gemm, MatMul (numpy semantics, batch broadcast).
//! - [`norm`]: BatchNormalization (inference), LayerNormalization (with Mean and
//!   InvStdDev), InstanceNormalization, LRN.
//! - [`pool`]: MaxPool, AveragePool (ceil_mode, count_include_pad: a per-position
//!   divisor constant where the count varies), GlobalAveragePool, GlobalMaxPool.
//! - [`softmax`]: Softmax, LogSoftmax (both axis conventions).
//! - [`reduce`]: the ten Reduce* operators (axes attribute or input, keepdims,
//!   noop_with_empty_axes, empty inputs, boolean max/min).
//! - [`activation`]: Sigmoid, HardSigmoid, Softplus, Elu, Selu, Celu, HardSwish, Mish,
//!   Softsign, ThresholdedRelu, Gelu.
//!
//! Refused with an [`OpError`]: MaxPool's Indices output (int64, which te cannot hold),
//! training-mode BatchNormalization, element types te lacks (uint8 MaxPool), empty
//! tensors except in reductions, attributes the operator's opsets do not define.

use rtile_dialects::te::model::TensorType;

use super::{ConstData, Expansion, NodeAttrs, NodeInfo, OpError, OpInput};
use build::{Builder, Val};

pub mod activation;
pub mod build;
pub mod conv;
pub mod gemm;
pub mod norm;
pub mod pool;
pub mod reduce;
pub mod softmax;

#[cfg(test)]
mod tests;

/// Expands a node of this family; `None` for op types it does not know.
pub fn expand(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Option<Result<Expansion, OpError>> {
    let op = Node {
        info,
        inputs,
        attrs,
    };
    let f: fn(&Node) -> Result<Expansion, OpError> = match info.op_type {
        "Conv" => conv::conv,
        "ConvTranspose" => conv::conv_transpose,
        "Gemm" => gemm::gemm,
        "MatMul" => gemm::matmul,
        "BatchNormalization" => norm::batch_norm,
        "LayerNormalization" => norm::layer_norm,
        "InstanceNormalization" => norm::instance_norm,
        "LRN" => norm::lrn,
        "MaxPool" => pool::max_pool,
        "AveragePool" => pool::average_pool,
        "GlobalAveragePool" => pool::global_average_pool,
        "GlobalMaxPool" => pool::global_max_pool,
        "Softmax" | "LogSoftmax" => softmax::softmax,
        t if reduce::Kind::of(t).is_some() => reduce::reduce,
        t if activation::Kind::of(t).is_some() => activation::activation,
        _ => return None,
    };
    Some(f(&op))
}

/// One node as the operators see it, with helpers that turn missing or unsupported
/// inputs and attributes into [`OpError`]s.
pub struct Node<'a> {
    pub info: NodeInfo<'a>,
    pub inputs: &'a [Option<OpInput<'a>>],
    pub attrs: &'a dyn NodeAttrs,
}

impl Node<'_> {
    /// The op type.
    pub fn op(&self) -> &str {
        self.info.op_type
    }

    /// The opset version.
    pub fn opset(&self) -> i64 {
        self.info.opset
    }

    /// Input `i` as a te value; an error when it is absent or te cannot hold its type.
    pub fn input(&self, i: usize) -> Result<Val, OpError> {
        self.opt_input(i)?
            .ok_or_else(|| OpError(format!("input {i} is required")))
    }

    /// Optional input `i` (`None` when absent).
    pub fn opt_input(&self, i: usize) -> Result<Option<Val>, OpError> {
        let Some(Some(inp)) = self.inputs.get(i) else {
            return Ok(None);
        };
        let Some(elem) = inp.ty.elem else {
            return Err(OpError(format!(
                "input {i} has an element type te cannot compute on"
            )));
        };
        if let Some(&d) = inp.ty.shape.iter().find(|&&d| d <= 0) {
            return Err(OpError(format!(
                "input {i} has a dimension of {d}; only static, non-empty shapes are supported"
            )));
        }
        Ok(Some(Builder::input(
            i,
            TensorType::new(inp.ty.shape.clone(), elem),
        )))
    }

    /// Input `i` that must be a float tensor.
    pub fn float_input(&self, i: usize) -> Result<Val, OpError> {
        let v = self.input(i)?;
        if !v.elem().is_float() {
            return Err(OpError(format!(
                "input {i} is {}; {} needs a float type (f32, f16, bf16, f64)",
                v.elem().keyword(),
                self.op()
            )));
        }
        Ok(v)
    }

    /// The integer values of constant input `i` (`None` when absent); an error when it
    /// is present but not known at import time.
    pub fn const_ints(&self, i: usize) -> Result<Option<Vec<i64>>, OpError> {
        let Some(Some(inp)) = self.inputs.get(i) else {
            return Ok(None);
        };
        let Some(c) = inp.value else {
            return Err(OpError(format!(
                "input {i} must be a constant (an initializer or folded value)"
            )));
        };
        Ok(Some(match &c.data {
            ConstData::I64(v) => v.clone(),
            ConstData::I32(v) => v.iter().map(|&x| x as i64).collect(),
            _ => return Err(OpError(format!("input {i} must be an integer tensor"))),
        }))
    }

    /// Refuses attributes outside `known` (every attribute the operator's opsets define).
    pub fn check_attrs(&self, known: &[&str]) -> Result<(), OpError> {
        for n in self.attrs.names() {
            if !known.contains(&n.as_str()) {
                return Err(OpError(format!("attribute '{n}' is not supported")));
            }
        }
        Ok(())
    }

    /// An int attribute with its default.
    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.attrs.int(name).unwrap_or(default)
    }

    /// A float attribute with its default.
    pub fn float(&self, name: &str, default: f64) -> f64 {
        self.attrs.float(name).map(|x| x as f64).unwrap_or(default)
    }

    /// A string attribute with its default.
    pub fn string(&self, name: &str, default: &str) -> String {
        self.attrs
            .string(name)
            .unwrap_or_else(|| default.to_string())
    }

    /// An ints attribute of exactly `n` values (or `default` when absent).
    pub fn ints_n(&self, name: &str, n: usize, default: i64) -> Result<Vec<i64>, OpError> {
        match self.attrs.ints(name) {
            None => Ok(vec![default; n]),
            Some(v) if v.len() == n => Ok(v),
            Some(v) => Err(OpError(format!(
                "attribute '{name}' has {} values; expected {n}",
                v.len()
            ))),
        }
    }

    /// Refuses a node that declares more outputs than the expansion computes.
    pub fn max_outputs(&self, n: usize, what: &str) -> Result<(), OpError> {
        if self.info.num_outputs > n {
            return Err(OpError(format!(
                "{} declares {} outputs; {what}",
                self.op(),
                self.info.num_outputs
            )));
        }
        Ok(())
    }
}

/// An axis attribute in `[-rank, rank)` made non-negative.
pub fn norm_axis(axis: i64, rank: usize, what: &str) -> Result<usize, OpError> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(OpError(format!(
            "{what} {axis} is out of range for rank {rank}"
        )));
    }
    Ok(if axis < 0 { axis + r } else { axis } as usize)
}
