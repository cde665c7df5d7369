//! `rtile-run --sim --profile`: runs every kernel of a module with the profile counters of
//! `sim::counters` and reports them per kernel and per op (with the op's location), as a
//! readable table or JSON keyed by the Nsight Compute metric each counter stands for.
//! Metric names and formulas: `docs/simulator.md`.

use std::collections::HashMap;

use rtile::diagnostics::{Diagnostic, line_col};
use rtile::ir::{Context, OpId};
use serde_json::{Map, Value, json};

use super::check::{kernel_name, load_text, reference_case};
use super::compile::{Inst, Kernel, Sm90Inst, Space, WarpInst, compile_kernel};
use super::counters::InstCounters;
use super::exec::{Launch, run_profiled};
use super::ops::Num;
use super::{kernels, launch_of, to_diagnostic};

/// The class of an op's dynamic executions, from the simulator instruction that counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpClass {
    /// Float arithmetic, compares and math functions.
    Fp,
    /// Integer and index arithmetic and compares.
    Int,
    /// Conversions between types.
    Cvt,
    GlobalLd,
    GlobalSt,
    SharedLd,
    SharedSt,
    /// Private memory (`memref.alloca`, private attributions): registers after ptxas.
    LocalLd,
    LocalSt,
    Barrier,
    /// TMA loads (`nvgpu.tma.async.load`): bulk copies from global to shared memory.
    Tma,
    /// `scf.for` iterations, `scf.if` branches, returns.
    Control,
    /// Ids, constants, vector lane moves, views.
    Other,
}

impl OpClass {
    /// Every class, in report order.
    pub const ALL: [OpClass; 13] = [
        OpClass::Fp,
        OpClass::Int,
        OpClass::Cvt,
        OpClass::GlobalLd,
        OpClass::GlobalSt,
        OpClass::SharedLd,
        OpClass::SharedSt,
        OpClass::LocalLd,
        OpClass::LocalSt,
        OpClass::Barrier,
        OpClass::Tma,
        OpClass::Control,
        OpClass::Other,
    ];
    /// The short name the report prints.
    pub fn name(self) -> &'static str {
        match self {
            OpClass::Fp => "fp",
            OpClass::Int => "int",
            OpClass::Cvt => "cvt",
            OpClass::GlobalLd => "ld.global",
            OpClass::GlobalSt => "st.global",
            OpClass::SharedLd => "ld.shared",
            OpClass::SharedSt => "st.shared",
            OpClass::LocalLd => "ld.local",
            OpClass::LocalSt => "st.local",
            OpClass::Barrier => "bar",
            OpClass::Tma => "tma",
            OpClass::Control => "control",
            OpClass::Other => "other",
        }
    }
    /// The class of instruction `i` of `k`.
    pub fn of(k: &Kernel, i: &Inst) -> OpClass {
        let space = |mem: u32| k.mems[mem as usize].space;
        match i {
            Inst::Load { mem, .. } => match space(*mem) {
                Space::Global => OpClass::GlobalLd,
                Space::Shared | Space::DynShared => OpClass::SharedLd,
                Space::Private => OpClass::LocalLd,
            },
            Inst::Store { mem, .. } => match space(*mem) {
                Space::Global => OpClass::GlobalSt,
                Space::Shared | Space::DynShared => OpClass::SharedSt,
                Space::Private => OpClass::LocalSt,
            },
            Inst::Op { arg_ty, res_ty, .. } => {
                let float = !matches!(arg_ty, Num::Int(_));
                if arg_ty == res_ty || *res_ty == Num::Int(1) {
                    if float { OpClass::Fp } else { OpClass::Int }
                } else {
                    OpClass::Cvt
                }
            }
            Inst::Barrier { .. } => OpClass::Barrier,
            // Tensor-core ops and cp.async: classed, their accesses not modelled.
            Inst::Warp { op, .. } => match **op {
                WarpInst::Mma { .. } | WarpInst::Mfma { .. } => OpClass::Fp,
                WarpInst::LdMatrix { .. } => OpClass::SharedLd,
                WarpInst::Shuffle { .. } => OpClass::Other,
            },
            Inst::AsyncCopy { .. } => OpClass::GlobalLd,
            // Warpgroup MMAs are fp like mma.sync; mbarrier ops and accumulator zeroing other.
            Inst::Warpgroup { .. } => OpClass::Fp,
            Inst::Sm90 { op, .. } => match &**op {
                Sm90Inst::Tma(_) => OpClass::Tma,
                Sm90Inst::MmaStore { mem, .. } => match space(*mem) {
                    Space::Global => OpClass::GlobalSt,
                    _ => OpClass::SharedSt,
                },
                Sm90Inst::MbarInit { .. }
                | Sm90Inst::MbarArrive { .. }
                | Sm90Inst::MbarWait { .. }
                | Sm90Inst::InitAcc { .. } => OpClass::Other,
            },
            Inst::AsyncCommit | Inst::AsyncWait { .. } => OpClass::Other,
            Inst::Jump { .. }
            | Inst::JumpIfZero { .. }
            | Inst::ForCheck { .. }
            | Inst::Step { .. }
            | Inst::Spin { .. }
            | Inst::Return => OpClass::Control,
            // A global read-modify-write: counted with the global stores.
            Inst::Atomic { .. } => OpClass::GlobalSt,
            Inst::Const { .. } | Inst::Id { .. } | Inst::Move { .. } | Inst::View { .. } => {
                OpClass::Other
            }
        }
    }
    fn is_global(self) -> bool {
        matches!(self, OpClass::GlobalLd | OpClass::GlobalSt)
    }
    fn is_shared(self) -> bool {
        matches!(self, OpClass::SharedLd | OpClass::SharedSt)
    }
}

/// The counters of one op.
#[derive(Clone, Debug, PartialEq)]
pub struct OpProfile {
    /// The op's name, e.g. `memref.load`.
    pub op: String,
    /// `file:line:col` of the op.
    pub location: String,
    pub class: OpClass,
    pub counters: InstCounters,
}

/// The counters of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelProfile {
    pub kernel: String,
    pub launch: Launch,
    /// Blocks run (all, or the sample).
    pub blocks_run: u64,
    pub blocks_total: u64,
    /// Every op executed at least once, in program order.
    pub ops: Vec<OpProfile>,
    /// Per output of a checked run: its error and its rounding floor
    /// ([`super::check::KernelCheck::outputs`]); empty when unchecked.
    pub outputs: Vec<(f64, f64)>,
    /// Distinct 32-byte global sectors read: DRAM reads when the L2 holds the kernel's
    /// footprint (`sim::counters::UniqueSectors`; of the blocks run).
    pub unique_sectors_read: u64,
    /// Distinct 32-byte global sectors written (stores and atomics).
    pub unique_sectors_written: u64,
}

impl KernelProfile {
    /// The numerical check against the te reference (full runs of kernels carrying one):
    /// the largest error over the outputs; `None` when unchecked.
    pub fn max_rel_err(&self) -> Option<f64> {
        (!self.outputs.is_empty()).then(|| self.outputs.iter().map(|o| o.0).fold(0.0, f64::max))
    }
    /// Whether every checked output is within `tolerance` or its rounding floor
    /// ([`super::rounding::within`]); true when unchecked.
    pub fn within(&self, tolerance: f64) -> bool {
        self.outputs
            .iter()
            .all(|&(e, f)| super::rounding::within(e, f, tolerance))
    }
    /// True when only a sample of the grid's blocks ran.
    pub fn sampled(&self) -> bool {
        self.blocks_run < self.blocks_total
    }
    /// The counters of the ops of class `c`, summed.
    pub fn total(&self, c: OpClass) -> InstCounters {
        let mut t = InstCounters::default();
        for o in self.ops.iter().filter(|o| o.class == c) {
            t.add(&o.counters);
        }
        t
    }
    /// The counters of every op, summed.
    pub fn total_all(&self) -> InstCounters {
        let mut t = InstCounters::default();
        for o in &self.ops {
            t.add(&o.counters);
        }
        t
    }
    /// Coalescing efficiency of global accesses of classes `cs`: ideal / actual sectors
    /// (1 when there are none).
    pub fn coalescing(&self, cs: &[OpClass]) -> f64 {
        let (mut ideal, mut actual) = (0u64, 0u64);
        for &c in cs {
            let t = self.total(c);
            ideal += t.ideal_sectors;
            actual += t.sectors;
        }
        if actual == 0 {
            1.0
        } else {
            ideal as f64 / actual as f64
        }
    }
}

/// The profile of every kernel of a module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileReport {
    pub kernels: Vec<KernelProfile>,
}

/// Profiles every kernel under `module` (in order). Without `sample`, every block runs on
/// seeded random inputs and kernels carrying `rtile.te` are checked against it (others run
/// on zeros); with `sample = Some(n)`, `n` blocks spread over the grid run on virtual global
/// memory and nothing is checked (the counters' ratios are per block).
pub fn profile(
    ctx: &Context,
    module: OpId,
    seed: u64,
    sample: Option<u64>,
) -> Result<ProfileReport, Diagnostic> {
    rtile_gpu_vocab::check_module(ctx, module, "rtile-run --sim")?;
    let mut report = ProfileReport::default();
    for f in kernels(ctx, module) {
        let k = compile_kernel(ctx, f)?;
        let launch = launch_of(ctx, f)?;
        let blocks_total: u64 = launch
            .grid
            .unwrap_or_default()
            .iter()
            .map(|&x| u64::from(x))
            .product();
        let (raw, blocks_run, outputs) = if sample.is_some() {
            let (raw, n) =
                run_profiled(&k, &launch, None, sample).map_err(|e| to_diagnostic(ctx, &k, &e))?;
            (raw, n, Vec::new())
        } else {
            // Kernels without a reference run on zeros, unchecked.
            let mut case = reference_case(ctx, f, seed)?;
            let mut zeros: Vec<Vec<f64>>;
            let args = match case.as_mut() {
                Some(c) => &mut c.args,
                None => {
                    zeros = k.args.iter().map(|m| vec![0.0; m.len()]).collect();
                    &mut zeros
                }
            };
            let (raw, n) = run_profiled(&k, &launch, Some(args), None)
                .map_err(|e| to_diagnostic(ctx, &k, &e))?;
            let outputs = match case {
                Some(c) => c
                    .judge()
                    .map_err(|e| Diagnostic::op_error(ctx, f, format!("reference: {e}")))?,
                None => Vec::new(),
            };
            (raw, n, outputs)
        };
        report.kernels.push(KernelProfile {
            kernel: kernel_name(ctx, f),
            launch,
            blocks_run,
            blocks_total,
            ops: per_op(ctx, &k, &raw.insts),
            outputs,
            unique_sectors_read: raw.unique.read.len() as u64,
            unique_sectors_written: raw.unique.written.len() as u64,
        });
    }
    Ok(report)
}

/// [`profile`] on module text (the `rtile-run --sim --profile` driver); errors are rendered
/// diagnostics.
pub fn profile_text(
    name: &str,
    text: &str,
    seed: u64,
    sample: Option<u64>,
) -> Result<ProfileReport, String> {
    let (ctx, module) = load_text(name, text)?;
    profile(&ctx, module, seed, sample).map_err(|d| rtile::diagnostics::render(&ctx, &d))
}

/// `file:line:col` of `op`, or `?` when it has no source span.
fn location(ctx: &Context, op: OpId) -> String {
    match ctx.op(op).span {
        Some(s) => {
            let (l, c) = line_col(ctx, s);
            let file = ctx
                .sources
                .get(s.file as usize)
                .map_or("?", |f| f.name.as_str());
            format!("{file}:{l}:{c}")
        }
        None => "?".into(),
    }
}

/// Folds per-instruction counters into per-op ones: an op's executions are those of its
/// counting instruction, its memory counters those of its load or store.
fn per_op(ctx: &Context, k: &Kernel, insts: &[InstCounters]) -> Vec<OpProfile> {
    let mut index: HashMap<OpId, usize> = HashMap::new();
    let mut out: Vec<OpProfile> = Vec::new();
    for (pc, c) in insts.iter().enumerate() {
        if !k.counts[pc] {
            continue;
        }
        let op = k.origin[pc];
        let class = OpClass::of(k, &k.insts[pc]);
        let i = *index.entry(op).or_insert_with(|| {
            out.push(OpProfile {
                op: ctx.op_name(op).to_string(),
                location: location(ctx, op),
                class,
                counters: InstCounters::default(),
            });
            out.len() - 1
        });
        out[i].counters.add(c);
    }
    out.retain(|o| o.counters.warp > 0);
    out
}

/// Memory metrics of a class: (requests, sectors or wavefronts, ideal, conflicts) names.
fn metric_names(c: OpClass) -> Option<[&'static str; 4]> {
    Some(match c {
        OpClass::GlobalLd => [
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            "rtile__ideal_sectors_pipe_lsu_mem_global_op_ld.sum",
            "",
        ],
        OpClass::GlobalSt => [
            "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
            "rtile__ideal_sectors_pipe_lsu_mem_global_op_st.sum",
            "",
        ],
        OpClass::SharedLd => [
            "smsp__inst_executed_op_shared_ld.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
            "rtile__ideal_wavefronts_mem_shared_op_ld.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        ],
        OpClass::SharedSt => [
            "smsp__inst_executed_op_shared_st.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
            "rtile__ideal_wavefronts_mem_shared_op_st.sum",
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        ],
        _ => return None,
    })
}

/// The TMA and warpgroup-MMA counters of `c`, when it has any (so kernels without them
/// report as before).
fn sm90_metrics(c: &InstCounters, out: &mut Map<String, Value>) {
    if c.tma_bytes > 0 {
        out.insert("rtile__tma_load_bytes.sum".into(), json!(c.tma_bytes));
        out.insert(
            "rtile__tma_load_global_bytes.sum".into(),
            json!(c.tma_global_bytes),
        );
    }
    if c.wgmma > 0 {
        out.insert("rtile__wgmma_mma_async_executed.sum".into(), json!(c.wgmma));
    }
}

/// The counters of `c` (of class `class`) as metric name → value.
fn metrics(class: OpClass, c: &InstCounters, out: &mut Map<String, Value>) {
    let Some([req, units, ideal, conflicts]) = metric_names(class) else {
        return;
    };
    out.insert(req.into(), json!(c.requests));
    if class.is_global() {
        out.insert(units.into(), json!(c.sectors));
        out.insert(ideal.into(), json!(c.ideal_sectors));
        let pct = if c.sectors == 0 {
            100.0
        } else {
            100.0 * c.ideal_sectors as f64 / c.sectors as f64
        };
        out.insert(
            ideal
                .replace("ideal_sectors", "coalescing")
                .replace(".sum", ".pct"),
            json!(pct),
        );
    } else {
        out.insert(units.into(), json!(c.wavefronts));
        out.insert(ideal.into(), json!(c.ideal_wavefronts));
        out.insert(conflicts.into(), json!(c.bank_conflicts()));
    }
}

impl ProfileReport {
    /// The report as JSON (one object per kernel; see `docs/simulator.md`).
    pub fn json(&self) -> String {
        let kernels: Vec<Value> = self.kernels.iter().map(kernel_json).collect();
        let mut s = serde_json::to_string_pretty(&json!({ "kernels": kernels }))
            .unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s
    }

    /// The report as a readable table: per kernel, its memory metrics, barriers and
    /// warp-level instructions by class, then one row per memory op and barrier.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for k in &self.kernels {
            kernel_text(k, &mut s);
        }
        s
    }
}

fn kernel_json(k: &KernelProfile) -> Value {
    let mut m = Map::new();
    for c in OpClass::ALL {
        metrics(c, &k.total(c), &mut m);
    }
    let (mut warp, mut thread) = (0u64, 0u64);
    let mut by_class = Map::new();
    for c in OpClass::ALL {
        let t = k.total(c);
        warp += t.warp;
        thread += t.thread;
        by_class.insert(c.name().into(), json!(t.warp));
    }
    m.insert(
        "rtile__inst_executed_op_barrier.sum".into(),
        json!(k.total(OpClass::Barrier).warp),
    );
    sm90_metrics(&k.total_all(), &mut m);
    m.insert(
        "rtile__unique_sectors_global_op_ld.sum".into(),
        json!(k.unique_sectors_read),
    );
    m.insert(
        "rtile__unique_sectors_global_op_st.sum".into(),
        json!(k.unique_sectors_written),
    );
    m.insert("smsp__inst_executed.sum".into(), json!(warp));
    m.insert("smsp__thread_inst_executed.sum".into(), json!(thread));
    let ops: Vec<Value> = k
        .ops
        .iter()
        .map(|o| {
            let mut om = Map::new();
            om.insert("smsp__inst_executed.sum".into(), json!(o.counters.warp));
            om.insert(
                "smsp__thread_inst_executed.sum".into(),
                json!(o.counters.thread),
            );
            metrics(o.class, &o.counters, &mut om);
            sm90_metrics(&o.counters, &mut om);
            json!({"op": o.op, "location": o.location, "class": o.class.name(), "metrics": om})
        })
        .collect();
    json!({
        "kernel": k.kernel,
        "grid": k.launch.grid,
        "block": k.launch.block,
        "blocks_profiled": k.blocks_run,
        "blocks_total": k.blocks_total,
        "sampled": k.sampled(),
        "max_rel_err": k.max_rel_err(),
        "rounding_floor": k.outputs.iter().map(|o| o.1).reduce(f64::max),
        "metrics": m,
        "inst_executed_by_class": by_class,
        "ops": ops,
    })
}

fn pct(ideal: u64, actual: u64) -> String {
    if actual == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * ideal as f64 / actual as f64)
    }
}

/// The `line:col` part of a `file:line:col` location.
fn line_col_of(loc: &str) -> &str {
    let mut cut = loc.rmatch_indices(':').map(|(i, _)| i);
    match (cut.next(), cut.next()) {
        (Some(_), Some(i)) => &loc[i + 1..],
        _ => loc,
    }
}

fn kernel_text(k: &KernelProfile, s: &mut String) {
    let [gx, gy, gz] = k.launch.grid.unwrap_or_default();
    let [bx, by, bz] = k.launch.block.unwrap_or_default();
    s.push_str(&format!(
        "@{}: grid {gx}x{gy}x{gz}, block {bx}x{by}x{bz}\n",
        k.kernel
    ));
    if k.sampled() {
        s.push_str(&format!(
            "  sample: {} of {} blocks (spread over the grid; counts cover the sample; numerical check skipped)\n",
            k.blocks_run, k.blocks_total
        ));
    } else {
        s.push_str(&format!("  blocks: all {}\n", k.blocks_total));
    }
    if let Some(e) = k.max_rel_err() {
        s.push_str(&format!(
            "  max relative error {e:.3e}{}\n",
            super::rounding::floor_note(&k.outputs)
        ));
    }
    for (c, what) in [
        (OpClass::GlobalLd, "global loads "),
        (OpClass::GlobalSt, "global stores"),
    ] {
        let t = k.total(c);
        s.push_str(&format!(
            "  {what}  requests {}  sectors {}  ideal sectors {}  coalescing {}\n",
            t.requests,
            t.sectors,
            t.ideal_sectors,
            pct(t.ideal_sectors, t.sectors)
        ));
    }
    s.push_str(&format!(
        "  distinct global sectors  read {}  written {} (DRAM traffic when L2 holds the footprint)\n",
        k.unique_sectors_read, k.unique_sectors_written
    ));
    for (c, what) in [
        (OpClass::SharedLd, "shared loads "),
        (OpClass::SharedSt, "shared stores"),
    ] {
        let t = k.total(c);
        s.push_str(&format!(
            "  {what}  requests {}  wavefronts {}  ideal wavefronts {}  bank conflicts {}\n",
            t.requests,
            t.wavefronts,
            t.ideal_wavefronts,
            t.bank_conflicts()
        ));
    }
    s.push_str(&format!(
        "  barriers       {} (warp-level)\n",
        k.total(OpClass::Barrier).warp
    ));
    let all = k.total_all();
    if all.tma_bytes > 0 || all.wgmma > 0 {
        s.push_str(&format!(
            "  tma loads      {} (bytes into shared {}, from the tensor {})  wgmma.mma_async {}\n",
            k.total(OpClass::Tma).thread,
            all.tma_bytes,
            all.tma_global_bytes,
            all.wgmma
        ));
    }
    let classes: Vec<String> = OpClass::ALL
        .iter()
        .map(|&c| (c, k.total(c).warp))
        .filter(|&(_, n)| n > 0)
        .map(|(c, n)| format!("{} {n}", c.name()))
        .collect();
    let total: u64 = OpClass::ALL.iter().map(|&c| k.total(c).warp).sum();
    s.push_str(&format!(
        "  warp instructions {total}: {}\n",
        classes.join(", ")
    ));
    s.push_str(&format!(
        "  {:<9} {:<14} {:<9} {:>10} {:>9} {:>9} {:>9} {:>7} {:>10} {:>9}\n",
        "line:col",
        "op",
        "class",
        "warp-inst",
        "requests",
        "sectors",
        "ideal",
        "coal",
        "wavefront",
        "conflicts"
    ));
    for o in &k.ops {
        let c = &o.counters;
        let (sect, ideal, coal, wf, conf) = if o.class.is_global() {
            (
                c.sectors.to_string(),
                c.ideal_sectors.to_string(),
                pct(c.ideal_sectors, c.sectors),
                "-".into(),
                "-".into(),
            )
        } else if o.class.is_shared() {
            (
                "-".into(),
                c.ideal_wavefronts.to_string(),
                "-".into(),
                c.wavefronts.to_string(),
                c.bank_conflicts().to_string(),
            )
        } else if o.class == OpClass::Barrier {
            ("-".into(), "-".into(), "-".into(), "-".into(), "-".into())
        } else {
            continue;
        };
        s.push_str(&format!(
            "  {:<9} {:<14} {:<9} {:>10} {:>9} {:>9} {:>9} {:>7} {:>10} {:>9}\n",
            line_col_of(&o.location),
            o.op,
            o.class.name(),
            c.warp,
            if o.class == OpClass::Barrier {
                "-".to_string()
            } else {
                c.requests.to_string()
            },
            sect,
            ideal,
            coal,
            wf,
            conf
        ));
    }
}
