//! `cp.async` (`nvgpu.device_async_copy`) with its commit and wait groups, per thread, as the
//! PTX ISA defines them (§9.7.9.25 "cp.async", §9.7.9.25.3 "cp.async.commit_group",
//! "cp.async.wait_group"): a copy started by a thread is in flight until the thread commits
//! it in a group and waits with at most `N` newer groups pending; only then do its bytes land
//! in shared memory. The source is read when the copy starts (a kernel must not write a
//! cp.async source before the wait either; the simulator does not check that).
//!
//! A read or write of a destination cell whose copy has not landed is an error
//! ([`SimErrorKind::AsyncCopyPending`]), by any thread: the missing or too-weak
//! `nvgpu.device_async_wait` of a cp.async pipeline. A landing copy is its thread's write
//! at the wait, so the usual race check applies to it too (the wait must come before the
//! barrier that publishes the data).

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::Ordering;

use super::super::compile::{AsyncCopyInst, MemDesc, Space};
use super::cells::CellMap;
use super::{BlockState, SimError, SimErrorKind, dyn_byte};

/// One copy in flight: destination cells and the values to land there.
struct Copy {
    mem: u32,
    /// Element offset in `mem` of the first destination element.
    off: usize,
    /// Byte address of the first element ([`Space::DynShared`]).
    byte: usize,
    vals: Vec<f64>,
    at: u32,
}

/// One thread's copies: started but not committed, and committed groups, oldest first.
#[derive(Default)]
struct ThreadCopies {
    open: Vec<Copy>,
    groups: VecDeque<Vec<Copy>>,
}

/// The copies in flight of a block's threads.
#[derive(Default)]
pub(super) struct AsyncState {
    threads: HashMap<u32, ThreadCopies>,
    /// Destination cells (race-metadata buffer, cell) in flight → (thread, op index).
    pending: CellMap<(u32, u32)>,
}

impl BlockState<'_> {
    /// The cells of `meta` that element `off` of `m` occupies (a shared element, or the
    /// bytes of a dynamic-shared-memory element).
    fn cells(&self, m: &MemDesc, off: usize, byte: usize) -> (usize, std::ops::Range<usize>) {
        match m.space {
            Space::DynShared => (self.dyn_meta, byte..byte + m.elem.bytes() as usize),
            _ => (m.buf, off..off + 1),
        }
    }

    /// Errors when cell `off` of `meta[buf]` is the destination of a copy in flight.
    pub(super) fn check_async(
        &self,
        buf: usize,
        off: usize,
        (tid, at): (u32, u32),
        m: &MemDesc,
        shown: usize,
    ) -> Result<(), SimError> {
        if self.asyncs.pending.is_empty() {
            return Ok(());
        }
        let Some(&(t, _)) = self.asyncs.pending.get((buf, off)) else {
            return Ok(());
        };
        let who = if t == tid {
            "this thread".to_string()
        } else {
            format!("thread {:?}", super::unflatten(t, self.launch.block))
        };
        let msg = format!(
            "access to {} at [{}] while a cp.async from {who} to it is in flight: its nvgpu.device_async_wait has not completed the copy",
            m.ty,
            Self::index_text(m, shown)
        );
        Err(self.error(SimErrorKind::AsyncCopyPending, Some(at), tid, msg))
    }

    /// Starts thread `tid`'s copy `op` (registers `r`).
    pub(super) fn async_copy(
        &mut self,
        tid: u32,
        op: &AsyncCopyInst,
        at: u32,
        r: &[f64],
    ) -> Result<(), SimError> {
        let k = self.k;
        let n = op.copy.dst_elements;
        let (dm, sm) = (&k.mems[op.dst as usize], &k.mems[op.src as usize]);
        let bytes = op.copy.bytes() as usize;
        let src_n = match op.src_elements {
            Some(reg) => {
                let s = r[reg as usize];
                if s < 0.0 || s > f64::from(n) {
                    let msg = format!("cp.async srcElements {s} is outside 0..={n}");
                    return Err(self.error(SimErrorKind::OutOfBounds, Some(at), tid, msg));
                }
                s as u32
            }
            None => n,
        };
        let doff = self.offset(
            dm,
            &op.dst_idx,
            n,
            r,
            (at, tid, "cp.async destination write"),
        )?;
        let byte = match dm.space {
            Space::DynShared => dyn_byte(dm, r, doff),
            _ => doff * dm.elem.bytes() as usize,
        };
        let mut vals = vec![0.0; n as usize];
        if src_n > 0 {
            let soff = self.offset(sm, &op.src_idx, src_n, r, (at, tid, "cp.async source read"))?;
            if !(soff * sm.elem.bytes() as usize).is_multiple_of(bytes) {
                let msg = format!(
                    "cp.async source {} at [{}] is not aligned to the {bytes}-byte copy",
                    sm.ty,
                    Self::index_text(sm, soff)
                );
                return Err(self.error(SimErrorKind::Other, Some(at), tid, msg));
            }
            if let Some(p) = self.prof.as_deref_mut() {
                p.global_read(sm, soff, u64::from(src_n) * u64::from(sm.elem.bytes()));
            }
            for (l, v) in vals.iter_mut().take(src_n as usize).enumerate() {
                *v = self.globals[sm.buf]
                    .get(soff + l)
                    .map_or(0.0, |g| f64::from_bits(g.load(Ordering::Relaxed)));
            }
        }
        if !byte.is_multiple_of(bytes) {
            let msg = format!(
                "cp.async destination {} at [{}] is not aligned to the {bytes}-byte copy",
                dm.ty,
                Self::index_text(dm, doff)
            );
            return Err(self.error(SimErrorKind::Other, Some(at), tid, msg));
        }
        // Two copies in flight to one cell race (their landing order is unspecified).
        for l in 0..n as usize {
            let (buf, cells) = self.cells(dm, doff + l, byte + l * dm.elem.bytes() as usize);
            for c in cells {
                self.check_async(buf, c, (tid, at), dm, doff + l)?;
                self.asyncs.pending.insert((buf, c), (tid, at));
            }
        }
        let copy = Copy {
            mem: op.dst,
            off: doff,
            byte,
            vals,
            at,
        };
        self.asyncs.threads.entry(tid).or_default().open.push(copy);
        Ok(())
    }

    /// `cp.async.commit_group`: thread `tid`'s started copies become its newest group (an
    /// empty group when there are none, as in PTX).
    pub(super) fn async_commit(&mut self, tid: u32) {
        let t = self.asyncs.threads.entry(tid).or_default();
        let open = std::mem::take(&mut t.open);
        t.groups.push_back(open);
    }

    /// `cp.async.wait_group keep`: thread `tid`'s committed groups but the `keep` newest land.
    pub(super) fn async_wait(&mut self, tid: u32, keep: u32, _at: u32) -> Result<(), SimError> {
        let k = self.k;
        loop {
            let group = match self.asyncs.threads.get_mut(&tid) {
                Some(t) if t.groups.len() > keep as usize => {
                    t.groups.pop_front().unwrap_or_default()
                }
                _ => return Ok(()),
            };
            for c in group {
                let m = &k.mems[c.mem as usize];
                let eb = m.elem.bytes() as usize;
                for (l, &v) in c.vals.iter().enumerate() {
                    let (buf, cells) = self.cells(m, c.off + l, c.byte + l * eb);
                    for cell in cells {
                        self.asyncs.pending.remove((buf, cell));
                    }
                    let v = m.elem.round(v);
                    match m.space {
                        Space::DynShared => {
                            self.dyn_write(c.byte + l * eb, c.off + l, v, tid, c.at, m)?
                        }
                        _ => self.shared_write(m.buf, c.off + l, v, tid, c.at, m)?,
                    }
                }
            }
        }
    }
}
