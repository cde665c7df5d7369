//! The shared-memory layer (Roller §4): the staged data tiles, their cooperative loads
//! from global memory (one shared buffer per distinct staged read, filled by all the
//! block's threads), and the register-prefetch double buffering of the next k-step's
//! tiles.

use rtile::ir::{Type, Value};
use rtile_dialects::arith::CmpIPredicate;
use rtile_dialects::te::model::ElemType;

use super::access::pad_value;
use super::context::Lowering;
use super::plan::{SharedBuffer, StagePlan};
use super::thread_map::{Transpose, load_unit};
use super::types::{position, shared_memref, ty, vector};
use crate::construct_rtile::{AffineIndex, RProgram, TensorExprInfo};
use crate::device::Device;

/// One staged data tile: the shared buffer of a distinct staged read and how the block's
/// threads fill it (Roller §4: the shared-memory layer's data tile, loaded cooperatively).
#[derive(Clone, Debug, PartialEq)]
pub struct StagedTile {
    /// The (first) te access of the read.
    pub access: usize,
    /// The shared buffer's slot (the distinct read).
    pub slot: usize,
    pub elem: ElemType,
    /// The tile's dims in load units (the last divided by [`Self::lanes`]).
    pub units: Vec<i64>,
    /// Elements per load unit: 4 (`vector<4xf32>`) or 1.
    pub lanes: i64,
    /// The read's view indices, view shape and the tensor dims behind each view dim.
    pub indices: Vec<AffineIndex>,
    pub view_shape: Vec<i64>,
    pub tensor_dims: Vec<Vec<usize>>,
    /// Per view dim: whether an index below 0 / at or past the extent can occur.
    pub bounds_checks: Vec<(bool, bool)>,
    /// The value out-of-range elements are filled with.
    pub pad_value: f64,
    /// The transposed shared layout, if the tile has one: its units are then stored as
    /// scalars, lane by lane.
    pub transpose: Option<Transpose>,
}

impl StagedTile {
    /// Load units of the tile.
    pub fn total(&self) -> i64 {
        self.units.iter().product()
    }
    /// Load units one thread of `threads` moves: `⌈total / threads⌉`.
    pub fn per_thread(&self, threads: i64) -> i64 {
        (self.total() + threads - 1) / threads
    }
    /// The type of one load unit.
    fn lane_type(&self) -> Type {
        if self.lanes > 1 {
            vector(self.lanes, self.elem)
        } else {
            ty(self.elem)
        }
    }
    /// The pad value as one load unit (built where it is used).
    fn pad_lane(&self, cx: &mut Lowering) -> Value {
        let p = cx.constant(self.pad_value, self.elem);
        if self.lanes > 1 {
            cx.em.op("vector.broadcast", &[p], &[], self.lane_type())
        } else {
            p
        }
    }
}

/// The staged tiles of `stage` (one per distinct staged read, in access order), their
/// shared buffers, their bytes, and which accesses load 16 bytes at a time. Builds
/// nothing: origins and loads are built where the k-step base is known.
#[allow(clippy::type_complexity)]
pub(super) fn plan_staged(
    stage: &StagePlan,
    p: &RProgram,
) -> (Vec<StagedTile>, Vec<SharedBuffer>, u64, Vec<bool>) {
    let mut tiles = Vec::new();
    let mut buffers = Vec::new();
    let mut bytes_all = 0u64;
    let mut vectorized = vec![false; stage.inputs.len()];
    for (i, vec_flag) in vectorized.iter_mut().enumerate() {
        let Some(read) = stage.shared_read(i) else {
            continue;
        };
        // One shared tile per distinct read: a repeated read reuses the first one's.
        let slot = stage.inputs[i].read;
        if stage.inputs[..i].iter().any(|a| a.read == slot) {
            continue;
        }
        let (vidx, vshape) = (&read.indices, &read.view_shape);
        let elem = stage.inputs[i].elem;
        let rank = vidx.len();
        let tile: Vec<i64> = vidx.iter().map(|ix| ix.span(&p.block) as i64).collect();
        let pad: Vec<i64> = (0..rank)
            .map(|d| p.pad.get(slot).and_then(|v| v.get(d)).copied().unwrap_or(0) as i64)
            .collect();
        let transpose = read.transpose;
        // A transposed tile takes its own padding (only its new last dim's, see
        // [`super::thread_map::transposed_pitch`]) instead of the program's, which was
        // chosen for the untransposed rows.
        let padded: Vec<i64> = match transpose {
            Some(t) => {
                let mut d = t.permute(&tile);
                if let Some(last) = d.last_mut() {
                    *last = t.pitch;
                }
                d
            }
            None => tile.iter().zip(&pad).map(|(a, b)| a + b).collect(),
        };
        let bytes = padded.iter().product::<i64>() as u64 * (elem.width() as u64).div_ceil(8);
        bytes_all += bytes;
        buffers.push(SharedBuffer {
            slot,
            ty: shared_memref(&padded, elem),
            bytes,
        });
        // The static range of the tile origin over all blocks and k-steps, per dim.
        let mut checks = Vec::new();
        for (d, ix) in vidx.iter().enumerate() {
            let (mut lo, mut hi) = (ix.constant, ix.constant);
            for &(a, cf) in &ix.terms {
                let block_tile = stage.axes[a].block_tile;
                let top = (stage.axes[a].steps() - 1) * block_tile;
                let (x, y) = if cf < 0 {
                    (cf * (top + block_tile - 1), cf * (block_tile - 1))
                } else {
                    (0, cf * top)
                };
                lo += x;
                hi += y;
            }
            checks.push((lo < 0, hi + tile[d] > vshape[d]));
        }
        let last = rank - 1;
        let v = match load_unit(stage, vidx, vshape, elem, &tile) {
            4 if transpose.is_some() || padded[last] % 4 == 0 => 4,
            _ => 1,
        };
        *vec_flag = v == 4;
        let mut units = tile.clone();
        units[last] /= v;
        tiles.push(StagedTile {
            access: i,
            slot,
            elem,
            units,
            lanes: v,
            indices: vidx.clone(),
            view_shape: vshape.clone(),
            tensor_dims: read.tensor_dims.clone(),
            bounds_checks: checks,
            pad_value: pad_value(&stage.compute, &stage.inputs[i]),
            transpose,
        });
    }
    (tiles, buffers, bytes_all, vectorized)
}

/// The most 32-bit registers a thread may hold prefetched values in. The prefetched values
/// are live across the whole compute of a k-step, next to the register tile the
/// construction charged (data and accumulators, plus `THREAD_REGISTER_OVERHEAD` = 24 for
/// addresses, indices and counters, which the prefetch's address arithmetic shares since
/// it ends at the load), so they must fit the headroom between that charge and the
/// block's `.maxnreg` share (`prefetch_budget`). 32 (8 16-byte loads in flight per
/// thread) also caps the unrolled load code; the Table-1 programs need at most 16.
pub const PREFETCH_MAX_REGISTERS: i64 = 32;

/// Whether one k-step's share of `tiles` fits the thread's register headroom
/// ([`prefetch_registers`] ≤ [`prefetch_budget`]) for blocks of `threads` threads.
pub(super) fn plan_prefetch(
    tiles: &[StagedTile],
    view: &TensorExprInfo,
    p: &RProgram,
    device: Option<&Device>,
    threads: i64,
) -> bool {
    prefetch_registers(tiles, threads) <= prefetch_budget(view, p, device, threads)
}

/// 32-bit registers a thread of `threads` needs to prefetch one k-step's share of every
/// tile: per load unit its value (4 registers for a `vector<4xf32>`) and one more for the
/// unit's tile coordinates, which do not change from step to step, so the compiler hoists
/// them out of the k-loop and keeps them live across it. Counting values alone let the
/// big-block convolutions (Table-1 c1/c2 on H100, 22 scalar units in a 24-register
/// headroom; c1 on A100 and V100) spill.
fn prefetch_registers(tiles: &[StagedTile], threads: i64) -> i64 {
    tiles
        .iter()
        .map(|t| {
            t.per_thread(threads) * (t.lanes * (t.elem.width() as u64).div_ceil(32) as i64 + 1)
        })
        .sum()
}

/// Registers a thread may spend on prefetched values: [`PREFETCH_MAX_REGISTERS`], at most
/// half the headroom between the block's register share (`regs_per_core / threads`, rounded
/// down to the allocation granularity of 8, at most 255: the `.maxnreg` the back end sets)
/// and what the construction charges the thread tile (`thread_registers`); 0 on a device
/// the lowering cannot describe. Half, because the unrolled loads' address arithmetic
/// costs more than the one register per unit counted: with the whole headroom the
/// second-ranked H100 programs of Table-1 c1 and c2 (512 threads, 128 registers) spilled
/// 64 and 92 bytes.
fn prefetch_budget(
    view: &TensorExprInfo,
    p: &RProgram,
    device: Option<&Device>,
    threads: i64,
) -> i64 {
    use crate::construct_rtile::rtile::{register_bytes, thread_registers};
    let Some(dev) = device else {
        return 0;
    };
    let warps_threads = (threads.max(1) as u64).next_multiple_of(32);
    let share =
        ((dev.regs_per_core / warps_threads) / 8 * 8).min(dev.target().max_registers_per_thread);
    let charged = thread_registers(register_bytes(view, &p.thread, 1));
    ((share.saturating_sub(charged) / 2) as i64).min(PREFETCH_MAX_REGISTERS)
}

impl Lowering<'_> {
    /// The tile origin per view dim at the current tile bases (block origins and the
    /// k-step's base); negative coefficients start from the block's last index.
    fn tile_origin(&mut self, t: &StagedTile) -> Vec<Value> {
        let mut origin = Vec::new();
        for ix in &t.indices {
            let mut o = self.em.idx(ix.constant);
            for &(a, cf) in &ix.terms {
                let b = if cf < 0 {
                    let off = self.em.idx(self.axis(a).block_tile - 1);
                    let base = self.tile_base[a];
                    self.em.add(base, off)
                } else {
                    self.tile_base[a]
                };
                let term = self.em.mul_const(b, cf);
                o = self.em.add(o, term);
            }
            origin.push(o);
        }
        origin
    }

    /// Load unit `e` of tile `t`: its coordinates in the shared tile (elements), and the
    /// global memref (collapsed to the view's shape, so view indices need no
    /// delinearization), the global indices and the bounds condition (`None`: statically
    /// in bounds).
    #[allow(clippy::type_complexity)]
    fn unit_access(
        &mut self,
        t: &StagedTile,
        origin: &[Value],
        e: Value,
    ) -> (Vec<Value>, Value, Vec<Value>, Option<Value>) {
        let coord = self.unit_coord(t, e);
        let g: Vec<Value> = (0..coord.len())
            .map(|d| self.em.add(origin[d], coord[d]))
            .collect();
        let cond = self.in_bounds(&g, &t.view_shape, &t.bounds_checks);
        let input = &self.stage.inputs[t.access];
        let (mem, shape) = (self.inputs[input.input], &input.shape);
        let gm = self.collapsed(mem, shape, t.elem, &t.tensor_dims);
        (coord, gm, g, cond)
    }

    /// The shared-tile coordinates (elements) of load unit `e` of tile `t`.
    fn unit_coord(&mut self, t: &StagedTile, e: Value) -> Vec<Value> {
        let last = t.units.len() - 1;
        let mut coord = self.decompose(e, &t.units);
        if t.lanes > 1 {
            coord[last] = self.em.mul_const(coord[last], t.lanes);
        }
        coord
    }

    /// The shared store of one load unit `val` at tile coordinates `coord`.
    fn store_unit(&mut self, t: &StagedTile, val: Value, coord: &[Value]) {
        if let Some(tr) = t.transpose {
            // The unit's lanes run along the tensor's last dim, which is not the shared
            // tile's last: one scalar store per lane (bank conflicts: see
            // [`super::thread_map::transposed_pitch`]).
            let last = coord.len() - 1;
            for l in 0..t.lanes {
                let x = if t.lanes > 1 {
                    self.em
                        .op("vector.extract", &[val], &[position(l)], ty(t.elem))
                } else {
                    val
                };
                let mut c = coord.to_vec();
                let off = self.em.idx(l);
                c[last] = self.em.add(coord[last], off);
                self.store_scalar(t, x, &tr.permute(&c));
            }
            return;
        }
        let name = if t.lanes > 1 {
            "vector.store"
        } else {
            "memref.store"
        };
        let mut st = vec![val, self.shared_buffer(t.slot)];
        st.extend_from_slice(coord);
        self.em.op0(name, &st, &[]);
    }

    /// A scalar `memref.store` of `val` into tile `t` at shared-layout coordinates `coord`.
    fn store_scalar(&mut self, t: &StagedTile, val: Value, coord: &[Value]) {
        let mut st = vec![val, self.shared_buffer(t.slot)];
        st.extend_from_slice(coord);
        self.em.op0("memref.store", &st, &[]);
    }

    /// The cooperative load of one staged tile without prefetch: `scf.for e = tid to total
    /// step threads { v = load global; store shared }`, out-of-range elements written with
    /// the pad.
    pub fn loop_load(&mut self, t: &StagedTile, tid: Value, threads: i64) {
        let thr_c = self.em.idx(threads);
        let origin = self.tile_origin(t);
        let last = t.units.len() - 1;
        let ub = self.em.idx(t.total());
        let (e, _, _) = self.em.begin_for(tid, ub, thr_c, &[]);
        let (coord, gm, gi, cond) = self.unit_access(t, &origin, e);
        if t.lanes > 1 {
            if let Some(cnd) = cond {
                self.em.begin_if(cnd, &[]);
            }
            let mut la = vec![gm];
            la.extend_from_slice(&gi);
            let val = self.em.op("vector.load", &la, &[], t.lane_type());
            self.store_unit(t, val, &coord);
            if cond.is_some() {
                self.em.else_(&[]);
                let pv = self.constant(t.pad_value, t.elem);
                for l in 0..t.lanes {
                    let off = self.em.idx(l);
                    let mut c = coord.clone();
                    c[last] = self.em.add(coord[last], off);
                    let c = t.transpose.map_or(c.clone(), |tr| tr.permute(&c));
                    self.store_scalar(t, pv, &c);
                }
                self.em.end_if(Some(&[]));
            }
        } else {
            let val = self.guarded_load(gm, &gi, cond, t.elem, t.pad_value);
            self.store_unit(t, val, &coord);
        }
        self.em.end_for(&[]);
    }

    /// One thread's share of tile `t` at the current bases, global → registers: load unit
    /// `tid + j·threads` for `j < ⌈total/threads⌉`, unrolled (every load written before any
    /// use, so they are all in flight at once); the tail unit is guarded by `e < total`
    /// when `threads ∤ total`, and out-of-range units (tail or tensor bounds) are the pad
    /// value.
    pub fn prefetch_load(&mut self, t: &StagedTile, tid: Value, threads: i64) -> Vec<Value> {
        let origin = self.tile_origin(t);
        let lt = t.lane_type();
        let mut out = Vec::new();
        for j in 0..t.per_thread(threads) {
            let off = self.em.idx(j * threads);
            let e = self.em.add(tid, off);
            let (_, gm, gi, bounds) = self.unit_access(t, &origin, e);
            let tail = if (j + 1) * threads > t.total() {
                let tot = self.em.idx(t.total());
                Some(self.em.cmp(CmpIPredicate::Slt, e, tot))
            } else {
                None
            };
            let cond = match (tail, bounds) {
                (Some(a), b) => b.map(|b| self.em.and(Some(a), b)).unwrap_or(Some(a)),
                (None, b) => b,
            };
            let mut la = vec![gm];
            la.extend_from_slice(&gi);
            let name = if t.lanes > 1 {
                "vector.load"
            } else {
                "memref.load"
            };
            out.push(match cond {
                None => self.em.op(name, &la, &[], lt),
                Some(c) => {
                    let r = self.em.begin_if(c, std::slice::from_ref(&lt));
                    let v = self.em.op(name, &la, &[], lt);
                    self.em.else_(&[v]);
                    let p = t.pad_lane(self);
                    self.em.end_if(Some(&[p]));
                    r[0]
                }
            });
        }
        out
    }

    /// Stores one thread's prefetched share `vals` of tile `t` to shared memory (the tail
    /// unit only when `e < total`).
    pub fn prefetch_store(&mut self, t: &StagedTile, vals: &[Value], tid: Value, threads: i64) {
        for (j, &val) in vals.iter().enumerate() {
            let j = j as i64;
            let off = self.em.idx(j * threads);
            let e = self.em.add(tid, off);
            let coord = self.unit_coord(t, e);
            let tail = (j + 1) * threads > t.total();
            if tail {
                let tot = self.em.idx(t.total());
                let c = self.em.cmp(CmpIPredicate::Slt, e, tot);
                self.em.begin_then(c);
            }
            self.store_unit(t, val, &coord);
            if tail {
                self.em.end_then();
            }
        }
    }

    /// The next k-step's tiles, loaded into registers before this step's compute (so their
    /// latency overlaps it) when `has_next`: `bases` are the next step's tile bases per
    /// stepping axis. The last step loads nothing (its values are pads, never stored).
    /// Returns the values, split per tile.
    pub fn prefetch_next(
        &mut self,
        has_next: Value,
        bases: &[(usize, Value)],
        tid: Value,
    ) -> Vec<Vec<Value>> {
        let plan = self.plan;
        let (tiles, threads) = (&plan.staging.tiles, plan.block_threads);
        let tys: Vec<Type> = tiles
            .iter()
            .flat_map(|t| vec![t.lane_type(); t.per_thread(threads) as usize])
            .collect();
        let res = self.em.begin_if(has_next, &tys);
        let saved: Vec<Value> = bases.iter().map(|(r, _)| self.tile_base[*r]).collect();
        for &(r, b) in bases {
            self.tile_base[r] = b;
        }
        let mut loaded = Vec::new();
        for t in tiles {
            loaded.extend(self.prefetch_load(t, tid, threads));
        }
        for ((r, _), b) in bases.iter().zip(saved) {
            self.tile_base[*r] = b;
        }
        self.em.else_(&loaded);
        let mut pads = Vec::new();
        for t in tiles {
            let pv = t.pad_lane(self);
            for _ in 0..t.per_thread(threads) {
                pads.push(pv);
            }
        }
        self.em.end_if(Some(&pads));
        let mut it = res.into_iter();
        tiles
            .iter()
            .map(|t| it.by_ref().take(t.per_thread(threads) as usize).collect())
            .collect()
    }

    /// The prefetch prologue: k-step 0's tiles global → registers → shared, then a barrier.
    pub fn prefetch_first(&mut self, tid: Value) {
        let plan = self.plan;
        let (tiles, threads) = (&plan.staging.tiles, plan.block_threads);
        let vals: Vec<Vec<Value>> = tiles
            .iter()
            .map(|t| self.prefetch_load(t, tid, threads))
            .collect();
        for (t, v) in tiles.iter().zip(&vals) {
            self.prefetch_store(t, v, tid, threads);
        }
        self.em.barrier();
    }

    /// Cooperative loads of the staged tiles into shared memory, then a barrier.
    pub fn load_tiles(&mut self, tid: Value) {
        let plan = self.plan;
        for t in &plan.staging.tiles {
            self.loop_load(t, tid, plan.block_threads);
        }
        if !plan.staging.tiles.is_empty() {
            self.em.barrier();
        }
    }

    /// The end of a k-step: the next step overwrites the shared tiles every thread just
    /// read, so a barrier first; with prefetch the registers `pending` (the next step's
    /// values and whether it exists) are stored, and a barrier makes them visible to the
    /// next step's compute.
    pub fn end_k_step(&mut self, pending: Option<&(Value, Vec<Vec<Value>>)>, tid: Value) {
        let plan = self.plan;
        let k_steps: i64 = self.stage.k_steps.iter().map(|&(_, k)| k).product();
        if plan.staging.tiles.is_empty() || k_steps <= 1 {
            return;
        }
        self.em.barrier();
        if let Some((has_next, vals)) = pending {
            self.em.begin_then(*has_next);
            for (t, v) in plan.staging.tiles.iter().zip(vals) {
                self.prefetch_store(t, v, tid, plan.block_threads);
            }
            self.em.end_then();
            self.em.barrier();
        }
    }
}
