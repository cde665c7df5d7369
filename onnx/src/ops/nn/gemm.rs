//! Gemm (ONNX opsets 6/7/9/11/13) and MatMul (1/9/13).

use rtile::ir::affine::AffineExpr;
use rtile_dialects::te::model::{Combiner, ElemType};

use super::Node;
use super::build::{Builder, Reads, Val, add, broadcast_index, k, mul};
use crate::ops::{Expansion, OpError};

fn check_numeric(v: &Val, i: usize) -> Result<(), OpError> {
    if v.elem() == ElemType::I1 {
        return Err(OpError(format!("input {i} is a boolean tensor")));
    }
    Ok(())
}

/// `Gemm`: `Y = alpha · A' · B' + beta · C` with `A' = transA ? Aᵀ : A` (M x K), `B'`
/// likewise (K x N), and the optional `C` broadcast unidirectionally to M x N.
pub fn gemm(node: &Node) -> Result<Expansion, OpError> {
    if node.opset() < 7 {
        // Opset 6's `broadcast` only permits what unidirectional broadcasting does.
        node.check_attrs(&["alpha", "beta", "broadcast", "transA", "transB"])?;
    } else {
        node.check_attrs(&["alpha", "beta", "transA", "transB"])?;
    }
    let a = node.input(0)?;
    let bm = node.input(1)?;
    check_numeric(&a, 0)?;
    let elem = a.elem();
    if a.rank() != 2 || bm.rank() != 2 || bm.elem() != elem {
        return Err(OpError(format!(
            "A {} and B {} must be matrices of one type",
            a.ty.text(),
            bm.ty.text()
        )));
    }
    let (ta, tb) = (node.int("transA", 0) != 0, node.int("transB", 0) != 0);
    let (m, ka) = if ta {
        (a.shape()[1], a.shape()[0])
    } else {
        (a.shape()[0], a.shape()[1])
    };
    let (kb, n) = if tb {
        (bm.shape()[1], bm.shape()[0])
    } else {
        (bm.shape()[0], bm.shape()[1])
    };
    if ka != kb {
        return Err(OpError(format!(
            "inner dimensions differ: A' is {m}x{ka}, B' is {kb}x{n}"
        )));
    }
    let (alpha, beta) = (node.float("alpha", 1.0), node.float("beta", 1.0));
    if !elem.is_float() && (alpha != 1.0 || beta != 1.0) {
        return Err(OpError(format!(
            "alpha {alpha} and beta {beta} on {} tensors (only 1.0 is supported)",
            elem.keyword()
        )));
    }
    let c = node.opt_input(2)?.filter(|_| beta != 0.0);
    if let Some(c) = &c {
        let ok = c.rank() <= 2
            && c.elem() == elem
            && c.shape()
                .iter()
                .rev()
                .zip([n, m])
                .all(|(&d, want)| d == 1 || d == want);
        if !ok {
            return Err(OpError(format!(
                "C {} does not broadcast to {m}x{n}",
                c.ty.text()
            )));
        }
    }
    let mut b = Builder::new();
    let p = b.stage(
        &[m, n],
        &[ka],
        Some(Combiner::Sum),
        elem,
        |r: &mut Reads| {
            let ai = if ta {
                vec![r.ax(2), r.ax(0)]
            } else {
                vec![r.ax(0), r.ax(2)]
            };
            let bi = if tb {
                vec![r.ax(1), r.ax(2)]
            } else {
                vec![r.ax(2), r.ax(1)]
            };
            let av = r.read(&a, ai, None);
            let bv = r.read(&bm, bi, None);
            mul(av, bv)
        },
    )?;
    if alpha == 1.0 && c.is_none() {
        return Ok(b.finish(vec![p]));
    }
    let y = b.map(&[m, n], elem, |r| {
        let pv = r.read_dims(&p, &[0, 1]);
        let mut y = if alpha == 1.0 {
            pv
        } else {
            mul(k(alpha, elem), pv)
        };
        if let Some(c) = &c {
            let cv = r.read(c, broadcast_index(c.shape(), 2), None);
            y = add(
                y,
                if beta == 1.0 {
                    cv
                } else {
                    mul(k(beta, elem), cv)
                },
            );
        }
        y
    })?;
    Ok(b.finish(vec![y]))
}

/// `MatMul` with numpy's semantics: a 1-D A is a row (`[1, K]`), a 1-D B a column
/// (`[K, 1]`), the added dim is dropped from the result; the batch dims broadcast.
pub fn matmul(node: &Node) -> Result<Expansion, OpError> {
    node.check_attrs(&[])?;
    let a = node.input(0)?;
    let bm = node.input(1)?;
    check_numeric(&a, 0)?;
    if a.elem() != bm.elem() {
        return Err(OpError(format!(
            "A {} and B {} have different element types",
            a.ty.text(),
            bm.ty.text()
        )));
    }
    let (ra, rb) = (a.rank(), bm.rank());
    if ra == 0 || rb == 0 {
        return Err(OpError("MatMul inputs must have rank 1 or more".into()));
    }
    let ka = a.shape()[ra - 1];
    let kb = if rb == 1 {
        bm.shape()[0]
    } else {
        bm.shape()[rb - 2]
    };
    if ka != kb {
        return Err(OpError(format!(
            "inner dimensions differ: A {} and B {}",
            a.ty.text(),
            bm.ty.text()
        )));
    }
    let a_batch = &a.shape()[..ra.saturating_sub(2)];
    let b_batch = &bm.shape()[..rb.saturating_sub(2)];
    let nb = a_batch.len().max(b_batch.len());
    let mut batch = vec![1; nb];
    for (i, out) in batch.iter_mut().enumerate() {
        let da = dim_from_right(a_batch, nb - 1 - i);
        let db = dim_from_right(b_batch, nb - 1 - i);
        *out = match (da, db) {
            (x, y) if x == y || y == 1 => x,
            (1, y) => y,
            (x, y) => {
                return Err(OpError(format!(
                    "batch dimensions {x} and {y} do not broadcast (A {}, B {})",
                    a.ty.text(),
                    bm.ty.text()
                )));
            }
        };
    }
    let mut par = batch.clone();
    if ra >= 2 {
        par.push(a.shape()[ra - 2]);
    }
    if rb >= 2 {
        par.push(bm.shape()[rb - 1]);
    }
    let np = par.len();
    let mut b = Builder::new();
    let y = b.stage(
        &par,
        &[ka],
        Some(Combiner::Sum),
        a.elem(),
        |r: &mut Reads| {
            let kk = r.ax(np);
            let mut ai = batch_index(a_batch, nb);
            if ra >= 2 {
                ai.extend([r.ax(nb), kk.clone()]);
            } else {
                ai.push(kk.clone());
            }
            let mut bi = batch_index(b_batch, nb);
            if rb >= 2 {
                bi.extend([kk, r.ax(np - 1)]);
            } else {
                bi.push(kk);
            }
            let av = r.read(&a, ai, None);
            let bv = r.read(&bm, bi, None);
            mul(av, bv)
        },
    )?;
    Ok(b.finish(vec![y]))
}

/// Dim `i` counted from the right (0 is the last), 1 past the front.
fn dim_from_right(shape: &[i64], i: usize) -> i64 {
    if i < shape.len() {
        shape[shape.len() - 1 - i]
    } else {
        1
    }
}

/// Indices of the batch dims `batch` right-aligned against `nb` result batch axes.
fn batch_index(batch: &[i64], nb: usize) -> Vec<AffineExpr> {
    // The batch axes are the domain's first `nb` dims.
    broadcast_index(batch, nb)
}
