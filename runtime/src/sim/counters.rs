//! Profile counters of the simulator (`rtile-run --sim --profile`): the CPU analogue of the
//! Nsight Compute metrics that Roller's alignment rules are about, counted per warp-level
//! instruction as the hardware counts them. A warp is 32 consecutive threads of a block
//! (linear thread id, x fastest); the k-th execution of an instruction by each lane of a warp
//! within one phase (between two barriers) is one warp-level instruction, its executing lanes
//! the active ones. Global accesses count requests and 32-byte sectors; shared accesses count
//! wavefronts over 32 banks of 4 bytes (64-bit accesses per half-warp, 128-bit per
//! quarter-warp). Formulas and metric names: `docs/simulator.md`.

use std::collections::HashSet;

use super::compile::{Kernel, MemDesc, Space};
use super::profile::OpClass;

/// Counters of one instruction, summed over the warps and blocks that ran it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InstCounters {
    /// Warp-level executions (`smsp__inst_executed`).
    pub warp: u64,
    /// Thread-level executions (`smsp__thread_inst_executed`).
    pub thread: u64,
    /// Global/shared memory requests: one per warp-level access instruction (per 16 bytes a
    /// lane accesses, for accesses wider than 128 bits).
    pub requests: u64,
    /// Distinct 32-byte sectors of global memory a request touches.
    pub sectors: u64,
    /// The fewest sectors the bytes used could occupy: ⌈distinct bytes / 32⌉ per request.
    pub ideal_sectors: u64,
    /// Distinct bytes the active lanes access (global and shared).
    pub bytes: u64,
    /// Shared-memory wavefronts: per lane group, the most distinct 4-byte words in one bank.
    pub wavefronts: u64,
    /// Wavefronts with no conflict: one per lane group with an active lane.
    pub ideal_wavefronts: u64,
    /// Bytes TMA loads wrote into shared memory (whole boxes, zero fill included).
    pub tma_bytes: u64,
    /// Bytes TMA loads read from the tensor (the boxes' in-bounds elements).
    pub tma_global_bytes: u64,
    /// `wgmma.mma_async` instructions the warpgroup MMAs stand for (per warpgroup: one per
    /// 64 rows of M and 16 of K, as upstream's lowering emits them).
    pub wgmma: u64,
}

impl InstCounters {
    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &InstCounters) {
        self.warp += o.warp;
        self.thread += o.thread;
        self.requests += o.requests;
        self.sectors += o.sectors;
        self.ideal_sectors += o.ideal_sectors;
        self.bytes += o.bytes;
        self.wavefronts += o.wavefronts;
        self.ideal_wavefronts += o.ideal_wavefronts;
        self.tma_bytes += o.tma_bytes;
        self.tma_global_bytes += o.tma_global_bytes;
        self.wgmma += o.wgmma;
    }
    /// Bank conflicts: wavefronts beyond the ideal (`l1tex__data_bank_conflicts_...`).
    pub fn bank_conflicts(&self) -> u64 {
        self.wavefronts - self.ideal_wavefronts
    }
}

/// The distinct 32-byte global sectors a kernel run read and wrote: its DRAM traffic when
/// the L2 cache holds the kernel's whole footprint (each sector read from DRAM once, each
/// written sector written back once), where the per-request `sectors` count every re-read.
/// Atomics count as writes. TMA boxes are not included (their bytes are `tma_global_bytes`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UniqueSectors {
    pub read: HashSet<u64>,
    pub written: HashSet<u64>,
}

impl UniqueSectors {
    /// Adds the sectors of `o` into `self`.
    fn merge(&mut self, o: UniqueSectors) {
        let (mut r, mut w) = (o.read, o.written);
        if r.len() > self.read.len() {
            std::mem::swap(&mut r, &mut self.read);
        }
        if w.len() > self.written.len() {
            std::mem::swap(&mut w, &mut self.written);
        }
        self.read.extend(r);
        self.written.extend(w);
    }
}

/// Raw counters of a kernel run: one entry per instruction of the kernel, and the distinct
/// global sectors of the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawProfile {
    pub insts: Vec<InstCounters>,
    pub unique: UniqueSectors,
}

impl RawProfile {
    pub(crate) fn new(n: usize) -> Self {
        RawProfile {
            insts: vec![InstCounters::default(); n],
            unique: UniqueSectors::default(),
        }
    }
    /// Adds `o` (a profile of the same kernel) into `self`.
    pub fn merge(mut self, o: RawProfile) -> RawProfile {
        for (a, b) in self.insts.iter_mut().zip(&o.insts) {
            a.add(b);
        }
        self.unique.merge(o.unique);
        self
    }
}

/// One memory access of one thread, kept until its warp is complete.
#[derive(Clone, Copy)]
struct Access {
    pc: u32,
    /// Which execution of `pc` by this thread in the phase (1-based).
    occ: u32,
    /// Which of the instruction's accesses (an op that makes several, one warp-level
    /// request each: `nvgpu.warpgroup.mma.store`'s scalar stores).
    part: u32,
    lane: u32,
    global: bool,
    /// Byte address; global buffers are apart (bits 48 and up hold the buffer), as separate
    /// allocations are on a GPU (cudaMalloc aligns them to 256 bytes).
    addr: u64,
    bytes: u32,
}

/// Per-block profiling state: per-thread execution counts of the current phase, the
/// current warp's per-instruction maxima and its accesses, and the block's counters.
pub(crate) struct BlockProfile {
    occ: Vec<u32>,
    touched: Vec<u32>,
    warp_max: Vec<u32>,
    warp_touched: Vec<u32>,
    accesses: Vec<Access>,
    /// Per instruction: whether its global accesses write (stores, atomics).
    writes: Vec<bool>,
    /// Lanes of the kernel's warps (32, or an AMD kernel's 64-lane wavefronts).
    wave: u32,
    pub(crate) raw: RawProfile,
}

/// Threads per warp.
pub const WARP: u32 = 32;

impl BlockProfile {
    pub(crate) fn new(k: &Kernel) -> Self {
        let n = k.insts.len();
        BlockProfile {
            occ: vec![0; n],
            touched: Vec::new(),
            warp_max: vec![0; n],
            warp_touched: Vec::new(),
            accesses: Vec::new(),
            writes: k
                .insts
                .iter()
                .map(|i| OpClass::of(k, i) == OpClass::GlobalSt)
                .collect(),
            wave: k.wave,
            raw: RawProfile::new(n),
        }
    }

    /// The current thread executes instruction `pc`.
    #[inline]
    pub(crate) fn exec(&mut self, pc: u32) {
        let c = &mut self.occ[pc as usize];
        if *c == 0 {
            self.touched.push(pc);
        }
        *c += 1;
    }

    /// The current thread `tid` accesses `lanes` elements at element offset `off` of `m`
    /// (byte `dyn_byte` for dynamic shared memory) at instruction `pc` (already counted by
    /// `exec`). Private memory is not counted (it is registers after ptxas).
    pub(crate) fn access(
        &mut self,
        pc: u32,
        tid: u32,
        m: &MemDesc,
        (off, lanes): (usize, u32),
        dyn_byte: usize,
    ) {
        self.access_part(pc, tid, m, (off, lanes), 0, dyn_byte);
    }

    /// [`Self::access`] as access `part` of the instruction (each part is its own
    /// warp-level request).
    pub(crate) fn access_part(
        &mut self,
        pc: u32,
        tid: u32,
        m: &MemDesc,
        (off, lanes): (usize, u32),
        part: u32,
        dyn_byte: usize,
    ) {
        let eb = u64::from(m.elem.bytes());
        let (global, addr) = match m.space {
            Space::Global => (true, ((m.buf as u64) << 48) + off as u64 * eb),
            Space::Shared => (false, off as u64 * eb),
            Space::DynShared => (false, dyn_byte as u64),
            Space::Private => return,
        };
        self.accesses.push(Access {
            pc,
            occ: self.occ[pc as usize],
            part,
            lane: tid % self.wave,
            global,
            addr,
            bytes: (u64::from(lanes) * eb) as u32,
        });
    }

    /// A copy (`cp.async`) read `bytes` of global memory `m` from element `off`: only the
    /// distinct sectors are kept (the copy's requests are not modelled).
    pub(crate) fn global_read(&mut self, m: &MemDesc, off: usize, bytes: u64) {
        if m.space != Space::Global || bytes == 0 {
            return;
        }
        let addr = ((m.buf as u64) << 48) + off as u64 * u64::from(m.elem.bytes());
        self.raw
            .unique
            .read
            .extend(addr / 32..=(addr + bytes - 1) / 32);
    }

    /// A TMA load at `pc` wrote `bytes` into shared memory, `read` of them from the tensor.
    pub(crate) fn tma(&mut self, pc: u32, bytes: u64, read: u64) {
        let c = &mut self.raw.insts[pc as usize];
        c.tma_bytes += bytes;
        c.tma_global_bytes += read;
    }

    /// A warpgroup MMA at `pc` executed, standing for `insts` `wgmma.mma_async`s.
    pub(crate) fn wgmma(&mut self, pc: u32, insts: u64) {
        self.raw.insts[pc as usize].wgmma += insts;
    }

    /// The current thread stopped (at a barrier or its end): fold its counts into the warp's.
    pub(crate) fn end_thread(&mut self) {
        for pc in self.touched.drain(..) {
            let p = pc as usize;
            let c = std::mem::take(&mut self.occ[p]);
            self.raw.insts[p].thread += u64::from(c);
            if self.warp_max[p] == 0 {
                self.warp_touched.push(pc);
            }
            self.warp_max[p] = self.warp_max[p].max(c);
        }
    }

    /// The last thread of a warp stopped: count the warp's instructions and accesses.
    pub(crate) fn end_warp(&mut self) {
        for pc in self.warp_touched.drain(..) {
            let p = pc as usize;
            self.raw.insts[p].warp += u64::from(std::mem::take(&mut self.warp_max[p]));
        }
        let mut acc = std::mem::take(&mut self.accesses);
        acc.sort_unstable_by_key(|a| (a.pc, a.occ, a.part, a.lane));
        for group in acc.chunk_by(|a, b| a.pc == b.pc && a.occ == b.occ && a.part == b.part) {
            let c = &mut self.raw.insts[group[0].pc as usize];
            if group[0].global {
                let sectors = global_request(group, c);
                let unique = &mut self.raw.unique;
                let set = if self.writes[group[0].pc as usize] {
                    &mut unique.written
                } else {
                    &mut unique.read
                };
                set.extend(sectors);
            } else {
                shared_request(group, c, self.wave);
            }
        }
        acc.clear();
        self.accesses = acc;
    }
}

/// Distinct bytes covered by the byte ranges `[a, a + n)`.
fn distinct_bytes(mut ranges: Vec<(u64, u64)>) -> u64 {
    ranges.sort_unstable();
    let (mut total, mut end) = (0u64, 0u64);
    for (a, b) in ranges {
        let a = a.max(end);
        if b > a {
            total += b - a;
            end = b;
        }
    }
    total
}

/// One warp-level global access: requests, sectors touched and the ideal sector count;
/// returns the sectors.
fn global_request(group: &[Access], c: &mut InstCounters) -> Vec<u64> {
    let widest = group.iter().map(|a| a.bytes).max().unwrap_or(0);
    c.requests += u64::from(widest.div_ceil(16).max(1));
    let mut sectors: Vec<u64> = Vec::new();
    for a in group {
        let last = a.addr + u64::from(a.bytes.max(1)) - 1;
        sectors.extend(a.addr / 32..=last / 32);
    }
    sectors.sort_unstable();
    sectors.dedup();
    let bytes = distinct_bytes(
        group
            .iter()
            .map(|a| (a.addr, a.addr + u64::from(a.bytes)))
            .collect(),
    );
    c.sectors += sectors.len() as u64;
    c.bytes += bytes;
    c.ideal_sectors += bytes.div_ceil(32);
    sectors
}

/// One warp-level shared access: the lanes are processed in groups (32 lanes for accesses
/// of up to 32 bits, 16 for 64-bit, 8 for 128-bit: each group moves at most 128 bytes, one
/// per bank; a `wave` of 64 lanes, an AMD wavefront, has twice as many groups, as CDNA's
/// LDS also moves 128 bytes a clock); a group needs as many wavefronts as the most
/// distinct 4-byte words any one bank holds among its accesses (lanes reading the same word
/// share it: broadcast). Wider accesses are split into 16-byte parts, each processed so.
fn shared_request(group: &[Access], c: &mut InstCounters, wave: u32) {
    let widest = group.iter().map(|a| a.bytes).max().unwrap_or(0).max(1);
    let part = widest.min(16);
    let parts = widest.div_ceil(16);
    let lanes_per_group = WARP / part.next_power_of_two().clamp(4, 16).div_ceil(4);
    c.requests += u64::from(parts);
    c.bytes += distinct_bytes(
        group
            .iter()
            .map(|a| (a.addr, a.addr + u64::from(a.bytes)))
            .collect(),
    );
    for p in 0..parts {
        for g in 0..wave / lanes_per_group {
            let mut words: Vec<u64> = Vec::new();
            for a in group.iter().filter(|a| a.lane / lanes_per_group == g) {
                let lo = a.addr + u64::from(p * 16);
                let hi = (a.addr + u64::from(a.bytes)).min(lo + 16);
                if hi > lo {
                    words.extend(lo / 4..=(hi - 1) / 4);
                }
            }
            if words.is_empty() {
                continue;
            }
            words.sort_unstable();
            words.dedup();
            let mut per_bank = [0u64; 32];
            for w in &words {
                per_bank[(w % 32) as usize] += 1;
            }
            c.wavefronts += per_bank.iter().copied().max().unwrap_or(0);
            c.ideal_wavefronts += 1;
        }
    }
}
