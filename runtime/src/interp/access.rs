//! Accesses compiled for the lane evaluator. A linear access (every index an affine form
//! of the domain dims without floordiv/mod) becomes a flat offset that is affine in the
//! lane, so one row of reads is a strided gather; the bounds of each index are analysed
//! once over the whole domain, and only indices that can leave their dimension are
//! checked, per row, by solving for the interval of lanes that stay inside. Other
//! accesses evaluate their indices lane by lane.

use rtile::ir::AffineExpr;
use rtile_dialects::te::model::{Access, ElemType};

use crate::round::round_to;
use crate::tensor::Tensor;

/// An index of one tensor dimension.
#[derive(Clone, Debug)]
enum Index {
    /// `Σ coef[d] · p[d] + constant`.
    Linear { coef: Vec<i64>, constant: i64 },
    /// Evaluated point by point (floordiv, mod, ceildiv, products of dims).
    General(AffineExpr),
}

/// Why a row could not be read; the caller falls back to the reference evaluator,
/// which words the error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadFailed;

/// An index that can leave its dimension: checked per row.
#[derive(Clone, Debug)]
struct Checked {
    /// The tensor dimension.
    dim: usize,
    size: i64,
    /// Change per lane.
    slope: i64,
}

/// Where a row's reads start: the flat offset and the checked indices at lane 0. Kept
/// up to date incrementally while the reduction point advances.
#[derive(Clone, Debug, Default)]
pub struct Cursor {
    off: i64,
    idx: Vec<i64>,
}

/// One access, ready to fill a register with a row of lanes.
#[derive(Clone, Debug)]
pub struct AccessPlan {
    input: usize,
    pad: Option<f64>,
    indices: Vec<Index>,
    /// Input dimension sizes.
    sizes: Vec<i64>,
    /// Row-major strides of the input.
    strides: Vec<i64>,
    /// For linear accesses: the flat offset's coefficient per domain dim and constant.
    flat: Option<(Vec<i64>, i64)>,
    /// The flat offset's change per lane.
    slope: i64,
    checked: Vec<Checked>,
    /// Per domain dim `d`: how the cursor moves when `d` advances by one and every dim
    /// after it goes back to 0 (the flat offset, then each checked index).
    steps: Vec<(i64, Vec<i64>)>,
    /// The lane axis.
    lane_dim: Option<usize>,
    /// Padded domain: the dims this access uses with their original extents, and the
    /// value (rounded to the access type) read beyond them.
    mask: Vec<(usize, i64)>,
    mask_value: f64,
}

impl AccessPlan {
    /// Compiles `a` (of element type `ty`) over a domain with `extents` whose rows run
    /// along `lane_dim`; `orig` is the padded domain's original extents with `may_pad`.
    pub fn new(
        a: &Access,
        ty: ElemType,
        input: &Tensor,
        extents: &[i64],
        lane_dim: Option<usize>,
        orig: Option<(&[i64], f64)>,
    ) -> AccessPlan {
        let n = extents.len();
        let indices: Vec<Index> = a
            .map
            .results
            .iter()
            .map(|e| match e.linear_form(n) {
                Some((coef, constant)) => Index::Linear { coef, constant },
                None => Index::General(e.clone()),
            })
            .collect();
        let strides = input.strides();
        let lane = |coef: &[i64]| lane_dim.map_or(0, |v| coef[v]);
        let mut checked = Vec::new();
        let mut flat = Some((vec![0i64; n], 0i64));
        for (j, ix) in indices.iter().enumerate() {
            match ix {
                Index::Linear { coef, constant } => {
                    let size = input.shape[j];
                    let (lo, hi) = bounds(coef, *constant, extents);
                    if lo < 0 || hi >= size {
                        checked.push(Checked {
                            dim: j,
                            size,
                            slope: lane(coef),
                        });
                    }
                    if let Some((f, c)) = &mut flat {
                        for (fd, &cd) in f.iter_mut().zip(coef) {
                            *fd += cd * strides[j];
                        }
                        *c += constant * strides[j];
                    }
                }
                Index::General(_) => flat = None,
            }
        }
        let coef_of = |j: usize| match &indices[j] {
            Index::Linear { coef, .. } => coef.clone(),
            Index::General(_) => vec![0; n],
        };
        // Advancing d by one and resetting every later dim from its last value to 0.
        let step = |coef: &[i64], d: usize| -> i64 {
            coef[d]
                - (d + 1..n)
                    .map(|e| coef[e] * (extents[e] - 1).max(0))
                    .sum::<i64>()
        };
        let steps = (0..n)
            .map(|d| {
                let off = flat.as_ref().map_or(0, |(f, _)| step(f, d));
                let idx = checked.iter().map(|c| step(&coef_of(c.dim), d)).collect();
                (off, idx)
            })
            .collect();
        let (mask, mask_value) = match orig {
            Some((orig, value)) => (
                (0..n)
                    .filter(|&d| a.map.results.iter().any(|e| e.uses_dim(d as u32)))
                    .map(|d| (d, orig[d]))
                    .collect(),
                round_to(value, ty),
            ),
            None => (Vec::new(), 0.0),
        };
        AccessPlan {
            input: a.input,
            pad: a.pad,
            indices,
            sizes: input.shape.clone(),
            strides,
            slope: flat.as_ref().map_or(0, |(f, _)| lane(f)),
            flat,
            checked,
            steps,
            lane_dim,
            mask,
            mask_value,
        }
    }

    /// True when every lane of a row reads the same element (or the same pad or mask
    /// value): the row needs one read.
    pub fn uniform(&self) -> bool {
        self.flat.is_some()
            && self.slope == 0
            && self.checked.iter().all(|c| c.slope == 0)
            && self.mask.iter().all(|&(d, _)| Some(d) != self.lane_dim)
    }

    /// Puts `cur` at domain point `p` (lane 0 of a row).
    pub fn seek(&self, cur: &mut Cursor, p: &[i64]) {
        cur.off = self.flat.as_ref().map_or(0, |(f, c)| dot(f, p) + c);
        cur.idx.clear();
        for c in &self.checked {
            if let Index::Linear { coef, constant } = &self.indices[c.dim] {
                cur.idx.push(dot(coef, p) + constant);
            }
        }
    }

    /// Moves `cur` as the point moves when dim `d` advances and the later dims reset.
    pub fn step(&self, cur: &mut Cursor, d: usize) {
        let (off, idx) = &self.steps[d];
        cur.off += off;
        for (i, di) in cur.idx.iter_mut().zip(idx) {
            *i += di;
        }
    }

    /// Reads the row of `out.len()` lanes at domain point `p` (where `cur` is), lane
    /// `l` being `p` with `p[lane_dim] + l` (no lane dim: one lane).
    pub fn fill(
        &self,
        cur: &Cursor,
        inputs: &[&Tensor],
        p: &mut [i64],
        out: &mut [f64],
    ) -> Result<(), ReadFailed> {
        let lanes = out.len() as i64;
        let base = self.lane_dim.map_or(0, |v| p[v]);
        // Lanes at and beyond `masked` lie outside the original domain: may_pad.
        let mut masked = lanes;
        for &(d, orig) in &self.mask {
            if Some(d) == self.lane_dim {
                masked = masked.min((orig - base).max(0));
            } else if p[d] >= orig {
                masked = 0;
            }
        }
        out[masked as usize..].fill(self.mask_value);
        let data = &inputs[self.input].data;
        if self.flat.is_none() {
            return self.fill_general(data, p, &mut out[..masked as usize]);
        }
        // The lanes whose every index is inside its dimension: [lo, hi).
        let (mut lo, mut hi) = (0i64, masked);
        for (c, &i0) in self.checked.iter().zip(&cur.idx) {
            let (l, h) = inside(i0, c.slope, c.size);
            lo = lo.max(l);
            hi = hi.min(h);
        }
        if lo >= hi {
            (lo, hi) = (0, 0);
        }
        if lo > 0 || hi < masked {
            let pad = self.pad.ok_or(ReadFailed)?;
            out[..lo as usize].fill(pad);
            out[hi as usize..masked as usize].fill(pad);
        }
        let dst = &mut out[lo as usize..hi as usize];
        if dst.is_empty() {
            return Ok(());
        }
        let start = (cur.off + lo * self.slope) as usize;
        match self.slope {
            1 => dst.copy_from_slice(&data[start..start + dst.len()]),
            0 => dst.fill(data[start]),
            s => {
                let s = s as isize;
                for (i, o) in dst.iter_mut().enumerate() {
                    *o = data[(start as isize + i as isize * s) as usize];
                }
            }
        }
        Ok(())
    }

    /// Lane by lane, for accesses with non-linear indices.
    fn fill_general(&self, data: &[f64], p: &mut [i64], out: &mut [f64]) -> Result<(), ReadFailed> {
        let base = self.lane_dim.map_or(0, |v| p[v]);
        for (l, o) in out.iter_mut().enumerate() {
            if let Some(v) = self.lane_dim {
                p[v] = base + l as i64;
            }
            let mut off = 0i64;
            let mut oob = false;
            for ((ix, &size), &stride) in self.indices.iter().zip(&self.sizes).zip(&self.strides) {
                let i = match ix {
                    Index::Linear { coef, constant } => dot(coef, p) + constant,
                    Index::General(e) => e.eval(p, &[]).ok_or(ReadFailed)?,
                };
                if i < 0 || i >= size {
                    oob = true;
                    break;
                }
                off += i * stride;
            }
            *o = if oob {
                self.pad.ok_or(ReadFailed)?
            } else {
                data[off as usize]
            };
        }
        if let Some(v) = self.lane_dim {
            p[v] = base;
        }
        Ok(())
    }
}

fn dot(coef: &[i64], p: &[i64]) -> i64 {
    coef.iter().zip(p).map(|(c, x)| c * x).sum()
}

/// The least and greatest value of `Σ coef[d] · p[d] + c` over `0 <= p[d] < extents[d]`.
fn bounds(coef: &[i64], c: i64, extents: &[i64]) -> (i64, i64) {
    let (mut lo, mut hi) = (c, c);
    for (&k, &e) in coef.iter().zip(extents) {
        let far = k * (e - 1).max(0);
        lo += far.min(0);
        hi += far.max(0);
    }
    (lo, hi)
}

/// The lanes `l >= 0` with `0 <= i0 + slope · l < size`, as `[lo, hi)` (maybe empty;
/// `hi` unbounded above is `i64::MAX`).
fn inside(i0: i64, slope: i64, size: i64) -> (i64, i64) {
    match slope {
        0 if (0..size).contains(&i0) => (0, i64::MAX),
        0 => (0, 0),
        // The common case (a lane axis read with stride one) without divisions.
        1 => ((-i0).max(0), (size - i0).max(0)),
        s if s > 0 => {
            // i0 + s·l >= 0  <=>  l >= ceil(-i0 / s);  i0 + s·l <= size - 1.
            let lo = (-i0).div_euclid(s) + i64::from((-i0).rem_euclid(s) != 0);
            let hi = (size - 1 - i0).div_euclid(s) + 1;
            (lo.max(0), hi.max(0))
        }
        s => {
            // Decreasing: i0 + s·l <= size - 1  <=>  l >= ceil((i0 - size + 1) / -s).
            let t = -s;
            let a = i0 - size + 1;
            let lo = a.div_euclid(t) + i64::from(a.rem_euclid(t) != 0);
            let hi = i0.div_euclid(t) + 1;
            (lo.max(0), hi.max(0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::inside;

    #[test]
    fn lane_intervals_match_brute_force() {
        for i0 in -9..9 {
            for slope in -4..=4 {
                for size in 1..6 {
                    let (lo, hi) = inside(i0, slope, size);
                    for l in 0..20i64 {
                        let v = i0 + slope * l;
                        let want = (0..size).contains(&v);
                        assert_eq!(
                            want,
                            l >= lo && l < hi,
                            "i0 {i0} slope {slope} size {size} l {l}"
                        );
                    }
                }
            }
        }
    }
}
