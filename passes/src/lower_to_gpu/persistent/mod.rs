//! Persistent-kernel lowering of `vdevice.program`s (Rammer, OSDI'20 §4.1.3–§4.1.4): when
//! the module holds rPrograms (from `--wavefront-pack`), `--lower-to-gpu` lowers each
//! compute's kernel as usual and then turns the computes of one rProgram into one
//! persistent kernel (`kernel.rs`: each rOperator's body once, under a switch in a loop
//! over the vEU's entries of the program's schedule table, `table.rs`) launched once. The host function launches the programs
//! in order (a valid topological order: a program holds whole waves), and the arena keeps
//! every intermediate of a program live for the whole program (its rTasks run concurrently,
//! so liveness-based reuse inside it would race).
//!
//! **Deadlock freedom by construction** (nnfusion issues #50, #373): a program whose
//! barriers span vEUs launches one block per vEU; those blocks must all be co-resident.
//! The co-resident capacity is `cores × resident_blocks(threads, shared bytes, registers)`
//! from the device description (the CUDA driver's occupancy rules, `device/occupancy.rs`)
//! and the persistent kernel's resources: a program over it at the rKernels' estimated
//! registers (Roller's `thread_registers`) is refused with both numbers; the count recorded
//! for the runtime uses the `.maxnreg` the back end caps the kernel at ([`coresidency`]).

mod kernel;
mod rtask;
mod table;

pub(crate) use rtask::{RTaskShape, rtask_options};

use std::collections::HashMap;

use rtile::diagnostics::Diagnostic;
use rtile::ir::attributes::{Attribute, DenseLiteral};
use rtile::ir::{AttrKind, Builder, Context, OpId, Type, Value};
use rtile_dialects::te::ir::COMPUTE;
use rtile_dialects::vdevice::{DEVICE, PROGRAM, Program, ROP_ATTR, ROPERATOR, ROperator, VDevice};

use super::arena::Lifetime;
use super::host::Globals;
use super::kernel::LoweredKernel;
use super::pass::segment_sizes;
use crate::device::Device;

/// One `vdevice.program` of the module.
struct Prog {
    name: String,
    program: Program,
    cross: bool,
    /// The most registers per thread of its rOperators' selected rKernels.
    regs: u64,
    /// Its `vdevice.device` (the vEU shape the pack sized it for), when it names one.
    vdevice: Option<VDevice>,
    op: OpId,
}

/// The module's rPrograms and which one runs each rOperator.
pub(crate) struct Packing {
    progs: Vec<Prog>,
    of_rop: HashMap<String, usize>,
}

/// The rPrograms of `module` (`None` when it has none).
pub(crate) fn analyse(ctx: &Context, module: OpId) -> Result<Option<Packing>, Diagnostic> {
    let ops = ctx.collect_ops(module);
    let mut rops: HashMap<String, ROperator> = HashMap::new();
    let mut vdevices: HashMap<String, VDevice> = HashMap::new();
    for &o in &ops {
        if ctx.op_name(o) == DEVICE {
            let d = VDevice::from_op(ctx, o).map_err(|m| Diagnostic::op_error(ctx, o, m))?;
            let name = rtile::verifier::symbol_name(ctx, o).unwrap_or("");
            vdevices.insert(name.to_string(), d);
        }
        if ctx.op_name(o) == ROPERATOR {
            let r = ROperator::from_op(ctx, o).map_err(|m| Diagnostic::op_error(ctx, o, m))?;
            rops.insert(r.name.clone(), r);
        }
    }
    let mut progs = Vec::new();
    let mut of_rop = HashMap::new();
    for &o in &ops {
        if ctx.op_name(o) != PROGRAM {
            continue;
        }
        let bad = |m: String| Diagnostic::op_error(ctx, o, m);
        let program = ctx
            .attr(o, "schedule")
            .ok_or_else(|| bad("has no 'schedule'".into()))
            .and_then(|a| Program::from_attr(a).map_err(bad))?;
        let name = rtile::verifier::symbol_name(ctx, o)
            .unwrap_or("p")
            .to_string();
        let mut regs = 1;
        for list in &program.veus {
            for e in list {
                if let rtile_dialects::vdevice::Entry::Tasks { op, .. } = e {
                    let r = rops
                        .get(op)
                        .ok_or_else(|| bad(format!("schedules @{op}, which is no rOperator")))?;
                    regs = regs.max(r.kernel().regs);
                    of_rop.insert(op.clone(), progs.len());
                }
            }
        }
        let vdevice = ctx
            .attr(o, "device")
            .and_then(|a| a.as_flat_symbol())
            .and_then(|d| vdevices.get(d).cloned());
        progs.push(Prog {
            name,
            vdevice,
            cross: program.has_cross_veu_barrier(),
            program,
            regs,
            op: o,
        });
    }
    if progs.is_empty() {
        return Ok(None);
    }
    Ok(Some(Packing { progs, of_rop }))
}

/// The rOperator a compute was made into (`vdevice.rop`), if any.
fn rop_of(ctx: &Context, compute: OpId) -> Option<String> {
    ctx.attr(compute, ROP_ATTR)
        .and_then(|a| a.as_flat_symbol())
        .map(str::to_string)
}

impl Packing {
    /// The step counters of program `g` (its vEUs).
    pub(crate) fn veus(&self, g: usize) -> usize {
        self.progs[g].program.veus.len()
    }

    /// Whether function `f`'s computes are packed (any has an rOperator in a program).
    pub(crate) fn covers(&self, ctx: &Context, f: OpId) -> bool {
        ctx.collect_ops(f).into_iter().any(|o| {
            ctx.op_name(o) == COMPUTE
                && rop_of(ctx, o).is_some_and(|r| self.of_rop.contains_key(&r))
        })
    }

    /// The program of each launch (`results[i]`: launch `i`'s compute result), and the
    /// launch order: stably by program. Every compute must be in a program.
    pub(crate) fn order(
        &self,
        ctx: &Context,
        f: OpId,
        results: &[Value],
    ) -> Result<Groups, Diagnostic> {
        let mut prog = Vec::new();
        for &r in results {
            let c = ctx.defining_op(r).filter(|&c| ctx.op_name(c) == COMPUTE);
            let p = c
                .and_then(|c| rop_of(ctx, c))
                .and_then(|n| self.of_rop.get(&n).copied());
            match (c, p) {
                (_, Some(p)) => prog.push(p),
                (Some(c), None) => {
                    return Err(Diagnostic::op_error(
                        ctx,
                        c,
                        "is in a function packed into vdevice.programs but in none of them",
                    ));
                }
                (None, None) => {
                    return Err(Diagnostic::op_error(
                        ctx,
                        f,
                        "a packed function may hold only te.computes (no tilegraph.kernel)",
                    ));
                }
            }
        }
        let mut order: Vec<usize> = (0..results.len()).collect();
        order.sort_by_key(|&i| prog[i]);
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for (pos, &i) in order.iter().enumerate() {
            match groups.last_mut() {
                Some((p, v)) if *p == prog[i] => v.push(pos),
                _ => groups.push((prog[i], vec![pos])),
            }
        }
        Ok(Groups { order, groups })
    }
}

/// The launches of a packed function: `order[k]` = the launch that goes `k`-th, and the
/// programs with their launches (positions in that order, contiguous).
pub(crate) struct Groups {
    pub order: Vec<usize>,
    pub groups: Vec<(usize, Vec<usize>)>,
}

impl Groups {
    /// Widens each lifetime (launch positions) to whole programs: a buffer written or read
    /// in a program is live through all of it.
    pub(crate) fn widen(&self, lifetimes: &mut [Lifetime]) {
        let mut span = HashMap::new();
        for (_, v) in &self.groups {
            let (a, b) = (v[0], *v.last().unwrap_or(&v[0]));
            for &x in v {
                span.insert(x, (a, b));
            }
        }
        for l in lifetimes {
            l.first = span.get(&l.first).map_or(l.first, |s| s.0);
            l.last = span.get(&l.last).map_or(l.last, |s| s.1);
        }
    }
}

/// The host's `memref.get_global` of a program's schedule table `words` (a private
/// constant `memref.global` built before function `host`).
fn schedule_table(
    b: &mut Builder,
    globals: &mut Globals,
    host: OpId,
    prog: &str,
    words: Vec<i32>,
) -> Value {
    let n = words.len() as i64;
    let ty = Type::tensor(vec![n], Type::i32());
    let value = Attribute::new(AttrKind::DenseElements {
        literal: DenseLiteral::List(
            words
                .into_iter()
                .map(|w| DenseLiteral::Int(i128::from(w)))
                .collect(),
        ),
        ty,
    });
    let name = globals.global_named(b, host, value, &ty, &format!("{prog}_schedule"));
    b.op("memref.get_global")
        .property("name", Attribute::symbol(name))
        .result(Type::memref(vec![n], Type::i32()))
        .value()
}

/// Builds program `g`'s persistent kernel from the per-compute `kernels[k]` of its launches
/// (`launches`: kernel index and host memrefs of its arguments, in order), checks
/// co-residency, and emits its one `gpu.launch_func` at `b` (in function `host`) with the
/// step array `step` (`memref<V x i32>` in the arena, zeroed by [`reset_steps`]' launch
/// first) and the program's schedule table (a constant `memref.global` made in `globals`)
/// as the first two arguments. Returns the kernel.
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch_program(
    b: &mut Builder,
    (globals, host): (&mut Globals, OpId),
    pack: &Packing,
    g: usize,
    launches: &[(usize, Vec<Value>)],
    kernels: &[LoweredKernel],
    device: &Device,
    step: Value,
) -> Result<LoweredKernel, Diagnostic> {
    let prog = &pack.progs[g];
    let mut host_args: Vec<Value> = Vec::new();
    let mut ops = HashMap::new();
    let mut threads = 1u64;
    for (k, mems) in launches {
        let lk = &kernels[*k];
        let pos: Vec<usize> = mems
            .iter()
            .map(|&m| match host_args.iter().position(|&x| x == m) {
                Some(p) => p,
                None => {
                    host_args.push(m);
                    host_args.len() - 1
                }
            })
            .collect();
        let t = lk.launch.block_threads().unwrap_or(1);
        threads = threads.max(t);
        // The pack sized the vEUs for its rTasks (`RTaskShape`): a kernel over that shape
        // would change the grid's co-residency under the schedule.
        if let Some(vd) = &prog.vdevice
            && (t > vd.threads || lk.shared_bytes > vd.smem)
        {
            return Err(Diagnostic::op_error(
                b.ctx(),
                prog.op,
                format!(
                    "rTask kernel @{} has {t} threads and {} bytes of shared memory, but its vdevice.device was sized for {} threads and {} bytes",
                    lk.name, lk.shared_bytes, vd.threads, vd.smem
                ),
            ));
        }
        let c = rop_name(b.ctx(), lk).ok_or_else(|| {
            Diagnostic::op_error(
                b.ctx(),
                prog.op,
                format!("kernel @{} has no rOperator", lk.name),
            )
        })?;
        ops.insert(
            c,
            kernel::RTaskOp {
                kernel: lk,
                args: pos,
            },
        );
    }
    let arg_types: Vec<Type> = host_args.iter().map(|&v| *b.ctx().value_type(v)).collect();
    let veus = prog.program.veus.len() as u64;
    // The block the kernel launches: the most threads of its rTasks (a split rTask counts
    // its lanes: `RTaskShape`), and the dynamic shared memory it declares (its rOperators'
    // buffers laid out from byte 0, the most of any; at least each rTask kernel's bytes).
    let shared = kernel::dynamic_shared(b.ctx(), &ops)
        .map_err(|m| Diagnostic::op_error(b.ctx(), prog.op, format!("cannot lower: {m}")))?;
    let (blocks_per_core, coresident) = coresidency(b.ctx(), prog, device, threads, shared)?;
    let spec = kernel::Spec {
        name: prog.name.clone(),
        program: &prog.program,
        ops,
        arg_types,
        coresident,
        blocks_per_core,
    };
    let (lk, words) = kernel::build(b.ctx_mut(), &spec, threads)
        .map_err(|m| Diagnostic::op_error(b.ctx(), prog.op, format!("cannot lower: {m}")))?;
    let table = schedule_table(b, globals, host, &prog.name, words);
    let args: Vec<Value> = [step, table].into_iter().chain(host_args).collect();
    launch(b, &lk.name, [veus, threads], &args);
    Ok(lk)
}

/// The blocks per core program `prog`'s persistent kernel (blocks of `threads` threads,
/// `shared` bytes of dynamic shared memory) must hold when its barriers span vEUs, and the
/// blocks it can hold at once (`rtile.persistent = {blocks_per_core, coresident}`); refuses
/// a program that could deadlock.
///
/// Two counts, both `cores × resident_blocks` ([`Device::resident_blocks`], which follows
/// the CUDA driver's occupancy rules):
/// - *admission*, at the registers Roller's construction charged the rKernels
///   (`prog.regs`): a program with more vEUs than that would need fewer registers than its
///   rKernels were built for, and is refused;
/// - *the recorded count*, at the registers the back end will hold the kernel to: on an
///   NVIDIA target the `.maxnreg` of `coresident_register_cap(threads, blocks_per_core)`,
///   which `rtile-translate` emits whatever its `--max-registers` says. ptxas may allocate
///   any number up to it, so only this count is a bound on what the driver allows
///   (`cuOccupancyMaxActiveBlocksPerMultiprocessor`, checked by `rtile-run cuda --model`);
///   counted at Roller's estimate instead it was above the driver's on an H200 (lstm: 2772
///   against 2112, `bench/results/h200-2026-11-26/call1/session.log`). On other targets
///   (AMDGPU's `amdgpu-waves-per-eu`) and for a program whose barriers stay within a vEU
///   (nothing need be co-resident) it is the admission count.
fn coresidency(
    ctx: &Context,
    prog: &Prog,
    device: &Device,
    threads: u64,
    shared: u64,
) -> Result<(Option<u64>, u64), Diagnostic> {
    let veus = prog.program.veus.len() as u64;
    let per_core = device.resident_blocks(threads, shared, Some(prog.regs));
    let admitted = device.cores * per_core;
    if prog.cross && veus > admitted {
        return Err(Diagnostic::op_error(
            ctx,
            prog.op,
            format!(
                "could deadlock: its barriers span vEUs and it launches {veus} persistent blocks, but only {admitted} can be co-resident on '{}' ({} cores × {per_core} blocks of {threads} threads, {shared} bytes of shared memory, {} registers per thread)",
                device.name, device.cores, prog.regs
            ),
        ));
    }
    // The back ends keep the kernel's registers low enough for this many blocks per core
    // (`.maxnreg`, `amdgpu_waves_per_eu`).
    let blocks_per_core = prog.cross.then(|| veus.div_ceil(device.cores.max(1)));
    let regs = match blocks_per_core {
        Some(bpc) if device.target().backend == "nvvm" => {
            rtile_gpu_vocab::registers::coresident_register_cap(threads, bpc)
        }
        _ => prog.regs,
    };
    let coresident = device.cores * device.resident_blocks(threads, shared, Some(regs));
    // By construction the cap fits `blocks_per_core` blocks, and the admission count's
    // shared-memory and warp limits do too; checked all the same, as the recorded count is
    // what the runtime trusts.
    if prog.cross && veus > coresident {
        return Err(Diagnostic::op_error(
            ctx,
            prog.op,
            format!(
                "could deadlock: it launches {veus} persistent blocks, but at the {regs} registers per thread the back end allows only {coresident} can be co-resident on '{}'",
                device.name
            ),
        ));
    }
    Ok((blocks_per_core, coresident))
}

/// `gpu.launch_func @kernels::@name` on a 1-D grid and block (`dims`) with `args`.
pub(crate) fn launch(b: &mut Builder, name: &str, dims: [u64; 2], args: &[Value]) {
    let mut operands = Vec::new();
    for d in [dims[0], 1, 1, dims[1], 1, 1] {
        operands.push(
            b.op("arith.constant")
                .property("value", Attribute::int(d as i64, Type::index()))
                .result(Type::index())
                .value(),
        );
    }
    operands.extend(args.iter().copied());
    b.op("gpu.launch_func")
        .operands(&operands)
        .property(
            "kernel",
            Attribute::new(AttrKind::SymbolRef {
                root: "kernels".into(),
                nested: vec![name.to_string()],
            }),
        )
        .property(
            "operandSegmentSizes",
            segment_sizes(&[0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, args.len() as i64, 0]),
        )
        .build();
}

/// Builds the step-array reset kernel `@<name>` for `n` step counters and launches it at
/// `b` on `steps`.
pub(crate) fn reset_steps(b: &mut Builder, name: &str, n: usize, steps: Value) -> LoweredKernel {
    let k = kernel::build_reset(b.ctx_mut(), name, n);
    let t = k.launch.block_threads().unwrap_or(1);
    launch(b, name, [1, t], &[steps]);
    k
}

/// The rOperator of a lowered compute kernel: its `vdevice.rop`, copied onto the kernel by
/// [`mark_rop`].
fn rop_name(ctx: &Context, k: &LoweredKernel) -> Option<String> {
    ctx.attr(k.func, ROP_ATTR)
        .and_then(|a| a.as_flat_symbol())
        .map(str::to_string)
}

/// Copies compute `c`'s `vdevice.rop` onto its lowered kernel's `gpu.func`.
pub(crate) fn mark_rop(ctx: &mut Context, c: OpId, func: OpId) {
    if let Some(a) = ctx.attr(c, ROP_ATTR).cloned() {
        ctx.set_attr(func, ROP_ATTR, a);
    }
}

/// The module's `vdevice` ops (devices, rOperators, programs): dropped once lowered. They
/// sit in the module's body (`--wavefront-pack` puts them next to the functions); only
/// that block is read: by now the module also holds the persistent kernels, whose size
/// grows with the rTask count.
pub(crate) fn vdevice_ops(ctx: &Context, module: OpId) -> Vec<OpId> {
    ctx.regions(module)
        .iter()
        .flat_map(|&r| ctx.region_blocks(r).to_vec())
        .flat_map(|b| ctx.block_ops(b).collect::<Vec<_>>())
        .filter(|&o| matches!(ctx.op_name(o), DEVICE | PROGRAM | ROPERATOR))
        .collect()
}
