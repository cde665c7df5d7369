//! Executes a compiled kernel with GPU semantics: every block of the grid (in parallel with
//! rayon, each block on one worker), and within a block every thread in lock-step phases
//! between barriers — each thread runs until it reaches a `gpu.barrier` or returns, then the
//! next; a phase ends when all threads wait at the same barrier. Shared memory is checked
//! per phase for data races and uninitialised reads; every access is bounds-checked.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;

use super::compile::{Inst, Kernel, MemDesc, Space};
use super::counters::{BlockProfile, RawProfile, WARP};

mod async_copy;
mod cells;
mod mbarrier;
mod mfma;
mod sched;
mod tma;
mod warp;
mod wgmma;

pub use rtile_gpu_vocab::Launch;

/// The grid and block sizes of a launch whose both are known (checked when it starts).
#[derive(Clone, Copy)]
pub(super) struct Dims {
    pub(super) grid: [u32; 3],
    pub(super) block: [u32; 3],
    pub(super) dynamic_shared_memory: u64,
}

/// What went wrong, where: the kernel op (index into [`Kernel::ops`]), block and thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    pub kind: SimErrorKind,
    pub message: String,
    /// Index into [`Kernel::ops`] of the failing op.
    pub at: Option<u32>,
    pub block: [u32; 3],
    pub thread: [u32; 3],
}

/// The classes of errors the simulator detects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimErrorKind {
    OutOfBounds,
    UninitializedRead,
    DataRace,
    BarrierDivergence,
    /// A warp-collective op (`nvgpu.mma.sync`, `nvgpu.ldmatrix`) not reached by every lane
    /// of a full warp together.
    WarpDivergence,
    /// A read or write of a `cp.async` destination before the `nvgpu.device_async_wait`
    /// that completes the copy.
    AsyncCopyPending,
    /// A read or write of bytes a TMA load (`nvgpu.tma.async.load`) writes, by a thread
    /// that has not waited for the mbarrier phase the load completes; a TMA load into
    /// bytes an earlier one still in flight writes; or a TMA load into bytes a warpgroup
    /// MMA read that was not released to the issuing thread.
    TmaPending,
    /// A misuse of an mbarrier: use before `nvgpu.mbarrier.init`, re-initialisation, more
    /// arrivals than the count, counts outside the PTX ranges.
    Mbarrier,
    InvalidLaunch,
    /// Every live block of a persistent kernel waits on global memory no block will change
    /// (`sim::concurrent`), or a thread waits for an mbarrier phase that never completes.
    Deadlock,
    Other,
}

pub(super) const NONE: u32 = u32::MAX;
const MANY: u32 = u32::MAX - 1;

/// Race and initialisation state of one shared buffer of one block.
struct ShMeta {
    init: Vec<bool>,
    w_phase: Vec<u32>,
    writer: Vec<u32>,
    r_phase: Vec<u32>,
    reader: Vec<u32>,
}

impl ShMeta {
    fn new(n: usize) -> Self {
        ShMeta {
            init: vec![false; n],
            w_phase: vec![NONE; n],
            writer: vec![NONE; n],
            r_phase: vec![NONE; n],
            reader: vec![NONE; n],
        }
    }
}

pub(super) struct BlockState<'a> {
    pub(super) k: &'a Kernel,
    /// Per kernel argument, its global memory (arguments that view the same bytes share it,
    /// [`run_aliased`]).
    globals: &'a [&'a [AtomicU64]],
    /// Global stores and atomics that changed a value (`sim::concurrent`'s progress test).
    pub(super) global_writes: u64,
    shared: Vec<Vec<f64>>,
    /// One per shared buffer, then one per byte of dynamic shared memory (index `dyn_meta`).
    meta: Vec<ShMeta>,
    /// The block's dynamic shared memory, bytes.
    dyn_mem: Vec<u8>,
    dyn_meta: usize,
    /// Per private buffer: threads × len values and init flags.
    private: Vec<(Vec<f64>, Vec<bool>)>,
    pub(super) regs: Vec<f64>,
    pub(super) nregs: usize,
    pub(super) phase: u32,
    pub(super) block: [u32; 3],
    launch: Dims,
    /// The first read of uninitialised shared memory in this phase: reported when the
    /// phase ends without a race (threads run one after another, so a read that a later
    /// thread's write would have raced with is a race, not an uninitialised read).
    pub(super) pending: Option<SimError>,
    /// Profile counters, when profiling (`None` keeps the hot loop to one branch).
    prof: Option<Box<BlockProfile>>,
    /// The threads' `cp.async` copies in flight.
    asyncs: async_copy::AsyncState,
    /// The block's mbarrier objects.
    mbar: mbarrier::MbarState,
    /// The shared-memory cells TMA loads wrote.
    tma: tma::TmaMarks,
}

pub(super) enum Stop {
    Barrier(u32),
    Done,
    /// At a warp-collective instruction.
    Warp(u32),
    /// At an `scf.while` head ([`Inst::Spin`]): resume at the pc.
    Spin(u32),
    /// At a warpgroup-collective instruction (`nvgpu.warpgroup.mma`).
    Warpgroup(u32),
    /// Blocked in an `nvgpu.mbarrier.try_wait.parity` whose phase has not completed.
    MbarWait(u32),
}

fn unflatten(t: u32, dims: [u32; 3]) -> [u32; 3] {
    [
        t % dims[0],
        (t / dims[0]) % dims[1],
        t / (dims[0] * dims[1]),
    ]
}

impl BlockState<'_> {
    pub(super) fn error(
        &self,
        kind: SimErrorKind,
        at: Option<u32>,
        tid: u32,
        message: String,
    ) -> SimError {
        SimError {
            kind,
            message,
            at,
            block: self.block,
            thread: unflatten(tid, self.launch.block),
        }
    }

    /// Linear offset of an access, bounds-checked (all `lanes` elements along the last dim).
    fn offset(
        &self,
        m: &MemDesc,
        idx: &[u32],
        lanes: u32,
        regs: &[f64],
        (at, tid, what): (u32, u32, &str),
    ) -> Result<usize, SimError> {
        let mut off = 0i64;
        let mut bad = false;
        for (d, &r) in idx.iter().enumerate() {
            let i = regs[r as usize] as i64;
            let hi = if d + 1 == idx.len() {
                i + lanes as i64
            } else {
                i + 1
            };
            if i < 0 || hi > m.shape[d] {
                bad = true;
            }
            off += i * m.strides[d];
        }
        if bad || (idx.is_empty() && lanes > 1) {
            let shown: Vec<String> = idx
                .iter()
                .map(|&r| (regs[r as usize] as i64).to_string())
                .collect();
            let w = if lanes > 1 {
                format!(" ({lanes} elements)")
            } else {
                String::new()
            };
            return Err(self.error(
                SimErrorKind::OutOfBounds,
                Some(at),
                tid,
                format!(
                    "out-of-bounds {what} of {} at [{}]{w}",
                    m.ty,
                    shown.join(", ")
                ),
            ));
        }
        Ok(off as usize)
    }

    fn index_text(m: &MemDesc, off: usize) -> String {
        let mut rest = off as i64;
        let v: Vec<String> = m
            .strides
            .iter()
            .map(|&s| {
                let i = rest / s.max(1);
                rest %= s.max(1);
                i.to_string()
            })
            .collect();
        v.join(", ")
    }

    /// Race and initialisation bookkeeping of a read of cell `off` of `meta[buf]` (an element
    /// of a shared buffer, or a byte of dynamic shared memory); `shown` is the element's
    /// offset in `m`, for messages.
    fn check_read(
        &mut self,
        buf: usize,
        off: usize,
        (tid, at): (u32, u32),
        m: &MemDesc,
        shown: usize,
    ) -> Result<(), SimError> {
        self.check_async(buf, off, (tid, at), m, shown)?;
        self.check_tma(buf, off, (tid, at), m, shown)?;
        let ph = self.phase;
        if !self.meta[buf].init[off] && self.pending.is_none() {
            let msg = format!(
                "read of uninitialised shared memory {} at [{}]",
                m.ty,
                Self::index_text(m, shown)
            );
            self.pending = Some(self.error(SimErrorKind::UninitializedRead, Some(at), tid, msg));
        }
        let meta = &mut self.meta[buf];
        if meta.w_phase[off] == ph && meta.writer[off] != tid {
            let w = meta.writer[off];
            let msg = format!(
                "shared-memory data race on {} at [{}]: thread {:?} reads what thread {:?} wrote with no barrier between",
                m.ty,
                Self::index_text(m, shown),
                unflatten(tid, self.launch.block),
                unflatten(w, self.launch.block)
            );
            return Err(self.error(SimErrorKind::DataRace, Some(at), tid, msg));
        }
        if meta.r_phase[off] != ph {
            meta.r_phase[off] = ph;
            meta.reader[off] = tid;
        } else if meta.reader[off] != tid {
            meta.reader[off] = MANY;
        }
        Ok(())
    }

    /// Race bookkeeping of a write of cell `off` of `meta[buf]` (see [`Self::check_read`]).
    fn check_write(
        &mut self,
        buf: usize,
        off: usize,
        (tid, at): (u32, u32),
        m: &MemDesc,
        shown: usize,
    ) -> Result<(), SimError> {
        self.check_async(buf, off, (tid, at), m, shown)?;
        self.check_tma(buf, off, (tid, at), m, shown)?;
        let meta = &mut self.meta[buf];
        let ph = self.phase;
        let other = if meta.w_phase[off] == ph && meta.writer[off] != tid {
            Some(("wrote", meta.writer[off]))
        } else if meta.r_phase[off] == ph && meta.reader[off] != tid {
            Some(("read", meta.reader[off]))
        } else {
            None
        };
        if let Some((how, o)) = other {
            let who = if o == MANY {
                "other threads".to_string()
            } else {
                format!("thread {:?}", unflatten(o, self.launch.block))
            };
            let msg = format!(
                "shared-memory data race on {} at [{}]: thread {:?} writes where {who} {how} with no barrier between",
                m.ty,
                Self::index_text(m, shown),
                unflatten(tid, self.launch.block)
            );
            return Err(self.error(SimErrorKind::DataRace, Some(at), tid, msg));
        }
        meta.w_phase[off] = ph;
        meta.writer[off] = tid;
        meta.init[off] = true;
        Ok(())
    }

    fn shared_read(
        &mut self,
        buf: usize,
        off: usize,
        tid: u32,
        at: u32,
        m: &MemDesc,
    ) -> Result<f64, SimError> {
        self.check_read(buf, off, (tid, at), m, off)?;
        Ok(self.shared[buf][off])
    }

    fn shared_write(
        &mut self,
        buf: usize,
        off: usize,
        v: f64,
        tid: u32,
        at: u32,
        m: &MemDesc,
    ) -> Result<(), SimError> {
        self.check_write(buf, off, (tid, at), m, off)?;
        self.shared[buf][off] = v;
        Ok(())
    }

    /// Reads element `off` of view `m` at byte `byte` of dynamic shared memory: every byte is
    /// checked, so views of the same bytes (whatever their types) race and initialise together.
    fn dyn_read(
        &mut self,
        byte: usize,
        off: usize,
        tid: u32,
        at: u32,
        m: &MemDesc,
    ) -> Result<f64, SimError> {
        let n = m.elem.bytes() as usize;
        for b in byte..byte + n {
            self.check_read(self.dyn_meta, b, (tid, at), m, off)?;
        }
        Ok(m.elem.decode(&self.dyn_mem[byte..byte + n]))
    }

    /// Writes element `off` of view `m` at byte `byte` of dynamic shared memory.
    fn dyn_write(
        &mut self,
        byte: usize,
        off: usize,
        v: f64,
        tid: u32,
        at: u32,
        m: &MemDesc,
    ) -> Result<(), SimError> {
        let n = m.elem.bytes() as usize;
        for b in byte..byte + n {
            self.check_write(self.dyn_meta, b, (tid, at), m, off)?;
        }
        self.dyn_mem[byte..byte + n].copy_from_slice(&m.elem.encode(v)[..n]);
        Ok(())
    }

    /// Stores `v` (rounded to the element type) as element `off` of `m` by thread `tid`
    /// (registers `r`, for a view's base), with the checks of its space.
    pub(super) fn store_elem(
        &mut self,
        m: &MemDesc,
        off: usize,
        v: f64,
        (tid, at): (u32, u32),
        r: &[f64],
    ) -> Result<(), SimError> {
        let v = m.elem.round(v);
        match m.space {
            Space::Global => {
                if let Some(g) = self.globals[m.buf].get(off) {
                    g.store(v.to_bits(), Ordering::Relaxed);
                    self.global_writes += 1;
                }
            }
            Space::Shared => self.shared_write(m.buf, off, v, tid, at, m)?,
            Space::DynShared => {
                let byte = dyn_byte(m, r, off);
                self.dyn_write(byte, off, v, tid, at, m)?
            }
            Space::Private => {
                let p = tid as usize * m.len() + off;
                let (vals, init) = &mut self.private[m.buf];
                vals[p] = v;
                init[p] = true;
            }
        }
        Ok(())
    }

    /// Records a memory access for the profile counters, when profiling.
    pub(super) fn profile_access(
        &mut self,
        pc: u32,
        tid: u32,
        m: &MemDesc,
        at: (usize, u32),
        r: &[f64],
    ) {
        if let Some(p) = self.prof.as_deref_mut() {
            let byte = if m.space == Space::DynShared {
                dyn_byte(m, r, at.0)
            } else {
                0
            };
            p.access(pc, tid, m, at, byte);
        }
    }

    /// Runs thread `tid` from `pc` until a barrier or the end.
    pub(super) fn run_thread(&mut self, tid: u32, mut pc: u32) -> Result<Stop, SimError> {
        let k = self.k;
        let base = tid as usize * self.nregs;
        let tidx = unflatten(tid, self.launch.block);
        let mut regs = std::mem::take(&mut self.regs);
        let result = (|| -> Result<Stop, SimError> {
            let r = &mut regs[base..base + self.nregs];
            loop {
                if let Some(p) = self.prof.as_deref_mut() {
                    p.exec(pc);
                }
                match &k.insts[pc as usize] {
                    Inst::Const { dst, v } => r[*dst as usize] = *v,
                    Inst::Op {
                        f,
                        args,
                        dst,
                        arg_ty,
                        res_ty,
                        aux,
                    } => {
                        let a = [
                            r[args[0] as usize],
                            r[args[1] as usize],
                            r[args[2] as usize],
                        ];
                        r[*dst as usize] = res_ty.round(f(&a, *arg_ty, *aux));
                    }
                    Inst::Id { dst, kind, dim } => {
                        let d = *dim as usize;
                        r[*dst as usize] = f64::from(match kind {
                            0 => tidx[d],
                            1 => self.block[d],
                            2 => self.launch.block[d],
                            _ => self.launch.grid[d],
                        });
                    }
                    Inst::Move { dst, src } => r[*dst as usize] = r[*src as usize],
                    Inst::Jump { to } => {
                        pc = *to;
                        continue;
                    }
                    Inst::JumpIfZero { cond, to } => {
                        if r[*cond as usize] == 0.0 {
                            pc = *to;
                            continue;
                        }
                    }
                    Inst::ForCheck { iv, ub, to } => {
                        if r[*iv as usize] >= r[*ub as usize] {
                            pc = *to;
                            continue;
                        }
                    }
                    Inst::Step { iv, step } => {
                        let s = r[*step as usize];
                        if s <= 0.0 {
                            return Err(self.error(
                                SimErrorKind::Other,
                                None,
                                tid,
                                "scf.for step must be positive".into(),
                            ));
                        }
                        r[*iv as usize] += s;
                    }
                    Inst::Load {
                        dst,
                        mem,
                        idx,
                        lanes,
                        at,
                    } => {
                        let m = &k.mems[*mem as usize];
                        let off = self.offset(m, idx, *lanes, r, (*at, tid, "load"))?;
                        self.profile_access(pc, tid, m, (off, *lanes), r);
                        for l in 0..*lanes as usize {
                            let v = match m.space {
                                // Virtual global memory (no buffer) reads 0.
                                Space::Global => self.globals[m.buf]
                                    .get(off + l)
                                    .map_or(0.0, |g| f64::from_bits(g.load(Ordering::Relaxed))),
                                Space::Shared => self.shared_read(m.buf, off + l, tid, *at, m)?,
                                Space::DynShared => {
                                    let byte = dyn_byte(m, r, off + l);
                                    self.dyn_read(byte, off + l, tid, *at, m)?
                                }
                                Space::Private => {
                                    let (vals, init) = &self.private[m.buf];
                                    let p = tid as usize * m.len() + off + l;
                                    if !init[p] {
                                        let msg = format!(
                                            "read of uninitialised private memory {} at [{}]",
                                            m.ty,
                                            Self::index_text(m, off + l)
                                        );
                                        return Err(self.error(
                                            SimErrorKind::UninitializedRead,
                                            Some(*at),
                                            tid,
                                            msg,
                                        ));
                                    }
                                    vals[p]
                                }
                            };
                            r[*dst as usize + l] = v;
                        }
                    }
                    Inst::Store {
                        src,
                        mem,
                        idx,
                        lanes,
                        at,
                    } => {
                        let m = &k.mems[*mem as usize];
                        let off = self.offset(m, idx, *lanes, r, (*at, tid, "store"))?;
                        self.profile_access(pc, tid, m, (off, *lanes), r);
                        for l in 0..*lanes as usize {
                            self.store_elem(m, off + l, r[*src as usize + l], (tid, *at), r)?;
                        }
                    }
                    Inst::Barrier { .. } => return Ok(Stop::Barrier(pc)),
                    Inst::Warp { .. } => return Ok(Stop::Warp(pc)),
                    Inst::Warpgroup { .. } => return Ok(Stop::Warpgroup(pc)),
                    Inst::Sm90 { op, at } => {
                        if !self.sm90(tid, pc, op, *at, r)? {
                            return Ok(Stop::MbarWait(pc));
                        }
                    }
                    Inst::AsyncCopy { op, at } => self.async_copy(tid, op, *at, r)?,
                    Inst::AsyncCommit => self.async_commit(tid),
                    Inst::AsyncWait { keep, at } => self.async_wait(tid, *keep, *at)?,
                    Inst::View {
                        dst,
                        off,
                        bytes,
                        align,
                        base,
                        len,
                        at,
                    } => {
                        let o = r[*off as usize];
                        let dsm = self.launch.dynamic_shared_memory;
                        let limit = len.unwrap_or(dsm);
                        let fits = o >= 0.0 && o + *bytes as f64 <= limit as f64;
                        if !fits || !(o as u64).is_multiple_of(u64::from(*align)) {
                            let why = match len {
                                _ if fits => {
                                    format!("is not aligned to its {align}-byte elements")
                                }
                                None => format!(
                                    "lies outside the launch's {dsm} bytes of dynamic shared memory"
                                ),
                                Some(n) => {
                                    format!("lies outside its {n}-byte workgroup buffer")
                                }
                            };
                            return Err(self.error(
                                SimErrorKind::OutOfBounds,
                                Some(*at),
                                tid,
                                format!("view of {bytes} bytes at byte offset {o} {why}"),
                            ));
                        }
                        r[*dst as usize] = *base as f64 + o;
                    }
                    Inst::Return => return Ok(Stop::Done),
                    Inst::Spin { .. } => return Ok(Stop::Spin(pc + 1)),
                    Inst::Atomic {
                        dst,
                        val,
                        mem,
                        idx,
                        or,
                        at,
                    } => {
                        let m = &k.mems[*mem as usize];
                        let off = self.offset(m, idx, 1, r, (*at, tid, "atomic"))?;
                        let operand = r[*val as usize];
                        let old = self.globals[m.buf].get(off).map_or(0.0, |g| {
                            let old = f64::from_bits(g.load(Ordering::SeqCst));
                            let new = if *or {
                                ((old as i64) | (operand as i64)) as f64
                            } else {
                                old + operand
                            };
                            let new = m.elem.round(new);
                            if new != old {
                                g.store(new.to_bits(), Ordering::SeqCst);
                                self.global_writes += 1;
                            }
                            old
                        });
                        r[*dst as usize] = old;
                    }
                }
                pc += 1;
            }
        })();
        self.regs = regs;
        result
    }
}

impl<'a> BlockState<'a> {
    /// The state of `block` of a launch of `k` with `threads` threads per block: zeroed
    /// shared memory (the uninitialised-read metadata says nothing is written yet), private
    /// memory and registers; a profile when `profile`.
    fn new(
        k: &'a Kernel,
        globals: &'a [&'a [AtomicU64]],
        dyn_bytes: usize,
        threads: usize,
        block: [u32; 3],
        launch: Dims,
        profile: bool,
    ) -> Self {
        let nregs = k.nregs.max(1);
        BlockState {
            k,
            globals,
            global_writes: 0,
            shared: k.shared.iter().map(|&n| vec![0.0; n]).collect(),
            meta: k
                .shared
                .iter()
                .map(|&n| ShMeta::new(n))
                .chain([ShMeta::new(dyn_bytes)])
                .collect(),
            dyn_mem: vec![0; dyn_bytes],
            dyn_meta: k.shared.len(),
            private: k
                .private
                .iter()
                .map(|&n| (vec![0.0; n * threads], vec![false; n * threads]))
                .collect(),
            regs: vec![0.0; nregs * threads],
            nregs,
            phase: 0,
            pending: None,
            block,
            launch,
            prof: profile.then(|| Box::new(BlockProfile::new(k))),
            asyncs: Default::default(),
            mbar: mbarrier::MbarState::new(k.mbarriers as usize, threads),
            tma: Default::default(),
        }
    }
}

/// Most dynamic shared memory per block the simulator accepts (far above any GPU's, so a
/// launch asking more is a mistake, refused rather than allocated per block).
pub const MAX_DYNAMIC_SHARED: u64 = 16 << 20;

/// Byte address in dynamic shared memory of element `off` of view `m` (its byte offset is in
/// register `view.0`, checked by the view's `Inst::View`).
fn dyn_byte(m: &MemDesc, r: &[f64], off: usize) -> usize {
    let (base, eb) = m.view.unwrap_or((0, 1));
    r[base as usize] as usize + off * eb as usize
}

/// Runs `k` on `args` (one buffer per kernel argument, row-major values, written in place).
pub fn run(k: &Kernel, launch: &Launch, args: &mut [Vec<f64>]) -> Result<(), SimError> {
    run_blocks(k, launch, Some(args), None, false, None).map(|_| ())
}

/// [`run`] with arguments that alias: argument `i` is backed by the memory of argument
/// `alias[i]` (itself, or an earlier argument viewing the same bytes: a reshape of a buffer
/// passed beside it, as a persistent kernel's rTasks read what others write). On return
/// every argument holds its backing memory's values.
pub fn run_aliased(
    k: &Kernel,
    launch: &Launch,
    args: &mut [Vec<f64>],
    alias: &[usize],
) -> Result<(), SimError> {
    run_blocks(k, launch, Some(args), None, false, Some(alias)).map(|_| ())
}

/// The blocks a profiled run covers: every block, or `sample` blocks spread evenly over the
/// grid (linear block `i * total / sample` for `i < sample`).
pub fn sampled_blocks(launch: &Launch, sample: Option<u64>) -> Vec<u64> {
    let total: u64 = launch
        .grid
        .unwrap_or_default()
        .iter()
        .map(|&x| x as u64)
        .product();
    match sample {
        Some(s) if s > 0 && s < total => (0..s).map(|i| i * total / s).collect(),
        _ => (0..total).collect(),
    }
}

/// Runs `k` as [`run`] does, counting the profile counters (see `sim::counters`); with
/// `sample`, only [`sampled_blocks`] run, so outputs are partial. With `args` `None`, global
/// memory is virtual (for full-size kernels whose buffers would not fit): every access is
/// bounds-checked and counted, reads give 0 and writes are dropped. Returns the counters
/// and the number of blocks run.
pub fn run_profiled(
    k: &Kernel,
    launch: &Launch,
    args: Option<&mut [Vec<f64>]>,
    sample: Option<u64>,
) -> Result<(RawProfile, u64), SimError> {
    let blocks = sampled_blocks(launch, sample);
    let n = blocks.len() as u64;
    let p = run_blocks(k, launch, args, Some(blocks), true, None)?;
    Ok((p.unwrap_or_else(|| RawProfile::new(k.insts.len())), n))
}

/// Combines two blocks' outcomes: the error of the first block (in z, y, x order) wins;
/// otherwise the profiles add up.
fn combine(
    a: Result<Option<RawProfile>, SimError>,
    b: Result<Option<RawProfile>, SimError>,
) -> Result<Option<RawProfile>, SimError> {
    let key = |e: &SimError| (e.block[2], e.block[1], e.block[0]);
    match (a, b) {
        (Err(x), Err(y)) => Err(if key(&y) < key(&x) { y } else { x }),
        (Err(x), Ok(_)) | (Ok(_), Err(x)) => Err(x),
        (Ok(Some(x)), Ok(Some(y))) => Ok(Some(x.merge(y))),
        (Ok(x), Ok(y)) => Ok(x.or(y)),
    }
}

/// Runs the blocks `only` (default: all) of `k`, with profile counters when `profile`.
fn run_blocks(
    k: &Kernel,
    launch: &Launch,
    args: Option<&mut [Vec<f64>]>,
    only: Option<Vec<u64>>,
    profile: bool,
    alias: Option<&[usize]>,
) -> Result<Option<RawProfile>, SimError> {
    let bad = |m: String| SimError {
        kind: SimErrorKind::InvalidLaunch,
        message: m,
        at: None,
        block: [0; 3],
        thread: [0; 3],
    };
    let given: &[Vec<f64>] = args.as_deref().unwrap_or_default();
    if args.is_some() && given.len() != k.args.len() {
        return Err(bad(format!(
            "kernel takes {} arguments, got {}",
            k.args.len(),
            given.len()
        )));
    }
    for (i, (a, m)) in given.iter().zip(&k.args).enumerate() {
        if a.len() != m.len() {
            return Err(bad(format!(
                "argument {i} has {} elements, {} expects {}",
                a.len(),
                m.ty,
                m.len()
            )));
        }
    }
    let (Some(grid), Some(block)) = (launch.grid, launch.block) else {
        return Err(bad("the launch needs a grid and a block size".into()));
    };
    let launch = Dims {
        grid,
        block,
        dynamic_shared_memory: launch.dynamic_shared_memory,
    };
    let launch_dsm = launch.dynamic_shared_memory;
    if launch.grid.contains(&0) || launch.block.contains(&0) {
        return Err(bad("grid and block sizes must be positive".into()));
    }
    let threads: u64 = launch.block.iter().map(|&x| x as u64).product();
    if threads > 1024 {
        return Err(bad(format!("{threads} threads per block exceed 1024")));
    }
    if launch_dsm > MAX_DYNAMIC_SHARED {
        return Err(bad(format!(
            "{launch_dsm} bytes of dynamic shared memory per block exceed the simulator's {MAX_DYNAMIC_SHARED}"
        )));
    }
    // Only kernels with byte-addressed shared memory get its storage: the i8 workgroup
    // attributions, then the launch's dynamic shared memory.
    let dyn_bytes = if k.mems.iter().any(|m| m.space == Space::DynShared) {
        (k.static_bytes.next_multiple_of(1024) + launch_dsm) as usize
    } else {
        0
    };
    let n = k.args.len();
    let backing: Vec<usize> = (0..n)
        .map(|i| {
            alias
                .and_then(|a| a.get(i).copied())
                .filter(|&j| j <= i)
                .unwrap_or(i)
        })
        .collect();
    let store: Vec<Vec<AtomicU64>> = match args.as_deref() {
        Some(a) => a
            .iter()
            .enumerate()
            .map(|(i, a)| match backing[i] == i {
                true => a.iter().map(|v| AtomicU64::new(v.to_bits())).collect(),
                false => Vec::new(),
            })
            .collect(),
        None => k.args.iter().map(|_| Vec::new()).collect(),
    };
    let globals: Vec<&[AtomicU64]> = backing.iter().map(|&j| &store[j][..]).collect();
    let nblocks: u64 = launch.grid.iter().map(|&x| x as u64).product();
    if k.spins && !profile {
        let ids = only.unwrap_or_else(|| (0..nblocks).collect());
        super::concurrent::run(k, launch, &ids, |b| {
            BlockState::new(k, &globals, dyn_bytes, threads as usize, b, launch, false)
        })?;
        write_back(args, &globals);
        return Ok(None);
    }
    let stop = AtomicBool::new(false);
    let ids = only.unwrap_or_else(|| (0..nblocks).collect());
    let result: Result<Option<RawProfile>, SimError> = ids
        .into_par_iter()
        .map(|b| {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let g = launch.grid;
            let block = [
                (b % g[0] as u64) as u32,
                ((b / g[0] as u64) % g[1] as u64) as u32,
                (b / (g[0] as u64 * g[1] as u64)) as u32,
            ];
            let mut st = BlockState::new(
                k,
                &globals,
                dyn_bytes,
                threads as usize,
                block,
                launch,
                profile,
            );
            match st.run() {
                Ok(()) => Ok(st.prof.map(|p| p.raw)),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    Err(e)
                }
            }
        })
        .reduce(|| Ok(None), combine);
    let merged = result?;

    write_back(args, &globals);
    Ok(merged)
}

/// Copies each argument's global memory back into `args`.
fn write_back(args: Option<&mut [Vec<f64>]>, globals: &[&[AtomicU64]]) {
    for (a, g) in args.into_iter().flat_map(|a| a.iter_mut()).zip(globals) {
        for (x, v) in a.iter_mut().zip(g.iter()) {
            *x = f64::from_bits(v.load(Ordering::Relaxed));
        }
    }
}
