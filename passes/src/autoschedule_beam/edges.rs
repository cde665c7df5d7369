//! Partial edge blocks of a kernel (OOPSLA'21 Appendix A counts per block; the lowering
//! guards what lies past the domain): which blocks differ in what their lanes touch, and
//! the warp requests one block of each kind issues.
//!
//! What the lowering (`--lower-to-gpu`) runs, mirrored here:
//! - the root's block `b` covers `b·tile .. b·tile + tile` along each dim; a point past the
//!   extent is guarded off (`thread_map.rs`, `point_guard`): it loads and stores nothing;
//! - a block-level stage's region is the root's block box propagated through the reads
//!   (`shared_stage.rs`, `plan_regions`: interval arithmetic, a dim that does not move with
//!   the block clipped to the extent); the block computes every region point, but a point
//!   outside the stage's domain (a halo past the edge, a partial block) only stores 0: it
//!   loads nothing.
//!
//! So the blocks of a root dim fall into a few kinds: the interior ones, whose lanes all
//! run, and the edge ones (the last, partial block; blocks whose region reaches past the
//! domain). A region dim that moves with two root dims at once (a read at `[y + x]`) is
//! inside or not by the pair of block indices: such kinds are split further. [`block_classes`]
//! groups them, and the features evaluate one block of each kind, weighted by how many
//! there are.

use super::features::{lane_coord, lane_order};
use super::kernel::KernelPlan;
use super::pipeline::Pipeline;
use super::runs::{lanes_inside, local_point};
use super::space::Loc;
use crate::connect::graph::DimIndex;

/// One dim of a box of a member's domain in one block: `lo + Σ coef[a]·base[a]` to
/// `+ size`, where `base[a]` is the block's base along the root's parallel dim `a`
/// (`shared_stage.rs`'s `Span`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// Per root parallel dim, the coefficient of the block's base.
    pub coef: Vec<i64>,
    /// The box's start in block 0.
    pub lo: i64,
    /// Points.
    pub size: i64,
}

impl Span {
    /// The start in the block whose base along the root's dims is `origin`.
    pub fn lo_at(&self, origin: &[i64]) -> i64 {
        self.lo
            + self
                .coef
                .iter()
                .zip(origin)
                .map(|(c, o)| c * o)
                .sum::<i64>()
    }
    /// The dim does not move with the block.
    fn fixed(&self) -> bool {
        self.coef.iter().all(|&c| c == 0)
    }
}

/// Each member's box over its whole domain (parallel dims, then reductions taken whole):
/// the root's block tile, and for every other member the union of its consumers' boxes'
/// images through their reads; a block-level stage's fixed dims clipped to its extent
/// (`plan_regions`). Indexed like `k.members`.
pub fn boxes(p: &Pipeline, k: &KernelPlan) -> Vec<Vec<Span>> {
    let g = &p.g;
    let ext = p.extents(k.root);
    let nr = ext.len();
    let block = k.tiling.block();
    let whole = |extent: u64| Span {
        coef: vec![0; nr],
        lo: 0,
        size: extent as i64,
    };
    let mut out: Vec<Vec<Span>> = vec![Vec::new(); k.members.len()];
    for mk in (0..k.members.len()).rev() {
        let n = k.members[mk];
        let node = &g.nodes[n];
        let np = node.num_parallel;
        let mut par: Vec<Span> = if n == k.root {
            (0..np)
                .map(|a| {
                    let mut coef = vec![0; nr];
                    // An axis one block covers has its base always 0.
                    if block[a] < ext[a] {
                        coef[a] = 1;
                    }
                    Span {
                        coef,
                        lo: 0,
                        size: block[a] as i64,
                    }
                })
                .collect()
        } else {
            let mut acc: Option<Vec<Span>> = None;
            for &(c, i) in &g.consumers[n] {
                let Some(ck) = k.pos(c) else { continue };
                let img: Vec<Span> = g.nodes[c].inputs[i]
                    .index
                    .iter()
                    .zip(&node.out_shape)
                    .map(|(ix, &e)| image(ix, &out[ck], e, nr))
                    .collect();
                acc = Some(match acc {
                    None => img,
                    Some(a) => a
                        .into_iter()
                        .zip(img)
                        .zip(&node.out_shape)
                        .map(|((x, y), &e)| hull(x, y, e as i64))
                        .collect(),
                });
            }
            acc.unwrap_or_else(|| node.out_shape.iter().map(|&e| whole(e)).collect())
        };
        if matches!(k.locs[mk], Loc::Shared(_)) {
            for (s, &e) in par.iter_mut().zip(&node.out_shape) {
                if s.fixed() {
                    let hi = (s.lo + s.size).min(e as i64);
                    s.lo = s.lo.max(0);
                    s.size = (hi - s.lo).max(1);
                }
            }
        }
        par.extend(node.domain[np..].iter().map(|&e| whole(e)));
        out[mk] = par;
    }
    out
}

/// The image of the box `b` (a reader's domain) through one index of a read of a tensor
/// dim of `extent` points (interval arithmetic; a negative coefficient takes the far end).
/// Floor division, modulo and unknown indices give the whole dim (`shared_stage.rs`'s
/// conservative bound).
fn image(ix: &DimIndex, b: &[Span], extent: u64, nr: usize) -> Span {
    let a = match ix {
        DimIndex::Affine(a) if a.div <= 1 => a,
        _ => {
            return Span {
                coef: vec![0; nr],
                lo: 0,
                size: extent as i64,
            };
        }
    };
    let mut s = Span {
        coef: vec![0; nr],
        lo: a.constant,
        size: 1,
    };
    for &(x, c) in &a.terms {
        let Some(bx) = b.get(x) else { continue };
        for (o, &y) in s.coef.iter_mut().zip(&bx.coef) {
            *o += c * y;
        }
        s.lo += c * bx.lo + c.min(0) * (bx.size - 1);
        s.size += c.abs() * (bx.size - 1);
    }
    s
}

/// The union of two boxes of one dim of `extent` points: their hull when they move alike;
/// else the one covering the whole extent (the lowering refuses other mixes).
fn hull(x: Span, y: Span, extent: i64) -> Span {
    let covers = |s: &Span| s.fixed() && s.lo <= 0 && s.lo + s.size >= extent;
    if x.coef != y.coef {
        return if covers(&y) { y } else { x };
    }
    let hi = (x.lo + x.size).max(y.lo + y.size);
    let lo = x.lo.min(y.lo);
    Span {
        coef: x.coef,
        lo,
        size: hi - lo,
    }
}

/// Blocks that run alike: the base of one of them along each root parallel dim, and how
/// many there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockClass {
    /// The representative block's base per root parallel dim (block index × tile).
    pub origin: Vec<i64>,
    /// Blocks of this kind.
    pub count: u64,
}

/// Most kinds of blocks kept per dim: beyond them, the remaining edge blocks are counted
/// as the interior kind (a bound on the featurization's work; real pipelines have one or
/// two edge blocks per side).
const MAX_KINDS_PER_DIM: usize = 8;

/// Most kinds kept when a crossed kind is split by the region dims that move with two
/// root dims at once ([`Joint`]): beyond them, blocks are counted with the largest kind
/// so far (the same bound as [`MAX_KINDS_PER_DIM`]; a skewed read at the domain's corner
/// gives a few).
const MAX_JOINT_KINDS: usize = 16;

/// `⌊x / y⌋` for `y ≠ 0` of either sign.
fn div_floor(x: i64, y: i64) -> i64 {
    if y < 0 {
        (-x).div_euclid(-y)
    } else {
        x.div_euclid(y)
    }
}

/// The block indices `b` with `0 <= lo + step·b <= x - size` (a region span inside its
/// stage's extent `x`), as an inclusive range (empty when `lo > hi`); `step ≠ 0`.
fn inside_range(step: i64, lo: i64, size: i64, x: i64) -> (i64, i64) {
    if step > 0 {
        (-div_floor(lo, step), div_floor(x - size - lo, step))
    } else {
        (-div_floor(-(x - size - lo), step), div_floor(-lo, step))
    }
}

/// One kind of blocks along one root dim: a block of it, the blocks of the kind as
/// inclusive runs of block indices (kept only when [`Joint`]s need them), how many.
struct DimKind {
    b: i64,
    runs: Vec<(i64, i64)>,
    count: u64,
}

/// A block-level stage's region dim that moves with two or more root dims at once (a
/// read at `[x + y]`, a skewed access): its start is `lo + Σ step[a]·b[a]` in the block
/// of indices `b`, so whether it reaches past the stage's `extent` depends on the pair,
/// not on either index alone.
struct Joint {
    /// Per root dim, the start's step per block index (coefficient × tile).
    step: Vec<i64>,
    lo: i64,
    size: i64,
    extent: i64,
}

impl Joint {
    /// What the lowering's guards see of the region starting at `l`: the points before
    /// the domain and the first point past it, both clamped to the region (regions wholly
    /// outside are alike: they load nothing).
    fn key(&self, l: i64) -> (i64, i64) {
        (
            (-l).clamp(0, self.size),
            (self.extent - l).clamp(0, self.size),
        )
    }
}

/// The kinds of blocks of kernel `k` (the members' boxes `bx`): along each root dim,
/// blocks are alike when the root's points in them and every block-level stage's region
/// dims that move with that root dim alone lie as far inside the domain. The kinds of the
/// dims are crossed, then split by the region dims that move with several root dims at
/// once ([`Joint`]), so that the blocks of a kind run the same guarded points.
pub fn block_classes(p: &Pipeline, k: &KernelPlan, bx: &[Vec<Span>]) -> Vec<BlockClass> {
    let ext = p.extents(k.root);
    let block = k.tiling.block();
    let tiles: Vec<i64> = block.iter().map(|&t| t.max(1) as i64).collect();
    let shared_dims = || {
        k.members
            .iter()
            .enumerate()
            .filter(|(mk, _)| matches!(k.locs[*mk], Loc::Shared(_)))
            .flat_map(|(mk, &n)| bx[mk].iter().zip(&p.g.nodes[n].out_shape))
    };
    let joints: Vec<Joint> = shared_dims()
        .filter(|(s, _)| s.coef.iter().filter(|&&c| c != 0).count() > 1)
        .map(|(s, &x)| Joint {
            step: s.coef.iter().zip(&tiles).map(|(c, t)| c * t).collect(),
            lo: s.lo,
            size: s.size,
            extent: x as i64,
        })
        .collect();
    let per_dim: Vec<Vec<DimKind>> = (0..ext.len())
        .map(|d| {
            // (step per block, lo in block 0, size, extent) of the region dims that move
            // with dim `d` alone.
            let moving: Vec<(i64, i64, i64, i64)> = shared_dims()
                .filter(|(s, _)| {
                    s.coef[d] != 0 && s.coef.iter().enumerate().all(|(a, &c)| a == d || c == 0)
                })
                .map(|(s, &x)| (s.coef[d] * tiles[d], s.lo, s.size, x as i64))
                .collect();
            dim_kinds(ext[d] as i64, tiles[d], &moving, !joints.is_empty())
        })
        .collect();
    // The dims' kinds crossed: per class, a kind index per dim.
    let mut crossed: Vec<Vec<usize>> = vec![Vec::new()];
    for kinds in &per_dim {
        crossed = crossed
            .iter()
            .flat_map(|c| {
                (0..kinds.len()).map(move |i| {
                    let mut c = c.clone();
                    c.push(i);
                    c
                })
            })
            .collect();
    }
    let origin = |b: &[i64]| b.iter().zip(&tiles).map(|(b, t)| b * t).collect();
    let mut out = Vec::new();
    for c in crossed {
        let kinds: Vec<&DimKind> = c.iter().zip(&per_dim).map(|(&i, ks)| &ks[i]).collect();
        if joints.is_empty() {
            out.push(BlockClass {
                origin: origin(&kinds.iter().map(|x| x.b).collect::<Vec<_>>()),
                count: kinds.iter().map(|x| x.count).product(),
            });
            continue;
        }
        for (b, count) in split_joint(&joints, &kinds) {
            out.push(BlockClass {
                origin: origin(&b),
                count,
            });
        }
    }
    out
}

/// The kinds of blocks along one root dim of `e` points in tiles of `t`: the interior run
/// (the root's tile whole and every `moving` region dim, `(step, lo, size, extent)`,
/// inside its extent) and the others one by one, grouped by what their guards see;
/// `runs`: keep each kind's block indices.
fn dim_kinds(e: i64, t: i64, moving: &[(i64, i64, i64, i64)], runs: bool) -> Vec<DimKind> {
    let nb = (e + t - 1) / t;
    let mut lo_b = 0;
    let mut hi_b = if e % t == 0 { nb - 1 } else { nb - 2 };
    for &(st, lo, size, x) in moving {
        let (l, h) = inside_range(st, lo, size, x);
        lo_b = lo_b.max(l);
        hi_b = hi_b.min(h);
    }
    let key = |b: i64| -> Vec<i64> {
        let mut v = vec![(e - b * t).min(t)];
        for &(st, lo, size, x) in moving {
            let l = lo + st * b;
            v.push((-l).max(0));
            v.push((x - l).min(size));
        }
        v
    };
    let mut kinds: Vec<(Vec<i64>, DimKind)> = Vec::new();
    let mut add = |b0: i64, b1: i64| {
        let (kb, n) = (key(b0), (b1 - b0 + 1) as u64);
        let at = match kinds.iter().position(|x| x.0 == kb) {
            Some(i) => i,
            None if kinds.len() < MAX_KINDS_PER_DIM || n > 1 => {
                let kind = DimKind {
                    b: b0,
                    runs: Vec::new(),
                    count: 0,
                };
                kinds.push((kb, kind));
                kinds.len() - 1
            }
            None => 0,
        };
        let kind = &mut kinds[at].1;
        kind.count += n;
        if runs {
            kind.runs.push((b0, b1));
        }
    };
    // The blocks outside the run, one by one: walked as two ranges, not by filtering all
    // `nb` blocks (2^30 of them on a 2^38-row tensor).
    let (before, after) = if lo_b <= hi_b {
        add(lo_b, hi_b);
        (0..lo_b.min(nb), (hi_b + 1).max(0)..nb)
    } else {
        (0..nb, nb..nb)
    };
    for b in before.chain(after) {
        add(b, b);
    }
    kinds.into_iter().map(|(_, k)| k).collect()
}

/// Splits the blocks of one crossed kind (`kinds`, one per root dim) by what the guards of
/// the `joints` see: the block indices of one block per kind, and how many. The last root
/// dim a joint moves with is solved as a range per combination of the others' indices
/// (enumerated): its blocks whose joints all lie inside are one run, the others are
/// keyed one by one.
fn split_joint(joints: &[Joint], kinds: &[&DimKind]) -> Vec<(Vec<i64>, u64)> {
    let nd = kinds.len();
    let involved: Vec<usize> = (0..nd)
        .filter(|&a| joints.iter().any(|j| j.step[a] != 0))
        .collect();
    let rep: Vec<i64> = kinds.iter().map(|x| x.b).collect();
    let Some((&z, others)) = involved.split_last() else {
        return vec![(rep, kinds.iter().map(|x| x.count).product())];
    };
    // Blocks of the uninvolved dims: each behaves as the representative.
    let rest: u64 = (0..nd)
        .filter(|a| !involved.contains(a))
        .map(|a| kinds[a].count)
        .product();
    let values: Vec<Vec<i64>> = others
        .iter()
        .map(|&a| kinds[a].runs.iter().flat_map(|&(x, y)| x..=y).collect())
        .collect();
    // (what the joints' guards see, one block's indices, blocks).
    type Group = (Vec<(i64, i64)>, Vec<i64>, u64);
    let mut groups: Vec<Group> = Vec::new();
    let mut add = |key: Vec<(i64, i64)>, b: Vec<i64>, n: u64| {
        if let Some(g) = groups.iter_mut().find(|g| g.0 == key) {
            g.2 += n;
        } else if groups.len() < MAX_JOINT_KINDS {
            groups.push((key, b, n));
        } else if let Some(g) = groups.iter_mut().max_by_key(|g| g.2) {
            g.2 += n;
        }
    };
    let mut pick = vec![0usize; others.len()];
    'tuples: loop {
        let mut b = rep.clone();
        for (i, &a) in others.iter().enumerate() {
            b[a] = values[i][pick[i]];
        }
        // Each joint's start with the block index along `z` at 0.
        let base: Vec<i64> = joints
            .iter()
            .map(|j| j.lo + others.iter().map(|&a| j.step[a] * b[a]).sum::<i64>())
            .collect();
        let key = |bz: i64| -> Vec<(i64, i64)> {
            joints
                .iter()
                .zip(&base)
                .map(|(j, &l)| j.key(l + j.step[z] * bz))
                .collect()
        };
        for &(z0, z1) in &kinds[z].runs {
            let (mut lo, mut hi) = (z0, z1);
            for (j, &l) in joints.iter().zip(&base) {
                let (x, y) = match j.step[z] {
                    0 if (0..=j.extent - j.size).contains(&l) => (z0, z1),
                    0 => (1, 0),
                    s => inside_range(s, l, j.size, j.extent),
                };
                lo = lo.max(x);
                hi = hi.min(y);
            }
            let mut at = |bz: i64, n: u64| {
                let mut bb = b.clone();
                bb[z] = bz;
                add(key(bz), bb, n * rest);
            };
            if lo <= hi {
                at(lo, (hi - lo + 1) as u64);
            }
            for bz in (z0..=z1).filter(|&bz| bz < lo || bz > hi) {
                at(bz, 1);
            }
        }
        // The next combination of the other involved dims' indices.
        for i in 0..pick.len() {
            pick[i] += 1;
            if pick[i] < values[i].len() {
                continue 'tuples;
            }
            pick[i] = 0;
        }
        break;
    }
    groups.into_iter().map(|(_, b, n)| (b, n)).collect()
}

/// One warp request: the domain points its active lanes compute, and how many times one
/// block issues it.
#[derive(Clone, Debug)]
pub struct Request {
    /// Per active lane, its domain point (parallel dims; reductions at 0), `nd` values
    /// each, lane after lane (one allocation per request: the search featurizes many).
    pub points: Vec<i64>,
    /// Values per lane (the member's domain rank).
    pub nd: usize,
    /// Times per block.
    pub issues: u64,
}

/// The warp requests per point of the body of the root in the block at `origin`: its
/// serial iterations grouped by which lanes they leave active (per dim, a thread `t` at
/// iteration `j` computes `origin + j·threads + t`, or on a `blocked` dim `origin + (j /
/// 4)·4·threads + 4·t + j mod 4`: `thread_map.rs`, [`super::runs`]), a group whose lanes
/// all run as its representative warps ([`super::features::warps`]), a partial one warp
/// by warp with the guarded-off lanes left out.
pub fn root_requests(
    p: &Pipeline,
    k: &KernelPlan,
    origin: &[i64],
    warp: u64,
    blocked: &[bool],
) -> Vec<Request> {
    let ext = p.extents(k.root);
    let nd = p.g.nodes[k.root].domain.len();
    let threads = &k.tiling.threads;
    // Per dim: (lanes left, iterations, first iteration), by lanes left.
    let mut per_dim: Vec<Vec<(u64, u64, u64)>> = Vec::with_capacity(ext.len());
    for (d, &e) in ext.iter().enumerate() {
        let t = threads[d].max(1);
        let mut groups: Vec<(u64, u64, u64)> = Vec::new();
        let b = blocked.get(d).copied().unwrap_or(false);
        for j in 0..k.tiling.serial[d] {
            let left = lanes_inside(b, t, j, e as i64 - origin[d]);
            if left == 0 {
                continue;
            }
            match groups.iter_mut().find(|g| g.0 == left) {
                Some(g) => g.1 += 1,
                None => groups.push((left, 1, j)),
            }
        }
        per_dim.push(groups);
    }
    let mut combos: Vec<(Vec<u64>, u64, Vec<u64>)> = vec![(Vec::new(), 1, Vec::new())];
    for groups in &per_dim {
        combos = combos
            .iter()
            .flat_map(|(l, n, j)| {
                groups.iter().map(move |&(gl, gn, gj)| {
                    let (mut l, mut j) = (l.clone(), j.clone());
                    l.push(gl);
                    j.push(gj);
                    (l, n * gn, j)
                })
            })
            .collect();
    }
    let block_threads = k.tiling.num_threads().max(1);
    let order = lane_order(threads);
    let mut c = vec![0u64; threads.len()];
    let mut out = Vec::new();
    for (left, iters, j) in combos {
        let at = |pts: &mut Vec<i64>, c: &[u64]| {
            pts.extend((0..c.len()).map(|d| {
                let b = blocked.get(d).copied().unwrap_or(false);
                origin[d] + local_point(b, threads[d].max(1), j[d], c[d]) as i64
            }));
            pts.extend(std::iter::repeat_n(0, nd - c.len()));
        };
        if left
            .iter()
            .zip(threads.iter())
            .all(|(&l, &t)| l == t.max(1))
        {
            for (first, lanes, n) in super::features::warps(block_threads, warp) {
                let mut points = Vec::with_capacity(lanes as usize * nd);
                for l in first..first + lanes {
                    lane_coord(threads, &order, l, &mut c);
                    at(&mut points, &c);
                }
                out.push(Request {
                    points,
                    nd,
                    issues: n * iters,
                });
            }
            continue;
        }
        for first in (0..block_threads).step_by(warp as usize) {
            let last = (first + warp).min(block_threads);
            let mut points = Vec::new();
            for l in first..last {
                lane_coord(threads, &order, l, &mut c);
                if c.iter().zip(&left).all(|(&x, &l)| x < l) {
                    at(&mut points, &c);
                }
            }
            if !points.is_empty() {
                out.push(Request {
                    points,
                    nd,
                    issues: iters,
                });
            }
        }
    }
    out
}

/// The warp requests per point of the body of a block-level stage (domain `shape`,
/// region `region`, its parallel spans) in the block at `origin`: the block's threads take
/// the region's points flat in turn (`shared_stage.rs`, `materialize`); a lane whose point
/// lies outside the stage's domain loads nothing. `None` when every point lies inside (the
/// caller counts the representative warps).
pub fn shared_requests(
    shape: &[u64],
    region: &[Span],
    origin: &[i64],
    nd: usize,
    block_threads: u64,
    warp: u64,
) -> Option<Vec<Request>> {
    let lo: Vec<i64> = region.iter().map(|s| s.lo_at(origin)).collect();
    let size: Vec<i64> = region.iter().map(|s| s.size).collect();
    let inside = |d: usize, c: i64| (0..shape[d] as i64).contains(&(lo[d] + c));
    let full = (0..region.len()).all(|d| inside(d, 0) && inside(d, size[d] - 1));
    if full {
        return None;
    }
    let total: i64 = size.iter().product();
    let bt = block_threads.max(1) as i64;
    let mut c = vec![0i64; nd];
    let mut out = Vec::new();
    let mut start = 0;
    while start < total {
        let end_iter = (start + bt).min(total);
        let mut first = start;
        while first < end_iter {
            let last = (first + warp as i64).min(end_iter);
            let mut points = Vec::new();
            for q in first..last {
                let mut rem = q;
                let mut ok = true;
                for d in (0..size.len()).rev() {
                    let x = rem % size[d];
                    rem /= size[d];
                    ok &= inside(d, x);
                    c[d] = lo[d] + x;
                }
                if ok {
                    points.extend_from_slice(&c);
                }
            }
            if !points.is_empty() {
                out.push(Request {
                    points,
                    nd,
                    issues: 1,
                });
            }
            first = last;
        }
        start = end_iter;
    }
    Some(out)
}
