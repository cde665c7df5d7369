//! `--fold-reshapes`: a `te.compute` that reads a `tensor.collapse_shape` or
//! `tensor.expand_shape` of another compute's result reads that result directly, through
//! the reshape's index map; reshapes left without users are erased.
//!
//! Why: Welder schedules the operator graph with reshapes as views between operators
//! (§3.1 propagates tiles through them), and TVM inlines such injective views into their
//! consumers. A reshape between two computes otherwise keeps them in separate kernels:
//! `--connect` fuses computes, and the lowering has no stage for a view inside a fused
//! kernel. Folded, the edge joins the two computes and `--connect` may connect it in
//! registers or shared memory. ONNX models (`Reshape`, `Flatten`, the heads of attention)
//! and `--axis-fusion`'s own reshapes put reshapes between computes.
//!
//! The read of a collapse's result `r` becomes `(r floordiv strideₖ) mod sizeₖ` for each
//! source dim `k` of its group; an expand's becomes `Σ strideⱼ · rⱼ` over its group
//! (row-major). Each index is then simplified over the consumer's domain
//! ([`simplify_in_domain`]), so that an expand read through a collapse, and a collapse of
//! whole rows, give plain affine indices back.
//!
//! Left as they are: reshapes of function arguments and constants (a view of an input
//! costs nothing and an affine read of it suits the construction better than a `floordiv`
//! one), reads with a pad value (their bounds are those of the reshaped tensor), and
//! reshapes with users other than computes.

use rtile::diagnostics::Diagnostic;
use rtile::ir::affine::{AffineExpr, AffineMap};
use rtile::ir::affine_bounds::simplify_in_domain;
use rtile::ir::{Context, OpId, Rewriter, Value};
use rtile::pass::{Pass, PassStatistics};
use rtile_dialects::te::ir::{COMPUTE, compute_from_op};
use rtile_dialects::te::model::{Access, TensorType};
use rtile_dialects::te::walk::compute_ops;
use rtile_dialects::tensor::{COLLAPSE, EXPAND, reassociation_of};

use crate::axis_fusion::replace_compute;

/// The `fold-reshapes` pass.
pub struct FoldReshapes;

rtile::declare_pass! {
    pass FoldReshapes {
        flag: "fold-reshapes",
        display_name: "FoldReshapes",
        summary: "Fold tensor reshapes between te.computes into the consumers' index maps",
        description: "A te.compute that reads a tensor.collapse_shape or tensor.expand_shape of another te.compute's result reads that result directly, through floordiv/mod (collapse) or a row-major sum (expand), simplified over its domain; unused reshapes are erased. Lets --connect fuse across reshapes.",
        statistics {
            NUM_FOLDED_READS: "num-folded-reads", "Number of te.compute operands that now read through a reshape";
            NUM_ERASED_RESHAPES: "num-erased-reshapes", "Number of reshapes erased once unused";
        }
    }
}

impl Pass for FoldReshapes {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        for c in compute_ops(ctx, op) {
            let folded = fold_op(ctx, c)?;
            stats.add(Self::NUM_FOLDED_READS, folded as u64);
        }
        let mut reshapes = Vec::new();
        ctx.walk(op, rtile::ir::WalkOrder::PostOrder, &mut |_, o| {
            if matches!(ctx.op_name(o), COLLAPSE | EXPAND) {
                reshapes.push(o);
            }
        });
        // Post-order, reversed: a reshape's users come before it, so a chain of dead
        // reshapes goes in one sweep.
        for r in reshapes.into_iter().rev() {
            if ctx.uses(ctx.result(r, 0)).is_empty() {
                Rewriter::new(ctx)
                    .erase_op(r)
                    .map_err(|e| Diagnostic::op_error(ctx, r, format!("internal error: {e}")))?;
                stats.add(Self::NUM_ERASED_RESHAPES, 1);
            }
        }
        Ok(())
    }
}

/// A reshape read: the reshaped value, and each of its dims as an index expression over
/// the reshape result's dims.
struct ReshapeRead {
    source: Value,
    source_type: TensorType,
    index: Vec<AffineExpr>,
}

/// The reshape defining `v`, when its source is a compute's result (through any chain of
/// reshapes) and its shapes are static.
fn reshape_read(ctx: &Context, v: Value) -> Option<ReshapeRead> {
    let op = ctx.defining_op(v)?;
    let name = ctx.op_name(op);
    if name != COLLAPSE && name != EXPAND {
        return None;
    }
    let source = *ctx.operands(op).first()?;
    if !produced_by_compute(ctx, source) {
        return None;
    }
    let source_type = TensorType::from_type(ctx.value_type(source))?;
    let result = TensorType::from_type(ctx.value_type(v))?;
    let groups = ctx
        .inherent_attr(op, "reassociation")
        .and_then(reassociation_of)?;
    let index = if name == EXPAND {
        expand_index(&groups, &result.shape)
    } else {
        collapse_index(&groups, &source_type.shape)
    }?;
    (index.len() == source_type.shape.len()).then_some(ReshapeRead {
        source,
        source_type,
        index,
    })
}

fn produced_by_compute(ctx: &Context, v: Value) -> bool {
    match ctx.defining_op(v) {
        Some(o) if ctx.op_name(o) == COMPUTE => true,
        Some(o) if matches!(ctx.op_name(o), COLLAPSE | EXPAND) => ctx
            .operands(o)
            .first()
            .is_some_and(|&s| produced_by_compute(ctx, s)),
        _ => false,
    }
}

/// An expand's reads: source dim `g` is `Σ strideⱼ · dⱼ` over group `g`'s result dims.
fn expand_index(groups: &[Vec<usize>], out: &[i64]) -> Option<Vec<AffineExpr>> {
    groups
        .iter()
        .map(|g| {
            let mut e = AffineExpr::constant(0);
            let mut stride = 1i64;
            for &j in g.iter().rev() {
                let term = AffineExpr::mul(
                    AffineExpr::dim(u32::try_from(j).ok()?),
                    AffineExpr::constant(stride),
                );
                e = AffineExpr::add(term, e);
                stride = stride.checked_mul(*out.get(j)?)?;
            }
            Some(e)
        })
        .collect()
}

/// A collapse's reads: source dim `k` of group `r` is `(d_r floordiv strideₖ) mod sizeₖ`
/// (no `mod` for the group's first dim).
fn collapse_index(groups: &[Vec<usize>], src: &[i64]) -> Option<Vec<AffineExpr>> {
    let mut idx = vec![None; src.len()];
    for (r, g) in groups.iter().enumerate() {
        let r = AffineExpr::dim(u32::try_from(r).ok()?);
        let mut stride = 1i64;
        for &k in g.iter().rev() {
            let q = AffineExpr::floordiv(r.clone(), AffineExpr::constant(stride));
            let size = *src.get(k)?;
            *idx.get_mut(k)? = Some(if k == g[0] {
                q
            } else {
                AffineExpr::rem(q, AffineExpr::constant(size))
            });
            stride = stride.checked_mul(size)?;
        }
    }
    idx.into_iter().collect()
}

/// `e` with dim `i` replaced by `by[i]`; `None` when `e` uses a dim past `by`.
fn compose(e: &AffineExpr, by: &[AffineExpr]) -> Option<AffineExpr> {
    let c = |x: &AffineExpr| compose(x, by);
    Some(match e {
        AffineExpr::Dim(d) => by.get(*d as usize)?.clone(),
        AffineExpr::Symbol(_) | AffineExpr::Constant(_) => e.clone(),
        AffineExpr::Add(a, b) => AffineExpr::add(c(a)?, c(b)?),
        AffineExpr::Mul(a, b) => AffineExpr::mul(c(a)?, c(b)?),
        AffineExpr::FloorDiv(a, b) => AffineExpr::floordiv(c(a)?, c(b)?),
        AffineExpr::CeilDiv(a, b) => AffineExpr::ceildiv(c(a)?, c(b)?),
        AffineExpr::Mod(a, b) => AffineExpr::rem(c(a)?, c(b)?),
    })
}

/// The maps of `accesses` read through `r`, or `None` when one does not compose.
fn read_through(accesses: &[&Access], r: &ReshapeRead, extents: &[i64]) -> Option<Vec<AffineMap>> {
    accesses
        .iter()
        .map(|a| {
            let results = r
                .index
                .iter()
                .map(|e| Some(simplify_in_domain(&compose(e, &a.map.results)?, extents)))
                .collect::<Option<Vec<_>>>()?;
            Some(AffineMap::new(a.map.num_dims, a.map.num_symbols, results))
        })
        .collect()
}

/// Folds the reshapes `op` reads (repeatedly, for chains) and rebuilds it; returns how
/// many of its inputs now read through one.
fn fold_op(ctx: &mut Context, op: OpId) -> Result<usize, Diagnostic> {
    let (mut c, mut values) =
        compute_from_op(ctx, op).map_err(|m| Diagnostic::op_error(ctx, op, m))?;
    let extents = c.extents();
    let mut folded = 0;
    for (i, value) in values.iter_mut().enumerate() {
        let padded = c.accesses.iter().any(|a| a.input == i && a.pad.is_some());
        let mut through = false;
        while !padded && let Some(r) = reshape_read(ctx, *value) {
            let reads: Vec<&Access> = c.accesses.iter().filter(|a| a.input == i).collect();
            let Some(maps) = read_through(&reads, &r, &extents) else {
                break;
            };
            let mut maps = maps.into_iter();
            for a in c.accesses.iter_mut().filter(|a| a.input == i) {
                a.map = maps.next().unwrap_or_else(|| a.map.clone());
            }
            c.inputs[i] = r.source_type;
            *value = r.source;
            through = true;
        }
        folded += usize::from(through);
    }
    if folded > 0 {
        replace_compute(ctx, op, &c, &values)?;
    }
    Ok(folded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reshape_index_maps() {
        // 8x16 -> 128: d0 floordiv 16, d0 mod 16.
        let c = collapse_index(&[vec![0, 1]], &[8, 16]).unwrap();
        assert_eq!(c[0].eval(&[37], &[]), Some(2));
        assert_eq!(c[1].eval(&[37], &[]), Some(5));
        // 128 -> 8x16: d0 * 16 + d1.
        let e = expand_index(&[vec![0, 1]], &[8, 16]).unwrap();
        assert_eq!(e[0].eval(&[2, 5], &[]), Some(37));
        // 4x5x6 -> 20x6.
        let c = collapse_index(&[vec![0, 1], vec![2]], &[4, 5, 6]).unwrap();
        let at: Vec<_> = c.iter().map(|x| x.eval(&[13, 4], &[]).unwrap()).collect();
        assert_eq!(at, vec![2, 3, 4]);
    }
}
