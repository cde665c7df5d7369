//! The staging of a reduction root's inputs from outside its kernel, counted as the
//! lowered kernel runs it (OOPSLA'21 Appendix A: global load transactions with coalescing,
//! shared load and store transactions with bank conflicts, per warp request).
//!
//! `--lower-to-gpu` stages every linear read of a reduction anchor from outside the kernel
//! (its own reads and those of element-wise producers fused into it in registers, composed
//! in their place) per k-step: the block's threads copy each distinct read's tile into
//! shared memory with cooperative loads (`staging.rs`: unit `tid + j·threads`, warps take
//! consecutive units, 16-byte units where the tile allows, out-of-range units the pad),
//! then the compute reads the tiles by the thread map (`access.rs`: on a blocked axis one
//! 16-byte read per run of 4; a thread's identical reads of one reduction index merged by
//! the emitter's value numbering). Which tiles, which units, whether the next k-step is
//! prefetched into registers and how many threads share a reduction (the cross-thread
//! split) are the lowering's own decisions: [`staging_of`] asks the lowering's plan
//! ([`fused_plan`]) and this module counts the requests of that plan, as the simulator
//! counts them (`runtime/src/sim/counters.rs`): a warp-level request is the k-th execution
//! of one instruction by the warp's lanes between two barriers; global requests move
//! distinct 32-byte sectors; shared ones wavefronts over 32 banks of 4 bytes, per group of
//! 32 lanes (accesses up to 4 bytes), 16 (8 bytes) or 8 (16 bytes).

use super::kernel::KernelPlan;
use super::pipeline::{Pipeline, is_pointwise};
use super::runs::local_point;
use super::space::Loc;
use crate::connect::tiling::Levels;
use crate::device::Device;
use crate::lower_to_gpu::body::may_trap;
use crate::lower_to_gpu::fuse::{MemberView, ReSrc, fuse_members};
use crate::lower_to_gpu::kernel::fused_plan;
use crate::lower_to_gpu::plan::{
    InputSource, KernelPlan as LoweredPlan, RegisterTile, StageBody, StagePlan,
};
use crate::lower_to_gpu::staging::StagedTile;
use rtile_dialects::tilegraph::Level;

/// Transactions of one kind summed over requests: their count, the bytes the lanes use and
/// the bytes the transactions move.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counted {
    pub count: f64,
    pub used: f64,
    pub moved: f64,
}

impl Counted {
    fn add(&mut self, (count, used): (u64, u64), unit: u64, times: f64) {
        self.count += count as f64 * times;
        self.used += used as f64 * times;
        self.moved += (count * unit) as f64 * times;
    }
}

/// One block's staging traffic: the cooperative loads' global sectors, the compute's
/// shared reads of the tiles (and the cross-thread split's), the tiles' shared stores
/// (and the split's).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StagedCounts {
    pub global_loads: Counted,
    pub shared_loads: Counted,
    pub shared_stores: Counted,
}

/// The lowering's plan of a kernel whose anchor is a reduction reading tensors from outside
/// the kernel through staged tiles, when the model counts it this way.
pub struct Staging {
    plan: LoweredPlan,
    /// The member the lowering's loop nest is of: the root, or in the epilogue form
    /// ([`epilogue_anchor`]) the reduction the root is applied to.
    pub anchor: usize,
}

/// The member position of the reduction an element-wise root is the epilogue of, as
/// `--lower-to-gpu` lowers it (`fuse.rs`, `split_tail`: "a register-connected element-wise
/// consumer of a reduction becomes the reduction's epilogue"): the root reads exactly one
/// member, a reduction fused in registers (§4.1: computed inside the root's thread level),
/// only point-wise over the same points. The lowered kernel then runs the reduction's loop
/// nest (its tiles, its thread map, its staged inputs) and applies the root to each point
/// before the store.
pub fn epilogue_anchor(p: &Pipeline, k: &KernelPlan, levels: &Levels) -> Option<usize> {
    let r = k.root;
    if p.is_reduction(r) {
        return None;
    }
    let node = &p.g.nodes[r];
    let mut anchor = None;
    for (i, inp) in node.inputs.iter().enumerate() {
        let Some(q) = inp.producer.filter(|&q| k.pos(q).is_some()) else {
            continue;
        };
        let ok = p.is_reduction(q)
            && levels[r][i] == Level::Register
            && is_pointwise(inp, &node.out_shape)
            && anchor.is_none_or(|a| a == q);
        if !ok {
            return None;
        }
        anchor = Some(q);
    }
    let a = anchor?;
    (p.g.nodes[a].num_parallel == node.domain.len())
        .then(|| k.pos(a))
        .flatten()
}

/// The lowering's plan of `k` when its anchor is a reduction: the root, or the reduction an
/// element-wise root is the epilogue of ([`epilogue_anchor`]); no reduction recomputed in
/// registers per point, every read
/// from outside the kernel staged, the register tile unrolled and no point guarded (a body
/// that may trap on a pad value, or a direct global read, guards each point); `None`
/// otherwise (the features then count the reads as global reads at each point).
pub fn staging_of(p: &Pipeline, k: &KernelPlan, levels: &Levels, dev: &Device) -> Option<Staging> {
    let g = &p.g;
    if !matches!(k.locs.last(), Some(Loc::Root(_))) {
        return None;
    }
    let epilogue = epilogue_anchor(p, k, levels);
    let anchor = epilogue.unwrap_or(k.members.len() - 1);
    if !p.is_reduction(k.members[anchor]) {
        return None;
    }
    let views = k
        .members
        .iter()
        .enumerate()
        .map(|(mk, &n)| {
            let (c, vals) = g.nodes[n].compute.clone()?;
            Some(MemberView {
                c,
                vals,
                levels: levels[n].clone(),
                result: g.nodes[n].result,
                tiles: k.tiles[mk].clone(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let group = fuse_members(&views, &dev.name).ok()?;
    let anchor_node = &g.nodes[k.members[anchor]];
    if group.tail.is_some() != epilogue.is_some()
        || group.anchor.axes.len() != anchor_node.domain.len()
    {
        return None;
    }
    if group
        .sources
        .iter()
        .any(|s| matches!(s, ReSrc::Recompute(_)))
    {
        return None;
    }
    let plan = fused_plan(&group).ok()?;
    let stage = plan.stages.first()?;
    let StageBody::Reduction(r) = &stage.body else {
        return None;
    };
    let unrolled = matches!(r.register_tile, RegisterTile::Unrolled { .. });
    let direct = stage.inputs.iter().any(|i| {
        i.source == InputSource::Global
            && !matches!(group.sources.get(i.input), Some(ReSrc::Shared(_)))
    });
    let staged = !plan.staging.tiles.is_empty();
    let transposed = stage
        .inputs
        .iter()
        .any(|i| matches!(&i.source, InputSource::Shared(s) if s.transpose.is_some()));
    let guarded = stage.inputs.iter().any(|i| i.source == InputSource::Global)
        || may_trap(&stage.compute.body, &stage.compute);
    (unrolled && staged && !direct && !transposed && !guarded).then_some(Staging { plan, anchor })
}

/// A kind of k-step: its bases, whether it is each stepping axis's first and last, each
/// tile origin's byte offset in its sector, and how many k-steps are of the kind.
type StepKind = (Vec<i64>, Vec<(bool, bool)>, Vec<i64>, f64);

/// One lane's access: its lane in the warp, byte address, bytes.
type Lane = (u32, i64, u32);

/// Distinct 32-byte sectors of one global request and the distinct bytes its lanes use.
fn sectors(req: &[Lane]) -> (u64, u64) {
    let mut s: Vec<i64> = Vec::with_capacity(2 * req.len());
    for &(_, a, b) in req {
        s.extend(a.div_euclid(32)..=(a + i64::from(b) - 1).div_euclid(32));
    }
    s.sort_unstable();
    s.dedup();
    (s.len() as u64, distinct_bytes(req))
}

/// Wavefronts of one shared request (the simulator's rule: lanes in groups of 32, 16 or 8
/// by access width; per group, the most distinct 4-byte words one of the 32 banks holds)
/// and the distinct bytes its lanes use.
fn wavefronts(req: &[Lane]) -> (u64, u64) {
    let widest = req.iter().map(|a| a.2).max().unwrap_or(1).clamp(1, 16);
    let per_group = 32 / widest.next_power_of_two().clamp(4, 16).div_ceil(4);
    let mut words: Vec<(u32, i64, i64)> = Vec::with_capacity(4 * req.len());
    for &(l, a, b) in req {
        for w in a.div_euclid(4)..=(a + i64::from(b) - 1).div_euclid(4) {
            words.push((l / per_group, w.rem_euclid(32), w));
        }
    }
    words.sort_unstable();
    words.dedup();
    let mut total = 0u64;
    for group in words.chunk_by(|x, y| x.0 == y.0) {
        let mut degree = 0;
        for bank in group.chunk_by(|x, y| x.1 == y.1) {
            degree = degree.max(bank.len() as u64);
        }
        total += degree;
    }
    (total, distinct_bytes(req))
}

/// Distinct bytes the lanes of `req` touch.
fn distinct_bytes(req: &[Lane]) -> u64 {
    let mut r: Vec<(i64, i64)> = req.iter().map(|&(_, a, b)| (a, a + i64::from(b))).collect();
    r.sort_unstable();
    let (mut total, mut end) = (0i64, i64::MIN);
    for (a, b) in r {
        let a = a.max(end);
        if b > a {
            total += b - a;
            end = b;
        }
    }
    total as u64
}

/// Row-major linear index of `e` in `shape`.
fn linear(e: &[i64], shape: &[i64]) -> i64 {
    e.iter().zip(shape).fold(0, |acc, (&i, &s)| acc * s + i)
}

/// `e` decomposed row-major over `shape`.
fn decompose(mut e: i64, shape: &[i64]) -> Vec<i64> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = e % shape[d].max(1);
        e /= shape[d].max(1);
    }
    c
}

/// Events of one warp: (instruction, lane, byte address, bytes, occurrence), numbered per
/// lane and instruction in execution order, then grouped into requests.
#[derive(Default)]
struct Warp {
    events: Vec<(u32, u32, i64, u32, u32)>,
    /// Per lane: the instructions it executed so far and how often.
    seen: Vec<Vec<(u32, u32)>>,
}

impl Warp {
    fn exec(&mut self, pc: u32, lane: u32, addr: i64, bytes: u32) {
        let l = lane as usize;
        if self.seen.len() <= l {
            self.seen.resize(l + 1, Vec::new());
        }
        let seen = &mut self.seen[l];
        let occ = match seen.iter_mut().find(|s| s.0 == pc) {
            Some(s) => {
                s.1 += 1;
                s.1 - 1
            }
            None => {
                seen.push((pc, 1));
                0
            }
        };
        self.events.push((pc, occ, addr, bytes, lane));
    }

    /// The requests (one per instruction and occurrence), each counted by `f` into `acc`.
    fn count(&mut self, f: fn(&[Lane]) -> (u64, u64), unit: u64, times: f64, acc: &mut Counted) {
        self.events.sort_unstable_by_key(|e| (e.0, e.1, e.4));
        let mut req: Vec<Lane> = Vec::with_capacity(32);
        for group in self.events.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
            req.clear();
            req.extend(group.iter().map(|e| (e.4, e.2, e.3)));
            acc.add(f(&req), unit, times);
        }
        self.events.clear();
        for s in &mut self.seen {
            s.clear();
        }
    }
}

impl Staging {
    /// The traffic of the block whose spatial origin (per root parallel dim) is `origin`,
    /// over all its k-steps; `warp` lanes a warp.
    pub fn block_counts(&self, origin: &[i64], warp: u64) -> StagedCounts {
        let plan = &self.plan;
        let mut out = StagedCounts::default();
        let kinds = self.step_kinds(origin);
        let mut w = Warp::default();
        for (base, _, _, times) in &kinds {
            for (ti, t) in plan.staging.tiles.iter().enumerate() {
                self.tile_loads(t, ti as u32, base, warp, &mut w, &mut out, *times);
            }
            self.compute_reads(base, warp, &mut w, &mut out.shared_loads, *times);
        }
        self.tree(origin, warp, &mut w, &mut out);
        out
    }

    /// The kinds of k-steps of the block at `origin`: the first and last step of each
    /// stepping axis differ (a halo before the tensor, a partial last step), the others
    /// are alike up to a shift whole sectors long, which moves no sector and no bank count.
    fn step_kinds(&self, origin: &[i64]) -> Vec<StepKind> {
        let plan = &self.plan;
        let stage = &plan.stages[0];
        let spatial = stage.spatial();
        let red = stage.reduction_axes();
        let steps: Vec<i64> = red.iter().map(|&r| stage.axes[r].steps()).collect();
        let total_steps: i64 = steps.iter().product();
        let mut kinds: Vec<StepKind> = Vec::new();
        let mut base = vec![0i64; stage.axes.len()];
        for (j, &s) in spatial.iter().enumerate() {
            base[s] = origin.get(j).copied().unwrap_or(0);
        }
        for step in 0..total_steps {
            let ks = decompose(step, &steps);
            let ends: Vec<(bool, bool)> = ks
                .iter()
                .zip(&steps)
                .map(|(&k, &n)| (k == 0, k == n - 1))
                .collect();
            for (&r, &k) in red.iter().zip(&ks) {
                base[r] = k * stage.axes[r].block_tile;
            }
            let shifts: Vec<i64> = plan
                .staging
                .tiles
                .iter()
                .map(|t| tile_origin_bytes(stage, t, &base).rem_euclid(32))
                .collect();
            match kinds.iter_mut().find(|k| k.1 == ends && k.2 == shifts) {
                Some(k) => k.3 += 1.0,
                None => kinds.push((base.clone(), ends, shifts, 1.0)),
            }
        }
        kinds
    }

    /// The cooperative load of tile `t` (the `ti`-th) at the bases `base`: its units'
    /// global loads (in-range units only) and shared stores, warp by warp.
    #[allow(clippy::too_many_arguments)]
    fn tile_loads(
        &self,
        t: &StagedTile,
        ti: u32,
        base: &[i64],
        warp: u64,
        w: &mut Warp,
        out: &mut StagedCounts,
        times: f64,
    ) {
        let plan = &self.plan;
        let stage = &plan.stages[0];
        let bt = plan.block_threads;
        let eb = i64::from(t.elem.width().div_ceil(8));
        let last = t.units.len() - 1;
        let mut shape: Vec<i64> = t.units.clone();
        shape[last] *= t.lanes;
        for (d, s) in shape.iter_mut().enumerate() {
            *s += stage.pad(t.slot, d);
        }
        let origin = tile_origin(stage, t, base);
        let total = t.total();
        let per_thread = t.per_thread(bt);
        let unit_bytes = (t.lanes * eb) as u32;
        let pc = |k: u32| (ti << 16) | k;
        let mut stores = Warp::default();
        for first in (0..bt).step_by(warp as usize) {
            for lane in 0..(bt - first).min(warp as i64) {
                for j in 0..per_thread {
                    let e = j * bt + first + lane;
                    if e >= total {
                        continue;
                    }
                    let mut coord = decompose(e, &t.units);
                    coord[last] *= t.lanes;
                    let g: Vec<i64> = coord.iter().zip(&origin).map(|(c, o)| c + o).collect();
                    let inside = g.iter().zip(&t.view_shape).all(|(&x, &n)| x >= 0 && x < n);
                    let saddr = linear(&coord, &shape) * eb;
                    let l = lane as u32;
                    // The prefetch form unrolls the units (an instruction per `j`); the
                    // loop form runs one instruction per kind of access.
                    let (lpc, spc) = if plan.staging.prefetch {
                        (pc(2 * j as u32), pc(2 * j as u32 + 1))
                    } else {
                        (pc(0), pc(1))
                    };
                    if inside {
                        w.exec(lpc, l, linear(&g, &t.view_shape) * eb, unit_bytes);
                    }
                    if inside || plan.staging.prefetch || t.lanes == 1 {
                        stores.exec(spc, l, saddr, unit_bytes);
                    } else {
                        // The loop form's out-of-range 16-byte unit: the pad, a scalar store
                        // per element.
                        for x in 0..t.lanes {
                            stores.exec(pc(2 + x as u32), l, saddr + x * eb, eb as u32);
                        }
                    }
                }
            }
            w.count(sectors, 32, times, &mut out.global_loads);
            stores.count(wavefronts, 128, times, &mut out.shared_stores);
        }
    }

    /// The compute's reads of the staged tiles in one k-step at `base`: per thread and
    /// reduction index, one read per distinct (tile, offset, point coordinates its index
    /// uses): the points of a thread that read the same element share the load.
    fn compute_reads(&self, base: &[i64], warp: u64, w: &mut Warp, acc: &mut Counted, times: f64) {
        let plan = &self.plan;
        let stage = &plan.stages[0];
        let spatial = stage.spatial();
        let red = stage.reduction_axes();
        let threads = plan.threads;
        let split = stage.split;
        // Reduction locals per iteration of the inner loops (the split axis taking every
        // `lanes`-th from the lane), and whether each runs (inside the extent).
        let iters: Vec<i64> = red
            .iter()
            .map(|&r| {
                let bt = stage.axes[r].block_tile;
                if Some(r) == split.axis {
                    (bt + split.lanes - 1) / split.lanes
                } else {
                    bt
                }
            })
            .collect();
        let n_iters: i64 = iters.iter().product();
        // A read's shared address moves with the reduction index alike in every lane when
        // nothing is split: counted once, times the indices that run (word-sized elements:
        // a shift of whole words keeps every bank count).
        let uniform = split.lanes == 1
            && stage
                .inputs
                .iter()
                .all(|i| i.elem.width().is_multiple_of(32));
        let runs_inside = |m: &[i64], lane: i64| -> bool {
            red.iter().zip(m).all(|(&r, &mi)| {
                let a = &stage.axes[r];
                let lr = if Some(r) == split.axis {
                    lane + mi * split.lanes
                } else {
                    mi
                };
                lr < a.block_tile && base[r] + lr < a.extent
            })
        };
        let keys = read_keys(stage);
        let bt = plan.block_threads;
        let mut tc = vec![0i64; stage.axes.len()];
        let mut locals = vec![0i64; stage.axes.len()];
        let tpa: Vec<i64> = spatial.iter().map(|&s| stage.axes[s].threads).collect();
        let count_iters: Vec<(i64, f64)> = if uniform {
            let inside = (0..n_iters)
                .filter(|&q| runs_inside(&decompose(q, &iters), 0))
                .count();
            vec![(0, inside as f64)]
        } else {
            (0..n_iters).map(|q| (q, 1.0)).collect()
        };
        for first in (0..bt).step_by(warp as usize) {
            for &(q, mult) in &count_iters {
                let m = decompose(q, &iters);
                for lane in 0..(bt - first).min(warp as i64) {
                    let tid = first + lane;
                    let (sp, rl) = (tid % threads, tid / threads);
                    if !uniform && !runs_inside(&m, rl) {
                        continue;
                    }
                    for (j, c) in decompose(sp, &tpa).into_iter().enumerate() {
                        tc[spatial[j]] = c;
                    }
                    for (&r, &mi) in red.iter().zip(&m) {
                        locals[r] = if Some(r) == split.axis {
                            rl + mi * split.lanes
                        } else {
                            mi
                        };
                    }
                    for (ki, key) in keys.iter().enumerate() {
                        let addr = key_address(stage, key, &tc, &mut locals);
                        w.exec(ki as u32, lane as u32, addr, key.bytes);
                    }
                }
                w.count(wavefronts, 128, times * mult, acc);
            }
        }
    }

    /// An upper bound on the lane accesses [`Self::block_counts`] enumerates for one block:
    /// per kind of k-step (those of the first block) every tile's units, and every lane's distinct reads per
    /// evaluated reduction index; the tree's accesses.
    pub fn work(&self) -> u64 {
        let plan = &self.plan;
        let stage = &plan.stages[0];
        let red = stage.reduction_axes();
        let kinds = self.step_kinds(&vec![0; stage.spatial().len()]).len() as i64;
        let units: i64 = plan.staging.tiles.iter().map(StagedTile::total).sum();
        let keys = read_keys(stage).len() as i64;
        let iters: i64 = if stage.split.lanes == 1 {
            1
        } else {
            red.iter()
                .map(|&r| stage.axes[r].block_tile)
                .product::<i64>()
                / stage.split.lanes
        };
        let points: i64 = stage
            .spatial()
            .iter()
            .map(|&s| stage.axes[s].thread_tile)
            .product();
        let lanes = (plan.block_threads + 31) / 32 * 32;
        let tree = 4 * lanes * points * (stage.split.lanes > 1) as i64;
        (kinds * (units + lanes * keys * iters) + tree).max(0) as u64
    }

    /// Combines one block's cross-thread tree runs: per level the lower half of the lanes
    /// combine every point with the upper half's, `(lanes − 1)·threads·points` in all.
    pub fn tree_combines(&self) -> u64 {
        let stage = &self.plan.stages[0];
        let points: i64 = stage
            .spatial()
            .iter()
            .map(|&s| stage.axes[s].thread_tile)
            .product();
        ((stage.split.lanes - 1) * self.plan.threads * points).max(0) as u64
    }

    /// The cross-thread split's shared traffic: each thread's partial accumulators stored,
    /// the tree's reads and stores per level, lane 0's reads of the results (per point
    /// inside the extent: the store guards them).
    fn tree(&self, origin: &[i64], warp: u64, w: &mut Warp, out: &mut StagedCounts) {
        let plan = &self.plan;
        let stage = &plan.stages[0];
        let lanes = stage.split.lanes;
        if lanes <= 1 {
            return;
        }
        let spatial = stage.spatial();
        let threads = plan.threads;
        let points: i64 = spatial.iter().map(|&s| stage.axes[s].thread_tile).product();
        let ab = i64::from(stage.compute.acc_type().width().div_ceil(8));
        let at = |q: i64, l: i64, s: i64| ((q * lanes + l) * threads + s) * ab;
        let bt = plan.block_threads;
        let mut stores = Warp::default();
        for first in (0..bt).step_by(warp as usize) {
            let lanes_of = (0..(bt - first).min(warp as i64)).map(|l| (l, first + l));
            for (l, tid) in lanes_of.clone() {
                let (s, rl) = (tid % threads, tid / threads);
                for q in 0..points {
                    stores.exec(q as u32, l as u32, at(q, rl, s), ab as u32);
                }
            }
            stores.count(wavefronts, 128, 1.0, &mut out.shared_stores);
            let mut half = lanes / 2;
            let mut level = 0u32;
            while half >= 1 {
                for (l, tid) in lanes_of.clone() {
                    let (s, rl) = (tid % threads, tid / threads);
                    if rl >= half {
                        continue;
                    }
                    for q in 0..points {
                        let pc = 3 * level;
                        w.exec(pc, l as u32, at(q, rl, s), ab as u32);
                        w.exec(pc + 1, l as u32, at(q, rl + half, s), ab as u32);
                        stores.exec(pc + 2, l as u32, at(q, rl, s), ab as u32);
                    }
                }
                w.count(wavefronts, 128, 1.0, &mut out.shared_loads);
                stores.count(wavefronts, 128, 1.0, &mut out.shared_stores);
                half /= 2;
                level += 1;
            }
            // Lane 0's threads (the first `threads`) read each point's result that runs.
            let tpa: Vec<i64> = spatial.iter().map(|&s| stage.axes[s].threads).collect();
            let tiles: Vec<i64> = spatial.iter().map(|&s| stage.axes[s].thread_tile).collect();
            for (l, tid) in lanes_of.clone().filter(|&(_, tid)| tid < threads) {
                let tc = decompose(tid, &tpa);
                for q in 0..points {
                    let js = decompose(q, &tiles);
                    let inside = spatial.iter().enumerate().all(|(j, &s)| {
                        let a = &stage.axes[s];
                        let local =
                            local_point(a.blocked, a.threads as u64, js[j] as u64, tc[j] as u64);
                        origin.get(j).copied().unwrap_or(0) + (local as i64) < a.extent
                    });
                    if inside {
                        w.exec(0, l as u32, at(q, 0, tid), ab as u32);
                    }
                }
            }
            w.count(wavefronts, 128, 1.0, &mut out.shared_loads);
        }
    }
}

/// One distinct shared read of a thread per reduction index: the input it is first met
/// at, its point's index per spatial axis (the run's on a blocked vector axis), whether it
/// is a 16-byte read, and its bytes.
struct ReadKey {
    input: usize,
    /// The tile's shape (padding included): its row-major layout.
    shape: Vec<i64>,
    js: Vec<i64>,
    vector: Option<usize>,
    bytes: u32,
}

/// The distinct reads of a thread's points (row-major over its thread tile, as
/// `unrolled_points` orders them) per reduction index: one per staged input and point,
/// merged where the tile, its offset in its read group and the coordinates its index uses
/// agree (the emitter's value numbering merges such loads).
fn read_keys(stage: &StagePlan) -> Vec<ReadKey> {
    let spatial = stage.spatial();
    let tiles: Vec<i64> = spatial.iter().map(|&s| stage.axes[s].thread_tile).collect();
    let points: i64 = tiles.iter().product();
    let mut seen: Vec<(usize, Vec<i64>, Vec<i64>, bool)> = Vec::new();
    let mut keys = Vec::new();
    for q in 0..points {
        let js = decompose(q, &tiles);
        let mut full = vec![0i64; stage.axes.len()];
        for (j, &s) in spatial.iter().enumerate() {
            full[s] = js[j];
        }
        for (i, input) in stage.inputs.iter().enumerate() {
            let InputSource::Shared(read) = &input.source else {
                continue;
            };
            let vector = read.vector_axis.filter(|&a| stage.axes[a].blocked);
            let mut used = vec![-1i64; stage.axes.len()];
            for ix in &read.indices {
                for &(a, _) in &ix.terms {
                    if !stage.axes[a].reduction {
                        used[a] = if Some(a) == vector {
                            full[a] / 4
                        } else {
                            full[a]
                        };
                    }
                }
            }
            let id = (input.read, read.offset.clone(), used, vector.is_some());
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            let eb = input.elem.width().div_ceil(8);
            let block: Vec<u64> = stage.axes.iter().map(|a| a.block_tile as u64).collect();
            let shape = read
                .indices
                .iter()
                .enumerate()
                .map(|(d, ix)| ix.span(&block) as i64 + stage.pad(input.read, d))
                .collect();
            keys.push(ReadKey {
                input: i,
                shape,
                js: full.clone(),
                vector,
                bytes: if vector.is_some() { 4 * eb } else { eb },
            });
        }
    }
    keys
}

/// The shared byte address (in its tile) of read `key` for the thread at coordinates `tc`
/// (spatial axes) with the reduction locals in `locals` (its spatial entries overwritten).
fn key_address(stage: &StagePlan, key: &ReadKey, tc: &[i64], locals: &mut [i64]) -> i64 {
    let input = &stage.inputs[key.input];
    let InputSource::Shared(read) = &input.source else {
        return 0;
    };
    for (s, a) in stage.axes.iter().enumerate().filter(|(_, a)| !a.reduction) {
        let j = key.js[s];
        locals[s] = if Some(s) == key.vector {
            (j / 4) * 4 * a.threads + 4 * tc[s]
        } else {
            local_point(a.blocked, a.threads as u64, j as u64, tc[s] as u64) as i64
        };
    }
    let at = read
        .indices
        .iter()
        .zip(&key.shape)
        .enumerate()
        .fold(0i64, |acc, (d, (ix, &n))| {
            let off = read.offset.get(d).copied().unwrap_or(0);
            let v: i64 = ix
                .terms
                .iter()
                .map(|&(a, cf)| {
                    let l = locals[a];
                    if cf < 0 {
                        (l - (stage.axes[a].block_tile - 1)) * cf
                    } else {
                        l * cf
                    }
                })
                .sum();
            acc * n + off + v
        });
    at * i64::from(input.elem.width().div_ceil(8))
}

/// Tile `t`'s origin per view dim at the bases `base` (block origins and the k-step's;
/// negative coefficients start from the block's last index), as `tile_origin` builds it.
fn tile_origin(stage: &StagePlan, t: &StagedTile, base: &[i64]) -> Vec<i64> {
    t.indices
        .iter()
        .map(|ix| {
            ix.constant
                + ix.terms
                    .iter()
                    .map(|&(a, cf)| {
                        let b = if cf < 0 {
                            base[a] + stage.axes[a].block_tile - 1
                        } else {
                            base[a]
                        };
                        b * cf
                    })
                    .sum::<i64>()
        })
        .collect()
}

/// The byte address of tile `t`'s origin in its tensor at `base`.
fn tile_origin_bytes(stage: &StagePlan, t: &StagedTile, base: &[i64]) -> i64 {
    let o = tile_origin(stage, t, base);
    linear(&o, &t.view_shape) * i64::from(t.elem.width().div_ceil(8))
}
