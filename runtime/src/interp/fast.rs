//! The compiled evaluator behind [`super::eval_compute`].
//!
//! The result is cut into rows along one parallel axis (the longest; lanes), at most
//! [`MAX_LANES`] points each. For a row, every reduction point is visited in the
//! reference's lexicographic order and the body runs on all lanes at once ([`Kernel`]),
//! each lane folding into its own accumulator: per result point the operations and their
//! order are exactly the reference's, so results are bit-identical. Rows are
//! independent and run in parallel (rayon).

use rayon::prelude::*;
use rtile_dialects::te::model::{AxisKind, Combiner, ElemType, TeCompute};

use super::access::{AccessPlan, ReadFailed};
use super::kernel::{Kernel, Rnd};
use super::{Accumulate, combine, fmax, fmin, result_type};
use crate::tensor::Tensor;

/// Lanes per row: enough to amortise the per-instruction dispatch, few enough that a
/// body's registers stay in the L1/L2 cache.
pub const MAX_LANES: usize = 256;

/// Why the compiled evaluator gave up: the caller runs the reference, which either
/// words the error or (for a case this evaluator does not take) computes the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsupported;

impl From<ReadFailed> for Unsupported {
    fn from(_: ReadFailed) -> Self {
        Unsupported
    }
}

/// The shape of the iteration, shared by all rows.
struct Plan<'a> {
    c: &'a TeCompute,
    mode: Accumulate,
    kernel: Kernel,
    accesses: Vec<AccessPlan>,
    /// Parallel extents (the result's shape), then reduction extents.
    extents: Vec<i64>,
    np: usize,
    /// The lane axis (a parallel dim), if any.
    lane_dim: Option<usize>,
    /// Lanes per row and rows per line of the lane axis.
    lanes: usize,
    blocks: usize,
}

/// Evaluates `c` on checked `inputs`.
pub fn eval(c: &TeCompute, inputs: &[&Tensor], mode: Accumulate) -> Result<Tensor, Unsupported> {
    let n = c.axes.len();
    let np = c.num_parallel();
    let out_ty = result_type(c, mode);
    if c.result.shape.len() != np || c.axes[..np].iter().any(|a| a.kind != AxisKind::Parallel) {
        return Err(Unsupported);
    }
    let tys = c.access_types();
    let kernel = Kernel::compile(&c.body, &tys, mode).map_err(|_| Unsupported)?;
    let orig = match (&c.padded_from, c.may_pad) {
        (Some(o), Some(mp)) if o.len() == n => Some((o.as_slice(), mp.value)),
        (Some(_), _) => return Err(Unsupported),
        _ => None,
    };
    let mut extents: Vec<i64> = c.result.shape.clone();
    extents.extend(c.axes[np..].iter().map(|a| a.extent));
    let out_n: i64 = c.result.shape.iter().product();
    if c.result.shape.iter().any(|&d| d <= 0) || extents[np..].iter().any(|&d| d <= 0) {
        return Tensor::from_data(
            c.result.shape.clone(),
            out_ty,
            vec![0.0; out_n.max(0) as usize],
        )
        .map_err(|_| Unsupported);
    }
    if c.accesses.iter().any(|a| a.input >= inputs.len()) {
        return Err(Unsupported);
    }
    let accesses: Vec<AccessPlan> = c
        .accesses
        .iter()
        .zip(&tys)
        .map(|(a, &t)| AccessPlan::new(a, t, inputs[a.input], &extents, orig))
        .collect();
    // Lanes along the longest parallel axis (the innermost among equals).
    let lane_dim = (0..np).rev().max_by_key(|&d| (extents[d], d));
    let line = lane_dim.map_or(1, |v| extents[v] as usize);
    let lanes = line.min(MAX_LANES);
    let plan = Plan {
        c,
        mode,
        kernel,
        accesses,
        extents,
        np,
        lane_dim,
        lanes,
        blocks: line.div_ceil(lanes),
    };
    let rows = out_n as usize / line * plan.blocks;
    // Row-major results of each row, `lanes` apart (the last row of a line may be short).
    let mut buf = vec![0.0; rows * lanes];
    let stride = lanes;
    buf.par_chunks_mut(lanes).enumerate().try_for_each_init(
        || Scratch::new(&plan, stride),
        |s, (row, out)| plan.row(row, inputs, s, out),
    )?;
    let out = plan.scatter(&buf, out_n as usize);
    Ok(Tensor {
        shape: c.result.shape.clone(),
        dtype: out_ty,
        data: out,
    })
}

/// Per-thread working memory.
struct Scratch {
    regs: Vec<f64>,
    point: Vec<i64>,
}

impl Scratch {
    fn new(plan: &Plan<'_>, stride: usize) -> Scratch {
        let mut regs = vec![0.0; plan.kernel.num_regs * stride];
        plan.kernel.init_consts(&mut regs, stride);
        Scratch {
            regs,
            point: vec![0; plan.extents.len()],
        }
    }
}

impl Plan<'_> {
    /// The domain point of lane 0 of `row` (reduction coordinates zero) and the number of
    /// lanes in it.
    fn row_start(&self, row: usize, point: &mut [i64]) -> usize {
        let (line_idx, block) = (row / self.blocks, row % self.blocks);
        let mut rem = line_idx;
        for d in (0..self.np).rev() {
            if Some(d) == self.lane_dim {
                continue;
            }
            let e = self.extents[d] as usize;
            point[d] = (rem % e) as i64;
            rem /= e;
        }
        point[self.np..].fill(0);
        match self.lane_dim {
            Some(v) => {
                let first = block * self.lanes;
                point[v] = first as i64;
                self.lanes.min(self.extents[v] as usize - first)
            }
            None => 1,
        }
    }

    /// Computes one row into `out` (its first `lanes` entries).
    fn row(
        &self,
        row: usize,
        inputs: &[&Tensor],
        s: &mut Scratch,
        out: &mut [f64],
    ) -> Result<(), Unsupported> {
        let lanes = self.row_start(row, &mut s.point);
        let stride = self.lanes;
        let out = &mut out[..lanes];
        let elem = self.c.result.elem;
        if let Some(k) = self.c.combiner {
            out.fill(k.identity(elem));
        }
        loop {
            for (k, a) in self.accesses.iter().enumerate() {
                let reg = &mut s.regs[k * stride..k * stride + lanes];
                a.fill(inputs, &mut s.point, self.lane_dim, reg)?;
            }
            self.kernel.run(&mut s.regs, lanes, stride);
            let r = self.kernel.result;
            let v = &s.regs[r * stride..r * stride + lanes];
            match self.c.combiner {
                None => {
                    out.copy_from_slice(v);
                    return Ok(());
                }
                Some(k) => fold(k, elem, self.mode, out, v),
            }
            // Next reduction point, lexicographic.
            let mut d = self.extents.len();
            loop {
                if d == self.np {
                    return Ok(());
                }
                d -= 1;
                s.point[d] += 1;
                if s.point[d] < self.extents[d] {
                    break;
                }
                s.point[d] = 0;
            }
        }
    }

    /// Moves the rows' results to their row-major places in the result.
    fn scatter(&self, buf: &[f64], out_n: usize) -> Vec<f64> {
        let Some(v) = self.lane_dim else {
            return buf[..out_n].to_vec();
        };
        let inner: usize = self.extents[v + 1..self.np]
            .iter()
            .map(|&e| e as usize)
            .product();
        let ext_v = self.extents[v] as usize;
        let mut out = vec![0.0; out_n];
        for (row, chunk) in buf.chunks(self.lanes).enumerate() {
            let (line_idx, block) = (row / self.blocks, row % self.blocks);
            // line_idx enumerates the other parallel dims row-major: outer dims (before
            // v) and inner dims (after v).
            let (outer, inn) = (line_idx / inner, line_idx % inner);
            let first = block * self.lanes;
            let n = self.lanes.min(ext_v - first);
            let base = outer * ext_v * inner + inn;
            for (l, &x) in chunk[..n].iter().enumerate() {
                out[base + (first + l) * inner] = x;
            }
        }
        out
    }
}

/// `acc[l] = acc[l] ⊕ v[l]` for every lane, rounded as [`combine`] does.
fn fold(k: Combiner, elem: ElemType, mode: Accumulate, acc: &mut [f64], v: &[f64]) {
    if !elem.is_float() {
        for (a, &x) in acc.iter_mut().zip(v) {
            *a = combine(k, *a, x, elem, mode);
        }
        return;
    }
    let lanes = acc.iter_mut().zip(v);
    match k {
        Combiner::Sum => lanes.for_each(|(a, &x)| *a += x),
        Combiner::Prod => lanes.for_each(|(a, &x)| *a *= x),
        Combiner::Max => lanes.for_each(|(a, &x)| *a = fmax(*a, x)),
        Combiner::Min => lanes.for_each(|(a, &x)| *a = fmin(*a, x)),
    }
    Rnd::of(mode, elem).apply(acc);
}
