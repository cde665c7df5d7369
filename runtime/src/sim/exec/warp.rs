//! Warp-collective instructions: `gpu.shuffle` (PTX `shfl.sync`, see [`BlockState::shuffle`]),
//! `nvgpu.mma.sync` and `nvgpu.ldmatrix` with the PTX ISA's
//! exact per-lane fragment layouts. Every lane of the warp stops at the instruction
//! ([`super::Stop::Warp`]); when all 32 have arrived, it executes once, reading and writing
//! each lane's registers.
//!
//! Layouts (PTX ISA 8.x §9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point
//! type", §9.7.14.5.7 for m16n8k8, §9.7.14.5.15 "ldmatrix"), with `g = lane / 4` (groupID)
//! and `q = lane % 4` (threadID_in_group); a fragment `vector<R x 2>` holds register `r`'s
//! two 16-bit halves `h`:
//! - A (m16×k16, row): row `g + 8·(r & 1)`, column `2q + h + 8·(r >> 1)`; m16n8k8 (two
//!   registers): row `g + 8r`, column `2q + h`.
//! - B (k16×n8, col): row (k) `2q + h + 8r`, column (n) `g`.
//! - C and D (m16×n8): row `g + 8r`, column `2q + h`.
//! - ldmatrix: lanes `8i .. 8i+7` give the addresses of rows `0..7` of matrix `i`; lane `l`
//!   receives in register `i` row `l / 4`, columns `2(l % 4) + h` of matrix `i` (with
//!   `.trans`, the element at row `2(l % 4) + h`, column `l / 4`).

use std::ops::Range;

use rtile_gpu_vocab::nvgpu::{MmaAcc, MmaElem, MmaSync};

use super::super::compile::{Inst, Space, WarpInst};
use super::super::ops::Num;
use super::{BlockState, SimError, SimErrorKind, WARP, dyn_byte};

/// `(row, col)` of half `h` of register `r` of lane `lane`'s A fragment.
fn a_coord(mma: &MmaSync, lane: usize, r: usize, h: usize) -> (usize, usize) {
    let (g, q) = (lane / 4, lane % 4);
    if mma.shape[2] == 16 {
        (g + 8 * (r & 1), 2 * q + h + 8 * (r >> 1))
    } else {
        (g + 8 * r, 2 * q + h)
    }
}

/// `(k, n)` of half `h` of register `r` of lane `lane`'s B fragment.
fn b_coord(lane: usize, r: usize, h: usize) -> (usize, usize) {
    (2 * (lane % 4) + h + 8 * r, lane / 4)
}

/// `(row, col)` of half `h` of register `r` of lane `lane`'s C or D fragment.
fn c_coord(lane: usize, r: usize, h: usize) -> (usize, usize) {
    (lane / 4 + 8 * r, 2 * (lane % 4) + h)
}

impl BlockState<'_> {
    /// Executes the warp-collective instruction at `pc` for the warp of threads `lanes`,
    /// whose lanes stopped where `waiting` says (all must be at `pc`).
    pub(super) fn warp_collective(
        &mut self,
        pc: u32,
        lanes: Range<u32>,
        waiting: &[Option<u32>],
    ) -> Result<(), SimError> {
        let Inst::Warp { op, at } = &self.k.insts[pc as usize] else {
            return Err(self.error(
                SimErrorKind::Other,
                None,
                lanes.start,
                "internal: not a warp-collective instruction".into(),
            ));
        };
        let at = *at;
        let wave = self.k.wave;
        if lanes.len() != wave as usize {
            let what = if wave == WARP { "warp" } else { "wavefront" };
            let msg = format!(
                "warp-collective op needs a full {what} of {wave} threads; this {what} has {} (block of {} threads)",
                lanes.len(),
                self.launch.block.iter().product::<u32>()
            );
            return Err(self.error(SimErrorKind::WarpDivergence, Some(at), lanes.start, msg));
        }
        if let Some(i) = waiting.iter().position(|w| *w != Some(pc)) {
            let msg = format!(
                "warp divergence: lane {i} does not reach this warp-collective op with the other lanes of its warp (every lane must execute it together)"
            );
            return Err(self.error(
                SimErrorKind::WarpDivergence,
                Some(at),
                lanes.start + i as u32,
                msg,
            ));
        }
        match &**op {
            WarpInst::Mma { mma, a, b, c, dst } => {
                self.mma(lanes.start, mma, [*a, *b, *c, *dst]);
                Ok(())
            }
            WarpInst::Mfma { mfma, a, b, c, dst } => {
                self.mfma(lanes.start, mfma, [*a, *b, *c, *dst]);
                Ok(())
            }
            WarpInst::LdMatrix { ld, mem, idx, dst } => self.ldmatrix(
                (lanes.start, pc),
                (ld.tiles, ld.transpose),
                (*mem, idx),
                *dst,
                at,
            ),
            WarpInst::Shuffle {
                mode,
                val,
                off,
                width,
                dst,
                valid,
            } => {
                self.shuffle(lanes.start, *mode, [*val, *off, *width], (*dst, *valid));
                Ok(())
            }
        }
    }

    /// `mma.sync.aligned.m16n8k{16,8}.row.col`: gathers A, B and C from the lanes' fragments,
    /// computes `D = A·B + C` with the operands rounded to f16/bf16, each product exact in
    /// f32 (11- or 8-bit significands), and the sum accumulated in f32 in k order, then
    /// scatters D. (Hardware adds the k products in an unspecified order and grouping, so a
    /// GPU's result can differ from this one in the last bits of f32.)
    fn mma(&mut self, first: u32, mma: &MmaSync, [a, b, c, dst]: [u32; 4]) {
        let [m, n, k] = mma.shape;
        let nregs = self.nregs;
        let reg = |regs: &[f64], lane: usize, base: u32, r: usize, h: usize| {
            regs[(first as usize + lane) * nregs + base as usize + 2 * r + h]
        };
        let elem = match mma.operand {
            MmaElem::F16 => Num::F16,
            MmaElem::BF16 => Num::BF16,
        };
        let acc = match mma.acc {
            MmaAcc::F32 => Num::F32,
            MmaAcc::F16 => Num::F16,
        };
        let (mut am, mut bm, mut cm) = (vec![0.0; m * k], vec![0.0; k * n], vec![0.0; m * n]);
        for lane in 0..WARP as usize {
            for h in 0..2 {
                for r in 0..mma.a_regs() {
                    let (i, j) = a_coord(mma, lane, r, h);
                    am[i * k + j] = elem.round(reg(&self.regs, lane, a, r, h));
                }
                for r in 0..mma.b_regs() {
                    let (i, j) = b_coord(lane, r, h);
                    bm[i * n + j] = elem.round(reg(&self.regs, lane, b, r, h));
                }
                for r in 0..mma.c_regs() {
                    let (i, j) = c_coord(lane, r, h);
                    cm[i * n + j] = acc.round(reg(&self.regs, lane, c, r, h));
                }
            }
        }
        let mut d = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut s = cm[i * n + j] as f32;
                for kk in 0..k {
                    s += (am[i * k + kk] as f32) * (bm[kk * n + j] as f32);
                }
                d[i * n + j] = acc.round(f64::from(s));
            }
        }
        for lane in 0..WARP as usize {
            for r in 0..mma.c_regs() {
                for h in 0..2 {
                    let (i, j) = c_coord(lane, r, h);
                    self.regs[(first as usize + lane) * nregs + dst as usize + 2 * r + h] =
                        d[i * n + j];
                }
            }
        }
    }

    /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.b16`: lane `8i + r` supplies the address of
    /// row `r` of matrix `i` (8 consecutive 16-bit elements, 16-byte aligned, in shared
    /// memory); each row is read as that lane's access (race, initialisation and pending
    /// cp.async checks) and, when profiling, as that lane's 16-byte shared access (so a
    /// quarter-warp's 8 rows of one matrix are one wavefront unless they share banks), and the
    /// matrices are distributed as the module doc says.
    fn ldmatrix(
        &mut self,
        (first, pc): (u32, u32),
        (tiles, trans): (u32, bool),
        (mem, idx): (u32, &[u32]),
        dst: u32,
        at: u32,
    ) -> Result<(), SimError> {
        let k = self.k;
        let m = &k.mems[mem as usize];
        let nregs = self.nregs;
        // mats[i][row][col]
        let mut mats = vec![[[0.0f64; 8]; 8]; tiles as usize];
        let regs = std::mem::take(&mut self.regs);
        let result = (|| {
            for (i, mat) in mats.iter_mut().enumerate() {
                for (row, vals) in mat.iter_mut().enumerate() {
                    let tid = first + (8 * i + row) as u32;
                    let r = &regs[tid as usize * nregs..(tid as usize + 1) * nregs];
                    let off = self.offset(m, idx, 8, r, (at, tid, "ldmatrix row read"))?;
                    let byte = match m.space {
                        Space::DynShared => dyn_byte(m, r, off),
                        _ => off * m.elem.bytes() as usize,
                    };
                    self.profile_access(pc, tid, m, (off, 8), r);
                    if !byte.is_multiple_of(16) {
                        let msg = format!(
                            "ldmatrix row address of {} at [{}] is not 16-byte aligned (byte {byte})",
                            m.ty,
                            Self::index_text(m, off)
                        );
                        return Err(self.error(SimErrorKind::Other, Some(at), tid, msg));
                    }
                    for (c, v) in vals.iter_mut().enumerate() {
                        *v = match m.space {
                            Space::DynShared => {
                                let b = dyn_byte(m, r, off + c);
                                self.dyn_read(b, off + c, tid, at, m)?
                            }
                            _ => self.shared_read(m.buf, off + c, tid, at, m)?,
                        };
                    }
                }
            }
            Ok(())
        })();
        self.regs = regs;
        result?;
        for lane in 0..WARP as usize {
            for (i, mat) in mats.iter().enumerate() {
                for h in 0..2 {
                    let (row, col) = if trans {
                        (2 * (lane % 4) + h, lane / 4)
                    } else {
                        (lane / 4, 2 * (lane % 4) + h)
                    };
                    self.regs[(first as usize + lane) * nregs + dst as usize + 2 * i + h] =
                        mat[row][col];
                }
            }
        }
        Ok(())
    }

    /// `shfl.sync.{bfly,down,up,idx}.b32` with a full mask and `c = ((32 - width) << 8) | 31`
    /// (`up`: `<< 8` only), as `gpu.shuffle` is translated to PTX; per lane, the PTX ISA's
    /// pseudo-code (§9.7.9.6 "shfl.sync"): `segmask = c[12:8]`,
    /// `maxLane = (lane & segmask) | (c[4:0] & ~segmask)`, `minLane = lane & segmask`; `up`:
    /// `j = lane - b`, valid when `j >= maxLane`; `down`: `j = lane + b`, `bfly`:
    /// `j = lane ^ b`, `idx`: `j = minLane | (b & ~segmask)`, valid when `j <= maxLane`; an
    /// invalid lane reads its own value.
    fn shuffle(
        &mut self,
        first: u32,
        mode: u8,
        [val, off, width]: [u32; 3],
        out: (u32, Option<u32>),
    ) {
        let nregs = self.nregs;
        let reg =
            |regs: &[f64], lane: usize, r: u32| regs[(first as usize + lane) * nregs + r as usize];
        let vals: Vec<f64> = (0..WARP as usize)
            .map(|l| reg(&self.regs, l, val))
            .collect();
        for lane in 0..WARP as usize {
            let b = (reg(&self.regs, lane, off) as i64) & 31;
            let w = reg(&self.regs, lane, width) as i64;
            let segmask = (32 - w) & 31;
            let clamp = if mode == 2 { 0 } else { 31 };
            let l = lane as i64;
            let max_lane = (l & segmask) | (clamp & !segmask);
            let min_lane = l & segmask;
            let (j, ok) = match mode {
                2 => (l - b, l - b >= max_lane),
                1 => (l + b, l + b <= max_lane),
                0 => (l ^ b, (l ^ b) <= max_lane),
                _ => {
                    let j = min_lane | (b & !segmask);
                    (j, j <= max_lane)
                }
            };
            let src = if ok && (0..32).contains(&j) {
                j as usize
            } else {
                lane
            };
            let base = (first as usize + lane) * nregs;
            self.regs[base + out.0 as usize] = vals[src];
            if let Some(v) = out.1 {
                self.regs[base + v as usize] = f64::from(u8::from(ok));
            }
        }
    }
}
