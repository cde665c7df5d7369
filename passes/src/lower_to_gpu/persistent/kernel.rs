//! The persistent kernel of one `vdevice.program` (Rammer, OSDI'20 §4.1.3, §4.1.4, Fig. 10):
//! one `gpu.func` whose block id selects the vEU's list of rTasks. Each rTask is the
//! lowered kernel of its operator with the block index remapped to the rTask id (the
//! lowered kernels already address a one-dimensional grid of one-dimensional blocks,
//! delinearising 2-D/3-D tiles themselves, so Fig. 10's remap of a 2-D/3-D block onto the
//! 1-D vEU is `block_id x → rTask id`, `thread_id x` unchanged).
//!
//! **Each rOperator's body is emitted once.** The vEU lists are data, the schedule table of
//! `table.rs` (the kernel's second argument); one `scf.for` over the block's entries loads
//! `(kind, a, n)` and switches on `kind`: one `scf.if kind == j` per rOperator `j` holding
//! its body in an `scf.for` over rTask ids `a .. a + n`, and one for a barrier-rTask. Why a
//! table and a switch rather than a device function per rOperator called from
//! straight-line lists (the paper's form, which cloned every body per entry: the full-size
//! NASNet cell was 817 MB of MLIR): the code is O(operators) however long the schedule
//! (call lists would stay O(entries) call sites, each passing its operator's buffers); the
//! gpu vocabulary, the simulator and the PTX/HIP back ends need no calls (whose PTX ABI
//! would add stack frames around each call); and a switch costs a few loads and compares
//! per entry, not per rTask. `kind` is loaded by every thread from the same word, so the
//! whole block takes one branch and joins its block barriers. The entry loop carries
//! `rtile.no_hoist` (LLVM `llvm.licm.disable`): hoisting every operator's invariants to
//! the preamble would keep them all live through the loop and spill.
//!
//! - **Surplus threads** (§4.1.3, §4.2.1): the vEU has the most threads of its rTasks; an
//!   rTask with fewer runs its body on `thread_id < threads` while the others execute
//!   `gpu.barrier` S times, S = the body's barriers (counted statically through `scf.for`s
//!   with constant bounds), so every block barrier (`bar.sync 0` / `s_barrier`, which count
//!   arrivals) is joined by the whole block. This is the rule the paper gives for HIP; it is
//!   used on every target. `threads` is the rTask kernel's block, which for a split rTask
//!   counts its reduction lanes (`rtask.rs`): all of them run the body, and the tree's
//!   barriers (a constant count) are joined by the surplus threads like any other.
//! - **After each rTask**: `gpu.barrier`, then thread 0 does `llvm.fence release` (device
//!   scope) and `memref.atomic_rmw addi 1` on `step[veu]`.
//! - **A barrier-rTask** over table pairs `a .. a + n`: thread `i` polls pairs `a + i`,
//!   `a + i + threads`, ... (`scf.while` on `memref.atomic_rmw ori 0` of `step[u]`, an
//!   atomic read, until `step[u] > o`; marked `rtile.wait = array<i64>`, a dynamic pair),
//!   then `llvm.fence acquire`; then `gpu.barrier`.
//! - The step array (`memref<V x i32>`, the kernel's first argument) must be zero at the
//!   launch: the host zeroes it with [`build_reset`]'s kernel first.

use std::collections::HashMap;

use rtile::ir::attributes::Attribute;
use rtile::ir::{AttrKind, BlockId, Builder, Context, OpId, OperationState, Type, Value};
use rtile_dialects::vdevice::Program;
use rtile_gpu_vocab::{ATOMIC_ADDI, ATOMIC_ORI, FENCE_ACQUIRE, FENCE_RELEASE, Launch};

use super::super::kernel::LoweredKernel;
use super::super::launch::shared_layout;
use super::super::types::dynamic_shared_bytes;

/// One rOperator of the program: its lowered kernel and where its arguments are among the
/// persistent kernel's.
pub(crate) struct RTaskOp<'k> {
    pub kernel: &'k LoweredKernel,
    /// Persistent-kernel argument index of each of the kernel's arguments.
    pub args: Vec<usize>,
}

/// What the persistent kernel is built from.
pub(crate) struct Spec<'a> {
    pub name: String,
    pub program: &'a Program,
    pub ops: HashMap<String, RTaskOp<'a>>,
    /// The argument types (the distinct buffers of every rTask kernel); the step array
    /// goes first.
    pub arg_types: Vec<Type>,
    /// Blocks that can be co-resident (recorded as `rtile.persistent = {coresident}`).
    pub coresident: u64,
    /// Blocks that must be resident on each core at once (its barriers span vEUs):
    /// `rtile.persistent = {blocks_per_core}`, from which the back ends cap registers.
    pub blocks_per_core: Option<u64>,
}

fn int_value(ctx: &Context, v: Value) -> Option<i64> {
    let d = ctx.defining_op(v)?;
    (ctx.op_name(d) == "arith.constant")
        .then(|| ctx.inherent_attr(d, "value").and_then(|a| a.as_int()))
        .flatten()
}

/// Block barriers one thread executes in `b` (constant-trip `scf.for`s multiply); an
/// error where the count depends on data or differs between branches.
pub(crate) fn barrier_count(ctx: &Context, b: BlockId) -> Result<u64, String> {
    let mut n = 0u64;
    for op in ctx.block_ops(b) {
        let name = ctx.op_name(op);
        let inner = |i: usize| -> Result<u64, String> {
            match ctx
                .regions(op)
                .get(i)
                .and_then(|r| ctx.region_blocks(*r).first().copied())
            {
                Some(blk) => barrier_count(ctx, blk),
                None => Ok(0),
            }
        };
        n += match name {
            "gpu.barrier" => 1,
            "scf.for" => {
                let body = inner(0)?;
                if body == 0 {
                    0
                } else {
                    let o = ctx.operands(op);
                    let c = |i: usize| int_value(ctx, o[i]);
                    match (c(0), c(1), c(2)) {
                        (Some(lb), Some(ub), Some(st)) if st > 0 => {
                            ((ub - lb).max(0) as u64).div_ceil(st as u64) * body
                        }
                        _ => {
                            return Err(
                                "a gpu.barrier inside an scf.for without constant bounds".into()
                            );
                        }
                    }
                }
            }
            "scf.if" => {
                let (t, e) = (inner(0)?, inner(1)?);
                if t != e {
                    return Err("gpu.barriers inside one branch of an scf.if".into());
                }
                t
            }
            _ if !ctx.regions(op).is_empty() => {
                if (0..ctx.regions(op).len()).try_fold(0, |a, i| inner(i).map(|x| a + x))? > 0 {
                    return Err(format!("a gpu.barrier inside '{name}'"));
                }
                0
            }
            _ => 0,
        };
    }
    Ok(n)
}

/// Clones `op` (regions included) at `b`'s insertion point, operands through `map`;
/// records its results (and its blocks' arguments) in `map`.
fn clone_op(b: &mut Builder, op: OpId, map: &mut HashMap<Value, Value>) -> OpId {
    let ctx = b.ctx();
    let data = ctx.op(op);
    let mut st = OperationState::new(ctx.op_name(op));
    st.operands = ctx
        .operands(op)
        .iter()
        .map(|v| *map.get(v).unwrap_or(v))
        .collect();
    st.result_types = ctx
        .results(op)
        .iter()
        .map(|&r| *ctx.value_type(r))
        .collect();
    st.attributes = data.attributes.clone();
    st.properties = data.properties;
    st.location = data.location.clone();
    st.span = data.span;
    let regions = ctx.regions(op).to_vec();
    for r in regions {
        let nr = b.ctx_mut().create_region();
        for blk in b.ctx().region_blocks(r).to_vec() {
            let args = b.ctx().block_args(blk).to_vec();
            let tys: Vec<Type> = args.iter().map(|&a| *b.ctx().value_type(a)).collect();
            let nb = b.ctx_mut().create_block(tys);
            b.ctx_mut().append_block(nr, nb);
            for (i, a) in args.into_iter().enumerate() {
                let na = b.ctx().block_args(nb)[i];
                map.insert(a, na);
            }
            let ip = b.insertion_point();
            b.set_insertion_point_to_end(nb);
            for o in b.ctx().block_ops(blk).collect::<Vec<_>>() {
                clone_op(b, o, map);
            }
            b.restore_insertion_point(ip);
        }
        st.regions.push(nr);
    }
    let new = b.create(st);
    let (old_r, new_r) = (b.ctx().results(op).to_vec(), b.ctx().results(new).to_vec());
    for (o, n) in old_r.into_iter().zip(new_r) {
        map.insert(o, n);
    }
    new
}

/// `#gpu<dim x>`.
fn dim_x() -> Attribute {
    Attribute::new(AttrKind::Dialect {
        dialect: "gpu".into(),
        body: "<dim x>".into(),
    })
}

/// Small helpers over the builder.
struct K<'b, 'c> {
    b: &'b mut Builder<'c>,
}

impl K<'_, '_> {
    fn index(&mut self, n: i64) -> Value {
        self.b
            .op("arith.constant")
            .property("value", Attribute::int(n, Type::index()))
            .result(Type::index())
            .value()
    }
    fn i32(&mut self, n: i64) -> Value {
        self.b
            .op("arith.constant")
            .property("value", Attribute::int(n, Type::i32()))
            .result(Type::i32())
            .value()
    }
    /// `arith.cmpi` with predicate `p` (0 eq, 2 slt, 3 sle, 6 ult).
    fn cmp(&mut self, p: i64, a: Value, c: Value) -> Value {
        self.b
            .op("arith.cmpi")
            .operands(&[a, c])
            .property("predicate", Attribute::i64(p))
            .result(Type::int(1))
            .value()
    }
    /// `scf.if %c` with an empty then block (and an else block when `with_else`); returns
    /// the blocks.
    fn if_op(&mut self, c: Value, with_else: bool) -> (BlockId, Option<BlockId>) {
        // Upstream's scf.if always has two regions; the else region is empty without one.
        let op = self.b.op("scf.if").operand(c).regions(2).build();
        let rs = self.b.ctx().regions(op).to_vec();
        let t = self.block_in(rs[0], &[]);
        let e = with_else.then(|| self.block_in(rs[1], &[]));
        (t, e)
    }
    /// A new block in `r`, leaving the insertion point where it was.
    fn block_in(&mut self, r: rtile::ir::RegionId, tys: &[Type]) -> BlockId {
        let ip = self.b.insertion_point();
        let blk = self.b.create_block_in(r, tys);
        self.b.restore_insertion_point(ip);
        blk
    }
    fn yield_at_end(&mut self, blk: BlockId) {
        let ip = self.b.insertion_point();
        self.b.set_insertion_point_to_end(blk);
        self.b.op("scf.yield").build();
        self.b.restore_insertion_point(ip);
    }
    /// `scf.for %iv = lb to ub step 1` on constants; see [`K::for_dyn`].
    fn for_op(&mut self, lb: i64, ub: i64) -> (OpId, BlockId, Value) {
        let (l, u, s) = (self.index(lb), self.index(ub), self.index(1));
        self.for_dyn(l, u, s)
    }
    /// `scf.for %iv = lb to ub step st`; returns the op, its empty body and the iv (the
    /// caller fills the body and ends it with `scf.yield`).
    fn for_dyn(&mut self, lb: Value, ub: Value, st: Value) -> (OpId, BlockId, Value) {
        let op = self
            .b
            .op("scf.for")
            .operands(&[lb, ub, st])
            .regions(1)
            .build();
        let r = self.b.ctx().regions(op)[0];
        let body = self.block_in(r, &[Type::index()]);
        let iv = self.b.ctx().block_args(body)[0];
        (op, body, iv)
    }
    fn arith(&mut self, name: &str, a: Value, c: Value) -> Value {
        let t = *self.b.ctx().value_type(a);
        self.b.op(name).operands(&[a, c]).result(t).value()
    }
    fn addi(&mut self, a: Value, c: Value) -> Value {
        self.arith("arith.addi", a, c)
    }
    fn muli(&mut self, a: Value, c: Value) -> Value {
        self.arith("arith.muli", a, c)
    }
    /// `memref.load %mem[%idx]` of an `i32`.
    fn load(&mut self, mem: Value, idx: Value) -> Value {
        self.b
            .op("memref.load")
            .operands(&[mem, idx])
            .result(Type::i32())
            .value()
    }
    /// An `i32` table word as an index.
    fn load_index(&mut self, mem: Value, idx: Value) -> Value {
        let w = self.load(mem, idx);
        self.b
            .op("arith.index_cast")
            .operand(w)
            .result(Type::index())
            .value()
    }
    fn fence(&mut self, ordering: i64) {
        self.b
            .op("llvm.fence")
            .property("ordering", Attribute::i64(ordering))
            .property("syncscope", Attribute::string("agent"))
            .build();
    }
    fn atomic(&mut self, kind: i64, val: Value, mem: Value, idx: Value) -> Value {
        self.b
            .op("memref.atomic_rmw")
            .operands(&[val, mem, idx])
            .property("kind", Attribute::i64(kind))
            .result(Type::i32())
            .value()
    }
    fn barrier(&mut self) {
        self.b.op("gpu.barrier").build();
    }
}

/// Per-kernel values the rTask code uses.
struct Ctx {
    tid: Value,
    /// The block id: the vEU, whose step counter its rTasks bump.
    veu: Value,
    step: Value,
    /// The schedule table (`table.rs`).
    table: Value,
    args: Vec<Value>,
    threads: u64,
}

/// Emits rTask `iv` of `op`: its body (surplus threads join its barriers), the block
/// barrier, the fence and the step increment of the block's vEU.
fn emit_rtask(
    k: &mut K,
    cx: &Ctx,
    op: &RTaskOp,
    shared: &[Value],
    iv: Value,
) -> Result<(), String> {
    let func = op.kernel.func;
    let body =
        k.b.ctx()
            .regions(func)
            .first()
            .and_then(|r| k.b.ctx().region_blocks(*r).first().copied())
            .ok_or("a kernel without a body")?;
    let nargs = op.kernel.launch.args.len();
    let bargs = k.b.ctx().block_args(body).to_vec();
    if bargs.len() != nargs + shared.len() {
        return Err(format!(
            "kernel @{} has private attributions, which the persistent lowering does not take",
            op.kernel.name
        ));
    }
    let threads = op.kernel.launch.block_threads().unwrap_or(1);
    let rtasks = op.kernel.launch.grid.map_or(1, |g| g[0]) as i64;
    let mut map: HashMap<Value, Value> = HashMap::new();
    for (i, &a) in bargs.iter().enumerate() {
        let to = if i < nargs {
            cx.args[op.args[i]]
        } else {
            shared[i - nargs]
        };
        map.insert(a, to);
    }
    let guarded = threads < cx.threads;
    let ops: Vec<OpId> = k.b.ctx().block_ops(body).collect();
    let (inner, surplus) = if guarded {
        let t = k.index(threads as i64);
        let c = k.cmp(6, cx.tid, t);
        let (tb, eb) = k.if_op(c, true);
        (Some(tb), eb)
    } else {
        (None, None)
    };
    let ip = k.b.insertion_point();
    if let Some(tb) = inner {
        k.b.set_insertion_point_to_end(tb);
    }
    for o in ops {
        let name = k.b.ctx().op_name(o).to_string();
        let dim =
            k.b.ctx()
                .inherent_attr(o, "dimension")
                .map(|a| matches!(a.kind(), AttrKind::Dialect { body, .. } if body == "<dim x>"));
        let replace = match (name.as_str(), dim) {
            ("gpu.return", _) => continue,
            ("gpu.block_id", Some(true)) => Some(iv),
            ("gpu.block_id", Some(false)) => Some(k.index(0)),
            ("gpu.grid_dim", Some(x)) => Some(k.index(if x { rtasks } else { 1 })),
            ("gpu.block_dim", Some(x)) => Some(k.index(if x { threads as i64 } else { 1 })),
            ("gpu.global_id", _) => {
                return Err(format!(
                    "kernel @{} uses gpu.global_id, which has no rTask form",
                    op.kernel.name
                ));
            }
            _ => None,
        };
        match replace {
            Some(v) => {
                let r = k.b.ctx().result(o, 0);
                map.insert(r, v);
            }
            None => {
                clone_op(k.b, o, &mut map);
            }
        }
    }
    if let Some(tb) = inner {
        k.yield_at_end(tb);
    }
    k.b.restore_insertion_point(ip);
    if let Some(eb) = surplus {
        let s = barrier_count(k.b.ctx(), body)
            .map_err(|m| format!("kernel @{}: {m}", op.kernel.name))?;
        let ip = k.b.insertion_point();
        k.b.set_insertion_point_to_end(eb);
        if s > 0 {
            let (_, fb, _) = k.for_op(0, s as i64);
            k.b.set_insertion_point_to_end(fb);
            k.barrier();
            k.b.op("scf.yield").build();
            k.b.set_insertion_point_to_end(eb);
        }
        k.b.op("scf.yield").build();
        k.b.restore_insertion_point(ip);
    }
    // The rTask is done on every thread; thread 0 publishes it.
    k.barrier();
    let c0 = k.index(0);
    let is0 = k.cmp(0, cx.tid, c0);
    let (tb, _) = k.if_op(is0, false);
    let ip = k.b.insertion_point();
    k.b.set_insertion_point_to_end(tb);
    k.fence(FENCE_RELEASE);
    let one = k.i32(1);
    k.atomic(ATOMIC_ADDI, one, cx.step, cx.veu);
    k.b.op("scf.yield").build();
    k.b.restore_insertion_point(ip);
    Ok(())
}

/// Emits a barrier-rTask over the table's pairs `first .. end`: thread `i` waits for
/// pairs `first + i`, `first + i + threads`, ... (each: spin on an atomic read of
/// `step[veu]` until it exceeds `order`, then an acquire fence), then a block barrier.
fn emit_wait(k: &mut K, cx: &Ctx, pairs_at: usize, first: Value, end: Value) {
    let lb = k.addi(first, cx.tid);
    let st = k.index(cx.threads as i64);
    let (_, body, p) = k.for_dyn(lb, end, st);
    let ip = k.b.insertion_point();
    k.b.set_insertion_point_to_end(body);
    let two = k.index(2);
    let base = k.index(pairs_at as i64);
    let p2 = k.muli(p, two);
    let at = k.addi(p2, base);
    let one = k.index(1);
    let at1 = k.addi(at, one);
    let u = k.load_index(cx.table, at);
    let o = k.load(cx.table, at1);
    // `rtile.wait = array<i64>`: the pair is dynamic, the spin's atomic index and
    // compared order (the simulator's deadlock report reads them from there).
    let w =
        k.b.op("scf.while")
            .regions(2)
            .attr("rtile.wait", Attribute::dense_i64_array(Vec::new()))
            .build();
    let rs = k.b.ctx().regions(w).to_vec();
    let before = k.block_in(rs[0], &[]);
    let after = k.block_in(rs[1], &[]);
    k.b.set_insertion_point_to_end(before);
    let zero = k.i32(0);
    let s = k.atomic(ATOMIC_ORI, zero, cx.step, u);
    let again = k.cmp(3, s, o);
    k.b.op("scf.condition").operand(again).build();
    k.b.set_insertion_point_to_end(after);
    k.b.op("scf.yield").build();
    k.b.set_insertion_point_to_end(body);
    k.fence(FENCE_ACQUIRE);
    k.b.op("scf.yield").build();
    k.b.restore_insertion_point(ip);
    k.barrier();
}

/// The shared-memory views of one rOperator: its workgroup attributions' types and byte
/// offsets in dynamic shared memory.
type Layout = (Vec<Type>, Vec<u64>);

/// Each op's workgroup attributions as views of dynamic shared memory from byte 0 (rTasks
/// of one vEU run one after another, separated by block barriers); and the bytes needed.
fn shared_layouts<'s>(
    ctx: &Context,
    ops: &'s HashMap<String, RTaskOp<'_>>,
) -> Result<(HashMap<&'s str, Layout>, u64), String> {
    let mut layouts = HashMap::new();
    let mut dsm = 0u64;
    for (name, op) in ops {
        let func = op.kernel.func;
        let body = ctx
            .regions(func)
            .first()
            .and_then(|r| ctx.region_blocks(*r).first().copied())
            .ok_or("a kernel without a body")?;
        let tys: Vec<Type> = ctx.block_args(body)[op.kernel.launch.args.len()..]
            .iter()
            .map(|&a| *ctx.value_type(a))
            .collect();
        let sizes: Vec<u64> = tys
            .iter()
            .map(|t| {
                let n: i64 = t.shape().map_or(0, |s| s.iter().product());
                let w = t.element_type().and_then(|e| e.bit_width()).unwrap_or(32);
                n.max(0) as u64 * u64::from(w.div_ceil(8))
            })
            .collect();
        let (offs, end) = shared_layout(&sizes);
        dsm = dsm.max(end).max(op.kernel.launch.dynamic_shared_memory);
        layouts.insert(name.as_str(), (tys, offs));
    }
    Ok((layouts, dsm))
}

/// The dynamic shared memory of the persistent kernel of `ops` ([`build`]'s): what its
/// co-residency is counted with.
pub(crate) fn dynamic_shared(
    ctx: &Context,
    ops: &HashMap<String, RTaskOp<'_>>,
) -> Result<u64, String> {
    shared_layouts(ctx, ops).map(|(_, dsm)| dsm)
}

/// Builds the persistent kernel (detached `gpu.func`) and its schedule table (the data of
/// its second argument); `threads` is the vEU's (the most of its rTasks').
///
/// The kernel: `for e in start[vEU] .. start[vEU + 1]` over the vEU's table entries, and
/// in the loop one `scf.if kind == j` per rOperator `j` (its body, once, in an `scf.for`
/// over the entry's rTask ids) and one for a barrier-rTask. `kind` is the same on every
/// thread of the block, so all threads take the same branch and join its block barriers.
pub(crate) fn build(
    ctx: &mut Context,
    spec: &Spec,
    threads: u64,
) -> Result<(LoweredKernel, Vec<i32>), String> {
    let veus = spec.program.veus.len();
    let mut names: Vec<&str> = spec.ops.keys().map(String::as_str).collect();
    names.sort_unstable();
    let table = super::table::build(spec.program, |o| names.binary_search(&o).ok(), names.len())?;
    let mut arg_types = vec![
        Type::memref(vec![veus as i64], Type::i32()),
        Type::memref(vec![table.data.len() as i64], Type::i32()),
    ];
    arg_types.extend(spec.arg_types.iter().cloned());
    let (layouts, dsm) = shared_layouts(ctx, &spec.ops)?;
    let entry = ctx.create_block(arg_types.clone());
    let mut b = Builder::at_end(ctx, entry);
    let mut k = K { b: &mut b };
    let bid =
        k.b.op("gpu.block_id")
            .property("dimension", dim_x())
            .result(Type::index())
            .value();
    let tid =
        k.b.op("gpu.thread_id")
            .property("dimension", dim_x())
            .result(Type::index())
            .value();
    let args = k.b.ctx().block_args(entry).to_vec();
    let base = (dsm > 0).then(|| {
        k.b.op("gpu.dynamic_shared_memory")
            .result(dynamic_shared_bytes())
            .value()
    });
    let mut shared: Vec<Vec<Value>> = Vec::new();
    for name in &names {
        let (tys, offs) = &layouts[name];
        let mut vs = Vec::new();
        for (t, &o) in tys.iter().zip(offs) {
            let off = k.index(o as i64);
            let base = base.ok_or("shared buffers without dynamic shared memory")?;
            vs.push(
                k.b.op("memref.view")
                    .operands(&[base, off])
                    .result(*t)
                    .value(),
            );
        }
        shared.push(vs);
    }
    let cx = Ctx {
        tid,
        veu: bid,
        step: args[0],
        table: args[1],
        args: args[2..].to_vec(),
        threads,
    };
    let one = k.index(1);
    let next = k.addi(bid, one);
    let lo = k.load_index(cx.table, bid);
    let hi = k.load_index(cx.table, next);
    let (entries, body, e) = k.for_dyn(lo, hi, one);
    k.b.ctx_mut()
        .set_attr(entries, rtile_dialects::rtile::NO_HOIST, Attribute::unit());
    k.b.set_insertion_point_to_end(body);
    let (three, at0) = (k.index(3), k.index(table.entries_at as i64));
    let e3 = k.muli(e, three);
    let at = k.addi(e3, at0);
    let kind = k.load(cx.table, at);
    let at1 = k.addi(at, one);
    let first = k.load_index(cx.table, at1);
    let at2 = k.addi(at1, one);
    let count = k.load_index(cx.table, at2);
    let end = k.addi(first, count);
    for (j, name) in names.iter().enumerate() {
        let jv = k.i32(j as i64);
        let is = k.cmp(0, kind, jv);
        let (tb, _) = k.if_op(is, false);
        k.b.set_insertion_point_to_end(tb);
        let (_, fb, iv) = k.for_dyn(first, end, one);
        k.b.set_insertion_point_to_end(fb);
        emit_rtask(&mut k, &cx, &spec.ops[*name], &shared[j], iv)?;
        k.b.op("scf.yield").build();
        k.b.set_insertion_point_to_end(tb);
        k.b.op("scf.yield").build();
        k.b.set_insertion_point_to_end(body);
    }
    let bv = k.i32(names.len() as i64);
    let is = k.cmp(0, kind, bv);
    let (tb, _) = k.if_op(is, false);
    k.b.set_insertion_point_to_end(tb);
    emit_wait(&mut k, &cx, table.pairs_at, first, end);
    k.b.op("scf.yield").build();
    k.b.set_insertion_point_to_end(body);
    k.b.op("scf.yield").build();
    k.b.set_insertion_point_to_end(entry);
    k.b.op("gpu.return").build();
    let launch = Launch::new([veus as u32, 1, 1], [threads as u32, 1, 1], dsm, arg_types);
    let region = ctx.create_region();
    ctx.append_block(region, entry);
    let mut b = Builder::new(ctx);
    let func = launch
        .write(b.op("gpu.func"))
        .region(region)
        .attr("gpu.kernel", Attribute::unit())
        .attr(
            "rtile.persistent",
            Attribute::dictionary(
                spec.blocks_per_core
                    .map(|n| rtile::ir::NamedAttribute {
                        name: "blocks_per_core".into(),
                        value: Attribute::i64(n as i64),
                    })
                    .into_iter()
                    .chain([rtile::ir::NamedAttribute {
                        name: "coresident".into(),
                        value: Attribute::i64(spec.coresident as i64),
                    }])
                    .collect(),
            ),
        )
        .attr("sym_name", Attribute::string(spec.name.clone()))
        .attr("workgroup_attributions", Attribute::i64(0))
        .build();
    let lk = LoweredKernel {
        name: spec.name.clone(),
        func,
        launch,
        shared_bytes: dsm,
        staged: Vec::new(),
        vectorized: Vec::new(),
        rsplit: 1,
        prefetched: false,
    };
    Ok((lk, table.data))
}

/// The kernel that zeroes a function's step arrays (`memref<n x i32>`, all programs' one
/// after another) before its programs run: one block of up to 256 threads.
pub(crate) fn build_reset(ctx: &mut Context, name: &str, n: usize) -> LoweredKernel {
    let threads = n.clamp(1, 256) as u32;
    let ty = Type::memref(vec![n as i64], Type::i32());
    let entry = ctx.create_block(vec![ty]);
    let mut b = Builder::at_end(ctx, entry);
    let mut k = K { b: &mut b };
    let mem = k.b.ctx().block_args(entry)[0];
    let tid =
        k.b.op("gpu.thread_id")
            .property("dimension", dim_x())
            .result(Type::index())
            .value();
    let (ub, st) = (k.index(n as i64), k.index(i64::from(threads)));
    let zero = k.i32(0);
    let op =
        k.b.op("scf.for")
            .operands(&[tid, ub, st])
            .regions(1)
            .build();
    let r = k.b.ctx().regions(op)[0];
    let body = k.block_in(r, &[Type::index()]);
    let iv = k.b.ctx().block_args(body)[0];
    k.b.set_insertion_point_to_end(body);
    k.b.op("memref.store").operands(&[zero, mem, iv]).build();
    k.b.op("scf.yield").build();
    k.b.set_insertion_point_to_end(entry);
    k.b.op("gpu.return").build();
    let launch = Launch::new([1, 1, 1], [threads, 1, 1], 0, vec![ty]);
    let region = ctx.create_region();
    ctx.append_block(region, entry);
    let mut b = Builder::new(ctx);
    let func = launch
        .write(b.op("gpu.func"))
        .region(region)
        .attr("gpu.kernel", Attribute::unit())
        .attr("sym_name", Attribute::string(name))
        .attr("workgroup_attributions", Attribute::i64(0))
        .build();
    LoweredKernel {
        name: name.to_string(),
        func,
        launch,
        shared_bytes: 0,
        staged: Vec::new(),
        vectorized: Vec::new(),
        rsplit: 1,
        prefetched: false,
    }
}
