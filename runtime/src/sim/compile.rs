//! Compiles one `gpu.func` into a flat instruction list over numbered registers, so the
//! simulator's inner loop is a `match` on small instructions with no IR look-ups. Structured
//! control flow (`scf.for`, `scf.if`) becomes jumps; memrefs become static descriptors.

use std::collections::HashMap;

use rtile::diagnostics::Diagnostic;
use rtile::ir::types::Type;
use rtile::ir::{AttrKind, BlockId, Context, OpId, TypeKind, Value};
use rtile_dialects::gpu::common::memory_space;
use rtile_dialects::gpu::{function_type, workgroup_attributions};

use rtile_gpu_vocab::nvgpu_sm90::TensorMapType;
use rtile_gpu_vocab::{AddressSpace, GpuOp as G, MathFn};

use super::ops::{Num, OpFn, scalar_fn};

mod bytes;
mod nvgpu;
mod sm90;
mod spin;
mod vector;

pub use nvgpu::{AsyncCopyInst, WarpInst};
pub use sm90::{MAX_TMA_RANK, MapInfo, MbarRef, Sm90Inst, TmaInst, WgmmaInst};
pub use spin::WaitPair;

/// Which memory a buffer lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Kernel arguments (device memory), shared by every block.
    Global,
    /// Workgroup attributions: one copy per block.
    Shared,
    /// A `memref.view` of the block's dynamic shared memory (`gpu.dynamic_shared_memory`):
    /// byte-addressed storage of `Launch::dynamic_shared_memory` bytes per block, which every
    /// view of it aliases.
    DynShared,
    /// Private attributions and `memref.alloca`: one copy per thread.
    Private,
}

/// A memref as the kernel sees it: static, row-major, dense.
#[derive(Clone, Debug)]
pub struct MemDesc {
    pub space: Space,
    /// Index among the buffers of its space.
    pub buf: usize,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub elem: Num,
    /// The type's text, for messages.
    pub ty: String,
    /// [`Space::DynShared`]: the register holding the view's byte offset, and the bytes of
    /// one element.
    pub view: Option<(u32, u32)>,
}

impl MemDesc {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product::<i64>().max(0) as usize
    }
    /// True when the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One instruction. `at` indexes [`Kernel::ops`] (the source op, for error locations).
#[derive(Clone, Debug)]
pub enum Inst {
    Const {
        dst: u32,
        v: f64,
    },
    Op {
        f: OpFn,
        args: [u32; 3],
        dst: u32,
        arg_ty: Num,
        res_ty: Num,
        aux: i64,
    },
    /// kind: 0 thread_id, 1 block_id, 2 block_dim, 3 grid_dim.
    Id {
        dst: u32,
        kind: u8,
        dim: u8,
    },
    Load {
        dst: u32,
        mem: u32,
        idx: Box<[u32]>,
        lanes: u32,
        at: u32,
    },
    Store {
        src: u32,
        mem: u32,
        idx: Box<[u32]>,
        lanes: u32,
        at: u32,
    },
    Barrier {
        at: u32,
    },
    /// `memref.view` of a byte buffer: `dst = base + off`, checked to lie within the buffer
    /// (`bytes` long, element-aligned): the launch's dynamic shared memory (`len` none), or
    /// an i8 workgroup attribution of `len` bytes.
    View {
        dst: u32,
        off: u32,
        bytes: u64,
        align: u32,
        base: u64,
        len: Option<u64>,
        at: u32,
    },
    Move {
        dst: u32,
        src: u32,
    },
    Jump {
        to: u32,
    },
    JumpIfZero {
        cond: u32,
        to: u32,
    },
    /// Jumps to `to` unless `iv < ub` (signed).
    ForCheck {
        iv: u32,
        ub: u32,
        to: u32,
    },
    /// `iv += step`.
    Step {
        iv: u32,
        step: u32,
    },
    Return,
    /// A warp-collective op (`nvgpu.mma.sync`, `nvgpu.ldmatrix`): each lane of the warp stops
    /// at it, then it executes once for the whole warp (`exec/warp.rs`).
    Warp {
        op: Box<WarpInst>,
        at: u32,
    },
    /// `nvgpu.device_async_copy`: starts one thread's asynchronous copy (`exec/async_copy.rs`).
    AsyncCopy {
        op: Box<AsyncCopyInst>,
        at: u32,
    },
    /// `nvgpu.device_async_create_group`: commits the thread's started copies as a group.
    AsyncCommit,
    /// A per-thread sm_90a op: an mbarrier op (a wait may block the thread), a TMA load, a
    /// warpgroup accumulator's init or store (`exec/mbarrier.rs`, `exec/tma.rs`,
    /// `exec/wgmma.rs`).
    Sm90 {
        op: Box<Sm90Inst>,
        at: u32,
    },
    /// `nvgpu.warpgroup.mma`: each thread of the warpgroup stops at it, then it executes
    /// once for all 128 (`exec/wgmma.rs`).
    Warpgroup {
        op: Box<WgmmaInst>,
        at: u32,
    },
    /// `nvgpu.device_async_wait`: lands the thread's committed groups but the `keep` newest.
    AsyncWait {
        keep: u32,
        at: u32,
    },
    /// The head of an `scf.while` iteration: the block yields to the other blocks here
    /// (`sim::concurrent`), so a spin-wait on global memory lets the block it waits for
    /// run. `wait` is the op's `rtile.wait`, for deadlock reports.
    Spin {
        at: u32,
        wait: Option<WaitPair>,
    },
    /// `memref.atomic_rmw` on global memory: `dst = old; mem[idx] = old op val` (kind
    /// `addi` or `ori`).
    Atomic {
        dst: u32,
        val: u32,
        mem: u32,
        idx: Box<[u32]>,
        or: bool,
        at: u32,
    },
}

/// A compiled kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    pub insts: Vec<Inst>,
    pub nregs: usize,
    pub mems: Vec<MemDesc>,
    /// Source ops of instructions that can fail.
    pub ops: Vec<OpId>,
    /// Types of the kernel's memref arguments (global buffers), in order: what a run takes
    /// (tensor-map parameters take none; they are bound to memref parameters).
    pub args: Vec<MemDesc>,
    /// Sizes of the shared buffers (per block), elements.
    pub shared: Vec<usize>,
    /// Sizes of the private buffers (per thread), elements.
    pub private: Vec<usize>,
    /// Per instruction: the op it was compiled from, for `--profile`'s per-op counters.
    pub origin: Vec<OpId>,
    /// Per instruction: whether executing it counts one execution of its op (the op's first
    /// instruction; for `scf.for`, the loop check, once per iteration and once at exit).
    pub counts: Vec<bool>,
    /// `rtile.persistent = {coresident = N}` on the `gpu.func` (a persistent kernel from
    /// `--lower-to-gpu`): at most `N` blocks run at once, and a block's barriers are counted
    /// (threads may wait at different `gpu.barrier` ops, as `bar.sync 0`/`s_barrier` count
    /// arrivals): the surplus threads of an rTask join its barriers from their own loop.
    pub persistent: Option<u64>,
    /// Bytes of the block's byte-addressed shared storage that precede its dynamic shared
    /// memory: the i8 workgroup attributions (each 1024-byte aligned, as the back ends place
    /// TMA and wgmma tiles), which `memref.view`s slice like dynamic shared memory.
    pub static_bytes: u64,
    /// Whether the kernel has an `scf.while` (a possible spin-wait): it runs under
    /// `sim::concurrent`, blocks interleaved.
    pub spins: bool,
    /// Lanes per warp: 32 (NVIDIA), or 64 when the kernel has `amdgpu.mfma` (an AMD CDNA
    /// wavefront; the warp-collective ops execute over all 64 lanes).
    pub wave: u32,
    /// mbarrier objects per block (every `nvgpu.mbarrier.create` group's).
    pub mbarriers: u32,
}

struct Compiler<'c> {
    ctx: &'c Context,
    k: Kernel,
    /// The most registers live at once (`k.nregs` is the bump pointer, reset after each
    /// region: values defined in a region are dead after it, so sibling regions, such as
    /// a persistent kernel's per-vEU branches, share registers).
    high: usize,
    regs: HashMap<Value, u32>,
    mems: HashMap<Value, u32>,
    /// The byte buffers `memref.view` slices: `gpu.dynamic_shared_memory` results (length
    /// none: the launch's) and i8 workgroup attributions, with their byte offset in the
    /// block's byte-addressed storage.
    dyn_bases: HashMap<Value, (u64, Option<u64>)>,
    /// The op being compiled, recorded as each emitted instruction's origin.
    cur: OpId,
    /// Whether the next emitted instruction counts one execution of `cur`.
    first: bool,
    /// Compile-time values of the sm_90a ops (`compile/sm90.rs`).
    sm90: sm90::Values,
}

/// `t` lives in workgroup (shared) memory, as the back ends read address spaces
/// (`#gpu.address_space<workgroup>` or `3`).
fn is_workgroup(t: &Type) -> bool {
    AddressSpace::of(memory_space(t)) == Some(AddressSpace::Workgroup)
}

fn err(ctx: &Context, op: OpId, m: impl AsRef<str>) -> Diagnostic {
    Diagnostic::op_error(ctx, op, m)
}

/// The registers a value takes (a vector's elements, row-major, in consecutive registers;
/// a warpgroup accumulator's fragment, one f32 each) and its element type.
fn lanes(t: &Type) -> Option<(u32, Num)> {
    match t.kind() {
        TypeKind::Vector { shape, elem, .. }
            if !shape.is_empty() && shape.iter().all(|&d| d > 0) =>
        {
            Some((shape.iter().product::<i64>() as u32, Num::of(elem)?))
        }
        _ => sm90::accumulator_regs(t)
            .map(|n| (n, Num::F32))
            .or_else(|| Num::of(t).map(|n| (1, n))),
    }
}

/// Whether `t` is a scalar or a rank-1 vector (what memory accesses move).
fn flat(t: &Type) -> bool {
    !matches!(t.kind(), TypeKind::Vector { shape, .. } if shape.len() != 1)
}

impl<'c> Compiler<'c> {
    fn fresh(&mut self, n: u32) -> u32 {
        let r = self.k.nregs as u32;
        self.k.nregs += n as usize;
        self.high = self.high.max(self.k.nregs);
        r
    }
    fn def(&mut self, v: Value, op: OpId) -> Result<u32, Diagnostic> {
        let (n, _) = lanes(self.ctx.value_type(v))
            .ok_or_else(|| err(self.ctx, op, "simulator: unsupported value type"))?;
        let r = self.fresh(n);
        self.regs.insert(v, r);
        Ok(r)
    }
    fn reg(&self, v: Value, op: OpId) -> Result<u32, Diagnostic> {
        self.regs.get(&v).copied().ok_or_else(|| {
            err(
                self.ctx,
                op,
                "simulator: operand is not a scalar defined in the kernel",
            )
        })
    }
    fn at(&mut self, op: OpId) -> u32 {
        self.k.ops.push(op);
        (self.k.ops.len() - 1) as u32
    }
    fn memref(&mut self, v: Value, space: Space, buf: usize, op: OpId) -> Result<u32, Diagnostic> {
        let t = self.ctx.value_type(v);
        let TypeKind::MemRef {
            shape,
            elem,
            layout: None,
            ..
        } = t.kind()
        else {
            return Err(err(
                self.ctx,
                op,
                "simulator: memrefs must have the identity layout",
            ));
        };
        if shape.iter().any(|&d| d < 0) {
            return Err(err(
                self.ctx,
                op,
                "simulator: memrefs must have static shapes",
            ));
        }
        let elem = Num::of(elem)
            .ok_or_else(|| err(self.ctx, op, "simulator: unsupported element type"))?;
        let mut strides = vec![1i64; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        let desc = MemDesc {
            space,
            buf,
            shape: shape.clone(),
            strides,
            elem,
            ty: rtile::printer::type_to_string(t),
            view: None,
        };
        match space {
            Space::Global => self.k.args.push(desc.clone()),
            Space::Shared => self.k.shared.push(desc.len()),
            Space::Private => self.k.private.push(desc.len()),
            Space::DynShared => {}
        }
        self.k.mems.push(desc);
        let id = (self.k.mems.len() - 1) as u32;
        self.mems.insert(v, id);
        Ok(id)
    }
    fn mem(&self, v: Value, op: OpId) -> Result<u32, Diagnostic> {
        self.mems
            .get(&v)
            .copied()
            .ok_or_else(|| err(self.ctx, op, "simulator: memref operand must be a kernel argument, an attribution, a memref.alloca or a memref.view of dynamic shared memory"))
    }
    fn emit(&mut self, i: Inst) -> u32 {
        self.k.insts.push(i);
        self.k.origin.push(self.cur);
        self.k.counts.push(self.first);
        self.first = false;
        (self.k.insts.len() - 1) as u32
    }
    fn patch(&mut self, at: u32, target: u32) {
        match &mut self.k.insts[at as usize] {
            Inst::Jump { to } | Inst::JumpIfZero { to, .. } | Inst::ForCheck { to, .. } => {
                *to = target
            }
            _ => {}
        }
    }
    fn here(&self) -> u32 {
        self.k.insts.len() as u32
    }

    /// Compiles a block's ops; returns the terminator's operands when it is an `scf.yield`.
    fn block(&mut self, b: BlockId) -> Result<Vec<Value>, Diagnostic> {
        let ctx = self.ctx;
        let mut yielded = Vec::new();
        for op in ctx.block_ops(b) {
            let g = G::decode(ctx, op)?;
            if g == G::Yield {
                yielded = ctx.operands(op).to_vec();
            } else {
                self.op(op, g)?;
            }
        }
        Ok(yielded)
    }

    fn moves(&mut self, dsts: &[u32], srcs: &[Value], op: OpId) -> Result<(), Diagnostic> {
        // Parallel copy through temporaries: a yield may permute loop-carried values.
        let mut tmps = Vec::new();
        for &s in srcs {
            let n = lanes(self.ctx.value_type(s)).map(|l| l.0).unwrap_or(1);
            let src = self.reg(s, op)?;
            let t = self.fresh(n);
            for l in 0..n {
                self.emit(Inst::Move {
                    dst: t + l,
                    src: src + l,
                });
            }
            tmps.push((t, n));
        }
        for (&d, (t, n)) in dsts.iter().zip(tmps) {
            for l in 0..n {
                self.emit(Inst::Move {
                    dst: d + l,
                    src: t + l,
                });
            }
        }
        Ok(())
    }

    /// Compiles one op, recording it as the origin of the instructions it emits.
    fn op(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let saved = (self.cur, self.first);
        self.cur = op;
        // An scf.for's execution count is its loop check's (set where it is emitted).
        self.first = g != G::For;
        let r = self.op_body(op, g);
        (self.cur, self.first) = saved;
        r
    }

    /// Compiles `op`, decoded as `g`. The match has no wildcard arm: a new [`G`] variant
    /// does not compile until the simulator executes it (or refuses it, listed below).
    fn op_body(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let results = ctx.results(op).to_vec();
        match g {
            G::Constant
                if matches!(
                    ctx.inherent_attr(op, "value").map(|x| x.kind()),
                    Some(AttrKind::DenseElements { .. })
                ) =>
            {
                self.dense_constant(op)?
            }
            G::Constant => {
                let v = match ctx.inherent_attr(op, "value").map(|x| x.kind()) {
                    Some(AttrKind::Integer { value, .. }) => *value as f64,
                    Some(AttrKind::Float { value, .. }) => value.get(),
                    Some(AttrKind::Bool(b)) => f64::from(u8::from(*b)),
                    _ => {
                        return Err(err(
                            ctx,
                            op,
                            "simulator: only scalar constants are supported",
                        ));
                    }
                };
                let [r] = results[..] else {
                    return Err(err(ctx, op, "expects one result"));
                };
                let n = Num::of(ctx.value_type(r))
                    .ok_or_else(|| err(ctx, op, "simulator: scalar constants only"))?;
                let dst = self.def(r, op)?;
                self.emit(Inst::Const { dst, v: n.round(v) });
            }
            G::ThreadId | G::BlockId | G::BlockDim | G::GridDim => {
                let kind = match g {
                    G::ThreadId => 0,
                    G::BlockId => 1,
                    G::BlockDim => 2,
                    _ => 3,
                };
                let dim = match ctx.inherent_attr(op, "dimension").map(|x| x.kind()) {
                    Some(AttrKind::Dialect { body, .. }) => match body.as_str() {
                        "<dim x>" => 0,
                        "<dim y>" => 1,
                        "<dim z>" => 2,
                        _ => return Err(err(ctx, op, "bad dimension")),
                    },
                    _ => return Err(err(ctx, op, "requires attribute 'dimension'")),
                };
                let dst = self.def(results[0], op)?;
                self.emit(Inst::Id { dst, kind, dim });
            }
            G::Barrier => {
                let at = self.at(op);
                self.emit(Inst::Barrier { at });
            }
            G::Return => {
                self.emit(Inst::Return);
            }
            G::DynamicSharedMemory => self.dynamic_shared_memory(op)?,
            G::View => self.view(op)?,
            G::CollapseShape => {
                // The same buffer under a new shape (identity layouts are contiguous, so
                // the row-major offset of an element is unchanged).
                let src = self.mem(operands[0], op)?;
                let id = self.memref(results[0], Space::DynShared, 0, op)?;
                let (s, d) = (&self.k.mems[src as usize], &self.k.mems[id as usize]);
                if s.len() != d.len() {
                    return Err(err(ctx, op, "collapse_shape changes the element count"));
                }
                let s = s.clone();
                let d = &mut self.k.mems[id as usize];
                d.space = s.space;
                d.buf = s.buf;
                d.view = s.view;
            }
            G::Alloca => {
                let n = self.k.private.len();
                self.memref(results[0], Space::Private, n, op)?;
            }
            G::Load | G::VectorLoad => {
                if results.len() != 1 || !flat(ctx.value_type(results[0])) {
                    return Err(err(ctx, op, "simulator: loads of rank-1 vectors only"));
                }
                let mem = self.mem(operands[0], op)?;
                let idx = operands[1..]
                    .iter()
                    .map(|&v| self.reg(v, op))
                    .collect::<Result<Box<[u32]>, _>>()?;
                let (n, _) =
                    lanes(ctx.value_type(results[0])).ok_or_else(|| err(ctx, op, "bad result"))?;
                let dst = self.def(results[0], op)?;
                let at = self.at(op);
                self.emit(Inst::Load {
                    dst,
                    mem,
                    idx,
                    lanes: n,
                    at,
                });
            }
            // Vectors live in consecutive registers (row-major): elements move one by one.
            G::Extract | G::Insert | G::Broadcast => self.extract_insert(op, g)?,
            G::Store | G::VectorStore => {
                if !flat(ctx.value_type(operands[0])) {
                    return Err(err(ctx, op, "simulator: stores of rank-1 vectors only"));
                }
                let src = self.reg(operands[0], op)?;
                let mem = self.mem(operands[1], op)?;
                let idx = operands[2..]
                    .iter()
                    .map(|&v| self.reg(v, op))
                    .collect::<Result<Box<[u32]>, _>>()?;
                let (n, _) =
                    lanes(ctx.value_type(operands[0])).ok_or_else(|| err(ctx, op, "bad value"))?;
                let at = self.at(op);
                self.emit(Inst::Store {
                    src,
                    mem,
                    idx,
                    lanes: n,
                    at,
                });
            }
            G::For => {
                let [lb, ub, step] =
                    [operands[0], operands[1], operands[2]].map(|v| self.reg(v, op));
                let (lb, ub, step) = (lb?, ub?, step?);
                let region = ctx.regions(op)[0];
                let body = *ctx
                    .region_blocks(region)
                    .first()
                    .ok_or_else(|| err(ctx, op, "empty body"))?;
                let args = ctx.block_args(body).to_vec();
                let iv = self.def(args[0], op)?;
                // Copy the bounds: the body must not see later changes (SSA makes them
                // immutable anyway, but the iv register is written).
                self.emit(Inst::Move { dst: iv, src: lb });
                let mut carried = Vec::new();
                for &a in &args[1..] {
                    carried.push(self.def(a, op)?);
                }
                self.moves(&carried, &operands[3..], op)?;
                self.first = true;
                let head = self.emit(Inst::ForCheck { iv, ub, to: 0 });
                let mark = self.k.nregs;
                let y = self.block(body)?;
                self.moves(&carried, &y, op)?;
                self.k.nregs = mark;
                self.emit(Inst::Step { iv, step });
                self.emit(Inst::Jump { to: head });
                let end = self.here();
                self.patch(head, end);
                for (i, &r) in results.iter().enumerate() {
                    let d = self.def(r, op)?;
                    let n = lanes(ctx.value_type(r)).map(|l| l.0).unwrap_or(1);
                    for l in 0..n {
                        self.emit(Inst::Move {
                            dst: d + l,
                            src: carried[i] + l,
                        });
                    }
                }
            }
            G::If => {
                let cond = self.reg(operands[0], op)?;
                let mut outs = Vec::new();
                for &r in &results {
                    outs.push(self.def(r, op)?);
                }
                let regions = ctx.regions(op).to_vec();
                let br = self.emit(Inst::JumpIfZero { cond, to: 0 });
                let mark = self.k.nregs;
                if let Some(&b) = ctx.region_blocks(regions[0]).first() {
                    let y = self.block(b)?;
                    self.moves(&outs, &y, op)?;
                }
                self.k.nregs = mark;
                let skip = self.emit(Inst::Jump { to: 0 });
                let else_at = self.here();
                self.patch(br, else_at);
                if let Some(b) = regions
                    .get(1)
                    .and_then(|r| ctx.region_blocks(*r).first().copied())
                {
                    let y = self.block(b)?;
                    self.moves(&outs, &y, op)?;
                }
                self.k.nregs = mark;
                let end = self.here();
                self.patch(skip, end);
            }
            G::MmaSync => self.mma_sync(op)?,
            G::LdMatrix => self.ldmatrix(op)?,
            G::AsyncCopy => self.async_copy(op)?,
            G::AsyncCreateGroup => {
                self.emit(Inst::AsyncCommit);
            }
            G::AsyncWait => self.async_wait(op)?,
            G::MbarrierCreate => self.mbar_create(op)?,
            G::MbarrierInit => self.mbar_init(op)?,
            G::MbarrierArrive => self.mbar_arrive(op, false)?,
            G::MbarrierArriveExpectTx => self.mbar_arrive(op, true)?,
            G::MbarrierTryWaitParity => self.mbar_wait(op)?,
            G::TmaAsyncLoad => self.tma_load(op)?,
            G::TmaPrefetch => self.tma_prefetch(op)?,
            G::WarpgroupDescriptor => self.wg_descriptor(op)?,
            G::WarpgroupInitAccumulator => self.wg_init(op)?,
            G::WarpgroupMma => self.wg_mma(op)?,
            G::WarpgroupMmaStore => self.wg_store(op)?,
            G::Shuffle => self.shuffle(op)?,
            G::Mfma => self.mfma(op)?,
            G::While => self.while_loop(op, &operands, &results)?,
            G::Condition => {
                return Err(err(ctx, op, "scf.condition is only valid in scf.while"));
            }
            // The simulator runs blocks sequentially consistent: a fence orders nothing more.
            G::Fence => {}
            G::AtomicRmw => {
                let kind = ctx.inherent_attr(op, "kind").and_then(|a| a.as_int());
                let or = match kind {
                    Some(rtile_gpu_vocab::ATOMIC_ADDI) => false,
                    Some(rtile_gpu_vocab::ATOMIC_ORI) => true,
                    _ => {
                        return Err(err(
                            ctx,
                            op,
                            "the simulator executes memref.atomic_rmw of kind addi or ori only",
                        ));
                    }
                };
                let val = self.reg(operands[0], op)?;
                let mem = self.mem(operands[1], op)?;
                if self.k.mems[mem as usize].space != Space::Global {
                    return Err(err(ctx, op, "simulator: atomics on global memory only"));
                }
                let idx = operands[2..]
                    .iter()
                    .map(|&v| self.reg(v, op))
                    .collect::<Result<Box<[u32]>, _>>()?;
                let dst = self.def(results[0], op)?;
                let at = self.at(op);
                self.emit(Inst::Atomic {
                    dst,
                    val,
                    mem,
                    idx,
                    or,
                    at,
                });
            }
            G::GlobalId
            | G::LaneId
            | G::Alloc
            | G::Dealloc
            | G::Cast
            | G::Dim
            | G::ExtractElement
            | G::InsertElement
            | G::Splat
            | G::VectorFma
            | G::CeilDivUI
            | G::ShLI
            | G::ShRSI
            | G::ShRUI
            | G::MaxUI
            | G::MinUI
            | G::Bitcast
            | G::Math(
                MathFn::Fma
                | MathFn::Floor
                | MathFn::Ceil
                | MathFn::Round
                | MathFn::RoundEven
                | MathFn::Trunc
                | MathFn::CopySign,
            ) => {
                return Err(err(ctx, op, "the simulator does not execute this op"));
            }
            // Its block ends at it ([`Self::block`] takes its operands).
            G::Yield => return Err(err(ctx, op, "scf.yield is only valid as a terminator")),
            G::AddF
            | G::SubF
            | G::MulF
            | G::DivF
            | G::RemF
            | G::NegF
            | G::MaximumF
            | G::MinimumF
            | G::MaxNumF
            | G::MinNumF
            | G::AddI
            | G::SubI
            | G::MulI
            | G::DivSI
            | G::DivUI
            | G::RemSI
            | G::RemUI
            | G::FloorDivSI
            | G::CeilDivSI
            | G::MaxSI
            | G::MinSI
            | G::AndI
            | G::OrI
            | G::XOrI
            | G::CmpI(_)
            | G::CmpF(_)
            | G::Select
            | G::IndexCast
            | G::IndexCastUI
            | G::ExtSI
            | G::ExtUI
            | G::TruncI
            | G::ExtF
            | G::TruncF
            | G::SIToFP
            | G::UIToFP
            | G::FPToSI
            | G::FPToUI
            | G::Math(
                MathFn::Exp
                | MathFn::Exp2
                | MathFn::Log
                | MathFn::Log2
                | MathFn::Sqrt
                | MathFn::Rsqrt
                | MathFn::Tanh
                | MathFn::Erf
                | MathFn::Sin
                | MathFn::Cos
                | MathFn::PowF
                | MathFn::AbsF
                | MathFn::AbsI,
            ) => self.scalar(op, g, &operands, &results)?,
        }
        Ok(())
    }

    /// Compiles an `arith`/`math` op on scalars into a call of its [`scalar_fn`].
    fn scalar(
        &mut self,
        op: OpId,
        g: G,
        operands: &[Value],
        results: &[Value],
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let Some(f) = scalar_fn(g) else {
            return Err(err(ctx, op, "the simulator does not execute this op"));
        };
        if operands.is_empty() || operands.len() > 3 || results.len() != 1 {
            return Err(err(
                ctx,
                op,
                "simulator: expects 1 to 3 operands and one result",
            ));
        }
        // select's operand type is its value operands'; others the first operand's.
        let ty_of = if g == G::Select {
            operands[1]
        } else {
            operands[0]
        };
        let arg_ty = Num::of(ctx.value_type(ty_of))
            .ok_or_else(|| err(ctx, op, "simulator: scalar operands only"))?;
        let res_ty = Num::of(ctx.value_type(results[0]))
            .ok_or_else(|| err(ctx, op, "simulator: scalar results only"))?;
        let mut args = [0u32; 3];
        for (i, &v) in operands.iter().enumerate() {
            args[i] = self.reg(v, op)?;
        }
        // Comparisons take their predicate number (decoded once, in [`G::decode`]).
        let aux = match g {
            G::CmpI(p) => p.value(),
            G::CmpF(p) => p.value(),
            _ => 0,
        };
        let dst = self.def(results[0], op)?;
        self.emit(Inst::Op {
            f,
            args,
            dst,
            arg_ty,
            res_ty,
            aux,
        });
        Ok(())
    }
}

/// Compiles the `gpu.func` `func`.
pub fn compile_kernel(ctx: &Context, func: OpId) -> Result<Kernel, Diagnostic> {
    if ctx.op_name(func) != "gpu.func" {
        return Err(err(ctx, func, "expected a gpu.func"));
    }
    let name = ctx
        .inherent_attr(func, "sym_name")
        .and_then(|a| a.as_str())
        .unwrap_or("")
        .to_string();
    let (inputs, _) =
        function_type(ctx, func).ok_or_else(|| err(ctx, func, "requires 'function_type'"))?;
    let nin = inputs.len();
    let wg = workgroup_attributions(ctx, func);
    let body = ctx
        .regions(func)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .ok_or_else(|| err(ctx, func, "a kernel needs a body"))?;
    let mut c = Compiler {
        ctx,
        k: Kernel {
            name,
            insts: Vec::new(),
            nregs: 0,
            mems: Vec::new(),
            ops: Vec::new(),
            args: Vec::new(),
            shared: Vec::new(),
            private: Vec::new(),
            origin: Vec::new(),
            counts: Vec::new(),
            persistent: ctx
                .attr(func, "rtile.persistent")
                .and_then(|a| a.dict_get("coresident"))
                .and_then(|a| a.as_int())
                .map(|n| n.max(1) as u64),
            spins: false,
            wave: 32,
            mbarriers: 0,
            static_bytes: 0,
        },
        high: 0,
        regs: HashMap::new(),
        mems: HashMap::new(),
        dyn_bases: HashMap::new(),
        cur: func,
        first: false,
        sm90: Default::default(),
    };
    // Tensor-map parameters take no argument buffer: they are bound to memref parameters.
    let mut maps = Vec::new();
    for (i, &a) in ctx.block_args(body).iter().enumerate() {
        let t = ctx.value_type(a);
        if i < nin {
            if matches!(t.kind(), TypeKind::MemRef { .. }) {
                let n = c.k.args.len();
                c.memref(a, Space::Global, n, func)?;
            } else if let Some(map) = TensorMapType::of(t) {
                maps.push((a, map.map_err(|e| err(ctx, func, e))?));
            } else {
                return Err(err(
                    ctx,
                    func,
                    "simulator: kernel arguments must be memrefs or tensor maps",
                ));
            }
        } else if i < nin + wg {
            if !is_workgroup(t) {
                return Err(err(
                    ctx,
                    func,
                    "workgroup attribution without workgroup memory space",
                ));
            }
            if bytes::is_byte_buffer(t) {
                c.byte_attribution(a, func)?;
            } else {
                let n = c.k.shared.len();
                c.memref(a, Space::Shared, n, func)?;
            }
        } else {
            let n = c.k.private.len();
            c.memref(a, Space::Private, n, func)?;
        }
    }
    let params: Vec<Value> = ctx.block_args(body)[..nin].to_vec();
    c.bind_tensor_maps(func, &params, &maps)?;
    c.block(body)?;
    c.emit(Inst::Return);
    c.check_wave_mix()?;
    c.check_sm90_spins()?;
    c.k.nregs = c.high.max(c.k.nregs);
    Ok(c.k)
}
