//! Scalar semantics of the `arith` and `math` ops the simulator executes, with upstream
//! meaning, dispatched through a table keyed by op name (built once, then compiled into
//! function pointers so the hot loop never looks a name up).
//!
//! Registers hold every scalar as an f64: floats rounded to their type after each op (f32
//! results are exact f32 values), integers and `index` exactly (the kernels' integers stay far
//! below 2^53), i1 as 0/1.

use std::collections::HashMap;
use std::sync::OnceLock;

use rtile::ir::types::{FloatKind, Type};
use rtile::ir::{FloatFormat, TypeKind};
use rtile_dialects::te::model::ElemType;

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
fn cmpi(a: f64, b: f64, t: Num, p: i64) -> bool {
    let (ua, ub) = (t.unsigned(a), t.unsigned(b));
    match p {
        0 => a == b,
        1 => a != b,
        2 => a < b,
        3 => a <= b,
        4 => a > b,
        5 => a >= b,
        6 => ua < ub,
        7 => ua <= ub,
        8 => ua > ub,
        _ => ua >= ub,
    }
}
fn cmpf(a: f64, b: f64, p: i64) -> bool {
    let uno = a.is_nan() || b.is_nan();
    match p {
        0 => false,
        1 => !uno && a == b,
        2 => !uno && a > b,
        3 => !uno && a >= b,
        4 => !uno && a < b,
        5 => !uno && a <= b,
        6 => !uno && a != b,
        7 => !uno,
        8 => uno || a == b,
        9 => uno || a > b,
        10 => uno || a >= b,
        11 => uno || a < b,
        12 => uno || a <= b,
        13 => uno || a != b,
        14 => uno,
        _ => true,
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

/// The table: op name → scalar function. Ops not in it are rejected when a kernel is
/// compiled, with the op's location.
pub fn table() -> &'static HashMap<&'static str, OpFn> {
    static T: OnceLock<HashMap<&'static str, OpFn>> = OnceLock::new();
    T.get_or_init(|| {
        let mut m: HashMap<&'static str, OpFn> = HashMap::new();
        m.insert("arith.addf", |a, _, _| a[0] + a[1]);
        m.insert("arith.subf", |a, _, _| a[0] - a[1]);
        m.insert("arith.mulf", |a, _, _| a[0] * a[1]);
        m.insert("arith.divf", |a, _, _| a[0] / a[1]);
        m.insert("arith.remf", |a, _, _| a[0] % a[1]);
        m.insert("arith.negf", |a, _, _| -a[0]);
        m.insert("arith.maximumf", |a, _, _| fmax(a[0], a[1]));
        m.insert("arith.minimumf", |a, _, _| fmin(a[0], a[1]));
        m.insert("arith.maxnumf", |a, _, _| a[0].max(a[1]));
        m.insert("arith.minnumf", |a, _, _| a[0].min(a[1]));
        m.insert("arith.addi", |a, _, _| {
            (a[0] as i64).wrapping_add(a[1] as i64) as f64
        });
        m.insert("arith.subi", |a, _, _| {
            (a[0] as i64).wrapping_sub(a[1] as i64) as f64
        });
        m.insert("arith.muli", |a, _, _| {
            (a[0] as i64).wrapping_mul(a[1] as i64) as f64
        });
        m.insert("arith.divsi", |a, _, _| sdiv(a[0], a[1]));
        m.insert("arith.remsi", |a, _, _| srem(a[0], a[1]));
        m.insert("arith.divui", |a, t, _| {
            let (x, y) = (t.unsigned(a[0]), t.unsigned(a[1]));
            x.checked_div(y).map_or(0.0, |q| q as f64)
        });
        m.insert("arith.remui", |a, t, _| {
            let (x, y) = (t.unsigned(a[0]), t.unsigned(a[1]));
            x.checked_rem(y).map_or(0.0, |q| q as f64)
        });
        m.insert("arith.floordivsi", |a, _, _| {
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
        });
        m.insert("arith.ceildivsi", |a, _, _| {
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
        });
        m.insert("arith.maxsi", |a, _, _| a[0].max(a[1]));
        m.insert("arith.minsi", |a, _, _| a[0].min(a[1]));
        m.insert("arith.andi", |a, _, _| {
            ((a[0] as i64) & (a[1] as i64)) as f64
        });
        m.insert("arith.ori", |a, _, _| {
            ((a[0] as i64) | (a[1] as i64)) as f64
        });
        m.insert("arith.xori", |a, _, _| {
            ((a[0] as i64) ^ (a[1] as i64)) as f64
        });
        m.insert("arith.cmpi", |a, t, p| b(cmpi(a[0], a[1], t, p)));
        m.insert("arith.cmpf", |a, _, p| b(cmpf(a[0], a[1], p)));
        m.insert(
            "arith.select",
            |a, _, _| if a[0] != 0.0 { a[1] } else { a[2] },
        );
        for n in [
            "arith.index_cast",
            "arith.extsi",
            "arith.trunci",
            "arith.extf",
            "arith.truncf",
            "arith.sitofp",
        ] {
            m.insert(n, |a, _, _| a[0]);
        }
        m.insert("arith.index_castui", |a, t, _| t.unsigned(a[0]) as f64);
        m.insert("arith.extui", |a, t, _| t.unsigned(a[0]) as f64);
        m.insert("arith.uitofp", |a, t, _| t.unsigned(a[0]) as f64);
        m.insert("arith.fptosi", |a, _, _| {
            if a[0].is_nan() { 0.0 } else { a[0].trunc() }
        });
        m.insert("arith.fptoui", |a, _, _| {
            if a[0].is_nan() {
                0.0
            } else {
                a[0].trunc().max(0.0)
            }
        });
        m.insert("math.exp", |a, _, _| a[0].exp());
        m.insert("math.exp2", |a, _, _| a[0].exp2());
        m.insert("math.log", |a, _, _| a[0].ln());
        m.insert("math.log2", |a, _, _| a[0].log2());
        m.insert("math.sqrt", |a, _, _| a[0].sqrt());
        m.insert("math.rsqrt", |a, _, _| 1.0 / a[0].sqrt());
        m.insert("math.tanh", |a, _, _| a[0].tanh());
        m.insert("math.erf", |a, _, _| erf(a[0]));
        m.insert("math.absf", |a, _, _| a[0].abs());
        m.insert("math.absi", |a, _, _| a[0].abs());
        m.insert("math.sin", |a, _, _| a[0].sin());
        m.insert("math.cos", |a, _, _| a[0].cos());
        m.insert("math.powf", |a, _, _| a[0].powf(a[1]));
        m
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
