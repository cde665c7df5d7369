//! Which accesses of a `te.compute` share one data tile: the reads a program stages, what
//! `#rtile.program`'s `pad` has one list for.
//!
//! Roller's rTile (§3.1) is a tile of the iteration space; the data tiles it loads follow
//! from the index maps, and its memory footprint and traffic (MemFootprint, MemTraffic,
//! §3.1 and §4) count the *data* a tile touches. Reads of one tensor whose index maps have
//! the same coefficients and differ only in constant offsets — the taps of a stencil,
//! `I[y, x] + I[y, x + 1] + ... + I[y + 4, x + 4]` — touch one box: the tile's span plus a
//! halo of `max − min` offset per dimension. Counting each tap as its own data tile would
//! charge a 5×5 stencil 25 tiles of footprint and traffic instead of one `(t + 4)²` box, and
//! staging them separately would load the overlap 25 times. So such reads form one
//! [`ReadGroup`], staged once as the union box, each member reading it at its own offset.
//! Reads with different coefficients (softmax's `x[i, j]` and `max[i]`) or pad values stay
//! separate, as do index results that are not `Σ c·axis + k` unless they are equal.

use crate::te::model::TeCompute;

/// Members of one group lie at most this far apart (per index result, in elements): a
/// union box spanning a larger gap would mostly stage data no member reads, where separate
/// tiles would not. Stencils and explicit convolution windows are a few elements wide.
pub const MAX_MERGED_HALO: i64 = 64;

/// One staged read: accesses of one input (with one pad value) whose index maps agree
/// except for constant offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadGroup {
    /// Index into [`TeCompute::inputs`].
    pub input: usize,
    /// The member accesses in access order; the first stands for the group.
    pub accesses: Vec<usize>,
    /// Per member (parallel to `accesses`), per index result: how far its constant lies
    /// above the group's lowest (0 on results the members agree on).
    pub offsets: Vec<Vec<i64>>,
    /// Per index result: the highest minus the lowest constant of the members, the halo
    /// the union box adds to the tile's span there.
    pub halo: Vec<u64>,
}

impl ReadGroup {
    /// The first member access, whose index map (shifted by `-offsets[0]`) is the box's.
    pub fn first(&self) -> usize {
        self.accesses[0]
    }

    /// The offsets of access `a` into the box, if `a` is a member.
    pub fn offset_of(&self, a: usize) -> Option<&[i64]> {
        let k = self.accesses.iter().position(|&x| x == a)?;
        Some(&self.offsets[k])
    }
}

/// Per index result of access `a`: its constant when linear, `None` otherwise.
fn constants(c: &TeCompute, a: usize) -> Vec<Option<(Vec<i64>, i64)>> {
    let n = c.axes.len();
    c.accesses[a]
        .map
        .results
        .iter()
        .map(|e| e.linear_form(n))
        .collect()
}

/// The per-result constant shifts of access `a` against the group's first member `r`, when
/// the two maps agree but for constants (and the pad value), else `None`.
fn shifts(c: &TeCompute, r: usize, a: usize) -> Option<Vec<i64>> {
    let (x, y) = (&c.accesses[r], &c.accesses[a]);
    if x.input != y.input
        || x.pad.map(f64::to_bits) != y.pad.map(f64::to_bits)
        || x.map.results.len() != y.map.results.len()
    {
        return None;
    }
    let (lx, ly) = (constants(c, r), constants(c, a));
    let mut out = Vec::with_capacity(lx.len());
    for (j, (ex, ey)) in x.map.results.iter().zip(&y.map.results).enumerate() {
        if ex == ey {
            out.push(0);
            continue;
        }
        match (&lx[j], &ly[j]) {
            (Some((cx, kx)), Some((cy, ky))) if cx == cy => out.push(ky.checked_sub(*kx)?),
            _ => return None,
        }
    }
    Some(out)
}

/// The staged reads of `c`, in order of their first access: each access joins the first
/// group whose first member's map agrees with its own but for constants, while the
/// group's spread stays within [`MAX_MERGED_HALO`]; identical reads always join.
pub fn read_groups(c: &TeCompute) -> Vec<ReadGroup> {
    // Per group: first member, and per member its shift against the first.
    let mut groups: Vec<(usize, Vec<usize>, Vec<Vec<i64>>)> = Vec::new();
    // Whether shift `s` keeps a group with member shifts `sh` within the halo bound.
    let fits = |sh: &[Vec<i64>], s: &[i64]| {
        (0..s.len()).all(|d| {
            let all = || sh.iter().map(|v| v[d]).chain([s[d]]);
            all().max().unwrap_or(0) - all().min().unwrap_or(0) <= MAX_MERGED_HALO
        })
    };
    for a in 0..c.accesses.len() {
        let joined = groups
            .iter()
            .enumerate()
            .find_map(|(g, (r, _, sh))| shifts(c, *r, a).filter(|s| fits(sh, s)).map(|s| (g, s)));
        match joined {
            Some((g, s)) => {
                groups[g].1.push(a);
                groups[g].2.push(s);
            }
            None => {
                let rank = c.accesses[a].map.results.len();
                groups.push((a, vec![a], vec![vec![0; rank]]));
            }
        }
    }
    groups
        .into_iter()
        .map(|(r, accesses, sh)| {
            let rank = sh[0].len();
            let lo: Vec<i64> = (0..rank)
                .map(|d| sh.iter().map(|v| v[d]).min().unwrap_or(0))
                .collect();
            let halo = (0..rank)
                .map(|d| (sh.iter().map(|v| v[d]).max().unwrap_or(0) - lo[d]) as u64)
                .collect();
            let offsets = sh
                .iter()
                .map(|v| v.iter().zip(&lo).map(|(x, l)| x - l).collect())
                .collect();
            ReadGroup {
                input: c.accesses[r].input,
                accesses,
                offsets,
                halo,
            }
        })
        .collect()
}

/// Per access of `c`, the index of its group in [`read_groups`].
pub fn group_of_access(groups: &[ReadGroup], accesses: usize) -> Vec<usize> {
    let mut out = vec![0; accesses];
    for (g, grp) in groups.iter().enumerate() {
        for &a in &grp.accesses {
            if let Some(slot) = out.get_mut(a) {
                *slot = g;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::te::module::parse_computes;

    fn compute(args: &str, ret: &str, body: &str) -> TeCompute {
        let text = format!("func.func @f({args}) -> {ret} {{\n{body}\nreturn %R : {ret}\n}}\n");
        parse_computes("reads.mlir", &text)
            .unwrap_or_else(|e| panic!("{e}"))
            .remove(0)
            .compute
    }

    #[test]
    fn stencil_taps_are_one_group_with_a_halo() {
        let c = compute(
            "%I: tensor<10x10xf32>",
            "tensor<8x8xf32>",
            "%R = te.compute (%y, %x) in [8, 8] : (tensor<10x10xf32>) -> tensor<8x8xf32> {
               %I[%y + 1, %x + 2] + %I[%y, %x] + %I[%y + 2, %x + 1] + %I[%y, %x] }",
        );
        // (te merges the repeated `%I[%y, %x]` into one access already.)
        assert_eq!(c.accesses.len(), 3);
        let g = read_groups(&c);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].accesses, vec![0, 1, 2]);
        assert_eq!(g[0].halo, vec![2, 2]);
        // Offsets against the lowest constants (0, 0).
        assert_eq!(g[0].offsets, vec![vec![1, 2], vec![0, 0], vec![2, 1]]);
        assert_eq!(g[0].offset_of(2), Some(&[2i64, 1][..]));
    }

    #[test]
    fn different_coefficients_stay_apart() {
        // softmax's x - max: max is indexed by i alone, x by (i, j).
        let c = compute(
            "%X: tensor<4x8xf32>, %M: tensor<4xf32>",
            "tensor<4x8xf32>",
            "%R = te.compute (%i, %j) in [4, 8] : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32> {
               %X[%i, %j] - %M[%i] + %X[%i, %j * 2 floordiv 2] + %X[%j floordiv 2, %i] }",
        );
        let g = read_groups(&c);
        assert_eq!(g.len(), 4, "{g:?}");
        assert!(g.iter().all(|g| g.halo.iter().all(|&h| h == 0)));
    }

    #[test]
    fn far_apart_reads_stay_apart() {
        let c = compute(
            "%I: tensor<200xf32>",
            "tensor<100xf32>",
            "%R = te.compute (%i) in [100] : (tensor<200xf32>) -> tensor<100xf32> {
               %I[%i] + %I[%i + 65] + %I[%i + 64] }",
        );
        let g = read_groups(&c);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].accesses, vec![0, 2]);
        assert_eq!(g[0].halo, vec![64]);
        assert_eq!(group_of_access(&g, 3), vec![0, 1, 0]);
    }
}
