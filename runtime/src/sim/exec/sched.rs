//! The block scheduler: runs a block's threads in lock-step phases between `gpu.barrier`s.
//! Within a phase, threads run warp by warp until they stop; a warp-collective op executes
//! when every lane of its warp waits at it, a warpgroup-collective op (`nvgpu.warpgroup.mma`)
//! when every thread of its warpgroup (4 warps, 128 threads) does, and a thread blocked in an
//! `nvgpu.mbarrier.try_wait.parity` resumes once the phase it waits for completes. Rounds
//! repeat until none of that makes progress; then, if a thread is blocked in a wait, the
//! oldest TMA load in flight lands (`exec/tma.rs`) and rounds go on. A phase that still has
//! blocked threads when nothing can move is a deadlock (an mbarrier phase that never
//! completes) or a divergence (a collective op some thread never reaches), reported as an
//! error instead of hanging.

use super::{BlockState, SimError, SimErrorKind, Stop};
use crate::sim::compile::Inst;

/// Where a thread is within the current phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// Runnable from the pc.
    Run(u32),
    /// Waiting at the `gpu.barrier` at the pc.
    Barrier(u32),
    Done,
    /// At a warp-collective instruction.
    Warp(u32),
    /// At a warpgroup-collective instruction.
    Group(u32),
    /// Blocked in an mbarrier wait at the pc.
    Wait(u32),
}

/// Threads per warpgroup (PTX ISA §9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-
/// Accumulate Instructions": four contiguous warps, the first warp's rank a multiple of 4).
pub const WARPGROUP: u32 = 128;

impl BlockState<'_> {
    /// Runs the block to its end.
    pub(super) fn run(&mut self) -> Result<(), SimError> {
        let n = self.launch.block.iter().product::<u32>();
        let mut at: Vec<At> = vec![At::Run(0); n as usize];
        loop {
            // The first thread at a barrier (which one) and the first that returned.
            let mut bar: Option<(u32, u32)> = None;
            let mut done: Option<u32> = None;
            loop {
                let mut progress = false;
                let wave = self.k.wave;
                for w in 0..n.div_ceil(wave) {
                    let lanes = w * wave..(w * wave + wave).min(n);
                    progress |= self.run_warp(lanes, &mut at, &mut bar, &mut done)?;
                }
                progress |= self.run_warpgroups(&mut at)?;
                progress |= self.resume_waits(&mut at)?;
                // Copies land as late as possible: when a thread waits and nothing else can
                // move.
                if progress {
                    continue;
                }
                let waiting = at.iter().any(|a| matches!(a, At::Wait(_)));
                if !waiting || !self.tma_land()? {
                    break;
                }
            }
            self.stuck(&at)?;
            if let Some(e) = self.pending.take() {
                return Err(e);
            }
            if bar.is_none() {
                return Ok(());
            }
            self.phase += 1;
            self.mbar_phase_end();
            for a in &mut at {
                if let At::Barrier(b) = *a {
                    *a = At::Run(b + 1);
                }
            }
        }
    }

    /// Runs the runnable lanes of one warp until each stops, executing the warp-collective
    /// ops its lanes all wait at; whether any lane ran.
    fn run_warp(
        &mut self,
        lanes: std::ops::Range<u32>,
        at: &mut [At],
        bar: &mut Option<(u32, u32)>,
        done: &mut Option<u32>,
    ) -> Result<bool, SimError> {
        let mut ran = false;
        loop {
            for t in lanes.clone() {
                let At::Run(pc) = at[t as usize] else {
                    continue;
                };
                ran = true;
                let stop = self.run_thread(t, pc)?;
                if let Some(p) = self.prof.as_deref_mut() {
                    p.end_thread();
                }
                at[t as usize] = match stop {
                    Stop::Barrier(b) => {
                        bar.get_or_insert((b, t));
                        if bar.is_some_and(|(b0, _)| b0 != b) || done.is_some() {
                            return Err(self.divergence(b, t));
                        }
                        At::Barrier(b)
                    }
                    Stop::Done => {
                        done.get_or_insert(t);
                        if let Some((b, _)) = *bar {
                            return Err(self.divergence(b, t));
                        }
                        At::Done
                    }
                    Stop::Warp(p) => At::Warp(p),
                    Stop::Warpgroup(p) => At::Group(p),
                    Stop::MbarWait(p) => At::Wait(p),
                    // Kernels with scf.while run in `sim::concurrent`, except profiled.
                    Stop::Spin(_) => {
                        return Err(self.error(
                            SimErrorKind::Other,
                            None,
                            t,
                            "--profile does not run kernels with scf.while (a persistent kernel's blocks must run interleaved)".into(),
                        ));
                    }
                };
            }
            let lane_at = |t: u32| at[t as usize];
            let Some(pc) = lanes.clone().find_map(|t| match lane_at(t) {
                At::Warp(p) => Some(p),
                _ => None,
            }) else {
                break;
            };
            // A lane still blocked (mbarrier wait, warpgroup op) may reach the op later.
            if lanes
                .clone()
                .any(|t| matches!(lane_at(t), At::Wait(_) | At::Group(_)))
            {
                break;
            }
            let waiting: Vec<Option<u32>> = lanes
                .clone()
                .map(|t| match lane_at(t) {
                    At::Warp(p) => Some(p),
                    _ => None,
                })
                .collect();
            self.warp_collective(pc, lanes.clone(), &waiting)?;
            for t in lanes.clone() {
                at[t as usize] = At::Run(pc + 1);
            }
        }
        // A warp's lanes have all run this round: its warp-level counts are final.
        if let Some(p) = self.prof.as_deref_mut() {
            p.end_warp();
        }
        Ok(ran)
    }

    /// Executes the warpgroup-collective ops whose warpgroups all wait at them; whether any
    /// did. A warpgroup with fewer than 128 threads (the block's last) cannot execute one.
    fn run_warpgroups(&mut self, at: &mut [At]) -> Result<bool, SimError> {
        let n = at.len() as u32;
        let mut ran = false;
        for g in 0..n.div_ceil(WARPGROUP) {
            let threads = g * WARPGROUP..(g * WARPGROUP + WARPGROUP).min(n);
            let Some(pc) = threads.clone().find_map(|t| match at[t as usize] {
                At::Group(p) => Some(p),
                _ => None,
            }) else {
                continue;
            };
            if !threads.clone().all(|t| at[t as usize] == At::Group(pc)) {
                continue;
            }
            if threads.len() != WARPGROUP as usize {
                let msg = format!(
                    "warpgroup-collective op needs a full warpgroup of {WARPGROUP} threads; this warpgroup has {} (block of {n} threads)",
                    threads.len()
                );
                return Err(self.error(
                    SimErrorKind::WarpDivergence,
                    self.inst_at(pc),
                    threads.start,
                    msg,
                ));
            }
            self.warpgroup_collective(pc, threads.start)?;
            for t in threads {
                at[t as usize] = At::Run(pc + 1);
            }
            ran = true;
        }
        Ok(ran)
    }

    /// Re-tests the threads blocked in mbarrier waits; whether any may go on.
    fn resume_waits(&mut self, at: &mut [At]) -> Result<bool, SimError> {
        let mut ran = false;
        for t in 0..at.len() as u32 {
            if let At::Wait(pc) = at[t as usize]
                && self.mbar_retry(t, pc)?
            {
                at[t as usize] = At::Run(pc + 1);
                ran = true;
            }
        }
        Ok(ran)
    }

    /// The op index of instruction `pc`, for errors.
    pub(super) fn inst_at(&self, pc: u32) -> Option<u32> {
        match &self.k.insts[pc as usize] {
            Inst::Warp { at, .. } | Inst::Warpgroup { at, .. } | Inst::Sm90 { at, .. } => Some(*at),
            Inst::Barrier { at } => Some(*at),
            _ => None,
        }
    }

    /// No thread can move: threads still blocked are a deadlock or a divergence. (A lane
    /// left at a warp-collective op always has a warp-mate blocked in a wait or at a
    /// warpgroup op, reported first: otherwise `run_warp` has executed or refused the op.)
    fn stuck(&self, at: &[At]) -> Result<(), SimError> {
        let find = |want: fn(At) -> Option<u32>| {
            at.iter()
                .enumerate()
                .find_map(|(t, &a)| want(a).map(|pc| (t as u32, pc)))
        };
        if let Some((t, pc)) = find(|a| match a {
            At::Wait(p) => Some(p),
            _ => None,
        }) {
            return Err(self.mbar_deadlock(t, pc));
        }
        if let Some((t, pc)) = find(|a| match a {
            At::Group(p) => Some(p),
            _ => None,
        }) {
            let g = t / WARPGROUP;
            let other = (g * WARPGROUP..((g + 1) * WARPGROUP).min(at.len() as u32))
                .find(|&u| at[u as usize] != At::Group(pc))
                .unwrap_or(t);
            let msg = format!(
                "warpgroup divergence: this thread does not reach the warpgroup-collective op the other threads of its warpgroup wait at (all {WARPGROUP} must execute it together)"
            );
            return Err(self.error(SimErrorKind::WarpDivergence, self.inst_at(pc), other, msg));
        }
        Ok(())
    }

    pub(in crate::sim) fn divergence(&self, b: u32, t: u32) -> SimError {
        let at = match self.k.insts[b as usize] {
            Inst::Barrier { at } => Some(at),
            _ => None,
        };
        self.error(
            SimErrorKind::BarrierDivergence,
            at,
            t,
            "barrier divergence: not every thread of the block reaches this gpu.barrier together"
                .into(),
        )
    }
}
