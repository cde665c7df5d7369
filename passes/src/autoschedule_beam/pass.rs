//! `--autoschedule-beam`: schedules every function's te computes with the beam search of
//! Anderson et al. (OOPSLA'21) and writes the result in `--connect`'s form,
//! `tilegraph.kernel`s (docs/passes/autoschedule-beam.md).

use rtile::diagnostics::Diagnostic;
use rtile::ir::attributes::Attribute;
use rtile::ir::types::Type;
use rtile::ir::{Context, NamedAttribute, OpId};
use rtile::pass::{Pass, PassStatistics};
use rtile_dialects::te::ir::COMPUTE;
use rtile_dialects::tilegraph::{FOOTPRINT, Level, bytes_per_level_attr};

use super::cost::{Coefficients, stage_cost};
use super::features::featurize;
use super::kernel::{levels, plan_kernel};
use super::pipeline::Pipeline;
use super::search::{Fusion, SearchOptions, search};
use super::space::Loc;
use crate::connect::pass::{build_kernel_op, deepest_level, reorder_block};
use crate::device::Device;

/// Attribute on each body op: its location (`root`, `shared`, `register`, `inline`).
pub const LOCATION: &str = "beam.location";
/// Attribute on a root op: `{serial = array<i64>, threads = array<i64>, blocks = array<i64>}`.
pub const TILING: &str = "beam.tiling";
/// Attribute on a kernel: its predicted cost, µs.
pub const KERNEL_COST: &str = "beam.cost_us";
/// Attribute on a kernel: its root stage, the index of the root's `te.compute` among the
/// function's computes in order (the `k<root>` of `rtile-bench records`' kernel names).
/// `--lower-to-gpu` carries it to the `gpu.func`s it lowers the kernel to, so that a
/// kernel timed on a GPU is matched to the search's kernel (`rtile-bench records
/// --measured`).
pub const ROOT: &str = "beam.root";
/// Attribute on a function: the schedule's predicted cost, µs.
pub const COST: &str = "beam.cost_us";
/// Attribute on a function: the states the search featurized and costed.
pub const STATES: &str = "beam.states_evaluated";
/// Attribute on a function scheduled with `rank` > 1: the rank of its schedule in the
/// final beam (1 = the best).
pub const RANK: &str = "beam.rank";

rtile::declare_pass! {
    pass AutoscheduleBeam {
        flag: "autoschedule-beam",
        display_name: "AutoscheduleBeam",
        summary: "Schedule te pipelines by beam search over compute locations and tilings with a GPU cost model (Anderson et al., OOPSLA'21)",
        description: "Places every te.compute of each function at root (its own kernel), at its consumer's block level (shared memory), at its consumer's thread level (registers) or inline, and tiles each root stage into blocks, threads and serial points, by a beam search with hierarchical sampling, freezing and memoized featurization; writes the result as tilegraph.kernel ops (the form of --connect) with each stage's location, the root tilings and the predicted costs.",
        options(opts: BeamOptions) {
            /// built-in device: v100, k80, mi50, a100, h100, h200, mi250x
            device: String = "", "device";
            /// beam size k (1 = greedy: one pass, no freezing, no penalties)
            beam_size: i64 = "32", "beam-size", check = check_beam;
            /// seed of the hierarchical sampler
            seed: i64 = "0", "seed";
            /// hierarchical sampling by structural hash (§3.1)
            sampling: bool = "true", "sampling";
            /// freezing after the root/inline pre-pass (§3.2)
            freezing: bool = "true", "freezing";
            /// memoization of the per-kernel featurization (§3.3)
            memoize: bool = "true", "memoize";
            /// deepest fusion: none (root and inline), register, shared
            fusion_level: String = "shared", "fusion-level", check = check_fusion;
            /// keep fused stencils out (no fused member reads a value twice): their shared tiles are sized from one read, the lowering stages every read's region
            lowering_limits: bool = "true", "lowering-limits";
            /// a coefficients file written by `rtile-bench retrain` (TOML; default: derived from the device)
            weights: String = "", "weights";
            /// which schedule of the final beam to write: 1 = the best, N = the N-th best distinct one (N <= beam-size), to time the top few on a GPU
            rank: i64 = "1", "rank", check = check_rank;
        }
        statistics {
            KERNELS: "kernels", "tilegraph.kernel ops created";
            STATES_EVALUATED: "states-evaluated", "schedules featurized and costed";
            MEMO_HITS: "memo-hits", "kernel featurizations served from the memo";
            INLINED: "inlined", "stages inlined or computed at the thread level";
            SHARED: "shared", "stages computed at the block level";
        }
    }
}

fn check_rank(r: &i64) -> Result<(), String> {
    if *r < 1 {
        return Err("rank must be at least 1 (1 = the best schedule)".into());
    }
    Ok(())
}

fn check_beam(k: &i64) -> Result<(), String> {
    if *k < 1 {
        return Err("beam-size must be at least 1".into());
    }
    Ok(())
}

#[allow(clippy::ptr_arg)] // declare_pass! checks take `&T` for a `T` option
fn check_fusion(s: &String) -> Result<(), String> {
    deepest_level("fusion-level", s).map(|_| ())
}

/// The pass.
#[derive(Default)]
pub struct AutoscheduleBeam {
    opts: BeamOptions,
}

impl AutoscheduleBeam {
    /// The search options these pass options give.
    fn search_options(&self) -> SearchOptions {
        SearchOptions {
            beam: self.opts.beam_size.max(1) as usize,
            seed: self.opts.seed as u64,
            sampling: self.opts.sampling,
            freezing: self.opts.freezing,
            memoize: self.opts.memoize,
            // The option was checked when it was set.
            fusion: match deepest_level("fusion-level", &self.opts.fusion_level) {
                Ok(None) => Fusion::None,
                Ok(Some(Level::Register)) => Fusion::Register,
                _ => Fusion::Shared,
            },
            lowering_limits: self.opts.lowering_limits,
            coefficients: None,
            rank: self.opts.rank.max(1) as usize,
        }
    }
}

impl Pass for AutoscheduleBeam {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let err = |ctx: &Context, at: OpId, m: String| Diagnostic::error(ctx.op(at).span, m);
        if self.opts.device.is_empty() {
            return Err(err(
                ctx,
                op,
                format!(
                    "autoschedule-beam needs device=<name>; built-in devices are: {}",
                    Device::builtin_names().join(", ")
                ),
            ));
        }
        let dev = Device::builtin(&self.opts.device).map_err(|e| err(ctx, op, e.message))?;
        let mut sopts = self.search_options();
        if sopts.rank > sopts.beam {
            return Err(err(
                ctx,
                op,
                format!(
                    "autoschedule-beam: rank={} exceeds beam-size={}: the final beam holds at most {} schedule{}",
                    sopts.rank,
                    sopts.beam,
                    sopts.beam,
                    if sopts.beam == 1 { "" } else { "s" }
                ),
            ));
        }
        let coef = if self.opts.weights.is_empty() {
            Coefficients::from_device(&dev)
        } else {
            let path = &self.opts.weights;
            let text = std::fs::read_to_string(path).map_err(|e| {
                err(
                    ctx,
                    op,
                    format!("autoschedule-beam: cannot read weights={path}: {e}"),
                )
            })?;
            Coefficients::from_toml(&text, &Coefficients::from_device(&dev))
                .map_err(|m| err(ctx, op, format!("autoschedule-beam: weights={path}: {m}")))?
        };
        sopts.coefficients = Some(coef.clone());
        let funcs: Vec<OpId> = ctx
            .collect_ops(op)
            .into_iter()
            .filter(|&f| ctx.op_name(f) == "func.func")
            .collect();
        for f in funcs {
            let Some(&r) = ctx.regions(f).first() else {
                continue;
            };
            let Some(&b) = ctx.region_blocks(r).first() else {
                continue;
            };
            let ops: Vec<OpId> = ctx.block_ops(b).collect();
            if let Some(&k) = ops
                .iter()
                .find(|&&o| ctx.op_name(o) == rtile_dialects::tilegraph::KERNEL)
            {
                return Err(err(
                    ctx,
                    k,
                    "autoschedule-beam: the function is already scheduled (it holds a tilegraph.kernel)".into(),
                ));
            }
            // A tensor reshape is a view the lowering's host code applies between kernels:
            // the search schedules the te computes around it, the reshape's operand an
            // output of the pipeline (computed at root) and its result an input.
            let computes: Vec<OpId> = ops
                .iter()
                .copied()
                .filter(|&o| ctx.op_name(o) == COMPUTE)
                .collect();
            let p = Pipeline::build(ctx, &computes)
                .map_err(|m| err(ctx, f, format!("autoschedule-beam: {m}")))?;
            if p.is_empty() {
                continue;
            }
            let out = search(&p, &dev, &sopts)
                .map_err(|m| err(ctx, f, format!("autoschedule-beam: {m}")))?;
            stats.add(Self::STATES_EVALUATED, out.states_evaluated);
            stats.add(Self::MEMO_HITS, out.memo_hits);
            for l in &out.locs {
                match l {
                    Loc::Shared(_) => stats.add(Self::SHARED, 1),
                    l if l.in_registers() => stats.add(Self::INLINED, 1),
                    _ => {}
                }
            }
            let n = write_schedule(ctx, &p, &out.locs, &dev, &coef)
                .map_err(|m| err(ctx, f, format!("autoschedule-beam: {m}")))?;
            stats.add(Self::KERNELS, n);
            reorder_block(ctx, b);
            ctx.set_attr(f, COST, us_attr(out.cost));
            ctx.set_attr(
                f,
                STATES,
                Attribute::int(out.states_evaluated as i64, Type::i64()),
            );
            if out.rank > 1 {
                ctx.set_attr(f, RANK, Attribute::int(out.rank as i64, Type::i64()));
            }
        }
        Ok(())
    }
}

/// A cost in seconds as µs, rounded to 1e-3.
fn us_attr(seconds: f64) -> Attribute {
    Attribute::float((seconds * 1e9).round() / 1000.0, Type::f64())
}

fn i64_array(v: &[u64]) -> Attribute {
    Attribute::dense_i64_array(v.iter().map(|&x| x as i64).collect())
}

/// Writes the schedule `locs` (one location per stage of `p`) as tilegraph kernels, each
/// body op tagged with its location and each root with its tiling; returns how many
/// kernels. The caller reorders the block (`reorder_block`). Public so that tests can
/// lower hand-built schedules through the same path as searched ones.
pub fn write_schedule(
    ctx: &mut Context,
    p: &Pipeline,
    locs: &[Loc],
    dev: &Device,
    coef: &Coefficients,
) -> Result<u64, String> {
    let locs: Vec<Option<Loc>> = locs.iter().cloned().map(Some).collect();
    let lv = levels(p, &locs);
    let mut count = 0;
    for r in 0..p.len() {
        if !matches!(locs[r], Some(Loc::Root(_))) {
            continue;
        }
        let plan = plan_kernel(p, &locs, &lv, r, dev)
            .map_err(|e| format!("the chosen kernel rooted at stage {r} does not fit: {e:?}"))?;
        let feats = featurize(p, &plan, &lv, dev);
        let cost: f64 = feats.iter().map(|f| stage_cost(f, coef, dev).total()).sum();
        let k = build_kernel_op(ctx, &p.g, &plan.members, &lv, &plan.tiles, &dev.name);
        for (j, &m) in plan.members.iter().enumerate() {
            let o = p.g.nodes[m].op;
            ctx.set_attr(o, LOCATION, Attribute::string(plan.locs[j].name()));
            if m == r {
                let t = &plan.tiling;
                ctx.set_attr(
                    o,
                    TILING,
                    Attribute::dictionary(vec![
                        NamedAttribute {
                            name: "blocks".into(),
                            value: i64_array(&t.blocks(p.extents(r))),
                        },
                        NamedAttribute {
                            name: "serial".into(),
                            value: i64_array(&t.serial),
                        },
                        NamedAttribute {
                            name: "threads".into(),
                            value: i64_array(&t.threads),
                        },
                    ]),
                );
            }
        }
        let mut fp = vec![(Level::Shared, plan.shared_bytes)];
        if plan.register_bytes > 0 {
            fp.push((Level::Register, plan.register_bytes));
        }
        ctx.set_attr(k, FOOTPRINT, bytes_per_level_attr(&fp));
        ctx.set_attr(k, KERNEL_COST, us_attr(cost));
        ctx.set_attr(k, ROOT, Attribute::int(r as i64, Type::i64()));
        count += 1;
    }
    Ok(count)
}
