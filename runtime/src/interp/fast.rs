//! The compiled evaluator behind [`super::eval_compute`].
//!
//! The result is cut into rows along one parallel axis (lanes; see [`lane_axis`]), at most
//! [`MAX_LANES`] points each. For a row, every reduction point is visited in the
//! reference's lexicographic order and the body runs on all lanes at once ([`Kernel`]),
//! each lane folding into its own accumulator: per result point the operations and their
//! order are exactly the reference's, so results are bit-identical. Rows are
//! independent and run in parallel (rayon).

use rayon::prelude::*;
use rtile_dialects::te::model::{AxisKind, Combiner, ElemType, TeCompute};

use super::access::{AccessPlan, Cursor, ReadFailed};
use super::kernel::{Kernel, Operand, Rnd};
use super::{Accumulate, canonical_nans, combine, finish, fmax, fmin, result_type};
use crate::round::round_to;
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
    /// Per access: one read per row point.
    uniform: Vec<bool>,
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
    let lane_dim = lane_axis(c, inputs, &extents, np);
    let accesses: Vec<AccessPlan> = c
        .accesses
        .iter()
        .zip(&tys)
        .map(|(a, &t)| AccessPlan::new(a, t, inputs[a.input], &extents, lane_dim, orig))
        .collect();
    let uniform: Vec<bool> = accesses.iter().map(AccessPlan::uniform).collect();
    let kernel = Kernel::compile(&c.body, &tys, &uniform, mode).map_err(|_| Unsupported)?;
    let line = lane_dim.map_or(1, |v| extents[v] as usize);
    let lanes = line.min(MAX_LANES);
    let plan = Plan {
        c,
        mode,
        kernel,
        accesses,
        uniform,
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
    let mut out = plan.scatter(&buf, out_n as usize);
    if c.accumulator.is_some() {
        out.iter_mut().for_each(|x| *x = finish(c, mode, *x));
    }
    canonical_nans(&mut out);
    Ok(Tensor {
        shape: c.result.shape.clone(),
        dtype: out_ty,
        data: out,
    })
}

/// The lane axis: among the parallel axes at least as long as 16 (or the longest), the
/// one along which the most accesses read contiguously or not at all (a copy or a
/// broadcast, not a gather), then the longest, then the innermost.
fn lane_axis(c: &TeCompute, inputs: &[&Tensor], extents: &[i64], np: usize) -> Option<usize> {
    let n = extents.len();
    let longest = extents[..np].iter().copied().max()?;
    let gathers = |v: usize| -> usize {
        c.accesses
            .iter()
            .filter(|a| {
                let strides = inputs[a.input].strides();
                let slope = a
                    .map
                    .results
                    .iter()
                    .zip(&strides)
                    .try_fold(0i64, |acc, (e, &st)| {
                        e.linear_form(n).map(|(coef, _)| acc + coef[v] * st)
                    });
                !matches!(slope, Some(0 | 1))
            })
            .count()
    };
    (0..np)
        .filter(|&d| extents[d] >= longest.min(16))
        .map(|d| (std::cmp::Reverse(gathers(d)), extents[d], d))
        .max()
        .map(|(_, _, d)| d)
}

/// Per-thread working memory.
struct Scratch {
    regs: Vec<f64>,
    point: Vec<i64>,
    cursors: Vec<Cursor>,
}

impl Scratch {
    fn new(plan: &Plan<'_>, stride: usize) -> Scratch {
        let mut regs = vec![0.0; plan.kernel.num_regs * stride];
        plan.kernel.init_consts(&mut regs, stride);
        Scratch {
            regs,
            point: vec![0; plan.extents.len()],
            cursors: vec![Cursor::default(); plan.accesses.len()],
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
        // The accumulator's type (the result's unless the compute names one).
        let elem = self.c.acc_type();
        if let Some(k) = self.c.combiner {
            out.fill(k.identity(elem));
        }
        for (a, cur) in self.accesses.iter().zip(&mut s.cursors) {
            a.seek(cur, &s.point);
        }
        loop {
            for (k, (a, cur)) in self.accesses.iter().zip(&s.cursors).enumerate() {
                let n = if self.uniform[k] { 1 } else { lanes };
                a.fill(
                    cur,
                    inputs,
                    &mut s.point,
                    &mut s.regs[k * stride..k * stride + n],
                )?;
            }
            self.kernel.run(&mut s.regs, lanes, stride);
            let r = self.kernel.result;
            let v = if self.kernel.result_uniform() {
                Lanes::One(s.regs[r * stride])
            } else {
                Lanes::Each(&s.regs[r * stride..r * stride + lanes])
            };
            match (self.c.combiner, v) {
                (None, Lanes::Each(v)) => {
                    out.copy_from_slice(v);
                    return Ok(());
                }
                (None, Lanes::One(x)) => {
                    out.fill(x);
                    return Ok(());
                }
                (Some(k), v) => fold(k, elem, self.mode, out, v),
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
                    for (a, cur) in self.accesses.iter().zip(&mut s.cursors) {
                        a.step(cur, d);
                    }
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

/// The body's value on a row: per lane, or one for all.
#[derive(Clone, Copy)]
enum Lanes<'a> {
    Each(&'a [f64]),
    One(f64),
}

/// `acc[l] = acc[l] ⊕ v[l]` for every lane, rounded as [`combine`] does.
fn fold(k: Combiner, elem: ElemType, mode: Accumulate, acc: &mut [f64], v: Lanes<'_>) {
    let at = |l: usize| match v {
        Lanes::Each(v) => v[l],
        Lanes::One(x) => x,
    };
    if !elem.is_float() {
        for (l, a) in acc.iter_mut().enumerate() {
            *a = combine(k, *a, at(l), elem, mode);
        }
        return;
    }
    match (Rnd::of(mode, elem), v) {
        (Rnd::Keep, Lanes::Each(v)) => fold_with(k, acc, v, |x| x),
        (Rnd::F32, Lanes::Each(v)) => fold_with(k, acc, v, |x| x as f32 as f64),
        (Rnd::To(t), Lanes::Each(v)) => fold_with(k, acc, v, |x| round_to(x, t)),
        (Rnd::Keep, Lanes::One(x)) => fold_with(k, acc, x, |x| x),
        (Rnd::F32, Lanes::One(x)) => fold_with(k, acc, x, |x| x as f32 as f64),
        (Rnd::To(t), Lanes::One(x)) => fold_with(k, acc, x, |x| round_to(x, t)),
    }
}

/// [`fold`] with the rounding `r` inlined into the loop.
#[inline(always)]
fn fold_with(k: Combiner, acc: &mut [f64], v: impl Operand, r: impl Fn(f64) -> f64) {
    let lanes = acc.iter_mut().enumerate();
    match k {
        Combiner::Sum => lanes.for_each(|(l, a)| *a = r(*a + v.at(l))),
        Combiner::Prod => lanes.for_each(|(l, a)| *a = r(*a * v.at(l))),
        Combiner::Max => lanes.for_each(|(l, a)| *a = r(fmax(*a, v.at(l)))),
        Combiner::Min => lanes.for_each(|(l, a)| *a = r(fmin(*a, v.at(l)))),
    }
}
