//! `amdgpu.mfma` (`v_mfma_f32_{32x32x8,16x16x16}{f16,bf16_1k}`, CDNA2 ISA §7 "Matrix
//! Arithmetic Instructions"): a wavefront-collective instruction. Every lane of the 64-lane
//! wave stops at it ([`super::Stop::Warp`]); when all have arrived, it gathers A, B and C
//! from the lanes' fragments with the layouts of [`Mfma::a_coord`], [`Mfma::b_coord`] and
//! [`Mfma::c_coord`], computes `D = A·B + C` and scatters D.

use rtile_gpu_vocab::amdgpu::{Mfma, MfmaElem, WAVE64};

use super::super::ops::Num;
use super::BlockState;

impl BlockState<'_> {
    /// Executes one MFMA for the wave whose first thread is `first`: A and B rounded to
    /// f16/bf16, each product exact in f32 (11- or 8-bit significands), accumulated in f32 in
    /// k order onto C. (The hardware's summation order within a k block is unspecified, so a
    /// GPU's result can differ from this one in the last bits of f32.)
    pub(super) fn mfma(&mut self, first: u32, mfma: &Mfma, [a, b, c, dst]: [u32; 4]) {
        let [m, n, k] = mfma.shape;
        let nregs = self.nregs;
        let elem = match mfma.operand {
            MfmaElem::F16 => Num::F16,
            MfmaElem::BF16 => Num::BF16,
        };
        let at =
            |lane: usize, base: u32, e: usize| (first as usize + lane) * nregs + base as usize + e;
        let (mut am, mut bm, mut cm) = (vec![0.0; m * k], vec![0.0; k * n], vec![0.0; m * n]);
        for lane in 0..WAVE64 {
            for e in 0..4 {
                let (i, j) = mfma.a_coord(lane, e);
                am[i * k + j] = elem.round(self.regs[at(lane, a, e)]);
                let (i, j) = mfma.b_coord(lane, e);
                bm[i * n + j] = elem.round(self.regs[at(lane, b, e)]);
            }
            for e in 0..mfma.c_len() {
                let (i, j) = mfma.c_coord(lane, e);
                cm[i * n + j] = Num::F32.round(self.regs[at(lane, c, e)]);
            }
        }
        let mut d = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut s = cm[i * n + j] as f32;
                for kk in 0..k {
                    s += (am[i * k + kk] as f32) * (bm[kk * n + j] as f32);
                }
                d[i * n + j] = f64::from(s);
            }
        }
        for lane in 0..WAVE64 {
            for e in 0..mfma.c_len() {
                let (i, j) = mfma.c_coord(lane, e);
                self.regs[at(lane, dst, e)] = d[i * n + j];
            }
        }
    }
}
