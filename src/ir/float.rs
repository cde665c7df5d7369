//! Conversions between `f64` and the narrow float formats MLIR names (f16, bf16, tf32, the
//! f8/f6/f4 formats), the one place the parser, printer, interpreter, simulator and back
//! ends get them from.
//!
//! Encoding rounds to nearest, ties to even, straight from f64 (an f32 widens exactly, so
//! `f32 -> f16` through here rounds once), with gradual underflow and each format's
//! overflow rule, as LLVM's APFloat does: infinity where the format has one, NaN for the
//! NaN-only `FN`/`FNUZ` formats, the largest finite value for the finite-only ones.
//!
//! NaNs keep their sign and payload bit for bit, signalling ones included (no quieting, so
//! `0x7C01 : f16` survives a trip through f64): narrowing keeps the payload's top bits, and
//! sets the quiet bit only when nothing of the payload would be left (a NaN stays a NaN).

use super::types::FloatKind;

/// How a format spends its all-ones exponent and its sign (APFloat's
/// `fltNonfiniteBehavior` and `nanEncoding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NonFinite {
    /// IEEE 754: the all-ones exponent holds ±infinity (zero mantissa) and NaNs.
    Ieee,
    /// No infinity; NaN is the all-ones exponent with the all-ones mantissa (`FN`).
    NanAllOnes,
    /// No infinity and no negative zero; NaN is the sign bit alone (`FNUZ`).
    NanNegativeZero,
    /// Neither infinity nor NaN (the MX formats f6E2M3FN, f6E3M2FN, f4E2M1FN).
    FiniteOnly,
}

/// A binary float format: a sign bit (optional), `exp_bits` of biased exponent and
/// `man_bits` of stored mantissa with an implicit leading one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatFormat {
    /// Exponent field width.
    pub exp_bits: u32,
    /// Stored mantissa width (the significand has one more bit).
    pub man_bits: u32,
    /// Exponent bias: a normal number is `1.m × 2^(field - bias)`.
    pub bias: i32,
    /// Whether the top bit is a sign (false for f8E8M0FNU).
    pub signed: bool,
    /// Whether exponent field 0 holds subnormals and zero (false for f8E8M0FNU, whose
    /// field 0 is 2^-127 and which has no zero).
    pub subnormals: bool,
    /// What the format does with infinities and NaNs.
    pub non_finite: NonFinite,
}

const fn ieee(exp_bits: u32, man_bits: u32) -> FloatFormat {
    FloatFormat {
        exp_bits,
        man_bits,
        bias: (1 << (exp_bits - 1)) - 1,
        signed: true,
        subnormals: true,
        non_finite: NonFinite::Ieee,
    }
}

const fn with(f: FloatFormat, bias: i32, non_finite: NonFinite) -> FloatFormat {
    FloatFormat {
        bias,
        non_finite,
        ..f
    }
}

impl FloatFormat {
    /// IEEE binary16.
    pub const F16: FloatFormat = ieee(5, 10);
    /// bfloat16.
    pub const BF16: FloatFormat = ieee(8, 7);
    /// NVIDIA's TensorFloat-32 (19 bits).
    pub const TF32: FloatFormat = ieee(8, 10);
    /// IEEE binary32.
    pub const F32: FloatFormat = ieee(8, 23);
    /// IEEE binary64.
    pub const F64: FloatFormat = ieee(11, 52);
    /// f8E5M2 (IEEE-like).
    pub const F8E5M2: FloatFormat = ieee(5, 2);
    /// f8E4M3 (IEEE-like).
    pub const F8E4M3: FloatFormat = ieee(4, 3);
    /// f8E3M4 (IEEE-like).
    pub const F8E3M4: FloatFormat = ieee(3, 4);
    /// f8E4M3FN: no infinity, NaN `S.1111.111`, largest 448.
    pub const F8E4M3FN: FloatFormat = with(ieee(4, 3), 7, NonFinite::NanAllOnes);
    /// f8E5M2FNUZ: bias 16, NaN `0x80`.
    pub const F8E5M2FNUZ: FloatFormat = with(ieee(5, 2), 16, NonFinite::NanNegativeZero);
    /// f8E4M3FNUZ: bias 8, NaN `0x80`.
    pub const F8E4M3FNUZ: FloatFormat = with(ieee(4, 3), 8, NonFinite::NanNegativeZero);
    /// f8E4M3B11FNUZ: bias 11, NaN `0x80`.
    pub const F8E4M3B11FNUZ: FloatFormat = with(ieee(4, 3), 11, NonFinite::NanNegativeZero);
    /// f8E8M0FNU: an unsigned power of two 2^-127..2^127, NaN `0xFF`, no zero.
    pub const F8E8M0FNU: FloatFormat = FloatFormat {
        exp_bits: 8,
        man_bits: 0,
        bias: 127,
        signed: false,
        subnormals: false,
        non_finite: NonFinite::NanAllOnes,
    };
    /// f6E2M3FN: finite only, largest 7.5.
    pub const F6E2M3FN: FloatFormat = with(ieee(2, 3), 1, NonFinite::FiniteOnly);
    /// f6E3M2FN: finite only, largest 28.
    pub const F6E3M2FN: FloatFormat = with(ieee(3, 2), 3, NonFinite::FiniteOnly);
    /// f4E2M1FN: finite only, largest 6.
    pub const F4E2M1FN: FloatFormat = with(ieee(2, 1), 1, NonFinite::FiniteOnly);

    /// The format of `kind`, or `None` for f80 and f128 (wider than f64: callers carry
    /// them as f64 values).
    pub fn of(kind: FloatKind) -> Option<FloatFormat> {
        Some(match kind {
            FloatKind::F16 => Self::F16,
            FloatKind::BF16 => Self::BF16,
            FloatKind::TF32 => Self::TF32,
            FloatKind::F32 => Self::F32,
            FloatKind::F64 => Self::F64,
            FloatKind::F80 | FloatKind::F128 => return None,
            FloatKind::F8E5M2 => Self::F8E5M2,
            FloatKind::F8E4M3 => Self::F8E4M3,
            FloatKind::F8E3M4 => Self::F8E3M4,
            FloatKind::F8E4M3FN => Self::F8E4M3FN,
            FloatKind::F8E5M2FNUZ => Self::F8E5M2FNUZ,
            FloatKind::F8E4M3FNUZ => Self::F8E4M3FNUZ,
            FloatKind::F8E4M3B11FNUZ => Self::F8E4M3B11FNUZ,
            FloatKind::F8E8M0FNU => Self::F8E8M0FNU,
            FloatKind::F6E2M3FN => Self::F6E2M3FN,
            FloatKind::F6E3M2FN => Self::F6E3M2FN,
            FloatKind::F4E2M1FN => Self::F4E2M1FN,
        })
    }

    /// Width of an encoding in bits.
    pub fn width(self) -> u32 {
        self.signed as u32 + self.exp_bits + self.man_bits
    }

    /// Significand precision in bits (stored mantissa plus the implicit one).
    pub fn precision(self) -> u32 {
        self.man_bits + 1
    }

    fn sign_bit(self) -> u64 {
        if self.signed {
            1 << (self.exp_bits + self.man_bits)
        } else {
            0
        }
    }

    fn exp_all_ones(self) -> u64 {
        (1 << self.exp_bits) - 1
    }

    fn man_mask(self) -> u64 {
        (1 << self.man_bits) - 1
    }

    /// The canonical NaN's bits (positive, quiet where the format distinguishes).
    pub fn nan_bits(self) -> u64 {
        match self.non_finite {
            NonFinite::Ieee => {
                (self.exp_all_ones() << self.man_bits) | (1 << self.man_bits.saturating_sub(1))
            }
            NonFinite::NanAllOnes => (self.exp_all_ones() << self.man_bits) | self.man_mask(),
            NonFinite::NanNegativeZero => self.sign_bit(),
            // No NaN to give: zero is the least surprising stand-in.
            NonFinite::FiniteOnly => 0,
        }
    }

    /// The largest finite value's (exponent field, mantissa).
    fn max_finite(self) -> (u64, u64) {
        match self.non_finite {
            NonFinite::Ieee => (self.exp_all_ones() - 1, self.man_mask()),
            NonFinite::NanAllOnes if self.man_bits == 0 => (self.exp_all_ones() - 1, 0),
            NonFinite::NanAllOnes => (self.exp_all_ones(), self.man_mask() - 1),
            NonFinite::NanNegativeZero | NonFinite::FiniteOnly => {
                (self.exp_all_ones(), self.man_mask())
            }
        }
    }

    /// `x` rounded to nearest even into this format, as its bit pattern.
    pub fn encode(self, x: f64) -> u64 {
        if self == Self::F64 {
            return x.to_bits();
        }
        let negative = x.is_sign_negative() && self.signed;
        let sign = if negative { self.sign_bit() } else { 0 };
        if x.is_nan() {
            return self.encode_nan(x, sign);
        }
        if x.is_infinite() {
            return match self.non_finite {
                NonFinite::Ieee => sign | (self.exp_all_ones() << self.man_bits),
                NonFinite::FiniteOnly => self.largest(sign),
                _ => self.nan_bits() | sign,
            };
        }
        if self == Self::F32 {
            // The hardware conversion rounds to nearest even and is exact for finite values.
            return u64::from((x as f32).to_bits());
        }
        if !self.signed && x.is_sign_negative() && x != 0.0 {
            // An unsigned format has no negative values.
            return self.nan_bits();
        }
        self.encode_finite(x, sign)
    }

    fn largest(self, sign: u64) -> u64 {
        let (field, man) = self.max_finite();
        sign | (field << self.man_bits) | man
    }

    fn encode_nan(self, x: f64, sign: u64) -> u64 {
        match self.non_finite {
            NonFinite::Ieee => {
                let payload = (x.to_bits() & ((1 << 52) - 1)) >> (52 - self.man_bits);
                // A payload cut to nothing would read as infinity: keep it a (quiet) NaN.
                let payload = if payload == 0 {
                    1 << (self.man_bits - 1)
                } else {
                    payload
                };
                sign | (self.exp_all_ones() << self.man_bits) | payload
            }
            NonFinite::NanAllOnes => sign | self.nan_bits(),
            NonFinite::NanNegativeZero | NonFinite::FiniteOnly => self.nan_bits(),
        }
    }

    fn encode_finite(self, x: f64, sign: u64) -> u64 {
        // Negative zero exists only where zero has a sign bit of its own.
        let zero_sign = if self.non_finite == NonFinite::NanNegativeZero {
            0
        } else {
            sign
        };
        let bits = x.to_bits();
        let field64 = ((bits >> 52) & 0x7ff) as i64;
        let mut mant = u128::from(bits & ((1 << 52) - 1));
        // x = mant × 2^exp2 exactly.
        let exp2 = if field64 == 0 {
            -1074
        } else {
            mant |= 1 << 52;
            field64 - 1075
        };
        if mant == 0 {
            return if self.subnormals { zero_sign } else { 0 };
        }
        let man_bits = i64::from(self.man_bits);
        let top = exp2 + 127 - i64::from(mant.leading_zeros());
        // Smallest normal exponent: field 1, or field 0 where that is not subnormal.
        let emin = if self.subnormals { 1 } else { 0 } - i64::from(self.bias);
        let mut target = top.max(emin);
        let shift = target - man_bits - exp2;
        let mut r = round_shift(mant, shift);
        if r >> (man_bits + 1) != 0 {
            r >>= 1;
            target += 1;
        }
        if r == 0 {
            // Underflow to zero; a format without zero keeps its smallest value.
            return if self.subnormals { zero_sign } else { 0 };
        }
        let (field, man) = if r >> man_bits == 0 {
            (0, r as u64)
        } else {
            (
                (target + i64::from(self.bias)) as u64,
                r as u64 & self.man_mask(),
            )
        };
        if (field, man) > self.max_finite() {
            return match self.non_finite {
                NonFinite::Ieee => sign | (self.exp_all_ones() << self.man_bits),
                NonFinite::FiniteOnly => self.largest(sign),
                _ => self.encode_nan(f64::NAN, sign),
            };
        }
        sign | (field << self.man_bits) | man
    }

    /// The value of bits `b` (exact: every format here fits in f64). A NaN keeps its sign
    /// and, in IEEE formats, its payload in the top mantissa bits of the f64.
    pub fn decode(self, b: u64) -> f64 {
        if self == Self::F64 {
            return f64::from_bits(b);
        }
        if self == Self::F32 {
            let f = f32::from_bits(b as u32);
            if !f.is_nan() {
                return f64::from(f);
            }
        }
        let negative = self.signed && b & self.sign_bit() != 0;
        let field = (b >> self.man_bits) & self.exp_all_ones();
        let man = b & self.man_mask();
        let f64_sign = if negative { 1u64 << 63 } else { 0 };
        let is_nan = match self.non_finite {
            NonFinite::Ieee => field == self.exp_all_ones(),
            NonFinite::NanAllOnes => field == self.exp_all_ones() && man == self.man_mask(),
            NonFinite::NanNegativeZero => negative && field == 0 && man == 0,
            NonFinite::FiniteOnly => false,
        };
        if is_nan {
            if self.non_finite == NonFinite::Ieee {
                let payload = man << (52 - self.man_bits);
                return f64::from_bits(f64_sign | (0x7ff << 52) | payload);
            }
            return f64::from_bits(f64_sign | 0x7ff8 << 48);
        }
        let mag = if field == 0 && self.subnormals {
            man as f64 * pow2(1 - self.bias - self.man_bits as i32)
        } else {
            ((1u64 << self.man_bits) | man) as f64
                * pow2(field as i32 - self.bias - self.man_bits as i32)
        };
        if negative { -mag } else { mag }
    }

    /// `x` rounded to the nearest value of this format, as an f64 (`decode(encode(x))`).
    pub fn round(self, x: f64) -> f64 {
        self.decode(self.encode(x))
    }
}

/// `mant >> shift` rounded to nearest, ties to even (`shift <= 0` shifts left, exactly).
fn round_shift(mant: u128, shift: i64) -> u128 {
    if shift <= 0 {
        return mant << (-shift) as u32;
    }
    if shift >= 127 {
        return 0;
    }
    let kept = mant >> shift;
    let rem = mant & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rem > half || (rem == half && kept & 1 == 1) {
        kept + 1
    } else {
        kept
    }
}

/// 2^e for the exponents these formats reach (|e| < 1100), exactly.
fn pow2(e: i32) -> f64 {
    if e < -1022 {
        // Below f64's normal range: scale in two exact steps.
        2f64.powi(e + 64) * 2f64.powi(-64)
    } else {
        2f64.powi(e)
    }
}

impl FloatKind {
    /// This kind's [`FloatFormat`] (`None` for f80 and f128).
    pub fn format(self) -> Option<FloatFormat> {
        FloatFormat::of(self)
    }
}

/// IEEE binary16 bits of `x` (round to nearest even).
pub fn f32_to_f16_bits(x: f32) -> u16 {
    FloatFormat::F16.encode(f32_to_f64(x)) as u16
}

/// The value of IEEE binary16 bits, as f32 (exact).
pub fn f16_bits_to_f32(h: u16) -> f32 {
    f64_to_f32_exact(FloatFormat::F16.decode(u64::from(h)))
}

/// bfloat16 bits of `x` (round to nearest even).
pub fn f32_to_bf16_bits(x: f32) -> u16 {
    FloatFormat::BF16.encode(f32_to_f64(x)) as u16
}

/// The value of bfloat16 bits, as f32 (exact).
pub fn bf16_bits_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// IEEE binary16 bits of `x` (round to nearest even, straight from f64).
pub fn f64_to_f16_bits(x: f64) -> u16 {
    FloatFormat::F16.encode(x) as u16
}

/// The value of IEEE binary16 bits, as f64 (exact).
pub fn f16_bits_to_f64(h: u16) -> f64 {
    FloatFormat::F16.decode(u64::from(h))
}

/// `x` widened to f64, keeping a NaN's bits (the hardware conversion, `f64::from`, quiets
/// a signalling NaN).
pub fn f32_to_f64(x: f32) -> f64 {
    FloatFormat::F32.decode(u64::from(x.to_bits()))
}

/// An f64 that is exactly an f32 value, as that f32, keeping a NaN's bits (the hardware
/// conversion would quiet a signalling NaN).
pub fn f64_to_f32_exact(x: f64) -> f32 {
    if x.is_nan() {
        f32::from_bits(FloatFormat::F32.encode(x) as u32)
    } else {
        x as f32
    }
}

#[cfg(test)]
#[path = "float_tests.rs"]
mod tests;
