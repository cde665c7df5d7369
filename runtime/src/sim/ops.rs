//! Scalar semantics of the `arith` and `math` ops the simulator executes, with upstream
//! meaning: [`scalar_fn`] gives each [`GpuOp`] its function, compiled into function pointers
//! so the hot loop never looks an op up.
//!
//! Registers hold every scalar as an f64: floats rounded to their type after each op (f32
//! results are exact f32 values), integers and `index` exactly (the kernels' integers stay far
//! below 2^53), i1 as 0/1.

use std::collections::HashMap;
use std::sync::OnceLock;

use rtile::ir::types::{FloatKind, Type};
use rtile::ir::{FloatFormat, TypeKind};
use rtile_dialects::te::model::ElemType;
use rtile_gpu_vocab::attrs::cmpi_from_value;
use rtile_gpu_vocab::{CmpFPredicate, CmpIPredicate, GpuOp, MathFn};

use crate::interp::erf;
use crate::round::round_to;

/// A scalar type as the simulator rounds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    F64,
    F32,
    F16,
    BF16,
    /// Signless integer of a width (1..=64); `index` is 64.
    Int(u32),
}

impl Num {
    /// From a builtin scalar type.
    pub fn of(t: &Type) -> Option<Num> {
        Some(match t.kind() {
            TypeKind::Float(FloatKind::F64) => Num::F64,
            TypeKind::Float(FloatKind::F32) => Num::F32,
            TypeKind::Float(FloatKind::F16) => Num::F16,
            TypeKind::Float(FloatKind::BF16) => Num::BF16,
            TypeKind::Integer { width, .. } if *width <= 64 => Num::Int(*width),
            TypeKind::Index => Num::Int(64),
            _ => return None,
        })
    }
    /// Bytes of one element in memory (`i1` takes a byte, `index` 8 as on 64-bit targets).
    pub fn bytes(self) -> u32 {
        match self {
            Num::F64 => 8,
            Num::F32 => 4,
            Num::F16 | Num::BF16 => 2,
            Num::Int(w) => w.div_ceil(8),
        }
    }
    /// The little-endian bytes of `x` (a value of this type) in memory; the first
    /// [`Self::bytes`] are meaningful.
    pub fn encode(self, x: f64) -> [u8; 8] {
        match self {
            Num::F64 => x.to_bits().to_le_bytes(),
            Num::F32 => u64::from((x as f32).to_bits()).to_le_bytes(),
            Num::F16 => FloatFormat::F16.encode(x).to_le_bytes(),
            Num::BF16 => FloatFormat::BF16.encode(x).to_le_bytes(),
            Num::Int(_) => (x as i64).to_le_bytes(),
        }
    }
    /// The value stored in `b` (little-endian, [`Self::bytes`] long).
    pub fn decode(self, b: &[u8]) -> f64 {
        let mut w = [0u8; 8];
        let n = b.len().min(8);
        w[..n].copy_from_slice(&b[..n]);
        let raw = u64::from_le_bytes(w);
        match self {
            Num::F64 => f64::from_bits(raw),
            Num::F32 => f64::from(f32::from_bits(raw as u32)),
            Num::F16 => FloatFormat::F16.decode(raw & 0xffff),
            Num::BF16 => FloatFormat::BF16.decode(raw & 0xffff),
            // Sign-extend from the stored bytes, then wrap to the width as registers hold it.
            Num::Int(_) => {
                let s = 64 - 8 * n as u32;
                let v = if s >= 64 { 0 } else { ((raw << s) as i64) >> s };
                self.round(v as f64)
            }
        }
    }
    /// True for float types.
    pub fn is_float(self) -> bool {
        !matches!(self, Num::Int(_))
    }
    /// Rounds or wraps `x` to this type.
    pub fn round(self, x: f64) -> f64 {
        match self {
            Num::F64 => x,
            Num::F32 => x as f32 as f64,
            Num::F16 => round_to(x, ElemType::F16),
            Num::BF16 => round_to(x, ElemType::BF16),
            Num::Int(64) => x,
            Num::Int(1) => ((x as i64) & 1) as f64,
            Num::Int(w) => {
                let s = 64 - w;
                (((x as i64) << s) >> s) as f64
            }
        }
    }
    /// The value as an unsigned integer of this width.
    fn unsigned(self, x: f64) -> u64 {
        let v = x as i64 as u64;
        match self {
            Num::Int(w) if w < 64 => v & ((1u64 << w) - 1),
            _ => v,
        }
    }
}

/// One compiled scalar op: operands (up to 3), the operand type, an auxiliary integer (a
/// comparison predicate) → the unrounded result; the caller rounds to the result type.
pub type OpFn = fn(&[f64; 3], Num, i64) -> f64;

fn fmax(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}
fn fmin(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}
/// `arith.cmpi` with the predicate number `p` (decoding refuses unknown numbers before a
/// kernel runs; a direct call with one compares as `uge`).
fn cmpi(a: f64, b: f64, t: Num, p: i64) -> bool {
    use CmpIPredicate as P;
    let (ua, ub) = (t.unsigned(a), t.unsigned(b));
    match cmpi_from_value(p).unwrap_or(P::Uge) {
        P::Eq => a == b,
        P::Ne => a != b,
        P::Slt => a < b,
        P::Sle => a <= b,
        P::Sgt => a > b,
        P::Sge => a >= b,
        P::Ult => ua < ub,
        P::Ule => ua <= ub,
        P::Ugt => ua > ub,
        P::Uge => ua >= ub,
    }
}

/// `arith.cmpf` with the predicate number `p` (decoding refuses unknown numbers before a
/// kernel runs; a direct call with one is `true`).
fn cmpf(a: f64, b: f64, p: i64) -> bool {
    use CmpFPredicate as P;
    let uno = a.is_nan() || b.is_nan();
    match CmpFPredicate::from_value(p).unwrap_or(P::AlwaysTrue) {
        P::AlwaysFalse => false,
        P::Oeq => !uno && a == b,
        P::Ogt => !uno && a > b,
        P::Oge => !uno && a >= b,
        P::Olt => !uno && a < b,
        P::Ole => !uno && a <= b,
        P::One => !uno && a != b,
        P::Ord => !uno,
        P::Ueq => uno || a == b,
        P::Ugt => uno || a > b,
        P::Uge => uno || a >= b,
        P::Ult => uno || a < b,
        P::Ule => uno || a <= b,
        P::Une => uno || a != b,
        P::Uno => uno,
        P::AlwaysTrue => true,
    }
}
fn b(x: bool) -> f64 {
    if x { 1.0 } else { 0.0 }
}
fn sdiv(a: f64, c: f64) -> f64 {
    let (a, c) = (a as i64, c as i64);
    if c == 0 {
        0.0
    } else {
        a.wrapping_div(c) as f64
    }
}
fn srem(a: f64, c: f64) -> f64 {
    let (a, c) = (a as i64, c as i64);
    if c == 0 {
        0.0
    } else {
        a.wrapping_rem(c) as f64
    }
}

/// The scalar function of `g`: `None` for the ops [`super::compile`] turns into
/// instructions of their own (memory, control flow, ids) and for those the simulator does not
/// execute. The match has no wildcard arm: a new [`GpuOp`] variant does not compile until it
/// is given semantics (or listed as not executed) here.
pub fn scalar_fn(g: GpuOp) -> Option<OpFn> {
    use GpuOp as G;
    let f: OpFn = match g {
        G::AddF => |a, _, _| a[0] + a[1],
        G::SubF => |a, _, _| a[0] - a[1],
        G::MulF => |a, _, _| a[0] * a[1],
        G::DivF => |a, _, _| a[0] / a[1],
        G::RemF => |a, _, _| a[0] % a[1],
        G::NegF => |a, _, _| -a[0],
        G::MaximumF => |a, _, _| fmax(a[0], a[1]),
        G::MinimumF => |a, _, _| fmin(a[0], a[1]),
        G::MaxNumF => |a, _, _| a[0].max(a[1]),
        G::MinNumF => |a, _, _| a[0].min(a[1]),
        G::AddI => |a, _, _| (a[0] as i64).wrapping_add(a[1] as i64) as f64,
        G::SubI => |a, _, _| (a[0] as i64).wrapping_sub(a[1] as i64) as f64,
        G::MulI => |a, _, _| (a[0] as i64).wrapping_mul(a[1] as i64) as f64,
        G::DivSI => |a, _, _| sdiv(a[0], a[1]),
        G::RemSI => |a, _, _| srem(a[0], a[1]),
        G::DivUI => |a, t, _| {
            let (x, y) = (t.unsigned(a[0]), t.unsigned(a[1]));
            x.checked_div(y).map_or(0.0, |q| q as f64)
        },
        G::RemUI => |a, t, _| {
            let (x, y) = (t.unsigned(a[0]), t.unsigned(a[1]));
            x.checked_rem(y).map_or(0.0, |q| q as f64)
        },
        G::FloorDivSI => |a, _, _| {
            let (x, y) = (a[0] as i64, a[1] as i64);
            if y == 0 {
                return 0.0;
            }
            let q = x.wrapping_div(y);
            (if x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            }) as f64
        },
        G::CeilDivSI => |a, _, _| {
            let (x, y) = (a[0] as i64, a[1] as i64);
            if y == 0 {
                return 0.0;
            }
            let q = x.wrapping_div(y);
            (if x.wrapping_rem(y) != 0 && ((x < 0) == (y < 0)) {
                q + 1
            } else {
                q
            }) as f64
        },
        G::MaxSI => |a, _, _| a[0].max(a[1]),
        G::MinSI => |a, _, _| a[0].min(a[1]),
        G::AndI => |a, _, _| ((a[0] as i64) & (a[1] as i64)) as f64,
        G::OrI => |a, _, _| ((a[0] as i64) | (a[1] as i64)) as f64,
        G::XOrI => |a, _, _| ((a[0] as i64) ^ (a[1] as i64)) as f64,
        G::CmpI(_) => |a, t, p| b(cmpi(a[0], a[1], t, p)),
        G::CmpF(_) => |a, _, p| b(cmpf(a[0], a[1], p)),
        G::Select => |a, _, _| if a[0] != 0.0 { a[1] } else { a[2] },
        G::IndexCastUI => |a, t, _| t.unsigned(a[0]) as f64,
        G::ExtUI => |a, t, _| t.unsigned(a[0]) as f64,
        G::UIToFP => |a, t, _| t.unsigned(a[0]) as f64,
        G::FPToSI => |a, _, _| {
            if a[0].is_nan() { 0.0 } else { a[0].trunc() }
        },
        G::FPToUI => |a, _, _| {
            if a[0].is_nan() {
                0.0
            } else {
                a[0].trunc().max(0.0)
            }
        },
        G::Math(MathFn::Exp) => |a, _, _| a[0].exp(),
        G::Math(MathFn::Exp2) => |a, _, _| a[0].exp2(),
        G::Math(MathFn::Log) => |a, _, _| a[0].ln(),
        G::Math(MathFn::Log2) => |a, _, _| a[0].log2(),
        G::Math(MathFn::Sqrt) => |a, _, _| a[0].sqrt(),
        G::Math(MathFn::Rsqrt) => |a, _, _| 1.0 / a[0].sqrt(),
        G::Math(MathFn::Tanh) => |a, _, _| a[0].tanh(),
        G::Math(MathFn::Erf) => |a, _, _| erf(a[0]),
        G::Math(MathFn::AbsF) => |a, _, _| a[0].abs(),
        G::Math(MathFn::AbsI) => |a, _, _| a[0].abs(),
        G::Math(MathFn::Sin) => |a, _, _| a[0].sin(),
        G::Math(MathFn::Cos) => |a, _, _| a[0].cos(),
        G::Math(MathFn::PowF) => |a, _, _| a[0].powf(a[1]),
        G::IndexCast | G::ExtSI | G::TruncI | G::ExtF | G::TruncF | G::SIToFP => |a, _, _| a[0],
        G::ThreadId
        | G::BlockId
        | G::BlockDim
        | G::GridDim
        | G::GlobalId
        | G::LaneId
        | G::Barrier
        | G::Shuffle
        | G::DynamicSharedMemory
        | G::Return
        | G::For
        | G::If
        | G::Yield
        | G::While
        | G::Condition
        | G::AtomicRmw
        | G::Fence
        | G::Load
        | G::Store
        | G::MmaSync
        | G::LdMatrix
        | G::AsyncCopy
        | G::AsyncCreateGroup
        | G::AsyncWait
        | G::MbarrierCreate
        | G::MbarrierInit
        | G::MbarrierArrive
        | G::MbarrierArriveExpectTx
        | G::MbarrierTryWaitParity
        | G::TmaAsyncLoad
        | G::TmaPrefetch
        | G::WarpgroupDescriptor
        | G::WarpgroupInitAccumulator
        | G::WarpgroupMma
        | G::WarpgroupMmaStore
        | G::Mfma
        | G::Alloca
        | G::Alloc
        | G::Dealloc
        | G::View
        | G::Cast
        | G::CollapseShape
        | G::Dim
        | G::VectorLoad
        | G::VectorStore
        | G::Extract
        | G::ExtractElement
        | G::Insert
        | G::InsertElement
        | G::Broadcast
        | G::Splat
        | G::VectorFma
        | G::Constant
        | G::CeilDivUI
        | G::ShLI
        | G::ShRSI
        | G::ShRUI
        | G::MaxUI
        | G::MinUI
        | G::Bitcast
        | G::Math(
            MathFn::Fma
            | MathFn::Floor
            | MathFn::Ceil
            | MathFn::Round
            | MathFn::RoundEven
            | MathFn::Trunc
            | MathFn::CopySign,
        ) => return None,
    };
    Some(f)
}

/// The scalar functions by op name (`arith.cmpi` and `arith.cmpf` take the predicate number
/// as their third argument), built once from [`scalar_fn`].
pub fn table() -> &'static HashMap<&'static str, OpFn> {
    static T: OnceLock<HashMap<&'static str, OpFn>> = OnceLock::new();
    T.get_or_init(|| {
        GpuOp::all_named()
            .chain([
                GpuOp::CmpI(CmpIPredicate::Eq),
                GpuOp::CmpF(CmpFPredicate::AlwaysFalse),
            ])
            .filter_map(|g| Some((g.name(), scalar_fn(g)?)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_and_float_semantics() {
        let t = table();
        let i32t = Num::Int(32);
        assert_eq!(
            i32t.round(t["arith.addi"](&[2147483647.0, 1.0, 0.0], i32t, 0)),
            -2147483648.0
        );
        assert_eq!(t["arith.divsi"](&[-7.0, 2.0, 0.0], i32t, 0), -3.0);
        assert_eq!(t["arith.remsi"](&[-7.0, 2.0, 0.0], i32t, 0), -1.0);
        assert_eq!(t["arith.floordivsi"](&[-7.0, 2.0, 0.0], i32t, 0), -4.0);
        assert_eq!(t["arith.ceildivsi"](&[7.0, 2.0, 0.0], i32t, 0), 4.0);
        assert_eq!(t["arith.cmpi"](&[-1.0, 1.0, 0.0], i32t, 2), 1.0); // slt
        assert_eq!(t["arith.cmpi"](&[-1.0, 1.0, 0.0], i32t, 6), 0.0); // ult
        assert!(t["arith.maximumf"](&[f64::NAN, 1.0, 0.0], Num::F32, 0).is_nan());
        assert_eq!(t["arith.cmpf"](&[f64::NAN, 1.0, 0.0], Num::F32, 13), 1.0); // une
        assert_eq!(Num::F32.round(0.1), 0.1f32 as f64);
    }

    #[test]
    fn memory_encoding_round_trips_and_matches_ieee_bits() {
        // Values of each type survive a trip through memory bytes.
        let cases: &[(Num, &[f64])] = &[
            (Num::F64, &[0.1, -3.5, f64::INFINITY]),
            (Num::F32, &[0.1f32 as f64, -3.5, 1e-40f32 as f64]),
            // f16: normals, the largest, the smallest subnormal, a subnormal, -0, inf.
            (
                Num::F16,
                &[
                    1.0,
                    -2.5,
                    65504.0,
                    5.960464477539063e-8,
                    3.0517578125e-5,
                    -0.0,
                    f64::NEG_INFINITY,
                ],
            ),
            (Num::BF16, &[1.0, -2.5, 3.0e38f32 as f64]),
            (Num::Int(8), &[-128.0, 127.0, -1.0]),
            (Num::Int(32), &[-2147483648.0, 2147483647.0]),
            (Num::Int(1), &[0.0, 1.0]),
        ];
        for &(n, vs) in cases {
            for &v in vs {
                let v = n.round(v);
                let b = n.encode(v);
                let back = n.decode(&b[..n.bytes() as usize]);
                assert!(
                    back == v && back.is_sign_negative() == v.is_sign_negative(),
                    "{n:?} {v} -> {back}"
                );
            }
        }
        assert!(Num::F16.decode(&Num::F16.encode(f64::NAN)[..2]).is_nan());
        // IEEE bit patterns: 1.0 as f16 is 0x3C00, as bf16 0x3F80.
        assert_eq!(Num::F16.encode(1.0)[..2], [0x00, 0x3C]);
        assert_eq!(Num::BF16.encode(1.0)[..2], [0x80, 0x3F]);
        assert_eq!(Num::F16.encode(5.960464477539063e-8)[..2], [0x01, 0x00]);
        assert_eq!(Num::Int(32).encode(-1.0)[..4], [0xFF; 4]);
    }
}
