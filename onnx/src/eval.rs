//! Evaluates an [`Expansion`] with the te reference interpreter: the operators' tests
//! and the importer's constant folding of float nodes both run expansions this way.

use crate::ops::{ConstData, ConstTensor, Expansion, Src, Step};
use rtile_dialects::te::model::ElemType;
use rtile_runtime::interp::{Accumulate, eval_compute};
use rtile_runtime::tensor::Tensor;

/// A constant as an interpreter tensor; `None` for element types te cannot hold (i64,
/// u8): those are shape values, never data of a te stage.
pub fn const_to_tensor(c: &ConstTensor) -> Option<Tensor> {
    let (dtype, data): (ElemType, Vec<f64>) = match &c.data {
        ConstData::F32(v) => (ElemType::F32, v.iter().map(|&x| x as f64).collect()),
        ConstData::F64(v) => (ElemType::F64, v.clone()),
        ConstData::F16(v) => (
            ElemType::F16,
            v.iter().map(|&b| f16_bits_to_f64(b)).collect(),
        ),
        ConstData::Bf16(v) => (
            ElemType::BF16,
            v.iter()
                .map(|&b| f32::from_bits((b as u32) << 16) as f64)
                .collect(),
        ),
        ConstData::I32(v) => (ElemType::I32, v.iter().map(|&x| x as f64).collect()),
        ConstData::I8(v) => (ElemType::I8, v.iter().map(|&x| x as f64).collect()),
        ConstData::Bool(v) => (ElemType::I1, v.iter().map(|&x| x as u8 as f64).collect()),
        ConstData::I64(_) | ConstData::U8(_) => return None,
    };
    Tensor::from_data(c.shape.clone(), dtype, data).ok()
}

/// IEEE half bits to f64 (exact).
pub fn f16_bits_to_f64(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((b >> 10) & 0x1f) as i32;
    let frac = (b & 0x3ff) as f64;
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Runs `exp` on the node's inputs (`None` for an absent optional input) and returns
/// its outputs. `mode` as [`eval_compute`]: `Native` rounds as a GPU does, `F64` is the
/// oracle.
pub fn eval_expansion(
    exp: &Expansion,
    inputs: &[Option<Tensor>],
    mode: Accumulate,
) -> Result<Vec<Tensor>, String> {
    let consts: Vec<Option<Tensor>> = exp.consts.iter().map(const_to_tensor).collect();
    let mut steps: Vec<Tensor> = Vec::with_capacity(exp.steps.len());
    let get = |src: Src, steps: &[Tensor]| -> Result<Tensor, String> {
        match src {
            Src::Input(i) => inputs
                .get(i)
                .cloned()
                .flatten()
                .ok_or_else(|| format!("input {i} is absent")),
            Src::Step(i) => steps
                .get(i)
                .cloned()
                .ok_or_else(|| format!("step {i} is used before it is computed")),
            Src::Const(i) => consts
                .get(i)
                .cloned()
                .flatten()
                .ok_or_else(|| format!("constant {i} is not a te tensor")),
        }
    };
    for step in &exp.steps {
        let t = match step {
            Step::Compute { compute, operands } => {
                let mut args = operands
                    .iter()
                    .map(|&s| get(s, &steps))
                    .collect::<Result<Vec<_>, _>>()?;
                // The oracle's stage results are f64 tensors; a later stage reads them
                // as its declared float type, keeping the f64 values (no rounding).
                if mode == Accumulate::F64 {
                    for (a, want) in args.iter_mut().zip(&compute.inputs) {
                        if a.dtype == ElemType::F64 && want.elem.is_float() {
                            a.dtype = want.elem;
                        }
                    }
                }
                eval_compute(compute, &args, mode)?
            }
            Step::Reshape { src, shape } => get(*src, &steps)?.reshaped(shape.clone())?,
        };
        steps.push(t);
    }
    exp.outputs.iter().map(|&s| get(s, &steps)).collect()
}
