//! `--connect`: schedules every function's te ops with Welder's two-step scheduler and
//! groups them into `tilegraph.kernel`s (docs/passes/connect.md).

use rtile::diagnostics::Diagnostic;
use rtile::ir::attributes::Attribute;
use rtile::ir::types::Type;
use rtile::ir::{BlockId, Context, NamedAttribute, OpId, OperationState, Value};
use rtile::pass::{Pass, PassStatistics};
use rtile_dialects::tilegraph::{
    CONFIG, DECISIONS, DEVICE, FOOTPRINT, KERNEL, Level, PARALLELISM, REFUSED, TRAFFIC, YIELD,
    bytes_per_level_attr, set_connect_levels, set_tiles,
};

use super::graph::{Graph, build_graph};
use super::profile::ConnectProfile;
use super::schedule::{Decision, Schedule, schedule_profiled};
use super::tiling::Plan;
use crate::device::Device;
use crate::wavefront_pack::profile::same_device;

rtile::declare_pass! {
    pass Connect {
        flag: "connect",
        display_name: "Connect",
        summary: "Group te ops into tilegraph.kernels with Welder's tile-graph scheduler (OSDI'23 Fig. 7)",
        description: "Visits every producer->consumer edge of each function in topological order and connects it at the memory level (global, register, shared) whose best tile configuration the traffic model estimates fastest; writes the connected groups as tilegraph.kernel ops with each edge's level, each op's tiles per layer, the decisions and the estimated traffic and footprint.",
        options(opts: ConnectOptions) {
            /// built-in device: v100, k80, mi50, a100, h100, h200, mi250x
            device: String = "", "device";
            /// tile configurations kept per sub-graph (Fig. 7 TopK)
            top_k: i64 = "8", "top-k", check = check_top_k;
            /// deepest level to connect at: none (Welder-none), register (Welder-base), shared (Welder)
            connect_level: String = "shared", "connect-level", check = check_level;
            /// TOML file of kernel times measured on the GPU, by tilegraph.config, used instead of the model's estimate (Fig. 7 Profile)
            profile: String = "", "profile";
        }
        statistics {
            KERNELS: "kernels", "tilegraph.kernel ops created";
            PROFILED: "profiled-kernels", "kernels whose chosen configuration the profile timed";
            REGISTER_EDGES: "register-edges", "edges connected in registers";
            SHARED_EDGES: "shared-edges", "edges connected in shared memory";
        }
    }
}

fn check_top_k(k: &i64) -> Result<(), String> {
    if *k < 1 {
        return Err("top-k must be at least 1".into());
    }
    Ok(())
}

#[allow(clippy::ptr_arg)] // declare_pass! checks take `&T` for a `T` option
fn check_level(s: &String) -> Result<(), String> {
    deepest_level("connect-level", s).map(|_| ())
}

/// The deepest connect level an option names: `none` (every edge global), `register` or
/// `shared`. Shared by `--connect` and `--autoschedule-beam`, whose fusion levels are the
/// same three.
pub(crate) fn deepest_level(option: &str, s: &str) -> Result<Option<Level>, String> {
    match s {
        "none" => Ok(None),
        "register" => Ok(Some(Level::Register)),
        "shared" => Ok(Some(Level::Shared)),
        _ => Err(format!(
            "{option} must be none, register or shared, not '{s}'"
        )),
    }
}

/// The pass.
#[derive(Default)]
pub struct Connect {
    opts: ConnectOptions,
}

impl Pass for Connect {
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
                    "connect needs device=<name>; built-in devices are: {}",
                    Device::builtin_names().join(", ")
                ),
            ));
        }
        let dev = Device::builtin(&self.opts.device).map_err(|e| err(ctx, op, e.message))?;
        let deepest = deepest_level("connect-level", &self.opts.connect_level)
            .map_err(|e| err(ctx, op, e))?;
        let profile = if self.opts.profile.is_empty() {
            None
        } else {
            let p = ConnectProfile::load(&self.opts.profile).map_err(|m| err(ctx, op, m))?;
            same_device(&self.opts.profile, &p.device, &dev.name).map_err(|m| err(ctx, op, m))?;
            Some(p)
        };
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
            let g = build_graph(ctx, &ops).map_err(|m| err(ctx, f, format!("connect: {m}")))?;
            if g.nodes.is_empty() {
                continue;
            }
            let top_k = self.opts.top_k.max(1) as usize;
            let s = schedule_profiled(&g, &dev, top_k, deepest, profile.as_ref())
                .map_err(|m| err(ctx, f, format!("connect: {m}")))?;
            for row in &s.levels {
                for l in row {
                    match l {
                        Level::Register => stats.add(Self::REGISTER_EDGES, 1),
                        Level::Shared => stats.add(Self::SHARED_EDGES, 1),
                        Level::Global => {}
                    }
                }
            }
            for plan in &s.kernels {
                build_kernel(ctx, &g, &s, plan, &dev.name);
                stats.add(Self::KERNELS, 1);
                if plan.measured {
                    stats.add(Self::PROFILED, 1);
                }
            }
            reorder_block(ctx, b);
        }
        Ok(())
    }
}

/// `{chosen = "shared", global = 1.2 : f64, register = "why not", shared = 0.9 : f64}`:
/// the estimate (µs) of the kernels each level touches, or why the level is impossible.
fn decision_attr(d: Option<&Decision>) -> Attribute {
    let Some(d) = d else {
        return Attribute::dictionary(Vec::new());
    };
    let mut v = vec![NamedAttribute {
        name: "chosen".into(),
        value: Attribute::string(d.level.name()),
    }];
    for (l, r) in &d.tried {
        let value = match r {
            Ok(us) => Attribute::float((us * 1000.0).round() / 1000.0, Type::f64()),
            Err(m) => Attribute::string(m.clone()),
        };
        v.push(NamedAttribute {
            name: l.name().into(),
            value,
        });
    }
    Attribute::dictionary(v)
}

/// Moves `plan`'s members into a new `tilegraph.kernel`, placed where the last member
/// was, with the attributes of the schedule ([`reorder_block`] then fixes the order).
fn build_kernel(ctx: &mut Context, g: &Graph, s: &Schedule, plan: &Plan, device: &str) {
    // A reshape alone is a view, not a kernel: it stays a plain op between kernels, which
    // `--lower-to-gpu` lowers as a view of its operand's buffer (its edges are global:
    // `best_plan` keeps reshapes out of fused kernels).
    if let [m] = plan.members[..]
        && g.nodes[m].compute.is_none()
    {
        return;
    }
    let k = build_kernel_op(ctx, g, &plan.members, &s.levels, &plan.tiles, device);
    for &m in &plan.members {
        let o = g.nodes[m].op;
        let ds: Vec<Attribute> = (0..s.levels[m].len())
            .map(|i| decision_attr(s.decisions.get(&(m, i))))
            .collect();
        ctx.set_attr(o, DECISIONS, Attribute::array(ds));
    }
    let mut traffic = vec![(Level::Global, plan.global_traffic)];
    if plan.shared_traffic > 0 {
        traffic.push((Level::Shared, plan.shared_traffic));
    }
    let mut fp = vec![(Level::Shared, plan.shared_footprint)];
    if plan.register_footprint > 0 {
        fp.push((Level::Register, plan.register_footprint));
    }
    ctx.set_attr(k, TRAFFIC, bytes_per_level_attr(&traffic));
    ctx.set_attr(k, FOOTPRINT, bytes_per_level_attr(&fp));
    // The parallelism the estimate was made with (§4.1's utilisation), so that a lit test
    // or a reader can see why a tile was chosen.
    let util = (plan.utilization * 1000.0).round() / 1000.0;
    let par = vec![
        NamedAttribute {
            name: "blocks".into(),
            value: Attribute::int(plan.blocks as i64, Type::i64()),
        },
        NamedAttribute {
            name: "threads".into(),
            value: Attribute::int(plan.threads as i64, Type::i64()),
        },
        NamedAttribute {
            name: "utilization".into(),
            value: Attribute::float(util.max(0.001), Type::f64()),
        },
    ];
    ctx.set_attr(k, PARALLELISM, Attribute::dictionary(par));
    ctx.set_attr(k, CONFIG, Attribute::string(plan.config.clone()));
    if let Some((n, why)) = &plan.refused {
        let s = format!("{n} better-ranked tile configurations do not lower: {why}");
        ctx.set_attr(k, REFUSED, Attribute::string(s));
    }
}

/// Moves the ops of `members` (graph nodes, ascending) into a new `tilegraph.kernel`
/// placed where the last member was, with each member's connect levels (`levels`, indexed
/// by node) and tiles (indexed like `members`) and the kernel's `tilegraph.device`; the
/// uses of its results outside are redirected to the kernel. Shared by `--connect` and
/// `--autoschedule-beam`; [`reorder_block`] fixes the block's order afterwards.
pub fn build_kernel_op(
    ctx: &mut Context,
    g: &Graph,
    members: &[usize],
    levels: &[Vec<Level>],
    tiles: &[rtile_dialects::tilegraph::LayerTiles],
    device: &str,
) -> OpId {
    let ops: Vec<OpId> = members.iter().map(|&m| g.nodes[m].op).collect();
    let is_member = |o: OpId| ops.contains(&o);
    let outputs: Vec<Value> = members
        .iter()
        .map(|&m| g.nodes[m].result)
        .filter(|&v| ctx.uses(v).iter().any(|u| !is_member(u.op)))
        .collect();
    let last = *ops.last().unwrap_or(&ops[0]);
    let mut st = OperationState::new(KERNEL);
    st.result_types = outputs.iter().map(|&v| *ctx.value_type(v)).collect();
    let region = ctx.create_region();
    let body = ctx.create_block(Vec::new());
    ctx.append_block(region, body);
    st.regions.push(region);
    st.location = ctx.op(last).location.clone();
    st.span = ctx.op(last).span;
    let k = ctx.create_op(st);
    ctx.insert_op_before(last, k);
    for (j, (&m, &o)) in members.iter().zip(&ops).enumerate() {
        ctx.detach_op(o);
        ctx.append_op(body, o);
        set_connect_levels(ctx, o, &levels[m]);
        set_tiles(ctx, o, &tiles[j]);
    }
    let mut y = OperationState::new(YIELD);
    y.operands = outputs.clone();
    let y = ctx.create_op(y);
    ctx.append_op(body, y);
    for (j, &v) in outputs.iter().enumerate() {
        let kv = ctx.result(k, j);
        let uses: Vec<_> = ctx.uses(v).to_vec();
        for u in uses {
            if u.op != y && !ctx.is_ancestor(k, u.op) {
                ctx.set_operand(u.op, u.index as usize, kv);
            }
        }
    }
    ctx.set_attr(k, DEVICE, Attribute::string(device));
    k
}

/// The op directly in block `b` that holds `op` (itself, or an ancestor).
fn top_level_in(ctx: &Context, b: BlockId, mut op: OpId) -> Option<OpId> {
    loop {
        if ctx.parent_block(op) == Some(b) {
            return Some(op);
        }
        op = ctx.parent_op(op)?;
    }
}

/// Reorders block `b` topologically, keeping the current order where the dependencies
/// allow it: a kernel placed where its last member was may be used by an op that came
/// before it (an op between two members), which must now follow it.
pub fn reorder_block(ctx: &mut Context, b: BlockId) {
    let ops: Vec<OpId> = ctx.block_ops(b).collect();
    let index = |o: OpId| ops.iter().position(|&x| x == o);
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); ops.len()];
    for (k, &o) in ops.iter().enumerate() {
        for inner in ctx.collect_ops(o) {
            for &v in ctx.operands(inner) {
                let d = ctx
                    .defining_op(v)
                    .and_then(|d| top_level_in(ctx, b, d))
                    .and_then(index);
                if let Some(d) = d
                    && d != k
                {
                    deps[k].push(d);
                }
            }
        }
    }
    let mut placed = vec![false; ops.len()];
    let mut order = Vec::with_capacity(ops.len());
    while order.len() < ops.len() {
        // The first op (in the current order) whose operands are all defined; a cycle,
        // which the scheduler's convex closure rules out, keeps the rest as it is.
        let next = (0..ops.len())
            .find(|&k| !placed[k] && deps[k].iter().all(|&d| placed[d]))
            .or_else(|| (0..ops.len()).find(|&k| !placed[k]));
        let Some(k) = next else { break };
        placed[k] = true;
        order.push(ops[k]);
    }
    for &o in &order {
        ctx.detach_op(o);
        ctx.append_op(b, o);
    }
}
