//! `--tensor-padding{epsilon=...}` (Roller §3.1 "alignment with tensor shape", §4
//! "tensor padding"): pad each axis extent `N_i` to a multiple of the rTile size `S_i`
//! when `(S_i - N_i mod S_i) / N_i <= epsilon`.
//!
//! The padded compute keeps its original extents in `padded_from`: its result keeps the
//! original shape, and at a point beyond an axis's original extent every access using
//! that axis reads the compute's `may_pad` value. A compute without `may_pad` is refused.
//! Padding a reduction axis is refused too unless it provably changes nothing: every
//! access must use the axis (so all of them read the pad value there) and the body on
//! pad values must equal the combiner's identity (`0 * 0 = 0` for `te.sum`).

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId};
use rtile::pass::{Pass, PassStatistics};
use rtile_dialects::te::ir::compute_from_op;
use rtile_dialects::te::model::{BinOp, CmpOp, Combiner, Expr, TeCompute, UnOp};

use rtile_dialects::te::walk::compute_ops;

use crate::axis_fusion::replace_compute;

/// The attribute giving a compute's rTile shape, one size per axis.
pub const TILE_ATTR: &str = "rtile.tile";

rtile::declare_pass! {
    pass TensorPadding {
        flag: "tensor-padding",
        display_name: "TensorPadding",
        summary: "Pad te.compute extents to multiples of the rTile shape when the waste is at most epsilon (Roller §3.1)",
        description: "Pads each axis extent N of a te.compute to a multiple of its rTile size S when (S - N mod S) / N <= epsilon; the rTile comes from the compute's `rtile.tile` attribute, else the `tile` option.",
        options(opts: TensorPaddingOptions) {
            /// largest allowed padding waste per axis, (S - N mod S) / N
            epsilon: f64 = "0.25", "epsilon", check = check_epsilon;
            /// rTile shape for computes without an `rtile.tile` attribute (one size per axis, or one for all)
            tile: Vec<i64> = "", "tile";
        }
        statistics {
            NUM_PADDED: "num-padded-computes", "Number of te.compute ops whose domain was padded";
        }
    }
}

fn check_epsilon(e: &f64) -> Result<(), String> {
    if e.is_nan() || *e < 0.0 {
        return Err(format!("epsilon must be a non-negative number, got {e}"));
    }
    Ok(())
}

/// The `tensor-padding` pass: [`pad_compute`] on every `te.compute` that has an rTile
/// shape (its `rtile.tile` attribute, else the `tile` option).
#[derive(Default)]
pub struct TensorPadding {
    opts: TensorPaddingOptions,
}

impl Pass for TensorPadding {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let epsilon = self.opts.epsilon;
        let default_tile = self.opts.tile.clone();
        for c in compute_ops(ctx, op) {
            let tile = match ctx.attr(c, TILE_ATTR) {
                // The rTile is the `#rtile.tile<[...]>` of the rtile dialect: its shape has
                // one size per axis of the compute.
                Some(a) => rtile_dialects::rtile::TileAttr::from_attr(a)
                    .map(|t| t.shape.iter().map(|&s| s as i64).collect())
                    .map_err(|m| {
                        Diagnostic::op_error(
                            ctx,
                            c,
                            format!("expects `rtile.tile` to be a #rtile.tile<[...]>: {m}"),
                        )
                    })?,
                None if !default_tile.is_empty() => default_tile.clone(),
                None => continue,
            };
            if pad_op(ctx, c, &tile, epsilon)? {
                stats.add(Self::NUM_PADDED, 1);
            }
        }
        Ok(())
    }
}

/// Pads one `te.compute` op in place for the rTile shape `tile`; false when nothing
/// needed padding. A refusal is an error diagnostic on the op.
pub fn pad_op(ctx: &mut Context, op: OpId, tile: &[i64], epsilon: f64) -> Result<bool, Diagnostic> {
    let (c, values) = compute_from_op(ctx, op).map_err(|m| Diagnostic::op_error(ctx, op, m))?;
    // One size stands for every axis (handy for `tile=8` over a whole module).
    let tile: Vec<i64> = match tile {
        [s] => vec![*s; c.axes.len()],
        _ => tile.to_vec(),
    };
    let padded = pad_compute(&c, &tile, epsilon).map_err(|m| Diagnostic::op_error(ctx, op, m))?;
    if padded == c {
        return Ok(false);
    }
    replace_compute(ctx, op, &padded, &values)?;
    Ok(true)
}

// Keep the attribute type in scope for the doc link above.
/// The padded extent of one axis, or `None` when it is aligned or the waste exceeds
/// epsilon (Roller's rule: `(S - N % S) / N <= epsilon`).
pub fn padded_extent(n: i64, s: i64, epsilon: f64) -> Option<i64> {
    if n <= 0 || s <= 0 || n % s == 0 {
        return None;
    }
    let p = s - n % s;
    (p as f64 / n as f64 <= epsilon).then_some(n + p)
}

/// Evaluates a body whose every access reads `pad` (f64, no rounding).
fn eval_const(e: &Expr, pad: f64) -> f64 {
    match e {
        Expr::Access(_) => pad,
        Expr::Const(v, _) => *v,
        Expr::Binary(op, a, b) => {
            let (a, b) = (eval_const(a, pad), eval_const(b, pad));
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                BinOp::Max => {
                    if a.is_nan() || b.is_nan() {
                        f64::NAN
                    } else {
                        a.max(b)
                    }
                }
                BinOp::Min => {
                    if a.is_nan() || b.is_nan() {
                        f64::NAN
                    } else {
                        a.min(b)
                    }
                }
                BinOp::Pow => a.powf(b),
            }
        }
        Expr::Unary(op, a) => {
            let a = eval_const(a, pad);
            match op {
                UnOp::Neg => -a,
                UnOp::Exp => a.exp(),
                UnOp::Log => a.ln(),
                UnOp::Sqrt => a.sqrt(),
                UnOp::Rsqrt => 1.0 / a.sqrt(),
                UnOp::Tanh => a.tanh(),
                // Only the sign matters for the identity test below, and erf(0) = 0.
                UnOp::Erf => {
                    if a == 0.0 {
                        a
                    } else {
                        f64::NAN
                    }
                }
                UnOp::Abs => a.abs(),
            }
        }
        Expr::Cmp(c, a, b) => f64::from(u8::from(CmpOp::eval(
            *c,
            eval_const(a, pad),
            eval_const(b, pad),
        ))),
        Expr::Select(c, a, b) => {
            if eval_const(c, pad) != 0.0 {
                eval_const(a, pad)
            } else {
                eval_const(b, pad)
            }
        }
        // Casts of the identity values (0, 1, ±inf) are exact or change them visibly.
        Expr::Cast(t, a) => {
            let v = eval_const(a, pad);
            if t.is_float() { v } else { v.trunc() }
        }
    }
}

/// Pads a compute for an rTile shape (`tile[i]` for axis `i`). Returns the compute
/// unchanged when no axis needs padding.
pub fn pad_compute(c: &TeCompute, tile: &[i64], epsilon: f64) -> Result<TeCompute, String> {
    if tile.len() != c.axes.len() {
        return Err(format!(
            "the rTile has {} sizes for {} axes",
            tile.len(),
            c.axes.len()
        ));
    }
    if epsilon.is_nan() || epsilon < 0.0 {
        return Err(format!(
            "epsilon must be a non-negative number, got {epsilon}"
        ));
    }
    let new: Vec<Option<i64>> = c
        .axes
        .iter()
        .zip(tile)
        .map(|(a, &s)| padded_extent(a.extent, s, epsilon))
        .collect();
    if new.iter().all(Option::is_none) {
        return Ok(c.clone());
    }
    let Some(mp) = c.may_pad else {
        let which: Vec<String> = c
            .axes
            .iter()
            .zip(&new)
            .filter(|(_, n)| n.is_some())
            .map(|(a, _)| format!("%{}", a.name))
            .collect();
        return Err(format!(
            "cannot pad {} to the rTile: the compute does not allow padding (declare `may_pad <value>`)",
            which.join(", ")
        ));
    };
    let np = c.num_parallel();
    for (d, (a, n)) in c.axes.iter().zip(&new).enumerate() {
        if n.is_none() || d < np {
            continue;
        }
        if let Some(i) = c
            .accesses
            .iter()
            .position(|acc| !acc.map.results.iter().any(|e| e.uses_dim(d as u32)))
        {
            return Err(format!(
                "cannot pad reduction axis %{}: access #{i} does not use it, so padded points would read real data",
                a.name
            ));
        }
        let k = c.combiner.unwrap_or(Combiner::Sum);
        let v = eval_const(&c.body, mp.value);
        let id = k.identity(c.acc_type());
        if v != id {
            return Err(format!(
                "cannot pad reduction axis %{}: the body on the pad value {} gives {v}, not te.{}'s identity {id}",
                a.name,
                mp.value,
                k.keyword()
            ));
        }
    }
    let mut out = c.clone();
    let orig = c.valid_extents();
    for (a, n) in out.axes.iter_mut().zip(&new) {
        if let Some(n) = n {
            a.extent = *n;
        }
    }
    out.padded_from = Some(orig);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile_dialects::te::expr::{CustomHeader, parse_custom};
    use rtile_dialects::te::model::{ElemType, TensorType};
    use rtile_dialects::te::verify::verify;

    fn matmul(m: i64, n: i64, k: i64, may_pad: Option<f64>) -> TeCompute {
        let h = CustomHeader {
            parallel: vec!["m".into(), "n".into()],
            reduction: vec!["k".into()],
            extents: vec![m, n, k],
            input_types: vec![
                TensorType::new(vec![m, k], ElemType::F32),
                TensorType::new(vec![k, n], ElemType::F32),
            ],
            result: TensorType::new(vec![m, n], ElemType::F32),
            may_pad,
            padded_from: None,
            accumulator: None,
        };
        parse_custom(&h, "te.sum(%A[%m, %k] * %B[%k, %n])")
            .expect("parse")
            .compute
    }

    #[test]
    fn roller_rule() {
        assert_eq!(padded_extent(30, 32, 0.1), Some(32));
        assert_eq!(padded_extent(30, 64, 0.1), None);
        assert_eq!(padded_extent(30, 64, 2.0), Some(64));
        assert_eq!(padded_extent(64, 32, 0.0), None);
        assert_eq!(padded_extent(17, 8, 7.0 / 17.0), Some(24));
    }

    #[test]
    fn pads_matmul() {
        let c = matmul(30, 17, 13, Some(0.0));
        let p = pad_compute(&c, &[8, 8, 8], 1.0).expect("pads");
        assert_eq!(p.extents(), vec![32, 24, 16]);
        assert_eq!(p.padded_from, Some(vec![30, 17, 13]));
        assert_eq!(p.result.shape, vec![30, 17]);
        verify(&p).expect("padded verifies");
    }

    #[test]
    fn refuses_without_permission() {
        let c = matmul(30, 17, 13, None);
        let e = pad_compute(&c, &[8, 8, 8], 1.0).unwrap_err();
        assert!(e.contains("does not allow padding"), "{e}");
        // Aligned: nothing to do, no refusal.
        let c = matmul(32, 16, 8, None);
        assert_eq!(pad_compute(&c, &[8, 8, 8], 1.0).expect("noop"), c);
    }

    #[test]
    fn refuses_non_identity_reduction_pad() {
        let mut c = matmul(4, 4, 13, Some(1.0));
        let e = pad_compute(&c, &[4, 4, 8], 1.0).unwrap_err();
        assert!(e.contains("identity"), "{e}");
        // Padding only parallel axes is fine with any value.
        c.axes[0].extent = 4;
        assert!(pad_compute(&matmul(3, 4, 16, Some(1.0)), &[4, 4, 8], 1.0).is_ok());
    }
}
