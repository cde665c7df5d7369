//! Tests of the nn operators: each expansion runs on the te interpreter (f64 oracle)
//! and is compared with a naive loop nest that follows the ONNX specification text.

use std::collections::BTreeMap;

use rtile_dialects::te::expr::{header_of, parse_custom, print_body, print_header};
use rtile_dialects::te::model::{ElemType, TeCompute, TensorType};
use rtile_runtime::interp::Accumulate;
use rtile_runtime::tensor::{SplitMix64, Tensor};

use crate::eval::eval_expansion;
use crate::ops::{ConstData, ConstTensor, NodeAttrs, NodeInfo, OpError, OpInput, ValueType};

mod activation;
mod conv;
mod gemm;
mod low_precision;
mod norm;
mod pool;
mod softmax_reduce;

/// An attribute value.
#[derive(Clone, Debug)]
pub enum A {
    I(i64),
    Is(Vec<i64>),
    F(f32),
    S(&'static str),
}

/// Attributes of a test node.
#[derive(Clone, Debug, Default)]
pub struct Attrs(pub BTreeMap<String, A>);

impl Attrs {
    pub fn new(list: &[(&str, A)]) -> Attrs {
        Attrs(
            list.iter()
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect(),
        )
    }
}

impl NodeAttrs for Attrs {
    fn int(&self, name: &str) -> Option<i64> {
        match self.0.get(name)? {
            A::I(v) => Some(*v),
            _ => None,
        }
    }
    fn ints(&self, name: &str) -> Option<Vec<i64>> {
        match self.0.get(name)? {
            A::Is(v) => Some(v.clone()),
            _ => None,
        }
    }
    fn float(&self, name: &str) -> Option<f32> {
        match self.0.get(name)? {
            A::F(v) => Some(*v),
            _ => None,
        }
    }
    fn floats(&self, _: &str) -> Option<Vec<f32>> {
        None
    }
    fn string(&self, name: &str) -> Option<String> {
        match self.0.get(name)? {
            A::S(v) => Some(v.to_string()),
            _ => None,
        }
    }
    fn strings(&self, _: &str) -> Option<Vec<String>> {
        None
    }
    fn tensor(&self, _: &str) -> Option<ConstTensor> {
        None
    }
    fn names(&self) -> Vec<String> {
        self.0.keys().cloned().collect()
    }
}

/// One input of a test node: a tensor, an i64 constant (axes), or absent.
pub enum In {
    T(Tensor),
    Ints(Vec<i64>),
    None,
}

/// Expands `op` through [`crate::ops::expand`] (so dispatch is tested too) and runs
/// the expansion in f64.
pub fn run_n(
    op: &str,
    opset: i64,
    inputs: Vec<In>,
    attrs: &Attrs,
    num_outputs: usize,
) -> Result<Vec<Tensor>, OpError> {
    run_mode(op, opset, inputs, attrs, num_outputs, Accumulate::F64)
}

/// [`run_n`] in a given interpreter mode.
pub fn run_mode(
    op: &str,
    opset: i64,
    inputs: Vec<In>,
    attrs: &Attrs,
    num_outputs: usize,
    mode: Accumulate,
) -> Result<Vec<Tensor>, OpError> {
    let types: Vec<Option<ValueType>> = inputs
        .iter()
        .map(|i| match i {
            In::T(t) => Some(ValueType {
                shape: t.shape.clone(),
                elem: Some(t.dtype),
            }),
            In::Ints(v) => Some(ValueType {
                shape: vec![v.len() as i64],
                elem: None,
            }),
            In::None => None,
        })
        .collect();
    let consts: Vec<Option<ConstTensor>> = inputs
        .iter()
        .map(|i| match i {
            In::Ints(v) => Some(ConstTensor {
                shape: vec![v.len() as i64],
                data: ConstData::I64(v.clone()),
            }),
            _ => None,
        })
        .collect();
    let op_inputs: Vec<Option<OpInput>> = types
        .iter()
        .zip(&consts)
        .map(|(t, c)| {
            t.as_ref().map(|ty| OpInput {
                ty,
                value: c.as_ref(),
            })
        })
        .collect();
    let info = NodeInfo {
        op_type: op,
        opset,
        num_outputs,
    };
    let exp = crate::ops::expand(info, &op_inputs, attrs).expect("op is dispatched")?;
    for step in &exp.steps {
        if let crate::ops::Step::Compute { compute, .. } = step {
            assert_text_round_trip(compute);
        }
    }
    assert_eq!(
        exp.outputs.len(),
        num_outputs,
        "{op}: one output per node output"
    );
    let tensors: Vec<Option<Tensor>> = inputs
        .into_iter()
        .map(|i| match i {
            In::T(t) => Some(t),
            _ => None,
        })
        .collect();
    Ok(eval_expansion(&exp, &tensors, mode).expect("expansion runs"))
}

/// Every stage prints in te's custom form and parses back to the same model (what the
/// importer emits must read back).
fn assert_text_round_trip(c: &TeCompute) {
    let names: Vec<String> = (0..c.inputs.len()).map(|i| format!("in{i}")).collect();
    let text = print_body(c, &names);
    let header = print_header(c);
    let back = parse_custom(&header_of(c), &text)
        .unwrap_or_else(|e| panic!("`{header} {{ {text} }}` does not parse: {e}"));
    assert_eq!(back.compute, *c, "{header} {{ {text} }}");
}

/// [`run_n`] with one output, unwrapped.
pub fn run(op: &str, opset: i64, inputs: Vec<In>, attrs: &Attrs) -> Tensor {
    match run_n(op, opset, inputs, attrs, 1) {
        Ok(mut v) => v.remove(0),
        Err(e) => panic!("{op}: {e}"),
    }
}

/// The error of an expansion that must fail.
pub fn run_err(op: &str, opset: i64, inputs: Vec<In>, attrs: &Attrs) -> String {
    match run_n(op, opset, inputs, attrs, 1) {
        Ok(_) => panic!("{op}: expected an error"),
        Err(e) => e.0,
    }
}

/// A random f32 tensor, uniform in [-1, 1).
pub fn rand(shape: &[i64], seed: u64) -> Tensor {
    Tensor::random(
        &TensorType::new(shape.to_vec(), ElemType::F32),
        &mut SplitMix64(seed),
    )
}

/// A random tensor of element type `t`.
pub fn rand_t(shape: &[i64], t: ElemType, seed: u64) -> Tensor {
    Tensor::random(&TensorType::new(shape.to_vec(), t), &mut SplitMix64(seed))
}

/// Checks shape and values within `tol` (absolute + relative).
pub fn assert_close(got: &Tensor, shape: &[i64], want: &[f64], tol: f64) {
    assert_eq!(got.shape, shape, "shape");
    assert_eq!(got.data.len(), want.len());
    for (i, (g, w)) in got.data.iter().zip(want).enumerate() {
        let ok = g == w || (g - w).abs() <= tol * (1.0 + w.abs()) || (g.is_nan() && w.is_nan());
        assert!(ok, "element {i}: got {g}, want {w}");
    }
}

/// Row-major strides.
pub fn strides(shape: &[i64]) -> Vec<i64> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The flat offset of `idx` in `shape`.
pub fn offset(shape: &[i64], idx: &[i64]) -> usize {
    strides(shape)
        .iter()
        .zip(idx)
        .map(|(s, i)| s * i)
        .sum::<i64>() as usize
}

/// Every index of `shape`, row-major.
pub fn indices(shape: &[i64]) -> Vec<Vec<i64>> {
    let n: i64 = shape.iter().product();
    (0..n)
        .map(|mut f| {
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = f % shape[d];
                f /= shape[d];
            }
            idx
        })
        .collect()
}
mod node_cases;
