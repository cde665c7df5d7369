//! `amdgpu.mfma` as the AMDGPU intrinsics `llvm.amdgcn.mfma.f32.32x32x8f16`,
//! `llvm.amdgcn.mfma.f32.16x16x16f16` and their bf16 forms `....bf16.1k` (as upstream's
//! `convert-amdgpu-to-rocdl` selects them for gfx90a): `(<4 x half> a, <4 x half> b,
//! <N x float> c, i32 cbsz, i32 abid, i32 blgp) -> <N x float>`; the bf16 intrinsics take
//! `<4 x i16>` sources, so bf16 fragments are bit-cast. The NVPTX flavor refuses the op, and
//! [`check_arch`] refuses an AMDGPU processor without matrix cores.

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, WalkOrder};
use rtile_gpu_vocab::amdgpu::{Mfma, MfmaElem};

use super::{Flavor, FnEmitter};

/// Refuses a module with `amdgpu.mfma` for a processor without the instruction: the f16
/// MFMAs are CDNA1+ (gfx908, gfx90a, gfx94x, gfx950), the bf16 `_1k` ones CDNA2+ (not
/// gfx908). LLVM's instruction selection would abort on them elsewhere.
pub fn check_arch(ctx: &Context, module: OpId, gfx: &str) -> Result<(), Diagnostic> {
    let cdna1 = gfx == "gfx908";
    let cdna2_up = matches!(gfx, "gfx90a" | "gfx940" | "gfx941" | "gfx942" | "gfx950");
    let mut bad = None;
    ctx.walk(module, WalkOrder::PreOrder, &mut |_, op| {
        if bad.is_some() || ctx.op_name(op) != "amdgpu.mfma" {
            return;
        }
        let bf16 = Mfma::decode(ctx, op).is_ok_and(|m| m.operand == MfmaElem::BF16);
        if !(cdna2_up || (cdna1 && !bf16)) {
            bad = Some(op);
        }
    });
    match bad {
        Some(op) => Err(Diagnostic::op_error(
            ctx,
            op,
            format!(
                "needs an AMD CDNA processor with this MFMA (f16: gfx908, gfx90a, gfx94x, gfx950; bf16_1k: gfx90a or newer); the target is {gfx}"
            ),
        )),
        None => Ok(()),
    }
}

impl FnEmitter<'_> {
    /// `amdgpu.mfma`.
    pub(super) fn mfma(&mut self, op: OpId) -> Result<(), Diagnostic> {
        if self.opts.flavor != Flavor::Amdgpu {
            return Err(self.err(
                op,
                "'amdgpu.mfma' is an AMD matrix-core op: the NVPTX target does not translate it (translate with --to-amdgpu or --to-hip)",
            ));
        }
        let ctx = self.ctx;
        let m = Mfma::decode(ctx, op)?;
        let ops = ctx.operands(op).to_vec();
        let (a, aty) = self.scalar(op, ops[0])?;
        let (b, bty) = self.scalar(op, ops[1])?;
        let (c, cty) = self.scalar(op, ops[2])?;
        let (a, b, sty) = match m.operand {
            MfmaElem::F16 => (a, b, aty),
            MfmaElem::BF16 => {
                let a = self.assign(&format!("bitcast {aty} {a} to <4 x i16>"));
                let b = self.assign(&format!("bitcast {bty} {b} to <4 x i16>"));
                (a, b, "<4 x i16>".to_string())
            }
        };
        let [mm, n, k] = m.shape;
        let t = match m.operand {
            MfmaElem::F16 => "f16",
            MfmaElem::BF16 => "bf16.1k",
        };
        let name = format!("llvm.amdgcn.mfma.f32.{mm}x{n}x{k}{t}");
        let d = self.call(
            &cty,
            &name,
            &[
                (sty.as_str(), a.as_str()),
                (sty.as_str(), b.as_str()),
                (cty.as_str(), c.as_str()),
                ("i32", "0"),
                ("i32", "0"),
                ("i32", "0"),
            ],
            "",
        );
        self.set(ctx.result(op, 0), d, cty);
        Ok(())
    }
}
