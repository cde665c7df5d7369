//! Rounding an f64 to each element type, as the hardware stores it.
//!
//! Floats round to nearest, ties to even, directly from f64 (no double rounding through
//! f32), with gradual underflow and overflow to infinity ([`rtile::ir::FloatFormat`]).
//! Integers wrap (two's complement), as `arith` integer ops do.

use rtile::ir::FloatFormat;

use super::model::ElemType;

/// Wraps an integer value (already truncated) into `bits` two's complement.
fn wrap(v: i64, bits: u32) -> i64 {
    let shift = 64 - bits;
    (v << shift) >> shift
}

/// Rounds/wraps `x` to the values `t` can hold. Integers: `x` is truncated towards zero
/// first (NaN becomes 0); i1 keeps the low bit as 0/1.
pub fn round_to(x: f64, t: ElemType) -> f64 {
    match t {
        ElemType::F64 => x,
        ElemType::F32 => x as f32 as f64,
        ElemType::F16 => FloatFormat::F16.round(x),
        ElemType::BF16 => FloatFormat::BF16.round(x),
        ElemType::I32 | ElemType::I8 | ElemType::I1 => {
            if x.is_nan() {
                return 0.0;
            }
            // `as i64` saturates; wrapping the saturated value is as good as any choice
            // for MLIR's poison on out-of-range conversions.
            let v = x.trunc() as i64;
            match t {
                ElemType::I32 => wrap(v, 32) as f64,
                ElemType::I8 => wrap(v, 8) as f64,
                _ => (v & 1) as f64,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_rounding() {
        assert_eq!(round_to(1.0, ElemType::F16), 1.0);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even gives 1.
        assert_eq!(round_to(1.0 + 2f64.powi(-11), ElemType::F16), 1.0);
        assert_eq!(
            round_to(1.0 + 3.0 * 2f64.powi(-11), ElemType::F16),
            1.0 + 2.0 * 2f64.powi(-10)
        );
        assert_eq!(round_to(65504.0, ElemType::F16), 65504.0);
        assert_eq!(round_to(65520.0, ElemType::F16), f64::INFINITY);
        assert_eq!(round_to(65519.0, ElemType::F16), 65504.0);
        // Smallest subnormal 2^-24.
        assert_eq!(round_to(2f64.powi(-24), ElemType::F16), 2f64.powi(-24));
        assert_eq!(round_to(2f64.powi(-26), ElemType::F16), 0.0);
    }

    #[test]
    fn bf16_and_ints() {
        assert_eq!(round_to(1.0 + 2f64.powi(-8), ElemType::BF16), 1.0);
        // Quantum at 2^127 is 2^120: 3e38 / 2^120 = 225.7 -> 226.
        assert_eq!(round_to(3.0e38, ElemType::BF16), 226.0 * 2f64.powi(120));
        assert_eq!(round_to(130.0, ElemType::I8), -126.0);
        assert_eq!(round_to(-2.7, ElemType::I32), -2.0);
        assert_eq!(round_to(3.0, ElemType::I1), 1.0);
    }

    #[test]
    fn f32_matches_cast() {
        for x in [0.1, 1e-40, 3.4e38, 1.0 / 3.0] {
            assert_eq!(round_to(x, ElemType::F32), x as f32 as f64);
        }
    }
}
