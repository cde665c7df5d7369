//! TMA loads (`nvgpu.tma.async.load`, PTX `cp.async.bulk.tensor.{1..5}d.shared::cluster.global
//! .mbarrier::complete_tx::bytes`; PTX ISA §5.5 "Tensors": bounding box, out-of-bound
//! elements filled with zero, swizzling modes; and "cp.async.bulk.tensor"). One
//! thread issues the copy of a box of the tensor map's global tensor (rank 1 to 5): the
//! box element at row-major position `i` (origin at the coordinates, innermost first; a
//! batched operand's box is one slice of each batch axis, `[1, rows, cols]`,
//! `[1, 1, rows, cols]`, `[rows, 1, cols]`, ..) goes to byte `i · elem_bytes` from the
//! destination's base address, swizzled
//! ([`rtile_gpu_vocab::nvgpu_sm90::swizzle_byte`]); elements outside the tensor on any dimension are 0. The
//! copy performs `complete-tx(box bytes)` on its mbarrier.
//!
//! The simulator reads the source when the copy is issued and keeps the box in flight; it
//! lands (bytes written, `complete-tx` on the barrier) as late as it can: when a thread of
//! the block is blocked in an mbarrier wait and no thread can otherwise make progress
//! (`exec/sched.rs`), copies land one at a time in issue order (copies nobody waits for
//! never land). Every destination cell is marked: while the copy is in flight, and then
//! until a thread has seen the mbarrier phase the copy completed complete
//! (`exec/mbarrier.rs`), that thread's read or write of the cell is an error
//! ([`SimErrorKind::TmaPending`]): the missing or wrong `nvgpu.mbarrier.try_wait.parity` of
//! a TMA pipeline, or an `expect_tx` smaller than the bytes the reads need. A TMA into cells
//! that another TMA whose phase has not completed also writes is an error too. The copy is
//! the async proxy's write, not a thread's, so the barrier-phase race check does not apply to
//! it. A TMA into bytes a warpgroup MMA read is an error unless that read was released to
//! the issuing thread: the issuer belongs to the reading warpgroup (the MMA, synchronous
//! here, completed before its threads went on), a `gpu.barrier` since the read, or an
//! mbarrier arrival by a thread of the reading warpgroup after the read whose phase the
//! issuing thread has seen complete
//! (the consumer release and producer wait of a warp-specialised pipeline; without them
//! the copy could overwrite a stage the wgmma still reads).

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::Ordering;

use super::super::compile::{MAX_TMA_RANK as R, MemDesc, Space, TmaInst};
use super::cells::CellMap;
use super::{BlockState, SimError, SimErrorKind, dyn_byte};

/// A destination cell's last TMA: the mbarrier object and the phase it completed
/// ([`IN_FLIGHT`] until it lands), and the last warpgroup MMA that read it since.
#[derive(Clone, Copy, Debug)]
struct Mark {
    bar: usize,
    phase: u64,
    read: Option<MmaRead>,
}

/// A warpgroup MMA's read of a TMA-written cell: the warpgroup, the number of its MMA
/// (1, 2, ..) and the block's barrier phase it ran in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct MmaRead {
    group: u32,
    seq: u64,
    block_phase: u32,
}

/// An mbarrier arrival by a thread of a warpgroup after its MMA number `seq`: it releases
/// the reads of MMAs up to `seq` to whoever sees phase `phase` of barrier `bar` complete.
#[derive(Clone, Copy, Debug)]
struct Release {
    seq: u64,
    bar: usize,
    phase: u64,
}

/// The phase of a mark whose copy has not landed: no thread has seen it.
const IN_FLIGHT: u64 = u64::MAX;

/// A copy in flight: its destination memref, element values at their (swizzled) byte
/// addresses, the barrier it completes, its bytes, and the issuing thread and op.
struct Flight {
    dst: u32,
    vals: Vec<(usize, f64)>,
    bar: usize,
    bytes: i64,
    tid: u32,
    at: u32,
}

/// The cells (race-metadata buffer, cell) TMA loads write, with their marks, and the copies
/// in flight, oldest first.
#[derive(Default)]
pub(super) struct TmaMarks {
    cells: CellMap<Mark>,
    flights: VecDeque<Flight>,
    /// Per warpgroup: the MMAs it has run and its releases, oldest first.
    mmas: HashMap<u32, u64>,
    releases: HashMap<u32, Vec<Release>>,
}

/// Bytes, in the buffer `m` lives in, of the shared-memory buffer (an attribution's
/// elements, or the block's dynamic shared memory).
pub(super) fn buffer_bytes(st: &BlockState<'_>, m: &MemDesc) -> usize {
    match m.space {
        Space::Shared => st.k.shared[m.buf] * m.elem.bytes() as usize,
        _ => st.dyn_mem.len(),
    }
}

/// The byte address of `m`'s first element in its buffer (registers `r`).
pub(super) fn base_byte(m: &MemDesc, r: &[f64]) -> usize {
    match m.space {
        Space::DynShared => dyn_byte(m, r, 0),
        _ => 0,
    }
}

impl BlockState<'_> {
    /// The race-metadata cells of the element of `m` at byte `addr` of its buffer.
    pub(super) fn cells_at(&self, m: &MemDesc, addr: usize) -> (usize, std::ops::Range<usize>) {
        let eb = m.elem.bytes() as usize;
        match m.space {
            Space::DynShared => (self.dyn_meta, addr..addr + eb),
            _ => (m.buf, addr / eb..addr / eb + 1),
        }
    }

    /// The value of the element of `m` at byte `addr` of its buffer (no checks).
    pub(super) fn smem_value(&self, m: &MemDesc, addr: usize) -> f64 {
        let eb = m.elem.bytes() as usize;
        match m.space {
            Space::DynShared => m.elem.decode(&self.dyn_mem[addr..addr + eb]),
            _ => self.shared[m.buf][addr / eb],
        }
    }

    /// Errors when cell `off` of `meta[buf]` holds bytes of a TMA load whose mbarrier phase
    /// thread `tid` has not seen complete.
    pub(super) fn check_tma(
        &self,
        buf: usize,
        off: usize,
        (tid, at): (u32, u32),
        m: &MemDesc,
        shown: usize,
    ) -> Result<(), SimError> {
        if self.tma.cells.is_empty() {
            return Ok(());
        }
        let Some(mark) = self.tma.cells.get((buf, off)) else {
            return Ok(());
        };
        if mark.phase != IN_FLIGHT && self.mbar.has_seen(mark.bar, tid, mark.phase) {
            return Ok(());
        }
        let msg = format!(
            "access to {} at [{}] before this thread has waited for the TMA load that writes it: {} (a missing or wrong nvgpu.mbarrier.try_wait.parity)",
            m.ty,
            Self::index_text(m, shown),
            Self::pending_what(mark)
        );
        Err(self.error(SimErrorKind::TmaPending, Some(at), tid, msg))
    }

    /// What is pending about a mark, for messages.
    fn pending_what(mark: &Mark) -> String {
        if mark.phase == IN_FLIGHT {
            "the load is still in flight (its bytes have not landed)".into()
        } else {
            format!(
                "the thread has not seen phase {} of the load's mbarrier complete",
                mark.phase
            )
        }
    }

    /// Errors when a thread of `threads` has not seen the phases of the TMA loads that wrote
    /// cells `cells` (a warpgroup-collective read: every thread must have waited).
    pub(super) fn check_tma_group(
        &self,
        cells: &[(usize, usize)],
        threads: std::ops::Range<u32>,
        at: u32,
    ) -> Result<(), SimError> {
        if self.tma.cells.is_empty() {
            return Ok(());
        }
        let mut marks: Vec<(usize, u64)> = cells
            .iter()
            .filter_map(|&c| self.tma.cells.get(c).map(|m| (m.bar, m.phase)))
            .collect();
        marks.sort_unstable();
        marks.dedup();
        for (bar, phase) in marks {
            if let Some(t) = threads
                .clone()
                .find(|&t| phase == IN_FLIGHT || !self.mbar.has_seen(bar, t, phase))
            {
                let msg = format!(
                    "warpgroup op reads shared memory a TMA load writes before this thread has waited for it: {} (a missing or wrong nvgpu.mbarrier.try_wait.parity)",
                    Self::pending_what(&Mark {
                        bar,
                        phase,
                        read: None
                    })
                );
                return Err(self.error(SimErrorKind::TmaPending, Some(at), t, msg));
            }
        }
        Ok(())
    }

    /// Records warpgroup `group`'s MMA reading `cells`: the reads a later TMA into them
    /// must have been released from ([`Self::tma_claim`]).
    pub(super) fn tma_mma_read(&mut self, group: u32, cells: &[(usize, usize)]) {
        if self.tma.cells.is_empty() {
            return;
        }
        let seq = self.tma.mmas.entry(group).or_insert(0);
        *seq += 1;
        let read = MmaRead {
            group,
            seq: *seq,
            block_phase: self.phase,
        };
        for c in cells {
            if let Some(m) = self.tma.cells.get_mut(*c) {
                m.read = Some(read);
            }
        }
    }

    /// Records thread `tid`'s arrival on mbarrier `bar` in its phase `phase`: it releases
    /// its warpgroup's MMA reads so far.
    pub(super) fn tma_release(&mut self, tid: u32, bar: usize, phase: u64) {
        let group = tid / super::sched::WARPGROUP;
        let Some(&seq) = self.tma.mmas.get(&group) else {
            return;
        };
        self.tma
            .releases
            .entry(group)
            .or_default()
            .push(Release { seq, bar, phase });
    }

    /// Whether MMA read `r` is ordered before thread `tid`'s TMA issue: `tid` is of the
    /// reading warpgroup (the MMA completed before any of its threads went on), a block
    /// barrier came since, or a release after it whose phase `tid` has seen complete.
    fn released(&self, r: &MmaRead, tid: u32) -> bool {
        r.group == tid / super::sched::WARPGROUP
            || r.block_phase != self.phase
            || self.tma.releases.get(&r.group).is_some_and(|v| {
                v.iter()
                    .rev()
                    .take_while(|x| x.seq >= r.seq)
                    .any(|x| self.mbar.has_seen(x.bar, tid, x.phase))
            })
    }

    /// Issues thread `tid`'s TMA load `op` (registers `r`): lands the box and completes its
    /// bytes on the mbarrier. Returns the box's bytes and the bytes read from the tensor.
    pub(super) fn tma_load(
        &mut self,
        tid: u32,
        op: &TmaInst,
        at: u32,
        r: &[f64],
    ) -> Result<(u64, u64), SimError> {
        let k = self.k;
        let bar = self.mbar_index(&op.bar, r, tid, at)?;
        self.mbar_use(bar, tid, at)?;
        let (dm, sm) = (&k.mems[op.dst as usize], &k.mems[op.src as usize]);
        let eb = op.elem.bytes() as usize;
        let shape = op.box_shape;
        let elems: usize = shape.iter().product();
        let bytes = elems * eb;
        let base = base_byte(dm, r);
        if !base.is_multiple_of(128) {
            let msg = format!(
                "TMA destination {} starts at byte {base} of shared memory, not 128-byte aligned (PTX cp.async.bulk.tensor)",
                dm.ty
            );
            return Err(self.error(SimErrorKind::Other, Some(at), tid, msg));
        }
        let size = buffer_bytes(self, dm);
        if base + bytes > size {
            let msg = format!(
                "TMA box of {bytes} bytes at byte {base} of {} overruns its {size} bytes of shared memory",
                dm.ty
            );
            return Err(self.error(SimErrorKind::OutOfBounds, Some(at), tid, msg));
        }
        // The box's origin, outermost first (the coordinates are innermost first).
        let origin: [i64; R] =
            std::array::from_fn(|d| op.coords[R - 1 - d].map_or(0, |c| r[c as usize] as i64));
        // The tensor's extents and element strides as R dimensions, outermost first (a
        // lower-rank tensor has extent 1 on the missing outer ones).
        let mut ext = [1i64; R];
        let mut strides = [0i64; R];
        let rank = sm.shape.len().min(R);
        ext[R - rank..].copy_from_slice(&sm.shape[sm.shape.len() - rank..]);
        strides[R - rank..].copy_from_slice(&sm.strides[sm.strides.len() - rank..]);
        let mut read = 0u64;
        let mut vals = Vec::with_capacity(elems);
        // Box element `i` in row-major order lands at byte `i · elem_bytes` (before the
        // swizzle): its position in the box is `i` delinearised over the box's extents.
        for i in 0..elems {
            let mut rest = i;
            let mut g = [0i64; R];
            for d in (0..R).rev() {
                g[d] = origin[d] + (rest % shape[d]) as i64;
                rest /= shape[d];
            }
            // Out of bounds on any dimension reads zero (PTX ISA §5.5, the tensor map's
            // out-of-bound fill).
            let inside = (0..R).all(|d| (0..ext[d]).contains(&g[d]));
            let v = if inside {
                read += eb as u64;
                let off = (0..R).map(|d| g[d] * strides[d]).sum::<i64>() as usize;
                self.globals[sm.buf]
                    .get(off)
                    .map_or(0.0, |g| f64::from_bits(g.load(Ordering::Relaxed)))
            } else {
                0.0
            };
            let addr = op.swizzle_addr(base + i * eb);
            self.tma_claim(dm, (addr, (addr - base) / eb), bar, (tid, at))?;
            vals.push((addr, op.elem.round(v)));
        }
        self.tma.flights.push_back(Flight {
            dst: op.dst,
            vals,
            bar,
            bytes: bytes as i64,
            tid,
            at,
        });
        Ok((bytes as u64, read))
    }

    /// Lands the oldest copy in flight: writes its bytes, marks its cells with the barrier's
    /// current phase and performs `complete-tx` on the barrier. `false` when none is in
    /// flight.
    pub(super) fn tma_land(&mut self) -> Result<bool, SimError> {
        let Some(f) = self.tma.flights.pop_front() else {
            return Ok(false);
        };
        let m = &self.k.mems[f.dst as usize];
        let phase = self.mbar.phase(f.bar);
        for &(addr, v) in &f.vals {
            self.tma_write(m, addr, v);
            let (buf, cells) = self.cells_at(m, addr);
            for c in cells {
                self.tma.cells.insert(
                    (buf, c),
                    Mark {
                        bar: f.bar,
                        phase,
                        read: None,
                    },
                );
            }
        }
        self.mbar_tx(f.bar, -f.bytes, f.tid, f.at)?;
        Ok(true)
    }

    /// Claims the cells of the element of `m` at byte `addr` (element `shown` of `m`, for
    /// messages) for a copy in flight completing on barrier `bar`: a cell an earlier TMA
    /// (in flight, or whose phase has not completed) or a cp.async in flight writes is an
    /// error.
    fn tma_claim(
        &mut self,
        m: &MemDesc,
        (addr, shown): (usize, usize),
        bar: usize,
        (tid, at): (u32, u32),
    ) -> Result<(), SimError> {
        let (buf, cells) = self.cells_at(m, addr);
        for c in cells {
            self.check_async(buf, c, (tid, at), m, shown)?;
            if let Some(mark) = self.tma.cells.get((buf, c)) {
                if mark.phase == IN_FLIGHT || self.mbar.phase(mark.bar) <= mark.phase {
                    let msg = format!(
                        "TMA load into {} at [{}] while an earlier TMA load to it is in flight (its mbarrier phase has not completed)",
                        m.ty,
                        Self::index_text(m, shown)
                    );
                    return Err(self.error(SimErrorKind::TmaPending, Some(at), tid, msg));
                }
                if let Some(r) = mark.read.filter(|r| !self.released(r, tid)) {
                    let msg = format!(
                        "TMA load into {} at [{}] overwrites what warpgroup {}'s nvgpu.warpgroup.mma read, before that read was released to this thread (no mbarrier arrival by the warpgroup after the MMA whose phase this thread waited for, nor a gpu.barrier since): a missing or early consumer release",
                        m.ty,
                        Self::index_text(m, shown),
                        r.group
                    );
                    return Err(self.error(SimErrorKind::TmaPending, Some(at), tid, msg));
                }
            }
            self.tma.cells.insert(
                (buf, c),
                Mark {
                    bar,
                    phase: IN_FLIGHT,
                    read: None,
                },
            );
        }
        Ok(())
    }

    /// Writes element value `v` at byte `addr` of `m`'s buffer as the async proxy: the cells
    /// become initialised and have no writing thread.
    fn tma_write(&mut self, m: &MemDesc, addr: usize, v: f64) {
        let (buf, cells) = self.cells_at(m, addr);
        let eb = m.elem.bytes() as usize;
        for c in cells {
            let meta = &mut self.meta[buf];
            meta.init[c] = true;
            meta.w_phase[c] = super::NONE;
            meta.writer[c] = super::NONE;
        }
        match m.space {
            Space::DynShared => {
                self.dyn_mem[addr..addr + eb].copy_from_slice(&m.elem.encode(v)[..eb]);
            }
            _ => self.shared[m.buf][addr / eb] = v,
        }
    }
}
