//! The properties of the `nvgpu` ops of the vocabulary, decoded once for the back ends and
//! the simulator (the ops themselves are [`crate::GpuOp::MmaSync`] and its neighbours; the
//! dialect, `rtile_dialects::nvgpu`, verifies upstream's rules, and these decoders refuse
//! what rtile does not execute).

use rtile::diagnostics::Diagnostic;
use rtile::ir::types::Type;
use rtile::ir::{AttrKind, Context, FloatKind, OpId, TypeKind};

pub use rtile_dialects::nvgpu::async_copy_segments;
use rtile_dialects::nvgpu::mma_shape;

/// The operand element type of an MMA (A and B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaElem {
    F16,
    BF16,
}

/// The accumulator (C and D) element type of an MMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaAcc {
    F32,
    F16,
}

/// A decoded `nvgpu.mma.sync`: `mma.sync.aligned.m16n8k{16,8}.row.col` with f16 or bf16
/// operands and an f32 (or, for f16 operands, f16) accumulator — the sm_80 shapes of PTX ISA
/// §9.7.14.5.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaSync {
    /// `[m, n, k]`: `[16, 8, 16]` or `[16, 8, 8]`.
    pub shape: [usize; 3],
    pub operand: MmaElem,
    pub acc: MmaAcc,
}

fn vec_of(t: &Type) -> Option<(&[i64], &FloatKind)> {
    match t.kind() {
        TypeKind::Vector { shape, elem, .. } => match elem.kind() {
            TypeKind::Float(k) => Some((shape, k)),
            _ => None,
        },
        _ => None,
    }
}

impl MmaSync {
    /// Decodes `op` (an `nvgpu.mma.sync`), refusing shapes and types rtile does not execute.
    pub fn decode(ctx: &Context, op: OpId) -> Result<MmaSync, Diagnostic> {
        let bad = |m: &str| Diagnostic::op_error(ctx, op, m);
        let shape = match mma_shape(ctx, op) {
            Some([16, 8, 16]) => [16, 8, 16],
            Some([16, 8, 8]) => [16, 8, 8],
            _ => {
                return Err(bad(
                    "rtile executes mmaShape [16, 8, 16] and [16, 8, 8] only",
                ));
            }
        };
        let ops = ctx.operands(op);
        if ops.len() != 3 || ctx.results(op).len() != 1 {
            return Err(bad("expects operands A, B, C and one result"));
        }
        let ty = |i: usize| vec_of(ctx.value_type(ops[i]));
        let (Some((sa, ea)), Some((sb, eb)), Some((sc, ec))) = (ty(0), ty(1), ty(2)) else {
            return Err(bad("operands must be vectors of floats"));
        };
        let operand = match (ea, eb) {
            (FloatKind::F16, FloatKind::F16) => MmaElem::F16,
            (FloatKind::BF16, FloatKind::BF16) => MmaElem::BF16,
            _ => return Err(bad("rtile executes f16 or bf16 A and B operands only")),
        };
        let acc = match (ec, operand) {
            (FloatKind::F32, _) => MmaAcc::F32,
            (FloatKind::F16, MmaElem::F16) => MmaAcc::F16,
            _ => {
                return Err(bad(
                    "the accumulator must be f32 (or f16 with f16 operands; PTX ISA mma .bf16 accumulates in f32)",
                ));
            }
        };
        let m = MmaSync {
            shape,
            operand,
            acc,
        };
        let want = |regs: usize| vec![regs as i64, 2];
        if sa != want(m.a_regs()).as_slice()
            || sb != want(m.b_regs()).as_slice()
            || sc != want(m.c_regs()).as_slice()
            || ctx.value_type(ctx.result(op, 0)) != ctx.value_type(ops[2])
        {
            return Err(bad("fragment vector shapes do not match mmaShape"));
        }
        Ok(m)
    }
    /// 32-bit registers (pairs of 16-bit elements) of A per lane: m·k / 64.
    pub fn a_regs(&self) -> usize {
        self.shape[0] * self.shape[2] / 64
    }
    /// Registers of B per lane: k·n / 64.
    pub fn b_regs(&self) -> usize {
        self.shape[2] * self.shape[1] / 64
    }
    /// Rows of C's (and D's) per-lane `vector<2x2>`: m·n / 64 pairs.
    pub fn c_regs(&self) -> usize {
        self.shape[0] * self.shape[1] / 64
    }
}

/// A decoded `nvgpu.ldmatrix`: `numTiles` 8×8 matrices of 16-bit elements, transposed or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdMatrix {
    pub tiles: u32,
    pub transpose: bool,
}

impl LdMatrix {
    /// Decodes `op` (an `nvgpu.ldmatrix`); rtile executes 16-bit elements only (`.b16`).
    pub fn decode(ctx: &Context, op: OpId) -> Result<LdMatrix, Diagnostic> {
        let bad = |m: &str| Diagnostic::op_error(ctx, op, m);
        let tiles = match ctx.inherent_attr(op, "numTiles").and_then(|a| a.as_int()) {
            Some(t @ (1 | 2 | 4)) => t as u32,
            _ => return Err(bad("numTiles must be 1, 2 or 4")),
        };
        let transpose = matches!(
            ctx.inherent_attr(op, "transpose").map(|a| a.kind()),
            Some(AttrKind::Bool(true))
        );
        let ok = ctx.results(op).first().is_some_and(|&r| {
            matches!(vec_of(ctx.value_type(r)), Some((s, FloatKind::F16 | FloatKind::BF16))
                if s == [i64::from(tiles), 2])
        });
        if !ok {
            return Err(bad(
                "rtile executes ldmatrix of f16 or bf16 into vector<numTiles x 2 x elem> only",
            ));
        }
        Ok(LdMatrix { tiles, transpose })
    }
}

/// A decoded `nvgpu.device_async_copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsyncCopy {
    /// Elements copied (4, 8 or 16 bytes' worth).
    pub dst_elements: u32,
    /// `bypassL1`: `cp.async.cg` (16 bytes, L2 only) instead of `cp.async.ca`.
    pub bypass_l1: bool,
    /// Destination indices (operands `1..1 + dst_rank`).
    pub dst_rank: usize,
    /// Source indices (after the source operand).
    pub src_rank: usize,
    /// Whether a `srcElements` operand (the last) is given: the bytes past it are zero-filled.
    pub src_elements: bool,
    /// Bytes per element.
    pub elem_bytes: u32,
}

impl AsyncCopy {
    /// Decodes `op` (an `nvgpu.device_async_copy`).
    pub fn decode(ctx: &Context, op: OpId) -> Result<AsyncCopy, Diagnostic> {
        let bad = |m: &str| Diagnostic::op_error(ctx, op, m);
        let Some([1, dst_rank, 1, src_rank, ne @ (0 | 1)]) = async_copy_segments(ctx, op) else {
            return Err(bad("malformed operandSegmentSizes"));
        };
        let dst_elements = ctx
            .inherent_attr(op, "dstElements")
            .and_then(|a| a.as_int())
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| bad("requires 'dstElements'"))?;
        let elem_bytes = match ctx.value_type(ctx.operands(op)[0]).kind() {
            TypeKind::MemRef { elem, .. } => match elem.kind() {
                TypeKind::Float(FloatKind::F16 | FloatKind::BF16) => 2,
                TypeKind::Float(FloatKind::F32) => 4,
                TypeKind::Integer { width, .. } if width % 8 == 0 && *width <= 32 => width / 8,
                _ => return Err(bad("unsupported element type for cp.async")),
            },
            _ => return Err(bad("destination must be a memref")),
        };
        let bytes = dst_elements * elem_bytes;
        if ![4, 8, 16].contains(&bytes) {
            return Err(bad("a cp.async copies 4, 8 or 16 bytes"));
        }
        Ok(AsyncCopy {
            dst_elements,
            bypass_l1: ctx.inherent_attr(op, "bypassL1").is_some(),
            dst_rank,
            src_rank,
            src_elements: ne == 1,
            elem_bytes,
        })
    }
    /// Bytes copied.
    pub fn bytes(&self) -> u32 {
        self.dst_elements * self.elem_bytes
    }
}

/// `numGroups` of an `nvgpu.device_async_wait`: how many of the most recent groups may still
/// be pending (upstream's default: 0, wait for all).
pub fn async_wait_groups(ctx: &Context, op: OpId) -> Result<u32, Diagnostic> {
    match ctx.inherent_attr(op, "numGroups") {
        None => Ok(0),
        Some(a) => a
            .as_int()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| Diagnostic::op_error(ctx, op, "'numGroups' must be a non-negative i32")),
    }
}
