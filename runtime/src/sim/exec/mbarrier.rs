//! mbarrier objects (`nvgpu.mbarrier.*`), as the PTX ISA defines them (§9.7.13.15
//! "mbarrier", its subsections "Contents of the mbarrier object", "Phase of the mbarrier
//! object", "Phase completion of the mbarrier object" and "mbarrier.test_wait /
//! mbarrier.try_wait"): each object holds a current phase, its pending arrival count and a
//! tx-count. `init` sets the expected count, phase 0 and tx-count 0; `arrive` decrements the
//! pending count; `expect-tx(n)` raises the tx-count by n and a TMA load's
//! `complete-tx(n)` lowers it; when both are 0 the phase completes: the phase advances (its
//! parity flips), the pending count is reset to the expected count. `try_wait.parity p`
//! returns once the phase with parity `p` has completed, i.e. while the current phase's
//! parity differs from `p`; a thread whose phase has not completed is blocked
//! ([`super::Stop::MbarWait`]) and re-tested by the block scheduler (`exec/sched.rs`).
//!
//! Which completed phases each thread has *seen* (by a successful wait, or through a
//! `gpu.barrier` after another thread's) decides whether it may read the bytes a TMA load
//! completing that phase wrote (`exec/tma.rs`).

use super::super::compile::{Inst, MbarRef, Sm90Inst};
use super::{BlockState, SimError, SimErrorKind};

/// PTX ISA §9.7.13.15 ("Contents of the mbarrier object"): the expected arrival count is in `1 ..= 2^20 - 1`, the tx-count
/// in `-(2^20 - 1) ..= 2^20 - 1`.
const MAX_COUNT: i64 = (1 << 20) - 1;

/// One mbarrier object.
#[derive(Clone, Copy, Debug, Default)]
struct Mbar {
    init: bool,
    count: u32,
    pending: u32,
    tx: i64,
    /// Phases completed (the current phase's number; its parity is `phase & 1`).
    phase: u64,
    /// The thread that initialised it and the block's barrier phase it did so in.
    init_by: (u32, u32),
}

/// A block's mbarrier objects (every group's, flattened) and, per object and thread, the
/// number of its phases the thread has seen complete.
#[derive(Default)]
pub(super) struct MbarState {
    bars: Vec<Mbar>,
    seen: Vec<u64>,
    threads: usize,
}

impl MbarState {
    /// `n` objects (uninitialised) for a block of `threads` threads.
    pub(super) fn new(n: usize, threads: usize) -> Self {
        MbarState {
            bars: vec![Mbar::default(); n],
            seen: vec![0; n * threads],
            threads,
        }
    }
    /// Whether thread `tid` has seen phase `phase` of object `bar` complete.
    pub(super) fn has_seen(&self, bar: usize, tid: u32, phase: u64) -> bool {
        self.seen[bar * self.threads + tid as usize] > phase
    }
    /// The current phase number of object `bar`.
    pub(super) fn phase(&self, bar: usize) -> u64 {
        self.bars[bar].phase
    }
}

impl BlockState<'_> {
    /// The flat object index of `b` (its group's first object plus the index register).
    pub(super) fn mbar_index(
        &self,
        b: &MbarRef,
        r: &[f64],
        tid: u32,
        at: u32,
    ) -> Result<usize, SimError> {
        let i = r[b.idx as usize];
        if i < 0.0 || i >= f64::from(b.count) {
            let msg = format!(
                "mbarrier index {i} is outside its group of {} barriers",
                b.count
            );
            return Err(self.error(SimErrorKind::OutOfBounds, Some(at), tid, msg));
        }
        Ok(b.first as usize + i as usize)
    }

    /// Checks that thread `tid` may use object `bar`: it is initialised, and not by another
    /// thread in the current barrier phase (`mbarrier.init` must be made visible, by a
    /// `gpu.barrier`, before other threads use the object).
    pub(super) fn mbar_use(&self, bar: usize, tid: u32, at: u32) -> Result<(), SimError> {
        let m = &self.mbar.bars[bar];
        if !m.init {
            return Err(self.error(
                SimErrorKind::Mbarrier,
                Some(at),
                tid,
                "use of an mbarrier that no thread has initialised (nvgpu.mbarrier.init)".into(),
            ));
        }
        let (who, ph) = m.init_by;
        if who != tid && ph == self.phase {
            let msg = format!(
                "data race on an mbarrier: thread {:?} initialised it with no gpu.barrier before this thread uses it",
                super::unflatten(who, self.launch.block)
            );
            return Err(self.error(SimErrorKind::DataRace, Some(at), tid, msg));
        }
        Ok(())
    }

    /// Completes object `bar`'s current phase when its arrivals and tx-count are both 0.
    fn mbar_step(&mut self, bar: usize) {
        let m = &mut self.mbar.bars[bar];
        if m.pending == 0 && m.tx == 0 {
            m.phase += 1;
            m.pending = m.count;
        }
    }

    /// Adds `delta` to object `bar`'s tx-count (`expect-tx`, or a TMA's `complete-tx` with
    /// a negative delta), then completes the phase if it can.
    pub(super) fn mbar_tx(
        &mut self,
        bar: usize,
        delta: i64,
        tid: u32,
        at: u32,
    ) -> Result<(), SimError> {
        let tx = self.mbar.bars[bar].tx + delta;
        if tx.abs() > MAX_COUNT {
            let msg = format!(
                "mbarrier tx-count {tx} is outside the PTX range ±(2^20 - 1) bytes of one phase"
            );
            return Err(self.error(SimErrorKind::Mbarrier, Some(at), tid, msg));
        }
        self.mbar.bars[bar].tx = tx;
        self.mbar_step(bar);
        Ok(())
    }

    /// Executes thread `tid`'s mbarrier op `op` (registers `r`); `false` when it is a wait
    /// whose phase has not completed (the thread blocks).
    pub(super) fn mbar_op(
        &mut self,
        tid: u32,
        op: &Sm90Inst,
        at: u32,
        r: &[f64],
    ) -> Result<bool, SimError> {
        let on = |p: &Option<u32>| p.is_none_or(|p| r[p as usize] != 0.0);
        match op {
            Sm90Inst::MbarInit { bar, count, pred } if on(pred) => {
                let b = self.mbar_index(bar, r, tid, at)?;
                let n = r[*count as usize];
                if !(1.0..=MAX_COUNT as f64).contains(&n) {
                    let msg =
                        format!("mbarrier.init count {n} is outside the PTX range 1 to 2^20 - 1");
                    return Err(self.error(SimErrorKind::Mbarrier, Some(at), tid, msg));
                }
                if self.mbar.bars[b].init {
                    return Err(self.error(
                        SimErrorKind::Mbarrier,
                        Some(at),
                        tid,
                        "mbarrier.init of an mbarrier that is already initialised (the PTX ISA leaves re-initialising a valid mbarrier undefined)".into(),
                    ));
                }
                self.mbar.bars[b] = Mbar {
                    init: true,
                    count: n as u32,
                    pending: n as u32,
                    tx: 0,
                    phase: 0,
                    init_by: (tid, self.phase),
                };
            }
            Sm90Inst::MbarArrive { bar, tx, pred } if on(pred) => {
                let b = self.mbar_index(bar, r, tid, at)?;
                self.mbar_use(b, tid, at)?;
                if self.mbar.bars[b].pending == 0 {
                    return Err(self.error(
                        SimErrorKind::Mbarrier,
                        Some(at),
                        tid,
                        "arrival on an mbarrier whose current phase expects no more arrivals (more arrivals than its init count)".into(),
                    ));
                }
                // arrive.expect_tx: expect-tx, then arrive-on (PTX ISA mbarrier.arrive).
                if let Some(t) = tx {
                    let n = r[*t as usize];
                    if !(0.0..=MAX_COUNT as f64).contains(&n) {
                        let msg = format!(
                            "mbarrier.arrive.expect_tx count {n} is outside the PTX range 0 to 2^20 - 1"
                        );
                        return Err(self.error(SimErrorKind::Mbarrier, Some(at), tid, msg));
                    }
                    self.mbar.bars[b].tx += n as i64;
                }
                self.mbar.bars[b].pending -= 1;
                self.tma_release(tid, b, self.mbar.bars[b].phase);
                self.mbar_tx(b, 0, tid, at)?;
            }
            Sm90Inst::MbarWait { bar, parity } => {
                let b = self.mbar_index(bar, r, tid, at)?;
                self.mbar_use(b, tid, at)?;
                let p = r[*parity as usize] as u64 & 1;
                let m = self.mbar.bars[b];
                if m.phase & 1 == p {
                    return Ok(false);
                }
                let s = &mut self.mbar.seen[b * self.mbar.threads + tid as usize];
                *s = (*s).max(m.phase);
            }
            _ => {}
        }
        Ok(true)
    }

    /// Re-tests thread `tid`'s blocked wait at `pc`; whether it may go on.
    pub(super) fn mbar_retry(&mut self, tid: u32, pc: u32) -> Result<bool, SimError> {
        let Inst::Sm90 { op, at } = &self.k.insts[pc as usize] else {
            return Ok(true);
        };
        let base = tid as usize * self.nregs;
        let regs = std::mem::take(&mut self.regs);
        let res = self.mbar_op(tid, op, *at, &regs[base..base + self.nregs]);
        self.regs = regs;
        res
    }

    /// At the end of a barrier phase every thread has seen what any thread had seen.
    pub(super) fn mbar_phase_end(&mut self) {
        let n = self.mbar.threads;
        for seen in self.mbar.seen.chunks_mut(n.max(1)) {
            let m = seen.iter().copied().max().unwrap_or(0);
            seen.fill(m);
        }
    }

    /// The deadlock of thread `tid`, blocked at the wait at `pc` when no thread of the block
    /// can move any more.
    pub(super) fn mbar_deadlock(&self, tid: u32, pc: u32) -> SimError {
        let wait = match &self.k.insts[pc as usize] {
            Inst::Sm90 { op, at } => match &**op {
                Sm90Inst::MbarWait { bar, parity } => Some((bar, parity, at)),
                _ => None,
            },
            _ => None,
        };
        let (at, state) = match wait {
            Some((bar, parity, at)) => {
                let base = tid as usize * self.nregs;
                let r = &self.regs[base..base + self.nregs];
                let i = r[bar.idx as usize] as usize;
                let m = self.mbar.bars[bar.first as usize + i];
                let p = r[*parity as usize] as u64 & 1;
                (
                    Some(*at),
                    format!(
                        "mbarrier {i} of its group waits for a phase of parity {p}, but its phase {} has {} of {} arrivals pending and a tx-count of {} bytes",
                        m.phase, m.pending, m.count, m.tx
                    ),
                )
            }
            _ => (None, "an mbarrier wait".to_string()),
        };
        self.error(
            SimErrorKind::Deadlock,
            at,
            tid,
            format!(
                "deadlock: {state}, and no thread of the block can make progress (every other thread has finished or is blocked)"
            ),
        )
    }
}
