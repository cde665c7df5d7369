//! rProgram construction (Roller §3.2, Figure 8): scale up one core's rTile layer by layer,
//! scale out over the cores, shrink small operators, grow ε until `top_k` programs exist.
//! Every choice Figure 8 leaves open is written down in `docs/passes/construct-rtile.md`.

use super::align::{Aligner, TensorCoreMap, tensor_core_map_for, tensor_core_maps};
use super::expr_info::TensorExprInfo;
use super::implicit_gemm::implicit_gemm;
use super::perf_model::{self, ProgramShape};
use super::rtile::{ceil_div, mem_traffic, register_bytes, thread_registers};
use crate::device::Device;
use std::cmp::Ordering;
use std::collections::HashSet;

/// Options of `--construct-rtile`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstructOptions {
    /// How many rPrograms to construct (Figure 8 `TopK`; §4: top 10 recalls the best).
    pub top_k: usize,
    /// Initial tensor-padding bound ε (§3.1).
    pub epsilon: f64,
    /// ε grows by this step (§3.2 "greedily increase ε") ...
    pub epsilon_step: f64,
    /// ... up to this bound.
    pub epsilon_max: f64,
    /// Use tensor cores for f16/bf16/i8 contractions when the device has them.
    pub tensor_core: bool,
    /// Try axis fusion (§3.2) when the expression yields fewer than `top_k` programs.
    pub axis_fusion: bool,
    /// Shrink programs of small operators to fill the cores (§3.2).
    pub shrink: bool,
    /// Safety bound on the candidate rTiles Figure 8 may examine per ε (deterministic).
    pub max_steps: usize,
}

impl Default for ConstructOptions {
    fn default() -> Self {
        ConstructOptions {
            top_k: 10,
            epsilon: 0.2,
            epsilon_step: 0.2,
            epsilon_max: 1.0,
            tensor_core: true,
            axis_fusion: true,
            shrink: true,
            max_steps: 200_000,
        }
    }
}

pub use rtile_dialects::rtile::RProgram;

/// What the construction produced.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstructResult {
    /// Programs, best (lowest estimate) first, distinct.
    pub programs: Vec<RProgram>,
    /// When axis fusion was applied: per tiled axis, the original axes it merges.
    pub fused_axes: Option<Vec<Vec<usize>>>,
    /// The largest ε used.
    pub epsilon: f64,
    /// Candidate rTiles examined (all ε rounds).
    pub steps: usize,
}

/// Builds the top-k rPrograms of `expr` on `dev` (Roller §3.2).
///
/// A convolution with tensor-core inputs ([`implicit_gemm`]) gets its tensor-core programs
/// over the implicit GEMM view `[M, N, K]` (Roller §5.1: the rTile aligned to the MMA shape
/// needs the operator as a matmul; the programs name the view's axes) and its SIMT programs
/// over its own axes; the best `top_k` of both are kept.
pub fn construct(
    expr: &TensorExprInfo,
    dev: &Device,
    opts: &ConstructOptions,
) -> Result<ConstructResult, String> {
    expr.validate()?;
    if opts.tensor_core
        && let Some(g) = implicit_gemm(expr)
        && !tensor_core_maps(&g.expr, dev).is_empty()
    {
        let simt = ConstructOptions {
            tensor_core: false,
            ..opts.clone()
        };
        let mut r = construct_form(expr, dev, &simt, true)?;
        // The view's own SIMT programs are not built: the SIMT lowering tiles the compute's
        // axes, not the gathered view.
        let view = ConstructOptions {
            axis_fusion: false,
            ..opts.clone()
        };
        let t = construct_form(&g.expr, dev, &view, false)?;
        r.programs.extend(t.programs);
        r.steps += t.steps;
        r.epsilon = r.epsilon.max(t.epsilon);
        sort_programs(&mut r.programs);
        r.programs.truncate(opts.top_k.max(1));
        return Ok(r);
    }
    construct_form(expr, dev, opts, true)
}

/// [`construct`] over one form of the expression; `simt`: whether the SIMT programs are
/// built too (else only the tensor-core ones).
fn construct_form(
    expr: &TensorExprInfo,
    dev: &Device,
    opts: &ConstructOptions,
    simt: bool,
) -> Result<ConstructResult, String> {
    let k = opts.top_k.max(1);
    let mut steps = 0;
    let eps0 = opts.epsilon.max(0.0);
    // §3.2: axis fusion first when shapes are irregular (a fusable axis whose extent is not a
    // multiple of the TEU width), then ε growth. Regular shapes keep their axes unless fusion
    // yields more programs.
    let fusion = if opts.axis_fusion {
        expr.fuse_axes()
    } else {
        None
    };
    let irregular = fusion.as_ref().is_some_and(|(_, groups)| {
        groups
            .iter()
            .filter(|g| g.len() > 1)
            .flatten()
            .any(|&a| !expr.axes[a].extent.is_multiple_of(dev.teu_width))
    });
    let (mut form, mut fused) = (expr.clone(), None);
    if irregular && let Some((f, groups)) = fusion.clone() {
        form = f;
        fused = Some(groups);
    }
    let mut progs = run_round(&form, dev, (opts, simt), eps0, &mut steps, Vec::new());
    if progs.len() < k
        && !irregular
        && let Some((f, groups)) = fusion
    {
        let fp = run_round(&f, dev, (opts, simt), eps0, &mut steps, Vec::new());
        if fp.len() > progs.len() {
            progs = fp;
            form = f;
            fused = Some(groups);
        }
    }
    let mut eps = eps0;
    while progs.len() < k && eps < opts.epsilon_max && opts.epsilon_step > 0.0 {
        // Rounded so that ε prints as the user would write it (0.6, not 0.6000000000000001).
        eps = (((eps + opts.epsilon_step) * 1e9).round() / 1e9).min(opts.epsilon_max);
        progs = run_round(&form, dev, (opts, simt), eps, &mut steps, progs);
    }
    sort_programs(&mut progs);
    progs.truncate(k);
    Ok(ConstructResult {
        programs: progs,
        fused_axes: fused,
        epsilon: eps,
        steps,
    })
}

/// Best first: lowest estimate, then fewer padded points, then the tiles lexicographically
/// (a total order, so the output is deterministic).
fn sort_programs(v: &mut [RProgram]) {
    v.sort_by(|a, b| {
        a.est_us
            .total_cmp(&b.est_us)
            .then_with(|| b.block.cmp(&a.block))
            .then_with(|| b.thread.cmp(&a.thread))
            .then_with(|| a.tensor_core.cmp(&b.tensor_core))
    });
}

/// One ε round: Figure 8 with tensor cores (when eligible) and without, then the small-operator
/// shrink; merges into `acc`, keeping programs distinct.
fn run_round(
    expr: &TensorExprInfo,
    dev: &Device,
    (opts, simt): (&ConstructOptions, bool),
    eps: f64,
    steps: &mut usize,
    mut acc: Vec<RProgram>,
) -> Vec<RProgram> {
    let k = opts.top_k.max(1);
    // One search per MMA instruction (an aligned warp tile scored with the tensor-core
    // peak, Roller §5.1), and the SIMT one.
    let mut modes: Vec<Option<TensorCoreMap>> = Vec::new();
    if opts.tensor_core {
        modes.extend(tensor_core_maps(expr, dev).into_iter().map(Some));
    }
    if simt {
        modes.push(None);
    }
    for tc in modes {
        let mut s = Search::new(expr, dev, eps, tc, k, opts.max_steps);
        s.run();
        *steps += s.steps;
        for (block, thread) in std::mem::take(&mut s.results) {
            let (block, thread) = if opts.shrink {
                s.shrink(block, thread)
            } else {
                (block, thread)
            };
            if let Some(p) = s.program(&block, &thread) {
                let dup = acc.iter().any(|q| {
                    q.block == p.block
                        && q.thread == p.thread
                        && q.tensor_core == p.tensor_core
                        && q.mma == p.mma
                });
                if !dup {
                    acc.push(p);
                }
            }
        }
        if acc.len() >= k {
            break;
        }
    }
    acc
}

/// A pending call of Figure 8's recursion.
enum Call {
    /// `EnlargeTile(T, mem, P)`.
    Enlarge(Vec<u64>, usize, Vec<Vec<u64>>),
    /// `P.Add(mem, T); EnlargeTile(T, mem.Next(), P)`.
    Descend(Vec<u64>, usize, Vec<Vec<u64>>),
}

/// One active `EnlargeTile(T, mem, P)`: its candidates (line 10's loop) and the calls the
/// current candidate still has to make.
struct Frame {
    t: Vec<u64>,
    layer: usize,
    p: Vec<Vec<u64>>,
    cands: Vec<Vec<u64>>,
    next: usize,
    pending: Vec<Call>,
}

/// The recursive construction of Figure 8 for one ε and one compute mode.
struct Search<'a> {
    al: Aligner<'a>,
    expr: &'a TensorExprInfo,
    dev: &'a Device,
    gflops: f64,
    k: usize,
    max_steps: usize,
    steps: usize,
    done: bool,
    /// Figure 8 `Visited`: (layer, rTile, register tile when at the shared layer).
    visited: HashSet<(usize, Vec<u64>, Vec<u64>)>,
    /// Figure 8 `Results`: (block, thread) pairs, in construction order.
    results: Vec<(Vec<u64>, Vec<u64>)>,
}

impl<'a> Search<'a> {
    fn new(
        expr: &'a TensorExprInfo,
        dev: &'a Device,
        eps: f64,
        tc: Option<TensorCoreMap>,
        k: usize,
        max_steps: usize,
    ) -> Self {
        let gflops = perf_model::max_compute_gflops(expr, dev, tc.as_ref());
        Search {
            al: Aligner::new(expr, dev, eps, tc),
            expr,
            dev,
            gflops,
            k,
            max_steps,
            steps: 0,
            done: false,
            visited: HashSet::new(),
            results: Vec::new(),
        }
    }

    /// Figure 8 `ConstructProg`: the initial rTile at the top layer, then `EnlargeTile`.
    ///
    /// The recursion of Figure 8 runs on an explicit stack of `EnlargeTile` frames (its depth is
    /// the number of enlargement steps, thousands for long axes), in exactly the recursive order.
    fn run(&mut self) {
        let Some(t) = self.al.initial_tile() else {
            return;
        };
        if self.exceeds(Device::REGISTER, &t, &t) {
            return;
        }
        let mut stack: Vec<Frame> = Vec::new();
        self.call(Call::Enlarge(t, Device::REGISTER, Vec::new()), &mut stack);
        while !self.done {
            let Some(top) = stack.last_mut() else { break };
            if let Some(c) = top.pending.pop() {
                self.call(c, &mut stack);
                continue;
            }
            if top.next >= top.cands.len() {
                stack.pop();
                continue;
            }
            let t2 = top.cands[top.next].clone();
            top.next += 1;
            let (t, layer, p) = (top.t.clone(), top.layer, top.p.clone());
            self.steps += 1;
            if self.steps > self.max_steps {
                self.done = true;
                break;
            }
            // Lines 11-12: a visited rTile ends this EnlargeTile (literal `Return`).
            let thread = if layer == Device::SHARED {
                p[0].clone()
            } else {
                Vec::new()
            };
            if !self.visited.insert((layer, t2.clone(), thread.clone())) {
                stack.pop();
                continue;
            }
            let thread2 = if layer == Device::SHARED {
                thread
            } else {
                t2.clone()
            };
            // Calls run in push-reverse order (`pending` is a stack).
            let mut pending = Vec::new();
            if self.exceeds(layer, &t2, &thread2) {
                // Lines 13-15.
                pending.push(Call::Descend(t, layer, p));
            } else {
                // Line 20 (runs second): keep enlarging at this layer ...
                pending.push(Call::Enlarge(t2.clone(), layer, p.clone()));
                // ... lines 17-19 (run first): compute-bound, record T' and go down.
                if self.compute_bound(layer, &t2) {
                    pending.push(Call::Descend(t2, layer, p));
                }
            }
            if let Some(top) = stack.last_mut() {
                top.pending = pending;
            }
        }
    }

    /// Starts one call of Figure 8: `Enlarge` is `EnlargeTile` (a new frame, or a result at the
    /// lowest layer); `Descend` is `P.Add(mem, T); EnlargeTile(T, mem.Next(), P)`.
    fn call(&mut self, c: Call, stack: &mut Vec<Frame>) {
        if self.done {
            return;
        }
        match c {
            Call::Descend(t, layer, p) => self.descend(t, layer, &p, stack),
            Call::Enlarge(t, layer, p) => {
                // Lines 6-9: at the lowest layer, P is a result.
                if layer == Device::GLOBAL {
                    let (thread, block) = (&p[0], &p[1]);
                    // A block must align with the execution unit to be a result (§3.1).
                    if self.al.teu_aligned(block, thread)
                        && !self.results.iter().any(|r| &r.0 == block && &r.1 == thread)
                    {
                        self.results.push((block.clone(), thread.clone()));
                        // Line 8 with `≥`: stop once `TopK` programs exist.
                        if self.results.len() >= self.k {
                            self.done = true;
                        }
                    }
                    return;
                }
                let thread = if layer == Device::SHARED {
                    p[0].clone()
                } else {
                    t.clone()
                };
                let cands = self.next_shapes(layer, &t, &thread);
                // A tile that cannot grow along any axis is as large as the tensor allows:
                // treat it like a capacity hit and record it.
                if cands.is_empty() {
                    self.descend(t, layer, &p, stack);
                    return;
                }
                stack.push(Frame {
                    t,
                    layer,
                    p,
                    cands,
                    next: 0,
                    pending: Vec::new(),
                });
            }
        }
    }

    /// `MemFootprint(T) > mem.Capacity()` (Figure 8 line 13). At the shared layer the capacity
    /// of the TEU group counts too: threads per block and the core's registers. At the register
    /// layer a tile also has to leave room for the smallest execution-unit-aligned block that
    /// holds it (otherwise no program could record it).
    fn exceeds(&mut self, layer: usize, t: &[u64], thread: &[u64]) -> bool {
        let lanes = self.al.lanes();
        if layer == Device::REGISTER {
            if register_bytes(self.expr, t, lanes)
                > self.dev.layers[Device::REGISTER].capacity_bytes
            {
                return true;
            }
            return match self.al.enter_shared(t) {
                Some(b) => self.exceeds(Device::SHARED, &b, t),
                None => true,
            };
        }
        if self.al.shared_footprint(t, thread) > self.dev.layers[Device::SHARED].capacity_bytes {
            return true;
        }
        let threads = self.al.threads(t, thread);
        let regs = thread_registers(register_bytes(self.expr, thread, lanes));
        threads > self.dev.max_threads_per_block || threads * regs > self.dev.regs_per_core
    }

    /// `Q(T)` and `F(T)` at a layer (§3.1 data reuse score).
    fn q_f(&self, layer: usize, t: &[u64], thread: &[u64]) -> (f64, f64) {
        let q = mem_traffic(self.expr, t) as f64;
        let f = if layer == Device::REGISTER {
            register_bytes(self.expr, t, self.al.lanes())
        } else {
            self.al.shared_footprint(t, thread)
        };
        (q, f as f64)
    }

    /// `S_i = (Q(T) − Q(T'_i)) / (F(T'_i) − F(T))`; a saving at no footprint cost is infinitely
    /// good, no saving is worth 0.
    fn score(&self, layer: usize, t: &[u64], t2: &[u64], thread: &[u64]) -> f64 {
        let (q1, f1) = self.q_f(layer, t, thread);
        let (q2, f2) = self.q_f(layer, t2, thread);
        super::rtile::data_reuse_score((q1, q2), (f1, f2))
    }

    /// Figure 8 `GetNextRTileShapes`: one candidate per growable axis, best reuse score first;
    /// ties go to the inner (later) axis, which keeps accesses contiguous.
    fn next_shapes(&mut self, layer: usize, t: &[u64], thread: &[u64]) -> Vec<Vec<u64>> {
        let sizes = self.al.next_aligned_axis_sizes(layer, t, thread);
        let mut c: Vec<(f64, usize, Vec<u64>)> = sizes
            .iter()
            .enumerate()
            .filter_map(|(d, s)| {
                let mut t2 = t.to_vec();
                t2[d] = (*s)?;
                Some((self.score(layer, t, &t2, thread), d, t2))
            })
            .collect();
        c.sort_by(|a, b| match b.0.total_cmp(&a.0) {
            Ordering::Equal => b.1.cmp(&a.1),
            o => o,
        });
        c.into_iter().map(|x| x.2).collect()
    }

    fn compute_bound(&self, layer: usize, t: &[u64]) -> bool {
        perf_model::is_compute_bound(
            self.expr,
            self.dev,
            layer,
            t,
            self.al.tc.as_ref(),
            self.gflops,
        )
    }

    /// Moves to `mem.Next()` with `P.Add(mem, T)` done: entering the shared layer first aligns
    /// the tile to that layer's rules.
    fn descend(&mut self, t: Vec<u64>, layer: usize, p: &[Vec<u64>], stack: &mut Vec<Frame>) {
        let mut p2 = p.to_vec();
        p2.push(t.clone());
        let next = layer + 1;
        if next == Device::SHARED {
            let Some(b) = self.al.enter_shared(&t) else {
                return;
            };
            if self.exceeds(Device::SHARED, &b, &t) {
                return;
            }
            self.call(Call::Enlarge(b, next, p2), stack);
        } else {
            self.call(Call::Enlarge(t, next, p2), stack);
        }
    }

    /// §3.2 small operators: while the grid has fewer blocks than cores, shrink the block along
    /// the spatial axis whose enlargement is worth least (smallest data reuse score) to its
    /// previous aligned size; when the block is already one thread tile wide there, shrink the
    /// thread tile and the block together (same thread count).
    fn shrink(&mut self, mut block: Vec<u64>, mut thread: Vec<u64>) -> (Vec<u64>, Vec<u64>) {
        let spatial: Vec<usize> = (0..block.len())
            .filter(|&a| !self.expr.axes[a].reduction)
            .collect();
        let grid = |b: &[u64]| super::rtile::num_spatial_tiles(self.expr, b);
        while grid(&block) < self.dev.cores {
            let mut best: Option<(f64, usize, Vec<u64>, Vec<u64>)> = None;
            for &a in &spatial {
                // The largest smaller block along `a` that keeps every rule; failing that, a
                // smaller thread tile with the same thread count.
                let mut cand = None;
                for s in self
                    .al
                    .smaller_aligned_axis_sizes(Device::SHARED, a, &block, &thread)
                {
                    let mut b2 = block.clone();
                    b2[a] = s;
                    if self.al.teu_aligned(&b2, &thread) {
                        cand = Some((b2, thread.clone()));
                        break;
                    }
                }
                if cand.is_none() {
                    for s in
                        self.al
                            .smaller_aligned_axis_sizes(Device::REGISTER, a, &thread, &thread)
                    {
                        let (mut b2, mut t2) = (block.clone(), thread.clone());
                        b2[a] = block[a] / thread[a] * s;
                        t2[a] = s;
                        if self.al.check_axes(&b2, &t2).is_ok() && self.al.teu_aligned(&b2, &t2) {
                            cand = Some((b2, t2));
                            break;
                        }
                    }
                }
                let Some((b2, t2)) = cand else { continue };
                if self.al.check_axes(&b2, &t2).is_err()
                    || !self.al.teu_aligned(&b2, &t2)
                    || grid(&b2) < grid(&block)
                {
                    continue;
                }
                let sc = self.score(Device::SHARED, &b2, &block, &t2);
                let better = match &best {
                    None => true,
                    Some((bs, ba, _, _)) => sc < *bs || (sc == *bs && a < *ba),
                };
                if better {
                    best = Some((sc, a, b2, t2));
                }
            }
            match best {
                Some((_, _, b2, t2)) => {
                    block = b2;
                    thread = t2;
                }
                None => break,
            }
        }
        (block, thread)
    }

    /// What the micro-performance model reads of a (block, thread) pair
    /// ([`perf_model::estimate`]).
    fn shape<'b>(&'b self, block: &'b [u64], thread: &'b [u64]) -> ProgramShape<'b> {
        let lanes = self.al.lanes();
        ProgramShape {
            block,
            thread,
            threads: self.al.threads(block, thread),
            lanes,
            shared_bytes: self.al.shared_footprint(block, thread),
            register_bytes: register_bytes(self.expr, thread, lanes),
            staged: !self.al.direct,
            async_loads: self.al.tc.is_some(),
            mma: self.al.tc.as_ref(),
        }
    }

    /// Assembles the rProgram for a (block, thread) pair, or `None` if it breaks a rule (the
    /// shrink and the search only produce valid pairs; this is the last guard).
    fn program(&mut self, block: &[u64], thread: &[u64]) -> Option<RProgram> {
        if self.al.check_axes(block, thread).is_err()
            || !self.al.teu_aligned(block, thread)
            || register_bytes(self.expr, thread, self.al.lanes())
                > self.dev.layers[Device::REGISTER].capacity_bytes
            || self.exceeds(Device::SHARED, block, thread)
        {
            return None;
        }
        let e = self.expr;
        let pad = self.al.storage_padding(block, thread);
        let shape = self.shape(block, thread);
        let (threads, reg, sh) = (shape.threads, shape.register_bytes, shape.shared_bytes);
        let est = perf_model::estimate(e, self.dev, self.gflops, &shape);
        let global_fp: u64 = e
            .inputs
            .iter()
            .chain(std::iter::once(&e.output))
            .map(|t| t.shape.iter().product::<u64>() * t.elem_bytes)
            .sum();
        let to_shared = mem_traffic(e, block);
        Some(RProgram {
            device: self.dev.name.clone(),
            device_file: None,
            axes: e.axes.iter().map(|a| a.name.clone()).collect(),
            block: block.to_vec(),
            thread: thread.to_vec(),
            pad,
            grid: e
                .axes
                .iter()
                .zip(block)
                .filter(|(a, _)| !a.reduction)
                .map(|(a, &b)| ceil_div(a.extent, b))
                .collect(),
            threads,
            tensor_core: self.al.tc.is_some(),
            mma: self.al.tc.as_ref().map(|tc| tc.shape),
            staged: !self.al.direct,
            epsilon: self.al.epsilon,
            est_us: rtile_dialects::rtile::attr::round_estimate(est.total_s * 1e6),
            footprint: [reg, sh, global_fp],
            traffic: [
                perf_model::register_traffic(e, thread, self.al.tc.as_ref()),
                to_shared,
                to_shared,
            ],
        })
    }
}

/// The rProgram of an explicit (block, thread) pair, estimated as the construction would
/// estimate it (tensor cores through `tc`); `None` when the pair breaks a rule of §3.1 or a
/// capacity. For comparing the model with programs measured outside the construction.
pub fn program_for(
    e: &TensorExprInfo,
    dev: &Device,
    tc: Option<TensorCoreMap>,
    epsilon: f64,
    block: &[u64],
    thread: &[u64],
) -> Option<RProgram> {
    Search::new(e, dev, epsilon, tc, 1, 0).program(block, thread)
}

/// The micro-performance model's estimate of rProgram `p` of expression `e` (the form it
/// was built on: `p.axes` are its axes) run with the cross-thread split `split`
/// ([`perf_model::estimate_split`]): the program's shape as the construction estimated it
/// (§3.3), with the split's threads and tree on top. With [`perf_model::Split::NONE`] it is
/// the estimate `p.est_us` was rounded from. `Err` when `p` is not a program of `e` on
/// `dev` ([`check_program`]).
pub fn estimate_program(
    e: &TensorExprInfo,
    dev: &Device,
    p: &RProgram,
    split: perf_model::Split,
) -> Result<perf_model::Estimate, String> {
    let names: Vec<&str> = e.axes.iter().map(|a| a.name.as_str()).collect();
    if names != p.axes.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(format!(
            "the program's axes ({}) are not the expression's ({})",
            p.axes.join(", "),
            names.join(", ")
        ));
    }
    check_program(e, dev, p)?;
    let tc = if p.tensor_core {
        tensor_core_map_for(e, dev, p.mma)
    } else {
        None
    };
    let s = Search::new(e, dev, p.epsilon, tc, 1, 0);
    let shape = s.shape(&p.block, &p.thread);
    Ok(perf_model::estimate_split(e, dev, s.gflops, &shape, split))
}

/// Checks that `p` obeys every alignment rule of §3.1 and fits every capacity of `dev` for the
/// expression `e` (the form it was built on, fused if `ConstructResult::fused_axes` says so).
/// Used by tests and by the `#rtile.program` verifier; `Err` names the first broken rule.
pub fn check_program(e: &TensorExprInfo, dev: &Device, p: &RProgram) -> Result<(), String> {
    let n = e.axes.len();
    if p.block.len() != n || p.thread.len() != n {
        return Err(format!("tiles must have {n} sizes, one per axis"));
    }
    if p.block.contains(&0) || p.thread.contains(&0) {
        return Err("tile sizes must be positive".into());
    }
    let tc = if p.tensor_core {
        Some(tensor_core_map_for(e, dev, p.mma).ok_or("tensor cores on an ineligible operator")?)
    } else {
        None
    };
    let al = Aligner::new(e, dev, p.epsilon, tc);
    al.check_axes(&p.block, &p.thread)?;
    if !al.teu_aligned(&p.block, &p.thread) {
        return Err(format!(
            "{} threads are not aligned with the execution unit ({} x {})",
            p.threads, dev.teu_width, dev.teus_per_core
        ));
    }
    if p.threads != al.threads(&p.block, &p.thread) {
        return Err("thread count does not match the tiles".into());
    }
    if p.staged == al.direct {
        return Err("shared-memory staging does not match the operator's reuse".into());
    }
    if p.pad != al.storage_padding(&p.block, &p.thread) {
        return Err("storage padding differs from the bank-conflict rule".into());
    }
    let expected_grid: Vec<u64> = e
        .axes
        .iter()
        .zip(&p.block)
        .filter(|(a, _)| !a.reduction)
        .map(|(a, &b)| ceil_div(a.extent, b))
        .collect();
    if p.grid != expected_grid {
        return Err("grid does not match the block tile".into());
    }
    let reg = register_bytes(e, &p.thread, al.lanes());
    if reg > dev.layers[Device::REGISTER].capacity_bytes {
        return Err(format!("register tile needs {reg} bytes per thread"));
    }
    let sh = al.shared_footprint(&p.block, &p.thread);
    if sh > dev.layers[Device::SHARED].capacity_bytes {
        return Err(format!("block needs {sh} bytes of shared memory"));
    }
    if p.footprint[0] != reg || p.footprint[1] != sh {
        return Err("footprint does not match the tiles".into());
    }
    if p.threads > dev.max_threads_per_block
        || p.threads * thread_registers(reg) > dev.regs_per_core
    {
        return Err("block exceeds the core's threads or registers".into());
    }
    if !(p.est_us.is_finite() && p.est_us > 0.0) {
        return Err("estimate must be a positive number".into());
    }
    Ok(())
}
