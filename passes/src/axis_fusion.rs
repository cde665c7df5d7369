//! `--axis-fusion` (Roller §3.2, "irregular tensor shape"): merge two adjacent axes of a
//! `te.compute` when, for every tensor involved (each input and the result), the two
//! axes are either both present and still adjacent, or both absent.
//!
//! The rule is applied exactly, and conservatively:
//! - only two parallel or two reduction axes that are adjacent in the domain;
//! - "present" means the axis is a plain index `%a` at one position of the tensor and
//!   nowhere else in its indices (a strided, offset or repeated use blocks fusion);
//! - present axes must sit at positions `j`, `j + 1` in that order, with the tensor's
//!   extents equal to the axes' extents (so the merged index is the row-major one);
//! - all accesses of one tensor must agree (one reshape per tensor);
//! - axes of a padded domain fuse only where neither was padded.
//!
//! Fusing renames the pair `%a`, `%b` to `%a_b` with extent `E_a * E_b`; each tensor that
//! has the pair merges the two dimensions (the IR wrapper inserts `tensor.collapse_shape`
//! on inputs and `tensor.expand_shape` on the result, from the reassociations returned).
//! Row-major order is preserved, so results are bit-identical.

use rtile::diagnostics::Diagnostic;
use rtile::ir::affine::{AffineExpr, AffineMap};
use rtile::ir::{Builder, Context, NamedAttribute, OpId, OperationState, Rewriter, Value};
use rtile::pass::{Pass, PassStatistics};
use rtile_dialects::te::dialect::HEADER_ATTRS;
use rtile_dialects::te::ir::{build_compute_op, compute_from_op};
use rtile_dialects::te::model::TeCompute;
use rtile_dialects::te::walk::compute_ops;
use rtile_dialects::tensor::reshape_state;

/// The `axis-fusion` pass: [`fuse_axes`] on every `te.compute`, with
/// `tensor.collapse_shape` on the inputs and `tensor.expand_shape` on the result.
pub struct AxisFusion;

rtile::declare_pass! {
    pass AxisFusion {
        flag: "axis-fusion",
        display_name: "AxisFusion",
        summary: "Fuse adjacent te.compute axes that every tensor uses together (Roller §3.2)",
        description: "Merges two adjacent parallel or reduction axes of a te.compute when every tensor has them adjacent or not at all; reshapes the tensors with tensor.collapse_shape/expand_shape.",
        statistics {
            NUM_FUSED_COMPUTES: "num-fused-computes", "Number of te.compute ops whose axes were fused";
            NUM_FUSED_AXES: "num-fused-axes", "Number of axes removed by fusion";
        }
    }
}

impl Pass for AxisFusion {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        for c in compute_ops(ctx, op) {
            let removed = fuse_op(ctx, c)?;
            if removed > 0 {
                stats.add(Self::NUM_FUSED_COMPUTES, 1);
                stats.add(Self::NUM_FUSED_AXES, removed as u64);
            }
        }
        Ok(())
    }
}

/// The attributes of `op` a rewritten compute keeps: everything but the te header's,
/// and but `drop`.
pub fn extra_attrs(ctx: &Context, op: OpId, drop: &[&str]) -> Vec<NamedAttribute> {
    ctx.op(op)
        .attributes
        .iter()
        .filter(|a| !HEADER_ATTRS.contains(&a.name.as_str()) && !drop.contains(&a.name.as_str()))
        .cloned()
        .collect()
}

/// Creates `st` before `anchor`, at `anchor`'s location (and source span, so
/// diagnostics on the new op point where the old one was written).
pub fn create_before(ctx: &mut Context, anchor: OpId, mut st: OperationState) -> OpId {
    st.location = ctx.op(anchor).location.clone();
    st.span = ctx.op(anchor).span;
    let mut b = Builder::new(ctx);
    b.set_insertion_point(anchor);
    b.create(st)
}

/// Replaces `op`'s results with `values` and erases it; a refusal (a result still used
/// elsewhere) is an error on the op.
pub fn replace_op(ctx: &mut Context, op: OpId, values: &[Value]) -> Result<(), Diagnostic> {
    let r = Rewriter::new(ctx).replace_op(op, values);
    r.map_err(|e| Diagnostic::op_error(ctx, op, format!("internal error: {e}")))
}

/// Replaces the compute `op` by one of model `c` reading `values`, with `op`'s attributes
/// other than te's own (the rewrite of `--tensor-padding` and `--fold-reshapes`).
pub fn replace_compute(
    ctx: &mut Context,
    op: OpId,
    c: &TeCompute,
    values: &[Value],
) -> Result<(), Diagnostic> {
    let mut st = build_compute_op(ctx, c, values);
    for a in extra_attrs(ctx, op, &[]) {
        st.add_attribute(a.name, a.value);
    }
    let new = create_before(ctx, op, st);
    let out = ctx.result(new, 0);
    replace_op(ctx, op, &[out])
}

/// Fuses the axes of one `te.compute` op in place; returns how many axes went away.
pub fn fuse_op(ctx: &mut Context, op: OpId) -> Result<usize, Diagnostic> {
    let (c, values) = compute_from_op(ctx, op).map_err(|m| Diagnostic::op_error(ctx, op, m))?;
    let f = fuse_axes(&c);
    let removed = c.axes.len() - f.compute.axes.len();
    if removed == 0 {
        return Ok(0);
    }
    let identity = |g: &[Vec<usize>]| g.iter().all(|x| x.len() == 1);
    let mut inputs = Vec::new();
    for (i, &v) in values.iter().enumerate() {
        let groups = &f.input_reassociation[i];
        if identity(groups) {
            inputs.push(v);
            continue;
        }
        let st = reshape_state(false, v, f.compute.inputs[i].to_type(), groups);
        let r = create_before(ctx, op, st);
        inputs.push(ctx.result(r, 0));
    }
    let mut st = build_compute_op(ctx, &f.compute, &inputs);
    // An rTile shape is per axis: it no longer applies to the fused domain.
    for a in extra_attrs(ctx, op, &["rtile.tile"]) {
        st.add_attribute(a.name, a.value);
    }
    let new = create_before(ctx, op, st);
    let mut out = ctx.result(new, 0);
    if !identity(&f.result_reassociation) {
        let st = reshape_state(true, out, c.result.to_type(), &f.result_reassociation);
        let r = create_before(ctx, op, st);
        out = ctx.result(r, 0);
    }
    replace_op(ctx, op, &[out])?;
    Ok(removed)
}

/// The fused compute and how old dims map to new ones.
#[derive(Clone, Debug, PartialEq)]
pub struct Fusion {
    pub compute: TeCompute,
    /// For each new axis, the old axes it merges (in order).
    pub axis_groups: Vec<Vec<usize>>,
    /// For each input, the reassociation of its old dims into new ones
    /// (`tensor.collapse_shape`'s `[[0, 1], [2]]`).
    pub input_reassociation: Vec<Vec<Vec<usize>>>,
    /// The same for the result (`tensor.expand_shape` back to the original shape).
    pub result_reassociation: Vec<Vec<usize>>,
}

/// Where axis `d` occurs in one map: absent, a plain index at one position, or anything
/// else (strided, offset, repeated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Occ {
    Absent,
    At(usize),
    Blocked,
}

fn occurrence(m: &AffineMap, d: u32) -> Occ {
    let mut occ = Occ::Absent;
    for (j, e) in m.results.iter().enumerate() {
        if !e.uses_dim(d) {
            continue;
        }
        if *e != AffineExpr::Dim(d) || occ != Occ::Absent {
            return Occ::Blocked;
        }
        occ = Occ::At(j);
    }
    occ
}

/// Status of the pair in one tensor: `None` blocks fusion, `Some(None)` both absent,
/// `Some(Some(j))` present at `j`, `j + 1`.
fn pair_status(m: &AffineMap, shape: &[i64], i: usize, ext: (i64, i64)) -> Option<Option<usize>> {
    match (occurrence(m, i as u32), occurrence(m, i as u32 + 1)) {
        (Occ::Absent, Occ::Absent) => Some(None),
        (Occ::At(j), Occ::At(k)) if k == j + 1 && shape[j] == ext.0 && shape[k] == ext.1 => {
            Some(Some(j))
        }
        _ => None,
    }
}

/// True when axes `i` and `i + 1` may be fused.
pub fn can_fuse(c: &TeCompute, i: usize) -> bool {
    pair_position(c, i).is_some()
}

/// Per input, the position `j` of the pair (or `None` when absent), if fusable.
fn pair_position(c: &TeCompute, i: usize) -> Option<Vec<Option<usize>>> {
    let (a, b) = (c.axes.get(i)?, c.axes.get(i + 1)?);
    if a.kind != b.kind {
        return None;
    }
    if let Some(orig) = &c.padded_from
        && (orig[i] != a.extent || orig[i + 1] != b.extent)
    {
        return None;
    }
    let ext = (a.extent, b.extent);
    // The result: parallel axes are its dims in order; reduction axes are absent.
    if i < c.num_parallel() && (c.result.shape[i] != ext.0 || c.result.shape[i + 1] != ext.1) {
        return None;
    }
    let mut per_input: Vec<Option<Option<usize>>> = vec![None; c.inputs.len()];
    for acc in &c.accesses {
        let shape = &c.inputs.get(acc.input)?.shape;
        let st = pair_status(&acc.map, shape, i, ext)?;
        match &per_input[acc.input] {
            None => per_input[acc.input] = Some(st),
            Some(prev) if *prev == st => {}
            Some(_) => return None,
        }
    }
    Some(per_input.into_iter().map(|s| s.flatten()).collect())
}

/// Renumbers dims after fusing `i` and `i + 1` into `i`.
fn renumber(e: &AffineExpr, i: u32) -> AffineExpr {
    let r = |x: &AffineExpr| renumber(x, i);
    match e {
        AffineExpr::Dim(d) if *d > i => AffineExpr::Dim(d - 1),
        AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Constant(_) => e.clone(),
        AffineExpr::Add(a, b) => AffineExpr::add(r(a), r(b)),
        AffineExpr::Mul(a, b) => AffineExpr::mul(r(a), r(b)),
        AffineExpr::FloorDiv(a, b) => AffineExpr::floordiv(r(a), r(b)),
        AffineExpr::CeilDiv(a, b) => AffineExpr::ceildiv(r(a), r(b)),
        AffineExpr::Mod(a, b) => AffineExpr::rem(r(a), r(b)),
    }
}

fn merge_groups(groups: &mut Vec<Vec<usize>>, j: usize) {
    let next = groups.remove(j + 1);
    groups[j].extend(next);
}

/// Fuses one pair; `None` when the rule forbids it.
pub fn fuse_pair(f: &Fusion, i: usize) -> Option<Fusion> {
    let c = &f.compute;
    let positions = pair_position(c, i)?;
    let mut out = f.clone();
    let n = &mut out.compute;
    let b = n.axes.remove(i + 1);
    n.axes[i].name = format!("{}_{}", n.axes[i].name, b.name);
    n.axes[i].extent *= b.extent;
    if let Some(orig) = &mut n.padded_from {
        let ob = orig.remove(i + 1);
        orig[i] *= ob;
    }
    for (k, pos) in positions.iter().enumerate() {
        if let Some(j) = *pos {
            let s = n.inputs[k].shape.remove(j + 1);
            n.inputs[k].shape[j] *= s;
            merge_groups(&mut out.input_reassociation[k], j);
        }
    }
    for acc in &mut n.accesses {
        if let Some(j) = positions[acc.input] {
            acc.map.results.remove(j + 1);
        }
        acc.map.num_dims -= 1;
        acc.map.results = acc
            .map
            .results
            .iter()
            .map(|e| renumber(e, i as u32))
            .collect();
    }
    if i < c.num_parallel() {
        let s = n.result.shape.remove(i + 1);
        n.result.shape[i] *= s;
        merge_groups(&mut out.result_reassociation, i);
    }
    merge_groups(&mut out.axis_groups, i);
    Some(out)
}

/// The identity fusion of a compute (nothing merged).
pub fn unfused(c: &TeCompute) -> Fusion {
    Fusion {
        compute: c.clone(),
        axis_groups: (0..c.axes.len()).map(|i| vec![i]).collect(),
        input_reassociation: c
            .inputs
            .iter()
            .map(|t| (0..t.shape.len()).map(|j| vec![j]).collect())
            .collect(),
        result_reassociation: (0..c.result.shape.len()).map(|j| vec![j]).collect(),
    }
}

/// Fuses adjacent axes left to right until no pair qualifies.
pub fn fuse_axes(c: &TeCompute) -> Fusion {
    let mut f = unfused(c);
    let mut i = 0;
    while i + 1 < f.compute.axes.len() {
        match fuse_pair(&f, i) {
            Some(g) => f = g,
            None => i += 1,
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile_dialects::te::expr::{CustomHeader, parse_custom};
    use rtile_dialects::te::model::{ElemType, TensorType};
    use rtile_dialects::te::verify::verify;

    fn t(shape: &[i64]) -> TensorType {
        TensorType::new(shape.to_vec(), ElemType::F32)
    }

    fn compute(
        par: &[&str],
        red: &[&str],
        ext: &[i64],
        ins: &[&[i64]],
        out: &[i64],
        body: &str,
    ) -> TeCompute {
        let h = CustomHeader {
            parallel: par.iter().map(|s| s.to_string()).collect(),
            reduction: red.iter().map(|s| s.to_string()).collect(),
            extents: ext.to_vec(),
            input_types: ins.iter().map(|s| t(s)).collect(),
            result: t(out),
            may_pad: None,
            padded_from: None,
            accumulator: None,
        };
        let c = parse_custom(&h, body).expect("parse").compute;
        verify(&c).expect("verify");
        c
    }

    #[test]
    fn paper_example_elementwise() {
        let c = compute(
            &["a", "b", "c"],
            &[],
            &[17, 11, 3],
            &[&[17, 11, 3]],
            &[17, 11, 3],
            "max(%I[%a, %b, %c], 0.0)",
        );
        let f = fuse_axes(&c);
        assert_eq!(f.compute.extents(), vec![561]);
        assert_eq!(f.compute.inputs[0].shape, vec![561]);
        assert_eq!(f.compute.result.shape, vec![561]);
        assert_eq!(f.input_reassociation[0], vec![vec![0, 1, 2]]);
        verify(&f.compute).expect("fused verifies");
    }

    #[test]
    fn matmul_does_not_fuse() {
        let c = compute(
            &["m", "n"],
            &["k"],
            &[4, 5, 6],
            &[&[4, 6], &[6, 5]],
            &[4, 5],
            "te.sum(%A[%m, %k] * %B[%k, %n])",
        );
        assert_eq!(fuse_axes(&c).compute, c);
    }

    #[test]
    fn batch_matmul_batch_axes_fuse() {
        let c = compute(
            &["b", "h", "m", "n"],
            &["k"],
            &[2, 3, 4, 5, 6],
            &[&[2, 3, 4, 6], &[2, 3, 6, 5]],
            &[2, 3, 4, 5],
            "te.sum(%A[%b, %h, %m, %k] * %B[%b, %h, %k, %n])",
        );
        let f = fuse_axes(&c);
        assert_eq!(f.compute.extents(), vec![6, 4, 5, 6]);
        assert_eq!(f.axis_groups, vec![vec![0, 1], vec![2], vec![3], vec![4]]);
        verify(&f.compute).expect("verifies");
    }

    #[test]
    fn reduce_two_inner_axes_fuse() {
        let c = compute(
            &["n", "c"],
            &["h", "w"],
            &[2, 3, 5, 7],
            &[&[2, 3, 5, 7]],
            &[2, 3],
            "te.sum(%I[%n, %c, %h, %w])",
        );
        let f = fuse_axes(&c);
        assert_eq!(f.compute.extents(), vec![6, 35]);
    }

    #[test]
    fn broadcast_and_strides_block() {
        // Bias broadcast over h: c present, h absent in %B -> (c, h) cannot fuse; (n, c)
        // cannot either because n is absent from %B while c is present.
        let c = compute(
            &["n", "c", "h"],
            &[],
            &[2, 3, 5],
            &[&[2, 3, 5], &[3]],
            &[2, 3, 5],
            "%I[%n, %c, %h] + %B[%c]",
        );
        assert_eq!(fuse_axes(&c).compute, c);
        // A strided use blocks.
        let c = compute(
            &["a", "b"],
            &[],
            &[3, 4],
            &[&[3, 8]],
            &[3, 4],
            "%I[%a, %b * 2]",
        );
        assert_eq!(fuse_axes(&c).compute, c);
        // Transposed order blocks.
        let c = compute(&["a", "b"], &[], &[3, 4], &[&[4, 3]], &[3, 4], "%I[%b, %a]");
        assert_eq!(fuse_axes(&c).compute, c);
    }
}
