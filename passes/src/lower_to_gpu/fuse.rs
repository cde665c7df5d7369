//! A `tilegraph.kernel` (Welder, OSDI'23 §3.2: a connected sub-graph run as one kernel) as
//! the stages of one kernel plan: register-connected producers are computed where their
//! consumer reads them (§3.4 "code generation", TVM's `compute_inline`: the producer's body
//! substituted into the consumer's, its accesses composed with the consumer's read), and a
//! register-connected element-wise consumer of a reduction becomes the reduction's
//! epilogue (its body applied to each point of the register tile before the store; it may
//! read shared stages too, such as a residual's other operand). One
//! block size for all stages (§4.1's alignment rule): the plan's tiles are the anchor's
//! tiles in the kernel's `tilegraph.tiles`.
//!
//! A shared-connected producer (§3.2: its reuse tile in shared memory; §4.2: the tile
//! allocated by the shared-memory manager) is a shared stage ([`SharedStage`]): before the
//! anchor's loop, the block computes the producer's whole propagated tile (the halo
//! included, §3.1's propagation of the block tile) into shared memory, then a barrier; every
//! consumer in the kernel reads it from there.
//!
//! Shapes not lowered yet are refused with the reason: a reduction read in registers by
//! another reduction or through a non-identity index (it would be recomputed per point), a
//! shared tile read through a non-affine index, kernels with reshapes.
//!
//! A kernel with several results is lowered as one kernel writing all of them where
//! `super::results` plans it ([`fuse_kernel_results`]), else as one fused kernel per
//! result ([`result_members`]).

use rtile::ir::{AffineExpr, AffineMap, Context, OpId, Value};
use rtile_dialects::te::expr::{print_body, print_header};
use rtile_dialects::te::ir::{COMPUTE, compute_from_op};
use rtile_dialects::te::model::{Access, Expr, TeCompute, TensorType};
use rtile_dialects::tilegraph::ops::body_ops;
use rtile_dialects::tilegraph::{
    CONNECT, DEVICE, LayerTiles, Level, TILES, YIELD, levels_from_attr,
};

use super::results::StageResult;
use super::shared_stage::{SharedStage, plan_stages};
use super::tile_program::program_of_tiles;
use crate::construct_rtile::RProgram;

/// Where a fused compute's input comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Src {
    /// A value defined outside the kernel (argument, constant, reshape, earlier kernel).
    Outer(Value),
    /// The result of the kernel's member `n`.
    Member(usize),
    /// The result of member `n`, computed into a shared-memory tile before the anchor's
    /// loop (a shared-connected producer, Welder §3.2/§4.2).
    Shared(usize),
}

/// A member compute with its inputs' sources (one per distinct input).
#[derive(Clone, Debug)]
struct Node {
    c: TeCompute,
    srcs: Vec<Src>,
}

/// Where an input of a fused kernel's stage comes from.
#[derive(Clone, Debug)]
pub enum ReSrc {
    /// Kernel argument `k` (global memory).
    Arg(usize),
    /// A register-connected reduction of the kernel, recomputed where it is read (§3.4:
    /// the producer computed in the consumer's loop; here per point, as
    /// `compute_inline` of a reduction does).
    Recompute(Box<Recompute>),
    /// Shared stage `k` of the kernel ([`FusedGroup::shared_stages`]): read from its tile in
    /// shared memory, written before the anchor's loop between barriers.
    Shared(usize),
}

/// A reduction computed at the point where its consumer reads it: a loop over its
/// reduction axes, its own inputs read from global memory or recomputed in turn.
#[derive(Clone, Debug)]
pub struct Recompute {
    pub compute: TeCompute,
    /// Per input of `compute`.
    pub srcs: Vec<ReSrc>,
}

/// A register-connected element-wise consumer applied to the anchor's result at each point
/// before it is stored (the plan's epilogue stage).
#[derive(Clone, Debug)]
pub struct TailStage {
    /// The consumer (its element-wise producers inlined): domain = the anchor's parallel
    /// axes; the inputs whose source is `None` are the anchor's result, read at the point.
    pub compute: TeCompute,
    /// Per input of `compute`: `None` for the anchor's result; else a kernel argument
    /// (`ReSrc::Arg`) or a shared stage of the kernel (`ReSrc::Shared`, read from its tile
    /// in shared memory at the access's index: another result of a kernel with several,
    /// such as a residual's other operand).
    pub srcs: Vec<Option<ReSrc>>,
}

impl TailStage {
    /// The shared stages the epilogue reads.
    pub fn stages(&self) -> impl Iterator<Item = usize> + '_ {
        self.srcs.iter().filter_map(|s| match s {
            Some(ReSrc::Shared(k)) => Some(*k),
            _ => None,
        })
    }
}

/// A `tilegraph.kernel` ready to lower as one kernel.
#[derive(Clone, Debug)]
pub struct FusedGroup {
    /// The compute whose loop nest the kernel runs (the reduction, or the sink when the
    /// kernel holds no reduction), with its register-connected element-wise producers
    /// inlined.
    pub anchor: TeCompute,
    /// The epilogue stage, if the sink is an element-wise consumer of the anchor.
    pub tail: Option<TailStage>,
    /// Per input of the anchor: a kernel argument or a recomputed reduction.
    pub sources: Vec<ReSrc>,
    /// The kernel's arguments in order (the values read from outside the kernel).
    pub args: Vec<Value>,
    /// Their tensor types.
    pub arg_types: Vec<TensorType>,
    /// The program from the anchor's `tilegraph.tiles` (§4.1: one block for all stages).
    pub program: RProgram,
    /// The kernel's members as a te function over the kernel's arguments (`rtile.te`).
    pub reference: String,
    /// How many te ops the kernel fuses.
    pub members: usize,
    /// The shared-connected producers, in topological order: each computes its
    /// propagated (halo-including) tile into shared memory before the anchor runs.
    pub shared_stages: Vec<SharedStage>,
    /// The kernel's results other than the anchor's (a kernel with several results lowered
    /// as one, [`super::results::fuse_results`]), each written from its shared stage, in
    /// output order before the anchor's; empty: the kernel writes one result.
    pub stage_results: Vec<StageResult>,
}

/// Substitutes `subs[i]` for `d_i` in `e` (map composition), canonicalising as it goes.
fn substitute(e: &AffineExpr, subs: &[AffineExpr]) -> AffineExpr {
    match e {
        AffineExpr::Dim(i) => subs[*i as usize].clone(),
        AffineExpr::Symbol(_) | AffineExpr::Constant(_) => e.clone(),
        AffineExpr::Add(a, b) => AffineExpr::add(substitute(a, subs), substitute(b, subs)),
        AffineExpr::Mul(a, b) => AffineExpr::mul(substitute(a, subs), substitute(b, subs)),
        AffineExpr::FloorDiv(a, b) => {
            AffineExpr::floordiv(substitute(a, subs), substitute(b, subs))
        }
        AffineExpr::CeilDiv(a, b) => AffineExpr::ceildiv(substitute(a, subs), substitute(b, subs)),
        AffineExpr::Mod(a, b) => AffineExpr::rem(substitute(a, subs), substitute(b, subs)),
    }
}

/// Rewrites the access indices of `e` through `f`.
fn remap(e: &Expr, f: &dyn Fn(usize) -> Expr) -> Expr {
    let b = |x: &Expr| Box::new(remap(x, f));
    match e {
        Expr::Access(i) => f(*i),
        Expr::Const(..) => e.clone(),
        Expr::Binary(op, x, y) => Expr::Binary(*op, b(x), b(y)),
        Expr::Unary(op, x) => Expr::Unary(*op, b(x)),
        Expr::Cmp(op, x, y) => Expr::Cmp(*op, b(x), b(y)),
        Expr::Select(c, x, y) => Expr::Select(b(c), b(x), b(y)),
        Expr::Cast(t, x) => Expr::Cast(*t, b(x)),
    }
}

/// The input index of `src` in `srcs`/`inputs`, added if new.
fn input_of(srcs: &mut Vec<Src>, inputs: &mut Vec<TensorType>, src: Src, t: &TensorType) -> usize {
    if let Some(i) = srcs.iter().position(|&s| s == src) {
        return i;
    }
    srcs.push(src);
    inputs.push(t.clone());
    srcs.len() - 1
}

/// `consumer` with the element-wise `producer` (the source of its input `ip`) computed
/// where it is read: each read of `ip` becomes the producer's body over accesses composed
/// with the read's index (§3.4; recomputed per read, no storage).
fn inline(consumer: &Node, ip: usize, producer: &Node) -> Result<Node, String> {
    if producer.c.combiner.is_some() {
        return Err("internal error: only element-wise producers are inlined".into());
    }
    let mut srcs = Vec::new();
    let mut inputs = Vec::new();
    let mut accesses: Vec<Access> = Vec::new();
    // Per consumer access: its new index, or the base of the producer's accesses.
    let mut mapping: Vec<Result<usize, usize>> = Vec::new();
    for a in &consumer.c.accesses {
        if a.input != ip {
            let i = input_of(
                &mut srcs,
                &mut inputs,
                consumer.srcs[a.input],
                &consumer.c.inputs[a.input],
            );
            accesses.push(Access {
                input: i,
                ..a.clone()
            });
            mapping.push(Ok(accesses.len() - 1));
            continue;
        }
        if a.pad.is_some() {
            return Err(
                "internal error: an element-wise producer read with a pad value inlined".into(),
            );
        }
        let base = accesses.len();
        for b in &producer.c.accesses {
            let i = input_of(
                &mut srcs,
                &mut inputs,
                producer.srcs[b.input],
                &producer.c.inputs[b.input],
            );
            let results = b
                .map
                .results
                .iter()
                .map(|e| substitute(e, &a.map.results))
                .collect();
            accesses.push(Access {
                input: i,
                map: AffineMap::new(consumer.c.axes.len() as u32, 0, results),
                pad: b.pad,
            });
        }
        mapping.push(Err(base));
    }
    let pbody = &producer.c.body;
    let body = remap(&consumer.c.body, &|i| match mapping[i] {
        Ok(n) => Expr::Access(n),
        Err(base) => remap(pbody, &|j| Expr::Access(base + j)),
    });
    let mut c = consumer.c.clone();
    c.inputs = inputs;
    c.accesses = accesses;
    c.body = body;
    Ok(Node { c, srcs })
}

/// The connect level of each operand of `op` (all global when the op has none).
fn levels(ctx: &Context, op: OpId) -> Result<Vec<Level>, String> {
    match ctx.attr(op, CONNECT) {
        Some(a) => levels_from_attr(a),
        None => Ok(vec![Level::Global; ctx.operands(op).len()]),
    }
}

/// The te ops of `kernel` that compute each of its results, one entry per result in
/// `tilegraph.yield` order: the member yielded and its producers inside the kernel (its
/// ancestors through member results), in the kernel's (topological) order, the yielded
/// member last.
///
/// A kernel with several results (Welder §3.1's multi-output node rule: every value that
/// leaves the sub-graph is an output node, also when members inside read it) is lowered
/// over these members as one kernel per result when one kernel writing every result
/// ([`fuse_kernel_results`]) does not plan: a producer that two results share is computed
/// in each (inlined, or in each kernel's shared stage), never read back from another
/// kernel's output. See docs/passes/lower-to-gpu.md, "Kernels with several results".
pub(super) fn result_members(ctx: &Context, kernel: OpId) -> Result<Vec<Vec<OpId>>, String> {
    let (ops, yielded) = yielded_members(ctx, kernel)?;
    let mut out = Vec::new();
    for &s in &yielded {
        // Walk back from the yielded member: members come in topological order, so one
        // pass from the sink towards the front collects every ancestor.
        let mut needed = vec![false; ops.len()];
        needed[s] = true;
        for m in (0..=s).rev() {
            if !needed[m] {
                continue;
            }
            for &v in ctx.operands(ops[m]) {
                if let Some(p) = ops.iter().position(|&o| ctx.result(o, 0) == v) {
                    needed[p] = true;
                }
            }
        }
        out.push((0..=s).filter(|&m| needed[m]).map(|m| ops[m]).collect());
    }
    let mut covered = vec![false; ops.len()];
    for sub in &out {
        for o in sub {
            if let Some(m) = ops.iter().position(|x| x == o) {
                covered[m] = true;
            }
        }
    }
    if let Some(p) = covered.iter().position(|c| !c) {
        return Err(format!(
            "member {p}'s result is not read inside the kernel and not yielded"
        ));
    }
    Ok(out)
}

/// The te ops of `kernel` (its members, in order) and the member each `tilegraph.yield`
/// operand is, in yield order.
fn yielded_members(ctx: &Context, kernel: OpId) -> Result<(Vec<OpId>, Vec<usize>), String> {
    let ops = body_ops(ctx, kernel);
    if let Some(&o) = ops.iter().find(|&&o| ctx.op_name(o) != COMPUTE) {
        return Err(format!(
            "holds '{}': only kernels of te.computes are lowered as fused kernels yet",
            ctx.op_name(o)
        ));
    }
    let yielded = ctx
        .regions(kernel)
        .first()
        .and_then(|&r| ctx.region_blocks(r).first().copied())
        .and_then(|b| ctx.last_op(b))
        .filter(|&t| ctx.op_name(t) == YIELD)
        .map(|t| ctx.operands(t).to_vec())
        .ok_or("has no 'tilegraph.yield'")?;
    if yielded.len() != ctx.results(kernel).len() {
        return Err(format!(
            "yields {} values for {} results",
            yielded.len(),
            ctx.results(kernel).len()
        ));
    }
    let member = |v: Value| ops.iter().position(|&o| ctx.result(o, 0) == v);
    let members = yielded
        .iter()
        .enumerate()
        .map(|(i, &y)| {
            member(y)
                .ok_or_else(|| format!("result {i} is not computed by a te.compute of the kernel"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((ops, members))
}

/// A `tilegraph.kernel` with several results as ONE fused kernel writing all of them
/// ([`super::results::fuse_results`]), or why not (the caller then lowers one kernel per
/// result, [`result_members`]).
pub(super) fn fuse_kernel_results(ctx: &Context, kernel: OpId) -> Result<FusedGroup, String> {
    let device = ctx
        .attr(kernel, DEVICE)
        .and_then(|a| a.as_str())
        .ok_or("has no 'tilegraph.device' (run --connect)")?
        .to_string();
    let (ops, results) = yielded_members(ctx, kernel)?;
    let views = member_views(ctx, &ops)?;
    let mut g = super::results::fuse_results(&views, &results, &device)?;
    g.reference = group_reference(ctx, &ops, &g.args, &results)?;
    Ok(g)
}

/// One member of a kernel as the fused lowering reads it: what [`fuse_kernel`] takes from
/// the IR (`compute_from_op`, `tilegraph.connect`, `tilegraph.tiles`), so that `--connect`
/// can ask the lowering about a kernel before writing it ([`fuse_members`]).
#[derive(Clone, Debug)]
pub struct MemberView {
    /// The member's compute.
    pub c: TeCompute,
    /// The value of each of its distinct inputs (as `compute_from_op` gives them).
    pub vals: Vec<Value>,
    /// Its connect level per operand (access).
    pub levels: Vec<Level>,
    /// Its result.
    pub result: Value,
    /// Its tiles per layer.
    pub tiles: LayerTiles,
}

/// The members `ops` of a kernel read from the IR.
fn member_views(ctx: &Context, ops: &[OpId]) -> Result<Vec<MemberView>, String> {
    ops.iter()
        .map(|&op| {
            let (c, vals) = compute_from_op(ctx, op)?;
            let tiles = ctx
                .attr(op, TILES)
                .ok_or_else(|| "has no 'tilegraph.tiles' (run --connect)".to_string())
                .and_then(LayerTiles::from_attr)?;
            Ok(MemberView {
                c,
                vals,
                levels: levels(ctx, op)?,
                result: ctx.result(op, 0),
                tiles,
            })
        })
        .collect()
}

/// Reads `ops` (members of `kernel` in order, the last one's result leaving the kernel,
/// every other one read by a later one: an entry of [`result_members`]) as one fused
/// kernel (see the module doc), or says why it cannot be.
pub(super) fn fuse_kernel(ctx: &Context, kernel: OpId, ops: &[OpId]) -> Result<FusedGroup, String> {
    let device = ctx
        .attr(kernel, DEVICE)
        .and_then(|a| a.as_str())
        .ok_or("has no 'tilegraph.device' (run --connect)")?
        .to_string();
    if ops.is_empty() {
        return Err("has no te.compute".into());
    }
    let views = member_views(ctx, ops)?;
    let mut g = fuse_members(&views, &device)?;
    g.reference = group_reference(ctx, ops, &g.args, &[ops.len() - 1])?;
    Ok(g)
}

/// [`fuse_kernel`] on members already read (`device`: the kernel's `tilegraph.device`),
/// without the reference te function (left empty: only the lowering needs it).
pub fn fuse_members(views: &[MemberView], device: &str) -> Result<FusedGroup, String> {
    fuse_members_forced(views, device, &vec![false; views.len()])
}

/// [`fuse_members`] with the members marked in `forced` made shared stages whatever the
/// level their consumers read them at (the results of a kernel with several results,
/// [`super::results::fuse_results`]); such a member no other member reads is still a stage.
pub(super) fn fuse_members_forced(
    views: &[MemberView],
    device: &str,
    forced: &[bool],
) -> Result<FusedGroup, String> {
    if views.is_empty() {
        return Err("has no te.compute".into());
    }
    let plain = fuse_kernel_with(views, device, Promote::None, forced);
    // An element-wise producer recomputed where it is read (under a pad's bounds check)
    // costs what inlining it would: the register level's meaning (§3.4). A reduction does
    // not.
    let recomputes = |g: &FusedGroup| {
        g.sources
            .iter()
            .chain(g.shared_stages.iter().flat_map(|s| &s.srcs))
            .any(recomputes_reduction)
    };
    match &plain {
        Ok(g) if !recomputes(g) => plain,
        // A reduction read in registers would be recomputed at every point that reads it
        // (its inputs re-read from global memory each time), or cannot be recomputed at
        // all (inside a staged reduction): computed once per block into shared memory
        // instead, when that lowers. The reduction the sink reads, if the sink can be its
        // epilogue, stays the kernel's loop.
        _ => epilogue_reduction(views, forced)
            .and_then(|r| {
                fuse_kernel_with(views, device, Promote::AllBut(r), forced)
                    .ok()
                    .filter(|g| g.tail.is_some() && !recomputes(g))
            })
            .map(Ok)
            .unwrap_or_else(|| fuse_kernel_with(views, device, Promote::All, forced).or(plain)),
    }
}

/// Which reductions read in registers by another member [`fuse_kernel_with`] computes as
/// shared stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Promote {
    /// None: each is recomputed where read, or is the anchor.
    None,
    /// Every one.
    All,
    /// Every one but this member (the anchor of the sink's epilogue).
    AllBut(usize),
}

/// The reduction member an element-wise sink could be the epilogue of: the first reduction
/// the sink reads, read by no other member and not a result of its own. The other
/// reductions the sink reads at the register level may then be shared stages.
fn epilogue_reduction(views: &[MemberView], forced: &[bool]) -> Option<usize> {
    let (sink, producers) = views.split_last()?;
    if sink.c.combiner.is_some() {
        return None;
    }
    let member = |v: Value| producers.iter().position(|m| m.result == v);
    let read: Vec<usize> = sink
        .vals
        .iter()
        .filter_map(|&v| member(v))
        .filter(|&p| views[p].c.combiner.is_some())
        .collect();
    let &r = read
        .iter()
        .find(|&&p| !forced[p] && producers.iter().all(|m| !m.vals.contains(&views[p].result)))?;
    Some(r)
}

/// [`fuse_members`]; `promote`: which reductions another member reads are shared stages.
fn fuse_kernel_with(
    views: &[MemberView],
    device: &str,
    promote: Promote,
    forced: &[bool],
) -> Result<FusedGroup, String> {
    let member = |v: Value| views.iter().position(|m| m.result == v);
    let mut nodes: Vec<Node> = Vec::new();
    // A forced member (a result) needs no reader inside the kernel.
    let mut used = forced.to_vec();
    let shared = shared_members(views, promote, forced);
    for (m, view) in views.iter().enumerate() {
        let (c, vals) = (view.c.clone(), &view.vals);
        let lv = &view.levels;
        let mut srcs = vec![Src::Outer(vals[0]); c.inputs.len()];
        for (ai, a) in c.accesses.iter().enumerate() {
            // `vals` holds the distinct inputs; the levels are per access (operand).
            let v = vals[a.input];
            srcs[a.input] = match member(v) {
                Some(p) => {
                    used[p] = true;
                    match lv.get(ai) {
                        Some(Level::Register | Level::Shared) if shared[p] => Src::Shared(p),
                        Some(Level::Register) => Src::Member(p),
                        _ => {
                            return Err(format!(
                                "member {m} reads member {p} at the global level inside one kernel"
                            ));
                        }
                    }
                }
                None => Src::Outer(v),
            };
        }
        let mut node = Node { c, srcs };
        // Element-wise producers are already in final form (members come in order). One
        // read with a pad value stays a member: inlined, its body would be evaluated on
        // the padding too (max(0 + b, 0) is not 0), so it is read as a unit: a shared
        // stage, or recomputed under the bounds check.
        while let Some(ip) = (0..node.srcs.len()).find(|&i| {
            matches!(node.srcs[i], Src::Member(p) if nodes[p].c.combiner.is_none())
                && !read_with_pad(&node.c, i)
        }) {
            let Src::Member(p) = node.srcs[ip] else {
                unreachable!("matched above")
            };
            node = inline(&node, ip, &nodes[p])?;
        }
        nodes.push(node);
    }
    if let Some(p) = used[..views.len() - 1].iter().position(|u| !u) {
        return Err(format!(
            "member {p}'s result is not read inside the kernel and not yielded"
        ));
    }
    let s = nodes.len() - 1;
    if shared[s] {
        return Err("internal error: the kernel's sink is read inside the kernel".into());
    }
    let (anchor_m, tail) = match split_tail(&nodes, s)? {
        Some((r, t)) => (r, Some(t)),
        None => (s, None),
    };
    let anchor = &nodes[anchor_m];
    if anchor.c.combiner.is_some() && anchor.srcs.iter().any(|x| matches!(x, Src::Member(_))) {
        return Err(format!(
            "member {anchor_m} (a reduction) reads another member in registers (a reduction, or an element-wise op through a pad value): recomputing it inside a reduction's staged loop is not lowered yet"
        ));
    }
    if shared[anchor_m] {
        return Err(format!(
            "member {anchor_m} is the kernel's loop and is read at the shared level: not lowered yet"
        ));
    }
    let mut args: Vec<Value> = Vec::new();
    // Shared stages in member (topological) order; stage k is member `staged[k]`.
    let staged: Vec<usize> = (0..nodes.len()).filter(|&m| shared[m]).collect();
    let mut shared_stages = Vec::new();
    for &m in &staged {
        let n = &nodes[m];
        let srcs = n
            .srcs
            .iter()
            .map(|&x| resolve(&nodes, x, &mut args, 0, &staged))
            .collect::<Result<Vec<_>, _>>()?;
        shared_stages.push(SharedStage::new(n.c.clone(), srcs, m));
    }
    let sources = anchor
        .srcs
        .iter()
        .map(|&x| resolve(&nodes, x, &mut args, 0, &staged))
        .collect::<Result<Vec<_>, _>>()?;
    let mut tail = match tail {
        Some(t) => Some(TailStage {
            srcs: t
                .srcs
                .iter()
                .map(|&x| match x {
                    // split_tail lets the tail read no other member in registers.
                    Src::Member(_) => Ok(None),
                    Src::Outer(_) | Src::Shared(_) => {
                        resolve(&nodes, x, &mut args, 0, &staged).map(Some)
                    }
                })
                .collect::<Result<Vec<_>, _>>()?,
            compute: t.c,
        }),
        None => None,
    };
    // An argument's type is that of the member input it is.
    let type_of = |v: Value| {
        views.iter().find_map(|m| {
            m.vals
                .iter()
                .position(|&x| x == v)
                .map(|i| m.c.inputs[i].clone())
        })
    };
    let arg_types = args
        .iter()
        .map(|&v| type_of(v).ok_or("internal error: an argument no member reads"))
        .collect::<Result<Vec<_>, _>>()?;
    let program = program_of_tiles(&views[anchor_m].tiles, &anchor.c, device)?;
    let mut sources = sources;
    plan_stages(
        &anchor.c,
        &program.block,
        (&mut sources, tail.as_mut()),
        &mut shared_stages,
    )?;
    if let Some(t) = &tail
        && t.stages().any(|k| shared_stages[k].moves_with_step())
    {
        return Err(
            "the epilogue reads a shared stage whose tile moves with a k-step (only one step's slice is in shared memory at the store)"
                .into(),
        );
    }
    Ok(FusedGroup {
        anchor: anchor.c.clone(),
        tail,
        sources,
        args,
        arg_types,
        program,
        reference: String::new(),
        members: views.len(),
        shared_stages,
        stage_results: Vec::new(),
    })
}

/// Per member of `views`: whether it is a shared stage (every `forced` one is). Members
/// some consumer reads at the shared level are computed into shared memory and read from
/// there by every consumer in the kernel; so are the reductions other members read in
/// registers that `promote` names.
fn shared_members(views: &[MemberView], promote: Promote, forced: &[bool]) -> Vec<bool> {
    let member = |v: Value| views.iter().position(|m| m.result == v);
    let mut shared = forced.to_vec();
    for view in views {
        // Levels are per access (operand), values per distinct input.
        for (a, l) in view.c.accesses.iter().zip(&view.levels) {
            let Some(p) = member(view.vals[a.input]) else {
                continue;
            };
            // A reduction, or an element-wise op read with a pad value (not inlined).
            let promotable = views[p].c.combiner.is_some() || a.pad.is_some();
            match (l, promote) {
                (Level::Shared, _) => shared[p] = true,
                (Level::Register, Promote::All) => shared[p] |= promotable,
                (Level::Register, Promote::AllBut(r)) if p != r => shared[p] |= promotable,
                _ => {}
            }
        }
    }
    shared
}

/// Whether reading `s` recomputes a reduction (itself or one of its sources).
fn recomputes_reduction(s: &ReSrc) -> bool {
    match s {
        ReSrc::Recompute(rc) => {
            rc.compute.combiner.is_some() || rc.srcs.iter().any(recomputes_reduction)
        }
        ReSrc::Arg(_) | ReSrc::Shared(_) => false,
    }
}

/// Whether `c` reads its input `i` through an access with a pad value.
fn read_with_pad(c: &TeCompute, i: usize) -> bool {
    c.accesses.iter().any(|a| a.input == i && a.pad.is_some())
}

/// The position of `v` among the kernel's arguments (added if new).
fn arg_index(args: &mut Vec<Value>, v: Value) -> usize {
    args.iter().position(|&a| a == v).unwrap_or_else(|| {
        args.push(v);
        args.len() - 1
    })
}

/// The kernel-level source of `s`: an argument, or a member reduction recomputed where
/// it is read (its own sources resolved in turn; `depth` bounds the nesting), or a shared
/// stage (`staged`: the members with a shared tile, in stage order).
fn resolve(
    nodes: &[Node],
    s: Src,
    args: &mut Vec<Value>,
    depth: usize,
    staged: &[usize],
) -> Result<ReSrc, String> {
    match s {
        Src::Outer(v) => Ok(ReSrc::Arg(arg_index(args, v))),
        Src::Shared(p) => staged
            .iter()
            .position(|&m| m == p)
            .map(ReSrc::Shared)
            .ok_or_else(|| "internal error: a shared source without its stage".into()),
        Src::Member(p) => {
            if depth >= 2 {
                return Err(
                    "a reduction recomputed inside two others (the work per point multiplies with each level): not lowered yet"
                        .into(),
                );
            }
            let n = &nodes[p];
            let srcs = n
                .srcs
                .iter()
                .map(|&x| resolve(nodes, x, args, depth + 1, staged))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(ReSrc::Recompute(Box::new(Recompute {
                compute: n.c.clone(),
                srcs,
            })))
        }
    }
}

/// When the sink `s` is element-wise and reads exactly one member `r` in registers, a
/// reduction whose inputs are global or shared stages, only at the identity index over
/// `r`'s parallel axes: `r` is the anchor and the sink its epilogue. The sink may also read
/// shared stages (at any index inside their tiles: a residual's other operand).
fn split_tail(nodes: &[Node], s: usize) -> Result<Option<(usize, Node)>, String> {
    let sink = &nodes[s];
    if sink.c.combiner.is_some() {
        return Ok(None);
    }
    let in_registers: Vec<usize> = sink
        .srcs
        .iter()
        .filter_map(|x| match x {
            Src::Member(p) => Some(*p),
            Src::Shared(_) | Src::Outer(_) => None,
        })
        .collect();
    let [r] = in_registers[..] else {
        return Ok(None);
    };
    let rn = &nodes[r];
    let np = rn.c.num_parallel();
    let same_points = sink.c.axes.len() == np
        && sink
            .c
            .axes
            .iter()
            .zip(&rn.c.axes)
            .all(|(a, b)| a.extent == b.extent);
    let identity =
        sink.c.accesses.iter().all(|a| {
            sink.srcs[a.input] != Src::Member(r) || (a.pad.is_none() && a.map.is_identity())
        });
    let staged_or_global = rn
        .srcs
        .iter()
        .all(|x| matches!(x, Src::Outer(_) | Src::Shared(_)));
    // A reduction the sink also reads from shared memory is a shared stage, not the loop.
    let only_in_registers = !sink.srcs.contains(&Src::Shared(r));
    let reduction = rn.c.combiner.is_some();
    Ok(
        (reduction && same_points && identity && staged_or_global && only_in_registers)
            .then(|| (r, sink.clone())),
    )
}

/// The kernel's members as `func.func @ref(%in0, ..) { te.compute ... }` over the kernel's
/// arguments, returning the members `returned` (its results, in output order): the unfused
/// te chain the simulator checks the fused kernel against.
fn group_reference(
    ctx: &Context,
    ops: &[OpId],
    args: &[Value],
    returned: &[usize],
) -> Result<String, String> {
    let name = |v: Value, ops: &[OpId]| -> Result<String, String> {
        if let Some(m) = ops.iter().position(|&o| ctx.result(o, 0) == v) {
            return Ok(format!("m{m}"));
        }
        args.iter()
            .position(|&a| a == v)
            .map(|i| format!("in{i}"))
            .ok_or_else(|| "internal error: a member reads a value that is no argument".into())
    };
    let mut params = Vec::new();
    for (i, &a) in args.iter().enumerate() {
        let t = TensorType::from_type(ctx.value_type(a)).ok_or("a non-tensor argument")?;
        params.push(format!("%in{i}: {}", t.text()));
    }
    let mut body = String::new();
    let mut types = vec![String::new(); ops.len()];
    for (m, &op) in ops.iter().enumerate() {
        let (c, vals) = compute_from_op(ctx, op)?;
        let mut names = vec![String::new(); c.inputs.len()];
        for a in &c.accesses {
            names[a.input] = name(vals[a.input], ops)?;
        }
        body.push_str(&format!(
            "%m{m} = te.compute {} {{ {} }} ",
            print_header(&c),
            print_body(&c, &names)
        ));
        types[m] = c.result.text();
    }
    let tys: Vec<&str> = returned.iter().map(|&m| types[m].as_str()).collect();
    let vals: Vec<String> = returned.iter().map(|m| format!("%m{m}")).collect();
    let (tys, ret) = (
        tys.join(", "),
        if returned.len() == 1 {
            tys[0].to_string()
        } else {
            format!("({})", tys.join(", "))
        },
    );
    Ok(format!(
        "func.func @ref({}) -> {ret} {{ {body}func.return {} : {tys} }}",
        params.join(", "),
        vals.join(", "),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile_dialects::te::ir::compute_from_op;
    use rtile_dialects::te::module::{new_context, parse_and_verify};
    use rtile_runtime::interp::{Accumulate, eval_compute};
    use rtile_runtime::tensor::Tensor;

    /// A producer read through a transposed, strided index with a broadcast operand, inlined
    /// into a reduction that reads it twice: the inlined compute equals producer-then-
    /// consumer in the interpreter, and reads the producer's inputs through composed maps.
    #[test]
    fn inlining_composes_the_maps_and_keeps_the_values() {
        let text = "func.func @f(%X: tensor<3x8xf32>, %Y: tensor<4xf32>) -> tensor<3xf32> {
  %P = te.compute (%i, %j) in [4, 3] : (tensor<3x8xf32>, tensor<4xf32>) -> tensor<4x3xf32> { %X[%j, %i * 2 + 1] * 2.0 + %Y[%i] }
  %C = te.compute (%a) reduce (%b) in [3, 4] : (tensor<4x3xf32>) -> tensor<3xf32> { te.sum(%P[%b, %a] * tanh(%P[%b, %a])) }
  func.return %C : tensor<3xf32>
}";
        let mut ctx = new_context();
        let m = parse_and_verify(&mut ctx, "f.mlir", text).expect("parses");
        let ops: Vec<OpId> = ctx
            .collect_ops(m)
            .into_iter()
            .filter(|&o| ctx.op_name(o) == COMPUTE)
            .collect();
        let node = |o: OpId| {
            let (c, vals) = compute_from_op(&ctx, o).expect("compute");
            let mut srcs = vec![Src::Outer(vals[0]); c.inputs.len()];
            for a in &c.accesses {
                srcs[a.input] = if Some(vals[a.input]) == ctx.results(ops[0]).first().copied() {
                    Src::Member(0)
                } else {
                    Src::Outer(vals[a.input])
                };
            }
            Node { c, srcs }
        };
        let (p, c) = (node(ops[0]), node(ops[1]));
        let fused = inline(&c, 0, &p).expect("inlines");
        // X and Y, read once per read of P, through the composed maps.
        assert_eq!(fused.c.inputs.len(), 2);
        assert_eq!(
            fused.c.accesses.len(),
            c.c.accesses.len() * p.c.accesses.len()
        );
        assert_eq!(
            fused.c.accesses[0].map.results,
            vec![
                AffineExpr::Dim(0),
                AffineExpr::add(
                    AffineExpr::mul(AffineExpr::Dim(1), AffineExpr::Constant(2)),
                    AffineExpr::Constant(1)
                )
            ]
        );
        let ins = Tensor::random_inputs(&p.c.inputs, 7);
        let mut pv = eval_compute(&p.c, &ins, Accumulate::F64).expect("producer");
        // The f64 oracle's tensor, fed on as the f32 tensor the consumer declares (as the
        // model oracle does).
        pv.dtype = p.c.result.elem;
        let want = eval_compute(&c.c, &[pv], Accumulate::F64).expect("consumer");
        let got = eval_compute(&fused.c, &ins, Accumulate::F64).expect("fused");
        for (g, w) in got.data.iter().zip(&want.data) {
            assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{g} vs {w}");
        }
    }
}
