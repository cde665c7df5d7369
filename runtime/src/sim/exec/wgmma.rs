//! Warpgroup MMA (`nvgpu.warpgroup.mma`, PTX `wgmma.mma_async.sync.aligned` with
//! `wgmma.fence`, `commit_group` and `wait_group` around it: synchronous at the IR level;
//! PTX ISA §9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions",
//! §9.7.15.5.1 "Matrix Descriptor" and the shared-memory matrix layouts) and the
//! accumulator ops around it. Every thread of the warpgroup stops at the MMA
//! ([`super::Stop::Warpgroup`]); when all 128 have arrived (`exec/sched.rs`) it executes
//! once: A (M×K, K-major, or with `transposeA` MN-major: stored K×M, PTX `imm-trans-a` 1)
//! and B (K×N, MN-major with `transposeB`, else K-major: stored N×K) are read
//! from shared memory through the descriptors' swizzled layouts (the tiles' [`SharedTile::byte`]: TMA's box order, then `swizzle_byte`), C is gathered
//! from the threads' accumulator fragments ([`acc_coord`]), `D = A·B + C` is computed with
//! every product exact in f32 (f16 and bf16 significands have 11 and 8 bits) and the sum
//! accumulated in f32 in k order, and D is scattered back. (The hardware's order and grouping
//! of the k sum are unspecified, so a GPU may differ in the last bits of f32.)

use rtile_gpu_vocab::nvgpu_sm90::{SharedTile, acc_coord};

use super::super::compile::{Inst, Sm90Inst};
use super::sched::WARPGROUP;
use super::tma::{base_byte, buffer_bytes};
use super::{BlockState, SimError, SimErrorKind, dyn_byte};
use crate::sim::compile::Space;

impl BlockState<'_> {
    /// Executes the warpgroup-collective instruction at `pc` for the warpgroup whose first
    /// thread is `first` (all 128 wait at it).
    pub(super) fn warpgroup_collective(&mut self, pc: u32, first: u32) -> Result<(), SimError> {
        let k = self.k;
        let Inst::Warpgroup { op, at } = &k.insts[pc as usize] else {
            return Err(self.error(
                SimErrorKind::Other,
                None,
                first,
                "internal: not a warpgroup-collective instruction".into(),
            ));
        };
        let (op, at) = (&**op, *at);
        let (m, n, kk) = (op.mma.m as usize, op.mma.n as usize, op.mma.k as usize);
        // A as M×K and B as K×N row-major, whichever layout (K- or MN-major) each tile has.
        let tile_a = self.gather(op.a, &op.mma.a, (first, at))?;
        let a = row_major(&tile_a, op.mma.a.cols, (m, kk), |i, x| op.mma.a_at(i, x));
        let tile_b = self.gather(op.b, &op.mma.b, (first, at))?;
        let b = row_major(&tile_b, op.mma.b.cols, (kk, n), |x, j| op.mma.b_at(x, j));
        let nregs = self.nregs;
        let per = m * n / WARPGROUP as usize;
        let reg = |t: usize, base: u32, i: usize| (first as usize + t) * nregs + base as usize + i;
        let coord = |t: usize, i: usize| {
            let (r, c) = acc_coord(t as u64, i as u64, n as u64);
            r as usize * n + c as usize
        };
        let mut d = vec![0.0f64; m * n];
        for t in 0..WARPGROUP as usize {
            for i in 0..per {
                d[coord(t, i)] = self.regs[reg(t, op.acc, i)];
            }
        }
        for i in 0..m {
            for j in 0..n {
                let mut s = d[i * n + j] as f32;
                for x in 0..kk {
                    s += (a[i * kk + x] as f32) * (b[x * n + j] as f32);
                }
                d[i * n + j] = f64::from(s);
            }
        }
        for t in 0..WARPGROUP as usize {
            for i in 0..per {
                self.regs[reg(t, op.dst, i)] = d[coord(t, i)];
            }
        }
        if let Some(p) = self.prof.as_deref_mut() {
            p.wgmma(pc, op.mma.steps().len() as u64);
        }
        Ok(())
    }

    /// Reads the operand `tile` from the shared memref `mem` (row-major values), element
    /// `(i, j)` at byte [`SharedTile::byte`] of its buffer: bounds-checked, and checked as a
    /// read of the warpgroup (every thread must have waited for the TMA loads that wrote
    /// it; uninitialised memory and races as the first thread's read).
    fn gather(
        &mut self,
        mem: u32,
        tile: &SharedTile,
        (first, at): (u32, u32),
    ) -> Result<Vec<f64>, SimError> {
        let k = self.k;
        let (rows, cols) = (tile.rows as usize, tile.cols as usize);
        let m = &k.mems[mem as usize];
        let eb = m.elem.bytes() as usize;
        let base = {
            let r = &self.regs[first as usize * self.nregs..(first as usize + 1) * self.nregs];
            base_byte(m, r)
        };
        // The descriptors upstream's lowering builds have base offset 0: a swizzled tile must
        // start where its swizzle pattern does (PTX ISA §9.7.15.5.1, "Matrix Descriptor").
        let repeat = 128 * tile.swizzle.bytes() as usize / 16;
        if repeat > 0 && !base.is_multiple_of(repeat) {
            let msg = format!(
                "warpgroup MMA operand {} starts at byte {base} of shared memory, not {repeat}-byte aligned: its {}-byte swizzled layout's matrix descriptor has base offset 0",
                m.ty,
                tile.swizzle.bytes()
            );
            return Err(self.error(SimErrorKind::Other, Some(at), first, msg));
        }
        let size = buffer_bytes(self, m);
        let mut addrs = Vec::with_capacity(rows * cols);
        let mut cells = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                let addr = tile.byte(base as u64, i as u64, j as u64) as usize;
                if addr + eb > size {
                    let msg = format!(
                        "warpgroup MMA reads element ({i}, {j}) of {} at byte {addr}, past its {size} bytes of shared memory",
                        m.ty
                    );
                    return Err(self.error(SimErrorKind::OutOfBounds, Some(at), first, msg));
                }
                let (buf, cs) = self.cells_at(m, addr);
                cells.extend(cs.map(|c| (buf, c)));
                addrs.push(addr);
            }
        }
        self.check_tma_group(&cells, first..first + WARPGROUP, at)?;
        self.tma_mma_read(first / WARPGROUP, &cells);
        let mut out = Vec::with_capacity(addrs.len());
        for addr in addrs {
            let shown = addr.saturating_sub(base) / eb;
            let (buf, cs) = self.cells_at(m, addr);
            for c in cs {
                self.check_read(buf, c, (first, at), m, shown)?;
            }
            out.push(self.smem_value(m, addr));
        }
        Ok(out)
    }
}

impl BlockState<'_> {
    /// Executes thread `tid`'s per-thread sm_90a instruction `op` at `pc` (registers `r`);
    /// `false` when it is an mbarrier wait that blocks.
    pub(super) fn sm90(
        &mut self,
        tid: u32,
        pc: u32,
        op: &Sm90Inst,
        at: u32,
        r: &mut [f64],
    ) -> Result<bool, SimError> {
        match op {
            Sm90Inst::MbarInit { .. } | Sm90Inst::MbarArrive { .. } | Sm90Inst::MbarWait { .. } => {
                self.mbar_op(tid, op, at, r)
            }
            Sm90Inst::Tma(t) => {
                if t.pred.is_none_or(|p| r[p as usize] != 0.0) {
                    let (bytes, read) = self.tma_load(tid, t, at, r)?;
                    if let Some(p) = self.prof.as_deref_mut() {
                        p.tma(pc, bytes, read);
                    }
                }
                Ok(true)
            }
            Sm90Inst::InitAcc { dst, n } => {
                r[*dst as usize..(*dst + *n) as usize].fill(0.0);
                Ok(true)
            }
            Sm90Inst::MmaStore { src, mem, shape } => {
                self.mma_store(tid, pc, (*src, *mem, *shape), at, r)?;
                Ok(true)
            }
        }
    }

    /// `nvgpu.warpgroup.mma.store`: thread `tid` stores its accumulator fragment (registers
    /// `src`, the `[m, n]` accumulator) at the elements [`acc_coord`] gives, one scalar
    /// store each, as upstream's lowering emits them (and counts them so when profiling).
    fn mma_store(
        &mut self,
        tid: u32,
        pc: u32,
        (src, mem, [m, n]): (u32, u32, [usize; 2]),
        at: u32,
        r: &[f64],
    ) -> Result<(), SimError> {
        let k = self.k;
        let dm = &k.mems[mem as usize];
        let t = (tid % WARPGROUP) as usize;
        for i in 0..m * n / WARPGROUP as usize {
            let (row, col) = acc_coord(t as u64, i as u64, n as u64);
            let off = row as usize * dm.strides[0] as usize + col as usize * dm.strides[1] as usize;
            if let Some(p) = self.prof.as_deref_mut() {
                let byte = match dm.space {
                    Space::DynShared => dyn_byte(dm, r, off),
                    _ => 0,
                };
                p.access_part(pc, tid, dm, (off, 1), i as u32, byte);
            }
            self.store_elem(dm, off, r[src as usize + i], (tid, at), r)?;
        }
        Ok(())
    }
}

/// The `rows × cols` operand as row-major values, element `(i, j)` read from `tile` (a
/// shared tile of `tile_cols` columns) at the cell `at(i, j)` gives.
fn row_major(
    tile: &[f64],
    tile_cols: u64,
    (rows, cols): (usize, usize),
    at: impl Fn(u64, u64) -> (u64, u64),
) -> Vec<f64> {
    let mut out = vec![0.0f64; rows * cols];
    for i in 0..rows {
        for j in 0..cols {
            let (r, c) = at(i as u64, j as u64);
            out[i * cols + j] = tile[(r * tile_cols + c) as usize];
        }
    }
    out
}
