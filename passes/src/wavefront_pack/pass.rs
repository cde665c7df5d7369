//! `--wavefront-pack`: reads the rOperator DFG (hand-written `vdevice.roperator`s, or every
//! function's `te.compute`s with rKernels from Roller's construction), runs Algorithm 1 and
//! writes the rPrograms as `vdevice.program` ops (docs/passes/wavefront-pack.md).

use rtile::diagnostics::Diagnostic;
use rtile::ir::attributes::Attribute;
use rtile::ir::types::Type;
use rtile::ir::{Context, NamedAttribute, OpId, OperationState, Value};
use rtile::pass::{Pass, PassStatistics};
use rtile_dialects::te::ir::{COMPUTE, compute_from_op};
use rtile_dialects::te::model::TeCompute;
use rtile_dialects::tensor::{COLLAPSE, EXPAND};
use rtile_dialects::vdevice::{
    DEVICE, PROGRAM, RKernel, ROP_ATTR, ROPERATOR, ROperator, VDevice, siblings,
};

use super::profile::{Profile, same_device};
use super::schedule::{BarrierPolicy, KernelPolicy, Op, Plan, Policy, schedule};
use crate::construct_rtile::construct::estimate_program;
use crate::construct_rtile::perf_model::Split;
use crate::construct_rtile::te_adapter::expr_from_compute;
use crate::construct_rtile::{ConstructOptions, RProgram, TensorExprInfo, construct};
use crate::device::Device;
use crate::lower_to_gpu::persistent::RTaskShape;
use rtile_dialects::rtile::attr::round_estimate;

rtile::declare_pass! {
    pass WavefrontPack {
        flag: "wavefront-pack",
        display_name: "WavefrontPack",
        summary: "Pack rOperators' rTasks into vdevice.programs with Rammer's wavefront policy (OSDI'20 Algorithm 1)",
        description: "Schedules the rOperator DFG (vdevice.roperator ops, or the te.compute ops of each function with rKernels from Roller's construction) in BFS waves onto the vEUs of a vDevice, merging a wave into the current rProgram when the model says it is no slower than a separate launch, and writes the rPrograms as vdevice.program ops with their predicted makespan.",
        options(opts: WavefrontPackOptions) {
            /// built-in device: v100, k80, mi50, a100, h100, h200, mi250x (te input; vdevice input may give its own vdevice.device)
            device: String = "", "device";
            /// merge waves into one rProgram (false: RammerBase, one launch per operator)
            merge: bool = "true", "merge";
            /// rKernel choice: fast (fastest kernel per op) or select (SelectRKernels, §3.3)
            kernels: String = "select", "kernels", check = check_kernels;
            /// barriers inside an rProgram: fine (barrier-rTasks) or global (between waves)
            barriers: String = "fine", "barriers", check = check_barriers;
            /// launch cost, µs (negative: the device description's launch_us)
            launch_us: f64 = "-1", "launch-us", check = check_launch_us;
            /// Roller rPrograms per te.compute turned into rKernel variants
            top_k: i64 = "10", "top-k", check = check_top_k;
            /// print the programs in the expanded form (one line per rTask)
            expanded: bool = "false", "expanded";
            /// TOML file of rKernel times measured on the GPU, used by time() instead of the model's (te input)
            profile: String = "", "profile";
        }
        statistics {
            LAUNCHES: "launches", "rPrograms (kernel launches) created";
            ROPS: "roperators", "rOperators scheduled";
            BARRIERS: "barriers", "barrier-rTasks inserted";
            MAKESPAN_NS: "makespan-ns", "predicted time of all rPrograms, launches included, ns";
            PROFILED: "profiled-rkernels", "rKernel variants timed from the profile";
            UNMATCHED: "profile-unmatched", "profile entries that match no constructed variant";
        }
    }
}

fn check_kernels(s: &String) -> Result<(), String> {
    match s.as_str() {
        "fast" | "select" => Ok(()),
        _ => Err(format!("kernels must be fast or select, not '{s}'")),
    }
}

fn check_barriers(s: &String) -> Result<(), String> {
    match s.as_str() {
        "fine" | "global" => Ok(()),
        _ => Err(format!("barriers must be fine or global, not '{s}'")),
    }
}

fn check_launch_us(us: &f64) -> Result<(), String> {
    if !us.is_finite() {
        return Err(format!(
            "launch-us must be a finite number of µs (negative: the device's), not {us}"
        ));
    }
    Ok(())
}

fn check_top_k(k: &i64) -> Result<(), String> {
    if *k < 1 {
        return Err("top-k must be at least 1".into());
    }
    Ok(())
}

/// The pass.
#[derive(Default)]
pub struct WavefrontPack {
    opts: WavefrontPackOptions,
}

fn err(ctx: &Context, at: OpId, m: impl Into<String>) -> Diagnostic {
    Diagnostic::error(ctx.op(at).span, format!("wavefront-pack: {}", m.into()))
}

impl WavefrontPack {
    fn device(&self, ctx: &Context, op: OpId) -> Result<Option<Device>, Diagnostic> {
        if self.opts.device.is_empty() {
            return Ok(None);
        }
        Device::builtin(&self.opts.device)
            .map(Some)
            .map_err(|e| err(ctx, op, e.message))
    }

    /// The profile named by `profile=`, checked against the device (`None` without one).
    fn profile(
        &self,
        ctx: &Context,
        op: OpId,
        dev: &Device,
    ) -> Result<Option<Profile>, Diagnostic> {
        if self.opts.profile.is_empty() {
            return Ok(None);
        }
        let p = Profile::load(&self.opts.profile).map_err(|m| err(ctx, op, m))?;
        same_device(&self.opts.profile, &p.device, &dev.name).map_err(|m| err(ctx, op, m))?;
        Ok(Some(p))
    }

    fn policy(&self, veus: u64, launch_us: f64) -> Policy {
        Policy {
            veus: veus as usize,
            merge: self.opts.merge,
            kernels: if self.opts.kernels == "fast" {
                KernelPolicy::Fast
            } else {
                KernelPolicy::Select
            },
            barriers: if self.opts.barriers == "global" {
                BarrierPolicy::Global
            } else {
                BarrierPolicy::Fine
            },
            launch_us: if self.opts.launch_us >= 0.0 {
                self.opts.launch_us
            } else {
                launch_us
            },
        }
    }

    /// Writes `plans` as programs before `anchor` (or at the end of `anchor`'s block when
    /// `after`), sets each rOperator's chosen kernel, and counts.
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &self,
        ctx: &mut Context,
        plans: &[Plan],
        rop_ops: &[OpId],
        dev_sym: &str,
        prefix: &str,
        anchor: OpId,
        after: bool,
        launch_us: f64,
        stats: &mut PassStatistics,
    ) {
        let mut last = anchor;
        let mut total = 0.0;
        for (i, p) in plans.iter().enumerate() {
            for &(o, k) in &p.ops {
                ctx.set_attr(rop_ops[o], "kernel", Attribute::i64(k as i64));
            }
            let mut st = OperationState::new(PROGRAM);
            st.properties = Some(Attribute::dictionary(vec![NamedAttribute {
                name: "sym_name".into(),
                value: Attribute::string(format!("{prefix}p{i}")),
            }]));
            st.add_attribute("device", Attribute::symbol(dev_sym));
            // Idle vEUs at the end are not launched (the grid is the vEUs in use; ties go
            // to the lowest id, so idle vEUs collect at the end).
            let mut prog = p.prog.clone();
            while prog.veus.last().is_some_and(|l| l.is_empty()) {
                prog.veus.pop();
            }
            st.add_attribute("schedule", prog.to_attr());
            let t = p.time(launch_us);
            total += t;
            st.add_attribute(
                "makespan_us",
                Attribute::float((t * 1000.0).round() / 1000.0, Type::f64()),
            );
            if self.opts.expanded {
                st.add_attribute("expanded", Attribute::unit());
            }
            let op = ctx.create_op(st);
            if after {
                ctx.insert_op_after(last, op);
                last = op;
            } else {
                ctx.insert_op_before(anchor, op);
            }
            let barriers = p
                .prog
                .veus
                .iter()
                .flatten()
                .filter(|e| matches!(e, rtile_dialects::vdevice::Entry::Barrier(_)))
                .count();
            stats.add(Self::BARRIERS, barriers as u64);
            stats.add(Self::ROPS, p.ops.len() as u64);
        }
        stats.add(Self::LAUNCHES, plans.len() as u64);
        stats.add(Self::MAKESPAN_NS, (total * 1000.0).round() as u64);
    }

    /// Input of hand-written `vdevice.roperator`s next to a `vdevice.device`.
    fn run_roperators(
        &self,
        ctx: &mut Context,
        rops: Vec<OpId>,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let at = rops[0];
        let dev_op = siblings(ctx, at)
            .into_iter()
            .find(|&o| ctx.op_name(o) == DEVICE)
            .ok_or_else(|| err(ctx, at, "the rOperators need a vdevice.device next to them"))?;
        let vd = VDevice::from_op(ctx, dev_op).map_err(|m| err(ctx, dev_op, m))?;
        let dev_sym = rtile::verifier::symbol_name(ctx, dev_op)
            .unwrap_or("")
            .to_string();
        let parsed: Vec<ROperator> = rops
            .iter()
            .map(|&o| ROperator::from_op(ctx, o).map_err(|m| err(ctx, o, m)))
            .collect::<Result<_, _>>()?;
        let index = |n: &str| parsed.iter().position(|r| r.name == n);
        let mut ops = Vec::new();
        for (r, &o) in parsed.iter().zip(&rops) {
            let deps = r
                .deps
                .iter()
                .map(|d| index(d).ok_or_else(|| err(ctx, o, format!("unknown rOperator @{d}"))))
                .collect::<Result<_, _>>()?;
            ops.push(Op {
                name: r.name.clone(),
                deps,
                kernels: r.kernels.clone(),
            });
        }
        let launch = self.device(ctx, at)?.map_or(0.0, |d| d.launch_us);
        if self.opts.launch_us < 0.0 && self.opts.device.is_empty() {
            return Err(err(
                ctx,
                at,
                "give launch-us=<µs> or device=<name> for the launch cost",
            ));
        }
        let pol = self.policy(vd.veus(), launch);
        let plans = schedule(&ops, &pol).map_err(|m| err(ctx, at, m))?;
        let last = *rops.last().unwrap_or(&at);
        let anchor = siblings(ctx, at).into_iter().last().unwrap_or(last);
        self.emit(
            ctx,
            &plans,
            &rops,
            &dev_sym,
            "",
            anchor,
            true,
            pol.launch_us,
            stats,
        );
        Ok(())
    }
}

/// The te.compute that produces `v`, looking through tensor reshapes (views).
fn producer(ctx: &Context, mut v: Value) -> Option<OpId> {
    loop {
        let d = ctx.defining_op(v)?;
        match ctx.op_name(d) {
            COMPUTE => return Some(d),
            COLLAPSE | EXPAND => v = *ctx.operands(d).first()?,
            _ => return None,
        }
    }
}

/// Roller's rPrograms of a compute with its own axes (what `rtile.program` is written with).
pub(super) type Programs = (Vec<RProgram>, Vec<String>);

/// The rKernel variants of one te.compute: Roller's top-k rPrograms, each
/// `grid` rTasks shaped as the persistent lowering launches them ([`RTaskShape::of`]: the
/// program's threads times its cross-thread split, the tree's buffer on its shared memory).
/// The per-rTask time is the micro-performance model's estimate of the program run as that
/// rTask, divided by the kernel's waves over `cores × resident blocks` (the model's own
/// split): Roller's `est_us` when the rTask is not split, else the estimate of the split
/// block (`construct_rtile::estimate_program` with the rTask's split: more warps in flight,
/// `1/split` of each thread's reduction, the tree's barriers and traffic; Roller OSDI'22
/// §3.3, Rammer OSDI'20 §3.3's "individual rTask execution time on a vEU"). A profile
/// ([`apply_profile`]) replaces either. Best first by that kernel time (a split can make
/// a lower-ranked program the fastest), Roller's rank on ties. Also returns the rPrograms,
/// variant `i` from program `i`. An op Roller's construction leaves out gets
/// [`alone_variant`].
fn variants(
    ctx: &Context,
    c: OpId,
    dev: &Device,
    top_k: usize,
) -> Result<(Vec<RKernel>, Programs), String> {
    let (tc, _) = compute_from_op(ctx, c)?;
    compute_variants(&tc, dev, top_k).or_else(|why| {
        alone_variant(ctx, c, &tc, dev)
            .map_err(|e| format!("{why}; and it cannot be tiled alone: {e}"))
    })
}

/// The one rKernel of an op whose reads Roller's rTile model cannot express (`mod`, a
/// `floordiv` inside a sum: a reshape folded into the index, a grouped convolution) or
/// for which the construction finds no program: the tiles `--connect` gives it alone,
/// which `--lower-to-gpu` gives such an op too, timed by connect's model (§3.3's rTask
/// time over the kernel's waves, as for Roller's estimate).
fn alone_variant(
    ctx: &Context,
    c: OpId,
    tc: &TeCompute,
    dev: &Device,
) -> Result<(Vec<RKernel>, Programs), String> {
    let alone = crate::connect::alone::alone_program(ctx, c, dev)?;
    let (p, own, est_us) = (alone.program, alone.axes, alone.est_us);
    let shape = RTaskShape::of(tc, &p);
    let mut k = RKernel {
        rtasks: p.grid.iter().product::<u64>().max(1),
        threads: shape.threads,
        smem: shape.smem,
        regs: shape.regs,
        us: 0.0,
    };
    k.us = round_estimate(est_us) / waves(&k, dev) as f64;
    Ok((vec![k], (vec![p], own)))
}

/// [`variants`] of a compute already read from its op.
pub(super) fn compute_variants(
    tc: &TeCompute,
    dev: &Device,
    top_k: usize,
) -> Result<(Vec<RKernel>, Programs), String> {
    let e = expr_from_compute(tc)?;
    let opts = ConstructOptions {
        top_k,
        ..ConstructOptions::default()
    };
    let r = construct(&e, dev, &opts)?;
    if r.programs.is_empty() {
        return Err(format!("no rProgram fits on '{}'", dev.name));
    }
    let own: Vec<String> = tc.axes.iter().map(|a| a.name.clone()).collect();
    // The form the SIMT programs were built on (fused axes when the construction fused).
    let fused = r
        .fused_axes
        .as_ref()
        .and_then(|_| e.fuse_axes())
        .map(|(f, _)| f);
    let mut timed: Vec<(f64, RKernel, RProgram)> = r
        .programs
        .into_iter()
        .map(|p| {
            let rtasks = p.grid.iter().product::<u64>().max(1);
            // The rTask as the persistent lowering will launch it (one shape for both).
            let shape = RTaskShape::of(tc, &p);
            let mut k = RKernel {
                rtasks,
                threads: shape.threads,
                smem: shape.smem,
                regs: shape.regs,
                us: 0.0,
            };
            let kernel_us = rtask_estimate_us(&e, fused.as_ref(), dev, &p, shape)?;
            k.us = kernel_us / waves(&k, dev) as f64;
            Ok((kernel_us, k, p))
        })
        .collect::<Result<_, String>>()?;
    // Best first by the kernel as it runs (split), Roller's order on ties: the best
    // variant is the one the vDevice's first shape is sized for ([`vdevice_for`]).
    timed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (ks, progs) = timed.into_iter().map(|(_, k, p)| (k, p)).unzip();
    Ok((ks, (progs, own)))
}

/// The model's time of program `p`'s kernel run with rTasks of `shape`, µs, rounded as
/// `est_us` is: `p.est_us` itself unsplit, else [`estimate_program`] with the split, on
/// the form of the expression `p` was built on (`e`, or its axis-fused form `fused`).
fn rtask_estimate_us(
    e: &TensorExprInfo,
    fused: Option<&TensorExprInfo>,
    dev: &Device,
    p: &RProgram,
    shape: RTaskShape,
) -> Result<f64, String> {
    if shape.split <= 1 {
        return Ok(p.est_us);
    }
    let form = std::iter::once(e)
        .chain(fused)
        .find(|f| f.axes.iter().map(|a| &a.name).eq(p.axes.iter()))
        .ok_or_else(|| {
            format!(
                "internal error: no form of the expression has the program's axes ({})",
                p.axes.join(", ")
            )
        })?;
    let split = Split {
        lanes: shape.split,
        tree_bytes: shape.tree,
    };
    let est = estimate_program(form, dev, p, split)?;
    Ok(round_estimate(est.total_s * 1e6))
}

/// The waves of `k` run alone: `⌈rTasks / (cores × resident blocks)⌉`, at least 1.
pub(super) fn waves(k: &RKernel, dev: &Device) -> u64 {
    let per_wave = dev.cores * dev.resident_blocks(k.threads, k.smem, Some(k.regs));
    k.rtasks.div_ceil(per_wave.max(1)).max(1)
}

/// Replaces the modelled rTask time of each variant of rOperator `op` that `profile` timed
/// by the measured launch time over the variant's waves; returns how many it replaced.
pub(super) fn apply_profile(
    profile: &Profile,
    op: &str,
    kernels: &mut [RKernel],
    progs: &[crate::construct_rtile::RProgram],
    dev: &Device,
) -> u64 {
    let mut n = 0;
    for (k, p) in kernels.iter_mut().zip(progs) {
        if let Some(us) = profile.time(op, &p.block, &p.thread) {
            k.us = us / waves(k, dev) as f64;
            n += 1;
        }
    }
    n
}

/// Which variants of each op a vEU shape is built over (see [`vdevice_for`]).
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Each op's best variant.
    Best,
    /// Every variant.
    All,
    /// Each op's best variant of at most this many threads whose registers and shared
    /// memory fit one such block on an SM.
    Threads(u64),
}

/// The vDevice for `ops` (§4.1.2: the vEUs per SM follow from "the most demanding rTask
/// across all the vEUs"): vEUs shaped for the most demanding of the variants `shape`
/// names, as many per SM as that shape's occupancy; each op keeps its variants that fit
/// the vEU. `None` when an op has no variant in `shape` or one vEU does not fit on an SM
/// (the threads of one variant and the registers of another can together exceed the
/// register file).
fn vdevice_for(ops: &mut [Op], dev: &Device, shape: Shape) -> Option<VDevice> {
    let fits_alone =
        |k: &RKernel, t: u64| k.threads <= t && dev.blocks_that_fit(t, k.smem, Some(k.regs)) >= 1;
    let chosen: Vec<Vec<RKernel>> = ops
        .iter()
        .map(|o| match shape {
            Shape::Best => o.kernels.iter().take(1).cloned().collect(),
            Shape::All => o.kernels.clone(),
            Shape::Threads(t) => o
                .kernels
                .iter()
                .find(|k| fits_alone(k, t))
                .cloned()
                .into_iter()
                .collect(),
        })
        .collect();
    if chosen.iter().any(|c| c.is_empty()) {
        return None;
    }
    let most = |f: fn(&RKernel) -> u64| chosen.iter().flatten().map(f).max().unwrap_or(1);
    let mut vd = VDevice {
        sms: dev.cores,
        veus_per_sm: 1,
        threads: most(|k| k.threads),
        smem: most(|k| k.smem),
        regs: most(|k| k.regs),
        sm_limits: [
            dev.max_blocks_per_core,
            dev.max_threads_per_core,
            dev.regs_per_core,
            dev.layers[Device::SHARED].core_capacity(),
        ],
    };
    // The device's own occupancy rules (`Device::blocks_that_fit`: whole warps, per-warp
    // register allocation, the driver's per-block shared-memory reservation), which the
    // persistent lowering admits programs by; `VDevice::occupancy` (the dialect's bound,
    // from `sm_limits` alone) is never below it.
    vd.veus_per_sm = dev.blocks_that_fit(vd.threads, vd.smem, Some(vd.regs));
    if vd.veus_per_sm == 0 {
        return None;
    }
    for o in ops.iter_mut() {
        o.kernels
            .retain(|k| k.threads <= vd.threads && k.smem <= vd.smem && k.regs <= vd.regs);
    }
    Some(vd)
}

/// The schedule of `ops` on the better of the two vDevice shapes of [`vdevice_for`] (fewer
/// larger vEUs that admit every variant, or more vEUs shaped for the best variants), by the
/// model's total time: the ops as scheduled (variants that fit), the vDevice, the programs
/// and the launch cost. [Interp]: the paper fixes one shape and does not say how. Where
/// neither shape fits on an SM, the shapes capped at each variant's thread count are
/// tried instead, each op taking its best variant that fits under the cap.
pub(super) fn pack(
    ops: &[Op],
    dev: &Device,
    pol: impl Fn(u64) -> Policy,
) -> Result<Packed, String> {
    let mut best: Option<(f64, Packed)> = None;
    for shape in [Shape::Best, Shape::All] {
        try_shape(ops, dev, &pol, shape, &mut best)?;
    }
    if best.is_none() {
        let mut caps: Vec<u64> = ops
            .iter()
            .flat_map(|o| o.kernels.iter().map(|k| k.threads))
            .collect();
        caps.sort_unstable();
        caps.dedup();
        for t in caps {
            try_shape(ops, dev, &pol, Shape::Threads(t), &mut best)?;
        }
    }
    best.map(|b| b.1).ok_or_else(|| no_shape_fits(ops, dev))
}

/// Why no vEU shape fits: the op whose variants all need the most threads and the one
/// whose variants all need the most registers, which one vEU would have to hold together.
fn no_shape_fits(ops: &[Op], dev: &Device) -> String {
    let least = |o: &Op, f: fn(&RKernel) -> u64| o.kernels.iter().map(f).min().unwrap_or(0);
    let most = |f: fn(&RKernel) -> u64| {
        ops.iter()
            .max_by_key(|o| least(o, f))
            .map_or((String::new(), 0), |o| (o.name.clone(), least(o, f)))
    };
    let ((tn, t), (rn, r)) = (most(|k| k.threads), most(|k| k.regs));
    format!(
        "no vEU shape fits on one SM of '{}': @{tn} needs {t} threads per rTask and @{rn} {r} registers per thread, which one vEU (one block of the persistent kernel) cannot hold together; more rKernel variants (top-k) may fit",
        dev.name
    )
}

/// Schedules `ops` on the vDevice of `shape`, keeping it in `best` when the model's total
/// time is lower (shapes that do not fit are skipped).
fn try_shape(
    ops: &[Op],
    dev: &Device,
    pol: &impl Fn(u64) -> Policy,
    shape: Shape,
    best: &mut Option<(f64, Packed)>,
) -> Result<(), String> {
    let mut cand = ops.to_vec();
    let Some(vd) = vdevice_for(&mut cand, dev, shape) else {
        return Ok(());
    };
    let p = pol(vd.veus());
    let plans = schedule(&cand, &p)?;
    let t: f64 = plans.iter().map(|x| x.time(p.launch_us)).sum();
    if best.as_ref().is_none_or(|b| t < b.0) {
        *best = Some((t, (cand, vd, plans, p.launch_us)));
    }
    Ok(())
}

/// What [`pack`] returns: the ops (variants that fit), the vDevice, the programs, the
/// launch cost.
pub(super) type Packed = (Vec<Op>, VDevice, Vec<Plan>, f64);

impl WavefrontPack {
    /// Input of te functions: one rOperator per te.compute.
    fn run_func(
        &self,
        ctx: &mut Context,
        f: OpId,
        dev: &Device,
        profile: Option<&Profile>,
        seen: &mut Vec<(String, Vec<u64>, Vec<u64>)>,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let fname = rtile::verifier::symbol_name(ctx, f)
            .unwrap_or("f")
            .to_string();
        let Some(b) = ctx
            .regions(f)
            .first()
            .and_then(|&r| ctx.region_blocks(r).first().copied())
        else {
            return Ok(());
        };
        let computes: Vec<OpId> = ctx
            .block_ops(b)
            .filter(|&o| ctx.op_name(o) == COMPUTE)
            .collect();
        if computes.is_empty() {
            return Ok(());
        }
        let mut ops = Vec::new();
        let mut programs = Vec::new();
        for (i, &c) in computes.iter().enumerate() {
            let (mut kernels, progs) = variants(ctx, c, dev, self.opts.top_k.max(1) as usize)
                .map_err(|m| err(ctx, c, m))?;
            let name = format!("{fname}_{i}");
            for p in &progs.0 {
                seen.push((name.clone(), p.block.clone(), p.thread.clone()));
            }
            if let Some(prof) = profile {
                let n = apply_profile(prof, &name, &mut kernels, &progs.0, dev);
                stats.add(Self::PROFILED, n);
            }
            programs.push((kernels.clone(), progs));
            let mut deps: Vec<usize> = ctx
                .operands(c)
                .iter()
                .filter_map(|&v| producer(ctx, v))
                .filter_map(|p| computes.iter().position(|&x| x == p))
                .collect();
            deps.sort();
            deps.dedup();
            ops.push(Op {
                name,
                deps,
                kernels,
            });
        }
        let (ops, vd, plans, launch_us) =
            pack(&ops, dev, |v| self.policy(v, dev.launch_us)).map_err(|m| err(ctx, f, m))?;
        let dev_sym = format!("{fname}_vdevice");
        let mut st = OperationState::new(DEVICE);
        st.properties = Some(Attribute::dictionary(vec![NamedAttribute {
            name: "sym_name".into(),
            value: Attribute::string(dev_sym.clone()),
        }]));
        for a in vd.to_attrs() {
            st.add_attribute(a.name, a.value);
        }
        let d = ctx.create_op(st);
        ctx.insert_op_before(f, d);
        let mut rops = Vec::new();
        for (o, &c) in ops.iter().zip(&computes) {
            let mut st = OperationState::new(ROPERATOR);
            st.properties = Some(Attribute::dictionary(vec![NamedAttribute {
                name: "sym_name".into(),
                value: Attribute::string(o.name.clone()),
            }]));
            if !o.deps.is_empty() {
                let deps = o
                    .deps
                    .iter()
                    .map(|&d| Attribute::symbol(ops[d].name.clone()));
                st.add_attribute("deps", Attribute::array(deps.collect()));
            }
            let ks = o.kernels.iter().map(RKernel::to_attr).collect();
            st.add_attribute("kernels", Attribute::array(ks));
            let r = ctx.create_op(st);
            ctx.insert_op_before(f, r);
            ctx.set_attr(c, ROP_ATTR, Attribute::symbol(o.name.clone()));
            rops.push(r);
        }
        // Each compute records the Roller rProgram of its selected rKernel (the variant
        // that fits the vDevice, matched among all its variants), so `--lower-to-gpu`
        // lowers the rTask body under the tiling the schedule assumed.
        for p in &plans {
            for &(o, k) in &p.ops {
                let sel = &ops[o].kernels[k];
                let (all, (progs, own)) = &programs[o];
                if let Some(j) = all.iter().position(|x| x == sel) {
                    rtile_dialects::rtile::set_program(ctx, computes[o], &progs[j], own);
                }
            }
        }
        let prefix = format!("{fname}_");
        self.emit(
            ctx, &plans, &rops, &dev_sym, &prefix, f, false, launch_us, stats,
        );
        Ok(())
    }
}

impl Pass for WavefrontPack {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let all = ctx.collect_ops(op);
        if all.iter().any(|&o| ctx.op_name(o) == PROGRAM) {
            return Err(err(ctx, op, "the input already holds vdevice.program ops"));
        }
        let rops: Vec<OpId> = all
            .iter()
            .copied()
            .filter(|&o| ctx.op_name(o) == ROPERATOR)
            .collect();
        if !rops.is_empty() {
            if !self.opts.profile.is_empty() {
                return Err(err(
                    ctx,
                    op,
                    "profile= times the rKernels of te input; hand-written vdevice.roperators give their rTask times in 'kernels'",
                ));
            }
            return self.run_roperators(ctx, rops, stats);
        }
        let funcs: Vec<OpId> = all
            .into_iter()
            .filter(|&o| ctx.op_name(o) == "func.func")
            .collect();
        if funcs.is_empty() {
            return Ok(());
        }
        let dev = self.device(ctx, op)?.ok_or_else(|| {
            err(
                ctx,
                op,
                format!(
                    "te input needs device=<name>; built-in devices are: {}",
                    Device::builtin_names().join(", ")
                ),
            )
        })?;
        let profile = self.profile(ctx, op, &dev)?;
        let mut seen = Vec::new();
        for f in funcs {
            self.run_func(ctx, f, &dev, profile.as_ref(), &mut seen, stats)?;
        }
        if let Some(p) = &profile {
            let names: Vec<String> = seen.iter().map(|s| s.0.clone()).collect();
            if let Some(o) = p.unknown_ops(&names).first() {
                return Err(err(
                    ctx,
                    op,
                    format!(
                        "profile '{}' times rOperator '{o}', which the input does not have (rOperators are <function>_<index of its te.compute>)",
                        self.opts.profile
                    ),
                ));
            }
            let unmatched = p
                .rkernel
                .iter()
                .filter(|k| {
                    !seen
                        .iter()
                        .any(|s| s.0 == k.op && s.1 == k.block && s.2 == k.thread)
                })
                .count();
            stats.add(Self::UNMATCHED, unmatched as u64);
        }
        Ok(())
    }
}
