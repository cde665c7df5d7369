//! The properties of `amdgpu.mfma` ([`crate::GpuOp::Mfma`]), decoded once for the back ends
//! and the simulator. The dialect (`rtile_dialects::amdgpu`) verifies upstream's rules; this
//! decoder refuses what rtile does not execute: rtile runs the gfx90a (CDNA2) f16 and bf16
//! MFMAs with f32 accumulation, one block, and no lane broadcast or permutation.

use rtile::diagnostics::Diagnostic;
use rtile::ir::types::Type;
use rtile::ir::{Context, FloatKind, OpId, TypeKind};
use rtile_dialects::amdgpu::{mfma_blgp, mfma_flag, mfma_int};

/// The operand (A and B) element type of an MFMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MfmaElem {
    F16,
    BF16,
}

/// A decoded `amdgpu.mfma`: `v_mfma_f32_32x32x8{f16,bf16_1k}` or
/// `v_mfma_f32_16x16x16{f16,bf16_1k}` (CDNA2 ISA §7.1, "Dependent Instructions" table of
/// the MAI opcodes), each lane holding 4 elements of A and of B and `m·n / 64` of C and D.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mfma {
    /// `[m, n, k]`: `[32, 32, 8]` or `[16, 16, 16]`.
    pub shape: [usize; 3],
    pub operand: MfmaElem,
}

/// The lanes of a wavefront on CDNA (gfx9): MFMA is wave-collective over 64 lanes.
pub const WAVE64: usize = 64;

fn vec1(t: &Type) -> Option<(i64, &FloatKind)> {
    match t.kind() {
        TypeKind::Vector { shape, elem, .. } if shape.len() == 1 => match elem.kind() {
            TypeKind::Float(k) => Some((shape[0], k)),
            _ => None,
        },
        _ => None,
    }
}

impl Mfma {
    /// Decodes `op` (an `amdgpu.mfma`), refusing variants rtile does not execute.
    pub fn decode(ctx: &Context, op: OpId) -> Result<Mfma, Diagnostic> {
        let bad = |m: &str| Diagnostic::op_error(ctx, op, m);
        let int = |n: &str| mfma_int(ctx, op, n);
        let shape = match (int("m"), int("n"), int("k")) {
            (Some(32), Some(32), Some(8)) => [32, 32, 8],
            (Some(16), Some(16), Some(16)) => [16, 16, 16],
            _ => {
                return Err(bad(
                    "rtile executes the MFMA shapes 32x32x8 and 16x16x16 only (gfx90a f16/bf16)",
                ));
            }
        };
        if int("blocks") != Some(1) || int("cbsz") != Some(0) || int("abid") != Some(0) {
            return Err(bad(
                "rtile executes single-block MFMAs without A broadcast (blocks = 1, cbsz = 0, abid = 0)",
            ));
        }
        if mfma_blgp(ctx, op) != Some("none") {
            return Err(bad(
                "rtile executes MFMAs without B lane permutation (blgp = none)",
            ));
        }
        if ["negateA", "negateB", "negateC"]
            .iter()
            .any(|f| mfma_flag(ctx, op, f))
        {
            return Err(bad("negation flags are for double-precision MFMAs"));
        }
        let ops = ctx.operands(op);
        if ops.len() != 3 || ctx.results(op).len() != 1 {
            return Err(bad("expects sourceA, sourceB, destC and one result"));
        }
        let ty = |i: usize| vec1(ctx.value_type(ops[i]));
        let (Some((la, ea)), Some((lb, eb)), Some((lc, ec))) = (ty(0), ty(1), ty(2)) else {
            return Err(bad("operands must be 1-D vectors of floats"));
        };
        let operand = match (ea, eb) {
            (FloatKind::F16, FloatKind::F16) => MfmaElem::F16,
            (FloatKind::BF16, FloatKind::BF16) => MfmaElem::BF16,
            _ => return Err(bad("rtile executes f16 or bf16 MFMA sources only")),
        };
        let m = Mfma { shape, operand };
        if *ec != FloatKind::F32
            || la != 4
            || lb != 4
            || lc != m.c_len() as i64
            || ctx.value_type(ctx.result(op, 0)) != ctx.value_type(ops[2])
        {
            return Err(bad(
                "expected vector<4x..> sources and a vector<m·n/64 x f32> accumulator",
            ));
        }
        Ok(m)
    }

    /// Elements of C and D per lane: `m·n / 64` (16 for 32x32x8, 4 for 16x16x16).
    pub fn c_len(&self) -> usize {
        self.shape[0] * self.shape[1] / WAVE64
    }

    /// The instruction's name without the `v_mfma_` prefix: `f32_32x32x8f16`,
    /// `f32_16x16x16bf16_1k`, ... (the HIP builtin is `__builtin_amdgcn_mfma_` + this, the
    /// LLVM intrinsic `llvm.amdgcn.mfma.` + this with `_` → `.` after `f32`).
    pub fn suffix(&self) -> String {
        let [m, n, k] = self.shape;
        let t = match self.operand {
            MfmaElem::F16 => "f16",
            MfmaElem::BF16 => "bf16_1k",
        };
        format!("f32_{m}x{n}x{k}{t}")
    }

    /// `(row, col)` of element `e` (0..4) of lane `lane`'s A fragment (m×k): lane `l` holds
    /// row `l % m`, columns `4·(l / m) + e` (AMD matrix instruction calculator, "register
    /// layout" of `v_mfma_f32_32x32x8f16` / `v_mfma_f32_16x16x16f16`).
    pub fn a_coord(&self, lane: usize, e: usize) -> (usize, usize) {
        let m = self.shape[0];
        (lane % m, 4 * (lane / m) + e)
    }

    /// `(k, col)` of element `e` of lane `lane`'s B fragment (k×n): column `l % n`, rows
    /// `4·(l / n) + e`.
    pub fn b_coord(&self, lane: usize, e: usize) -> (usize, usize) {
        let n = self.shape[1];
        (4 * (lane / n) + e, lane % n)
    }

    /// `(row, col)` of element `e` of lane `lane`'s C or D fragment (m×n): column `l % n`;
    /// 32x32: row `8·(e / 4) + 4·(l / 32) + e % 4` (groups of four rows, the two half-waves
    /// interleaved); 16x16: row `4·(l / 16) + e`.
    pub fn c_coord(&self, lane: usize, e: usize) -> (usize, usize) {
        let n = self.shape[1];
        let row = if self.shape[0] == 32 {
            8 * (e / 4) + 4 * (lane / 32) + e % 4
        } else {
            4 * (lane / 16) + e
        };
        (row, lane % n)
    }
}
