//! The thread mapping: which points of the block tile each thread owns (interleaved or in
//! blocked runs of 4), the block and thread coordinates, the loops or unrolled points over
//! a thread's tile, and the transposed shared layouts that let a blocked thread read a
//! staged tile 16 bytes at a time.

use rtile::ir::Value;
use rtile_dialects::arith::CmpIPredicate;
use rtile_dialects::te::model::ElemType;

use super::context::Lowering;
use super::plan::StagePlan;
use super::reduction::MAX_UNROLLED_POINTS;
use crate::construct_rtile::AffineIndex;

/// The thread-to-point mapping along the spatial axes of a reduction kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ThreadMapping {
    /// Blocked (runs of 4 consecutive points per thread) on the axes where that lets the
    /// compute read a staged tile with 16-byte `vector.load`s, interleaved elsewhere.
    #[default]
    Auto,
    /// As `Auto`, and a staged tile read along a spatial axis that is not its last dim (a
    /// matmul's `A[m, k]`) is stored transposed (`As[k][m]`) so that axis is blocked and
    /// read 16 bytes at a time too. Opt-in: ptxas gives such kernels many more registers
    /// (Table-1 m2 on H100 108 → 155, bmm 128 → 165: fewer blocks per SM) and 2 of the 139
    /// top-10 H100 candidates spill, so whether the vector reads pay is for a GPU to say.
    Transposed,
    /// Every axis interleaved: point `base + j·nthr + tc`.
    Interleaved,
}

impl ThreadMapping {
    /// Parses the `thread-mapping` pass option's value.
    pub fn parse(s: &str) -> Option<ThreadMapping> {
        match s {
            "auto" => Some(ThreadMapping::Auto),
            "transposed" => Some(ThreadMapping::Transposed),
            "interleaved" => Some(ThreadMapping::Interleaved),
            _ => None,
        }
    }
}

/// A staged tile stored transposed in shared memory: its dim `dim`, indexed by the blocked
/// spatial axis `axis`, becomes the last dim (swapped with the tile's last dim, which a
/// reduction axis indexes), `pitch` elements long with the padding (see `transposable`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transpose {
    pub dim: usize,
    pub axis: usize,
    pub pitch: i64,
}

impl Transpose {
    /// Per-dim values in the tensor's dim order → the shared layout's order.
    pub fn permute<T: Clone>(&self, coord: &[T]) -> Vec<T> {
        let mut c = coord.to_vec();
        let last = c.len() - 1;
        c.swap(self.dim, last);
        c
    }
}

/// One view axis as the thread-mapping decision sees it: its block and thread tiles and
/// whether it is a reduction axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisTiles {
    pub block_tile: i64,
    pub thread_tile: i64,
    pub reduction: bool,
}

/// The spatial axis along which a staged tile read through `indices` (linear, over the
/// stage's view axes `axes`) can be read 4 values at a time by a blocked thread: 32-bit
/// elements (`elem_bits`), the tile's last dim indexed by that axis alone with coefficient
/// 1 (its tile-local index is then the point's block-local coordinate, a multiple of 4 at
/// a run's start), no other dim depending on it, the row padded by `row_pad` a multiple of
/// 4 (so every row starts 16-byte aligned; the buffer itself is 16-byte aligned, see
/// [`super::launch::shared_layout`]), and a thread tile of a multiple of 4 along it.
///
/// The one decision the lowering ([`shared_vector_axis`]) and the beam search's features
/// (`autoschedule_beam::runs`) both take, so the model counts the thread map that runs.
pub fn vector_read_axis(
    indices: &[AffineIndex],
    elem_bits: u32,
    axes: &[AxisTiles],
    row_pad: i64,
) -> Option<usize> {
    if elem_bits != 32 {
        return None;
    }
    let last = indices.len().checked_sub(1)?;
    let s = indices[last].single_axis()?;
    let others_free = indices[..last]
        .iter()
        .all(|ix| ix.terms.iter().all(|&(a, _)| a != s));
    let blk: Vec<u64> = axes.iter().map(|a| a.block_tile as u64).collect();
    let row = indices[last].span(&blk) as i64 + row_pad;
    let axis = axes.get(s)?;
    (!axis.reduction && axis.thread_tile % 4 == 0 && others_free && row % 4 == 0).then_some(s)
}

/// Whether a stage's points are unrolled into a register tile, where a blocked axis lets
/// runs of 4 share one 16-byte load: a reduction (`reduction`: a combiner and reduction
/// axes) whose thread tile holds at most [`MAX_UNROLLED_POINTS`] points
/// (`spatial_points`). Elsewhere the points are not unrolled, so nothing would be merged
/// and every axis stays interleaved.
pub fn runs_can_merge(reduction: bool, spatial_points: i64) -> bool {
    reduction && spatial_points <= MAX_UNROLLED_POINTS
}

/// [`vector_read_axis`] of access `i` of `stage` (its staged tile, padded as the program
/// pads it); `None` for an access that is not staged.
pub(super) fn shared_vector_axis(stage: &StagePlan, i: usize) -> Option<usize> {
    let indices = &stage.shared_read(i)?.indices;
    let last = indices.len().checked_sub(1)?;
    let axes: Vec<AxisTiles> = stage
        .axes
        .iter()
        .map(|a| AxisTiles {
            block_tile: a.block_tile,
            thread_tile: a.thread_tile,
            reduction: a.reduction,
        })
        .collect();
    let pad = stage.pad(stage.inputs[i].read, last);
    vector_read_axis(indices, stage.inputs[i].elem.width(), &axes, pad)
}

/// Whether access `i`'s staged tile is read by the compute along a spatial axis `s` that
/// indexes one of its dims `d` other than the last, while the last dim is a reduction axis
/// (a matmul's `A[m, k]` tile): returns `(d, s)`. Stored transposed (`As[k][m]`), a
/// blocked thread's run of 4 along `s` is then one 16-byte `vector<4xf32>` of a row, as
/// [`shared_vector_axis`] gives B's. Plain tiles only: 32-bit elements, every dim one axis
/// with coefficient 1 (or a constant), so no halo, stride, negative coefficient or
/// division; `s` and the reduction axis each index one dim alone; `thread[s] % 4 == 0`.
/// Of several such dims the innermost is taken.
pub(super) fn transposable(stage: &StagePlan, i: usize) -> Option<(usize, usize)> {
    let vidx = &stage.shared_read(i)?.indices;
    if stage.inputs[i].elem.width() != 32 || vidx.len() < 2 {
        return None;
    }
    let plain = vidx
        .iter()
        .all(|ix| ix.div <= 1 && (ix.terms.is_empty() || ix.single_axis().is_some()));
    if !plain {
        return None;
    }
    let last = vidx.len() - 1;
    let r = vidx[last].single_axis()?;
    let uses = |a: usize| {
        vidx.iter()
            .filter(|ix| ix.terms.iter().any(|&(b, _)| b == a))
            .count()
    };
    if !stage.axes[r].reduction || uses(r) != 1 {
        return None;
    }
    (0..last).rev().find_map(|d| {
        let s = vidx[d].single_axis()?;
        let axis = &stage.axes[s];
        (!axis.reduction && axis.thread_tile % 4 == 0 && uses(s) == 1).then_some((d, s))
    })
}

/// The row pitch (elements, padding included) of a tile of `tile` elements per dim stored
/// with its dims `dim` and last swapped, filled by a cooperative load of `v`-element units
/// along the original last dim (unit `e` at `decompose(e)`, its `v` values stored as `v`
/// scalar stores, lane `l` by all threads at once).
///
/// A multiple of 4 (every row of the transposed tile 16-byte aligned for the compute's
/// vector reads), and, of the 8 such pitches from the span up, the one whose scalar stores
/// conflict least (then the smallest). Bank of an element: its word address mod 32. A warp
/// stores 32 consecutive units (thread `tid` takes units `tid + j·threads`); for a matmul's
/// `A[m, k]` tile with `k`-tile 8 and 16-byte units, a warp covers 16 rows `m` and both
/// units `q ∈ {0, 1}` of each: lane `l` writes `As[4q + l][m]`, word `(4q + l)·P + m`. The
/// two `q` groups lie `4P` words apart, so with `P ≡ 4 (mod 8)` (`4P ≡ 16 mod 32`) the 16
/// rows of `q = 0` take 16 banks and those of `q = 1` the other 16: conflict-free, where the
/// unpadded `P = 192` (`4P ≡ 0`) would be 2-way. Counting it, rather than a formula, covers
/// the other tile shapes (scalar units, `k`-tiles of 16 or 4, several rows per warp).
pub(super) fn transposed_pitch(tile: &[i64], v: i64, dim: usize) -> i64 {
    let rank = tile.len();
    let last = rank - 1;
    let mut units = tile.to_vec();
    units[last] /= v;
    let total: i64 = units.iter().product();
    let start = (tile[dim] + 3) / 4 * 4;
    let cost = |pitch: i64| -> (usize, usize) {
        let mut shape = tile.to_vec();
        shape.swap(dim, last);
        shape[last] = pitch;
        let (mut worst, mut sum) = (0usize, 0usize);
        let mut e0 = 0;
        while e0 < total {
            for l in 0..v {
                let mut banks = [0usize; 32];
                for e in e0..(e0 + 32).min(total) {
                    let mut c = vec![0i64; rank];
                    let mut rem = e;
                    for d in (0..rank).rev() {
                        c[d] = rem % units[d];
                        rem /= units[d];
                    }
                    c[last] = c[last] * v + l;
                    c.swap(dim, last);
                    let addr = c.iter().zip(&shape).fold(0i64, |a, (x, n)| a * n + x);
                    banks[(addr % 32) as usize] += 1;
                }
                let w = banks.iter().copied().max().unwrap_or(0);
                worst = worst.max(w);
                sum += w;
            }
            e0 += 32;
        }
        (worst, sum)
    };
    (0..8)
        .map(|j| start + 4 * j)
        .min_by_key(|&p| (cost(p), p))
        .unwrap_or(start)
}

/// Elements per cooperative-load unit of a staged tile read through `vidx` from a view of
/// `vshape`: 4 (one 16-byte `vector<4xf32>` along the tensor's last dim) when the element is
/// 32 bits, the tile row and the tensor row are multiples of 4 and the tile origin is
/// 4-aligned for every block and k-step; else 1. (A tile stored untransposed also needs its
/// padded shared row to be a multiple of 4 for the vector store.)
pub(super) fn load_unit(
    stage: &StagePlan,
    vidx: &[AffineIndex],
    vshape: &[i64],
    elem: ElemType,
    tile: &[i64],
) -> i64 {
    let last = vidx.len() - 1;
    let origin_aligned = vidx[last].constant % 4 == 0
        && vidx[last]
            .terms
            .iter()
            .all(|&(a, cf)| cf > 0 && (cf * stage.axes[a].block_tile) % 4 == 0);
    if elem.width() == 32 && tile[last] % 4 == 0 && vshape[last] % 4 == 0 && origin_aligned {
        4
    } else {
        1
    }
}

/// A thread's identity in its block.
#[derive(Clone, Copy, Debug)]
pub(super) struct ThreadIds {
    /// `gpu.thread_id x`.
    pub tid: Value,
    /// The spatial thread (the owner of a thread tile).
    pub spatial: Value,
    /// The reduction lane of a cross-thread split (the constant 0 without one).
    pub lane: Value,
}

/// Block and thread coordinates: blocks row-major over the scale-out grid, threads
/// row-major over the block tile (the last spatial axis fastest, for coalescing). Sets the
/// spatial axes' block bases and thread coordinates.
pub(super) fn thread_coordinates(cx: &mut Lowering) -> ThreadIds {
    let (plan, stage) = (cx.plan, cx.stage);
    let spatial = stage.spatial();
    let bid = cx.em.id_x("gpu.block_id");
    let tid = cx.em.id_x("gpu.thread_id");
    let block_coord = cx.decompose(bid, &plan.grid);
    let threads_per_axis: Vec<i64> = spatial.iter().map(|&s| stage.axes[s].threads).collect();
    // With a cross-thread reduction, thread `tid` is reduction lane `tid / threads` of
    // spatial thread `tid % threads` (spatial neighbours stay neighbours).
    let (spatial_tid, lane) = if stage.split.lanes > 1 {
        let t = cx.em.idx(plan.threads);
        (
            cx.em.ibin("arith.remui", tid, t),
            cx.em.ibin("arith.divui", tid, t),
        )
    } else {
        (tid, cx.em.idx(0))
    };
    let thread_coord = cx.decompose(spatial_tid, &threads_per_axis);
    for (j, &s) in spatial.iter().enumerate() {
        cx.tile_base[s] = cx.em.mul_const(block_coord[j], stage.axes[s].block_tile);
        cx.thread_coord[s] = thread_coord[j];
    }
    ThreadIds {
        tid,
        spatial: spatial_tid,
        lane,
    }
}

/// One point of an unrolled thread tile: per view axis its value and its coordinate in the
/// block tile (spatial axes only).
pub(super) struct Point {
    pub vals: Vec<Option<Value>>,
    pub locals: Vec<Option<Value>>,
    /// Per blocked axis: the block-local start of the point's run of 4 and its lane in it.
    pub runs: Vec<Option<(Value, i64)>>,
}

impl Lowering<'_> {
    /// The block-local coordinate of the thread's point `j` (a constant) along spatial axis
    /// `s`, and on a blocked axis the start of its run of 4 and its lane.
    ///
    /// Interleaved: `j·nthr + tc`, so neighbouring threads take neighbouring points.
    /// Blocked (`thread[s]` a multiple of 4): `(j / 4)·(4·nthr) + 4·tc + j mod 4`: each
    /// thread owns runs of 4 consecutive points, the runs of neighbouring threads are
    /// neighbours (a warp still covers one contiguous span per run index), so the 4 values a
    /// thread needs from a staged tile whose last dim is `s` are one 16-byte-aligned
    /// `vector<4xf32>` in shared memory.
    fn local_of(&mut self, s: usize, j: i64) -> (Value, Option<(Value, i64)>) {
        let tc = self.thread_coord[s];
        let axis = self.axis(s);
        if !axis.blocked {
            let off = self.em.idx(j * axis.threads);
            return (self.em.add(off, tc), None);
        }
        let tc4 = self.em.mul_const(tc, 4);
        let off = self.em.idx((j / 4) * 4 * axis.threads);
        let run = self.em.add(off, tc4);
        let lane = self.em.idx(j % 4);
        (self.em.add(run, lane), Some((run, j % 4)))
    }

    /// [`Self::local_of`] for a point index `j` held in an SSA value (the loop forms).
    fn local_of_value(&mut self, s: usize, j: Value) -> Value {
        let tc = self.thread_coord[s];
        let axis = self.axis(s);
        if !axis.blocked {
            let jn = self.em.mul_const(j, axis.threads);
            return self.em.add(jn, tc);
        }
        let four = self.em.idx(4);
        let run = self.em.ibin("arith.divui", j, four);
        let lane = self.em.ibin("arith.remui", j, four);
        let off = self.em.mul_const(run, 4 * axis.threads);
        let tc4 = self.em.mul_const(tc, 4);
        let start = self.em.add(off, tc4);
        self.em.add(start, lane)
    }

    /// The thread's points, row-major over the thread tile (the order of the
    /// accumulators): spatial axis `s` takes `base + local` for the constant
    /// `j < thread[s]` (see [`Self::local_of`]). The absolute values (`vals`) are written
    /// only when `absolute` (guards, global addresses).
    pub fn unrolled_points(&mut self, spatial: &[usize], absolute: bool) -> Vec<Point> {
        let n = self.stage.axes.len();
        let mut pts = vec![Point {
            vals: vec![None; n],
            locals: vec![None; n],
            runs: vec![None; n],
        }];
        for &s in spatial {
            let mut next = Vec::new();
            for pt in &pts {
                for j in 0..self.axis(s).thread_tile {
                    let (local, run) = self.local_of(s, j);
                    let base = self.tile_base[s];
                    let mut vals = pt.vals.clone();
                    let mut locals = pt.locals.clone();
                    let mut runs = pt.runs.clone();
                    if absolute {
                        vals[s] = Some(self.em.add(base, local));
                    }
                    locals[s] = Some(local);
                    runs[s] = run;
                    next.push(Point { vals, locals, runs });
                }
            }
            pts = next;
        }
        pts
    }

    /// `point < extent` on the axes of `axes` the grid (or the k-steps) pad; `None` when
    /// none is.
    pub fn point_guard(&mut self, axes: &[usize], vals: &[Option<Value>]) -> Option<Value> {
        let mut cond = None;
        for &s in axes {
            if self.axis(s).padded() {
                let e = self.em.idx(self.axis(s).extent);
                let Some(v) = vals[s] else { continue };
                let c = self.em.cmp(CmpIPredicate::Slt, v, e);
                cond = self.em.and(cond, c);
            }
        }
        cond
    }

    /// Opens the loops over the thread's points (spatial axis `s` takes
    /// `base + j·nthr + tc`, `j < thread[s]`: threads interleave, so neighbouring threads
    /// touch neighbouring elements) and the guard of the padded axes.
    pub fn open_points(&mut self) -> PointLoops {
        let stage = self.stage;
        let spatial = stage.spatial();
        let mut vals = vec![None; stage.axes.len()];
        let mut q = self.em.idx(0);
        let mut opened = 0;
        for &s in &spatial {
            let thread_tile = stage.axes[s].thread_tile;
            let j = if thread_tile == 1 {
                self.em.idx(0)
            } else {
                let (z, ub, one) = (self.em.idx(0), self.em.idx(thread_tile), self.em.idx(1));
                opened += 1;
                self.em.begin_for(z, ub, one, &[]).0
            };
            let qs = self.em.mul_const(q, thread_tile);
            q = self.em.add(qs, j);
            let local = self.local_of_value(s, j);
            let base = self.tile_base[s];
            vals[s] = Some(self.em.add(base, local));
        }
        // Guard: only axes whose padded extent exceeds the tensor.
        let cond = self.point_guard(&spatial, &vals);
        if let Some(c) = cond {
            self.em.begin_then(c);
        }
        PointLoops {
            vals,
            point: q,
            opened,
            guarded: cond.is_some(),
        }
    }

    /// Closes what [`Self::open_points`] opened.
    pub fn close_points(&mut self, loops: &PointLoops) {
        if loops.guarded {
            self.em.end_then();
        }
        for _ in 0..loops.opened {
            self.em.end_for(&[]);
        }
    }
}

/// The loops over a thread's points opened by [`Lowering::open_points`].
pub(super) struct PointLoops {
    /// Per view axis: the point's value (spatial axes).
    pub vals: Vec<Option<Value>>,
    /// The point's index in the thread tile (row-major).
    pub point: Value,
    opened: usize,
    guarded: bool,
}
