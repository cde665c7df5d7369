//! Runs a kernel whose blocks may wait on each other: a persistent kernel (Rammer, OSDI'20
//! §4.1.3: vEUs are persistent blocks that spin on a global `step` array written by other
//! blocks). Blocks are cooperatively scheduled tasks on one thread, deterministic: each
//! resident block runs until one of its threads reaches an `scf.while` head
//! ([`Inst::Spin`](super::compile::Inst::Spin)) or the block ends, then the next resident
//! block runs. Co-residency is as on hardware: at most `rtile.persistent = {coresident = N}`
//! blocks are resident at once (the whole grid without the attribute); a block not yet
//! resident starts only when a resident one finishes, so an over-subscribed grid that
//! waits on a block not resident deadlocks here as on the GPU.
//!
//! **Deadlock.** Execution is deterministic, so when a whole round of the resident blocks
//! changes no global memory, finishes no block, and leaves every block waiting at the same
//! `scf.while` head with the same registers as the round before, it would repeat forever:
//! that is reported as [`SimErrorKind::Deadlock`] with each block's wait (the loop's
//! `rtile.wait = array<i64: veu, order>`: the vEU waits for `step[veu] > order`; with
//! `rtile.wait = array<i64>` the pair is read from the waiting thread's registers). A wait
//! that keeps changing registers but writes nothing for [`MAX_IDLE_ROUNDS`] rounds is
//! reported the same way, so a run never hangs.

use std::collections::VecDeque;

use super::exec::{BlockState, Dims, SimError, SimErrorKind, Stop};

/// Rounds with no global write and no block finishing after which a run is a deadlock even
/// though some spinning thread's registers change.
pub const MAX_IDLE_ROUNDS: u64 = 100_000;

/// Where a resident block is within its lock-step phase (the resumable form of the block
/// loop in `exec.rs`).
struct Cursor {
    id: u64,
    pcs: Vec<Option<u32>>,
    /// The next thread to run in this phase.
    t: u32,
    at_barrier: Option<(u32, u32)>,
    done: Option<u32>,
    /// Thread, pc and register hash of the last wait.
    last: Option<(u32, u32, u64)>,
}

enum Status {
    Finished,
    /// Thread `t` waits at the `scf.while` head before pc `pc`.
    Waiting {
        t: u32,
        pc: u32,
    },
}

fn hash_regs(r: &[f64]) -> u64 {
    // FNV-1a over the bit patterns: equal registers give equal hashes.
    r.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, v| {
        (h ^ v.to_bits()).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Runs `st` from `c` until a thread waits or the block ends. Barriers are counted in a
/// persistent kernel (threads may arrive at different `gpu.barrier` ops), else must match.
fn resume(st: &mut BlockState<'_>, c: &mut Cursor) -> Result<Status, SimError> {
    let n = c.pcs.len() as u32;
    let counted = st.k.persistent.is_some();
    loop {
        while c.t < n {
            let t = c.t;
            if let Some(pc) = c.pcs[t as usize] {
                match st.run_thread(t, pc)? {
                    Stop::Spin(p) => {
                        c.pcs[t as usize] = Some(p);
                        return Ok(Status::Waiting { t, pc: p });
                    }
                    Stop::Barrier(b) => {
                        c.pcs[t as usize] = Some(b + 1);
                        c.at_barrier.get_or_insert((b, t));
                        let other = c.at_barrier.is_some_and(|(b0, _)| b0 != b);
                        if (other && !counted) || c.done.is_some() {
                            return Err(st.divergence(b, t));
                        }
                    }
                    // Warp-collective ops (tensor cores) and spin-waits in one kernel.
                    Stop::Warp(_) => {
                        return Err(st.error(
                            SimErrorKind::Other,
                            None,
                            t,
                            "the simulator does not run warp-collective ops (nvgpu, gpu.shuffle) in a kernel with scf.while".into(),
                        ));
                    }
                    // Refused at compile time (`compile/sm90.rs`): they need the block
                    // scheduler.
                    Stop::Warpgroup(_) | Stop::MbarWait(_) => {
                        return Err(st.error(
                            SimErrorKind::Other,
                            None,
                            t,
                            "the simulator does not run sm_90a ops in a kernel with scf.while"
                                .into(),
                        ));
                    }
                    Stop::Done => {
                        c.pcs[t as usize] = None;
                        c.done.get_or_insert(t);
                        if let Some((b, _)) = c.at_barrier {
                            return Err(st.divergence(b, t));
                        }
                    }
                }
            }
            c.t += 1;
        }
        if let Some(e) = st.pending.take() {
            return Err(e);
        }
        if c.at_barrier.is_none() {
            return Ok(Status::Finished);
        }
        st.phase += 1;
        c.t = 0;
        c.at_barrier = None;
        c.done = None;
    }
}

/// Runs the blocks `ids` of `k` interleaved, at most
/// `k.persistent` resident at once; `make` builds a block's state.
pub(super) fn run<'a>(
    k: &'a super::compile::Kernel,
    launch: Dims,
    ids: &[u64],
    make: impl Fn([u32; 3]) -> BlockState<'a>,
) -> Result<(), SimError> {
    let g = launch.grid;
    let coords = |b: u64| {
        [
            (b % g[0] as u64) as u32,
            ((b / g[0] as u64) % g[1] as u64) as u32,
            (b / (g[0] as u64 * g[1] as u64)) as u32,
        ]
    };
    let threads: u32 = launch.block.iter().product();
    let cap = k.persistent.unwrap_or(ids.len() as u64).max(1) as usize;
    let mut pending: VecDeque<u64> = ids.iter().copied().collect();
    let mut resident: Vec<(BlockState<'a>, Cursor)> = Vec::new();
    let mut writes_done = 0u64;
    let mut last_total = u64::MAX;
    let mut idle = 0u64;
    loop {
        let mut admitted = false;
        while resident.len() < cap {
            let Some(b) = pending.pop_front() else { break };
            let c = Cursor {
                id: b,
                pcs: vec![Some(0); threads as usize],
                t: 0,
                at_barrier: None,
                done: None,
                last: None,
            };
            resident.push((make(coords(b)), c));
            admitted = true;
        }
        if resident.is_empty() {
            return Ok(());
        }
        let mut finished = false;
        let mut changed = admitted;
        let mut i = 0;
        while i < resident.len() {
            let (st, c) = &mut resident[i];
            match resume(st, c)? {
                Status::Finished => {
                    writes_done += st.global_writes;
                    resident.remove(i);
                    finished = true;
                    continue;
                }
                Status::Waiting { t, pc } => {
                    let base = t as usize * st.nregs;
                    let sig = (t, pc, hash_regs(&st.regs[base..base + st.nregs]));
                    if c.last != Some(sig) {
                        changed = true;
                    }
                    c.last = Some(sig);
                }
            }
            i += 1;
        }
        let writes = writes_done + resident.iter().map(|(s, _)| s.global_writes).sum::<u64>();
        let progressed = finished || writes != last_total;
        last_total = writes;
        idle = if progressed { 0 } else { idle + 1 };
        if !progressed && (!changed || idle >= MAX_IDLE_ROUNDS) {
            return Err(deadlock(k, &resident, pending.len(), cap));
        }
    }
}

/// The deadlock report: every resident block's wait, and the blocks not yet resident.
fn deadlock(
    k: &super::compile::Kernel,
    resident: &[(BlockState<'_>, Cursor)],
    not_resident: usize,
    cap: usize,
) -> SimError {
    use super::compile::{Inst, WaitPair};
    let mut waits = Vec::new();
    let mut first = None;
    for (st, c) in resident {
        let Some((t, pc, _)) = c.last else { continue };
        let (at, wait) = match k.insts.get(pc as usize - 1) {
            Some(Inst::Spin { at, wait }) => (Some(*at), *wait),
            _ => (None, None),
        };
        first.get_or_insert((at, st.block, t));
        // A dynamic pair is in the waiting thread's registers.
        let reg = |r: u32| st.regs[t as usize * st.nregs + r as usize] as i64;
        let pair = wait.map(|w| match w {
            WaitPair::Fixed(v, o) => (v, o),
            WaitPair::Regs(v, o) => (reg(v), reg(o)),
        });
        waits.push(match pair {
            Some((v, o)) => format!("vEU {} waits for step[{v}] > {o}", c.id),
            None => format!("block {} waits in an scf.while", c.id),
        });
    }
    let (at, block, t) = first.unwrap_or((None, [0; 3], 0));
    let more = if not_resident > 0 {
        format!(
            "; {not_resident} more blocks cannot start until a resident one ends ({cap} co-resident)"
        )
    } else {
        String::new()
    };
    SimError {
        kind: SimErrorKind::Deadlock,
        message: format!(
            "deadlock: every live block waits and none can proceed: {}{more}",
            waits.join(", ")
        ),
        at,
        block,
        thread: [t, 0, 0],
    }
}
