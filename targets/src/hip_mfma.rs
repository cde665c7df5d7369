//! HIP for `amdgpu.mfma`: clang's AMDGPU builtins `__builtin_amdgcn_mfma_f32_32x32x8f16`,
//! `..._16x16x16f16` and the bf16 `..._1k` forms (CDNA2 `v_mfma_*`), taking the 4-element A
//! and B fragments, the accumulator vector and `cbsz`, `abid`, `blgp` (all 0: rtile executes
//! no broadcast or permutation). The bf16 builtins take their sources as `short`
//! vectors, so bf16 fragments are bit-cast. A child module of `hip`, so it extends the
//! emitter.

use rtile::diagnostics::Diagnostic;
use rtile::ir::OpId;
use rtile_gpu_vocab::amdgpu::{Mfma, MfmaElem};

use super::HipEmitter;

/// The `short` vector type the bf16 MFMA builtins take.
const SHORT4: &str = "rt_mfma_short4";

impl HipEmitter<'_> {
    /// `amdgpu.mfma` as its builtin.
    pub(super) fn mfma(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let m = Mfma::decode(self.ctx, op)?;
        let o = self.ctx.operands(op).to_vec();
        let (a, _) = self.val(op, o[0])?;
        let (b, _) = self.val(op, o[1])?;
        let (c, _) = self.val(op, o[2])?;
        let (a, b) = match m.operand {
            MfmaElem::F16 => (a, b),
            MfmaElem::BF16 => {
                if !self
                    .prelude
                    .vector_types
                    .iter()
                    .any(|(n, _, _)| n == SHORT4)
                {
                    self.prelude
                        .vector_types
                        .push((SHORT4.into(), "short".into(), 4));
                }
                (
                    format!("__builtin_bit_cast({SHORT4}, {a})"),
                    format!("__builtin_bit_cast({SHORT4}, {b})"),
                )
            }
        };
        let f = format!("__builtin_amdgcn_mfma_{}", m.suffix());
        self.define(op, &format!("{f}({a}, {b}, {c}, 0, 0, 0)"))
    }
}
