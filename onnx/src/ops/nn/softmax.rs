//! Softmax and LogSoftmax (ONNX opsets 1/11/13): before opset 13 the input is coerced
//! to 2-D at `axis` (default 1) and normalized over the second dim; from opset 13 over
//! the one dim `axis` (default -1). Numerically stable: the maximum is subtracted
//! before `exp`.

use rtile::ir::affine::AffineExpr;
use rtile_dialects::te::model::{Combiner, UnOp};

use super::build::{Builder, Reads, Val, all_dims, div, sub, un};
use super::{Node, norm_axis};
use crate::ops::{Expansion, OpError};

/// The indices of a tensor of rank `rank` whose dim `axis` is the domain dim `red` and
/// whose other dims are the domain's parallel dims in order.
pub fn reduced_index(r: &Reads, rank: usize, axis: usize, red: usize) -> Vec<AffineExpr> {
    (0..rank)
        .map(|j| match j.cmp(&axis) {
            std::cmp::Ordering::Less => r.ax(j),
            std::cmp::Ordering::Equal => r.ax(red),
            std::cmp::Ordering::Greater => r.ax(j - 1),
        })
        .collect()
}

/// Softmax (or log-softmax) of `x` along `axis`: a max stage, a sum-of-exp stage and
/// the elementwise result.
pub fn softmax_along(b: &mut Builder, x: &Val, axis: usize, log: bool) -> Result<Val, OpError> {
    let shape = x.shape().to_vec();
    let rank = shape.len();
    let mut outer = shape.clone();
    let n = outer.remove(axis);
    let np = outer.len();
    let elem = x.elem();
    let mx = b.stage(&outer, &[n], Some(Combiner::Max), elem, |r| {
        let idx = reduced_index(r, rank, axis, np);
        r.read(x, idx, None)
    })?;
    let outer_dims: Vec<usize> = (0..np).collect();
    let s = b.stage(&outer, &[n], Some(Combiner::Sum), elem, |r| {
        let idx = reduced_index(r, rank, axis, np);
        let xv = r.read(x, idx, None);
        let mv = r.read_dims(&mx, &outer_dims);
        un(UnOp::Exp, sub(xv, mv))
    })?;
    let keep: Vec<usize> = (0..rank).filter(|&j| j != axis).collect();
    b.map(&shape, elem, |r| {
        let xv = r.read_dims(x, &all_dims(rank));
        let mv = r.read_dims(&mx, &keep);
        let sv = r.read_dims(&s, &keep);
        if log {
            sub(sub(xv, mv), un(UnOp::Log, sv))
        } else {
            div(un(UnOp::Exp, sub(xv, mv)), sv)
        }
    })
}

/// `Softmax` / `LogSoftmax`.
pub fn softmax(node: &Node) -> Result<Expansion, OpError> {
    node.check_attrs(&["axis"])?;
    let x = node.float_input(0)?;
    let log = node.op() == "LogSoftmax";
    let rank = x.rank();
    if rank == 0 {
        return Err(OpError("softmax of a scalar".into()));
    }
    let mut b = Builder::new();
    let y = if node.opset() >= 13 {
        let axis = norm_axis(node.int("axis", -1), rank, "axis")?;
        softmax_along(&mut b, &x, axis, log)?
    } else {
        let axis = node.int("axis", 1);
        // Opsets 1 and 11 accept axis in [-r, r]: axis = r makes the second dim 1.
        let r = rank as i64;
        if axis < -r || axis > r {
            return Err(OpError(format!(
                "axis {axis} is out of range for rank {rank}"
            )));
        }
        let axis = if axis < 0 { axis + r } else { axis } as usize;
        let rows: i64 = x.shape()[..axis].iter().product();
        let cols: i64 = x.shape()[axis..].iter().product();
        let x2 = b.reshape(&x, vec![rows, cols]);
        let y2 = softmax_along(&mut b, &x2, 1, log)?;
        b.reshape(&y2, x.shape().to_vec())
    };
    Ok(b.finish(vec![y]))
}
