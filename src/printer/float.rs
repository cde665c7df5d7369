//! Float values as MLIR's `printFloatValue` writes them: APFloat's `%.6e`-like form or
//! its default `toString`, else the bit pattern in hex; with the exact float-to-decimal
//! conversion (APFloat's `toString`) this needs.

use std::fmt::Write as _;

use super::format::push_u64;
use crate::ir::{FloatFormat, FloatKind};

/// The format a kind's values are printed through; f80 and f128 are carried as f64.
fn format_of(kind: FloatKind) -> FloatFormat {
    FloatFormat::of(kind).unwrap_or(FloatFormat::F64)
}

/// Significand precision in bits (for APFloat's default digit count).
fn precision_bits(kind: FloatKind) -> usize {
    match kind {
        FloatKind::F80 => 64,
        FloatKind::F128 => 113,
        k => format_of(k).precision() as usize,
    }
}

pub(super) fn width_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Rounds `x` to the format (round to nearest even) and returns its bit pattern.
pub(super) fn to_bits(x: f64, kind: FloatKind) -> u64 {
    format_of(kind).encode(x)
}

/// Bits of the format back to an f64 (exact: every supported format fits in f64).
pub(super) fn from_bits(b: u64, kind: FloatKind) -> f64 {
    format_of(kind).decode(b)
}

/// Parses a decimal into the format, as APFloat's string constructor would.
fn parse_as(s: &str, kind: FloatKind) -> Option<u64> {
    match kind {
        FloatKind::F64 | FloatKind::F80 | FloatKind::F128 => {
            s.parse::<f64>().ok().map(f64::to_bits)
        }
        FloatKind::F32 => s.parse::<f32>().ok().map(|f| f.to_bits() as u64),
        _ => s.parse::<f64>().ok().map(|f| to_bits(f, kind)),
    }
}

/// Appends a float the way MLIR's `printFloatValue` does: APFloat's `%.6e`-like form
/// when that round-trips, else APFloat's default `toString` (enough digits for the
/// format) when it has a `.`, else the bit pattern in hex (NaN, infinities, some
/// integral values).
pub(crate) fn write_float(out: &mut String, value: f64, kind: FloatKind) {
    let bits = to_bits(value, kind);
    let v = from_bits(bits, kind);
    if v.is_finite() {
        let start = out.len();
        apfloat_to_string(out, v, 6, 0, false);
        if parse_as(&out[start..], kind) == Some(bits) {
            return;
        }
        out.truncate(start);
        let precision = 2 + precision_bits(kind) * 59 / 196;
        apfloat_to_string(out, v, precision, 3, true);
        if out[start..].contains('.') {
            return;
        }
        out.truncate(start);
    }
    let _ = write!(out, "0x{bits:X}");
}

/// A little-endian big unsigned integer, just enough for exact float-to-decimal.
struct Big(Vec<u32>);

impl Big {
    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let x = *limb as u64 * m as u64 + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }
    fn shl(&mut self, n: u32) {
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits != 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let x = ((*limb as u64) << bits) | carry as u64;
                *limb = x as u32;
                carry = (x >> 32) as u32;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        if limbs > 0 {
            self.0.splice(0..0, std::iter::repeat_n(0, limbs));
        }
    }
    /// Divides by 10 in place, returning the remainder.
    fn div10(&mut self) -> u8 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let x = (rem << 32) | *limb as u64;
            *limb = (x / 10) as u32;
            rem = x % 10;
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        rem as u8
    }
    /// Number of significant bits.
    fn active_bits(&self) -> usize {
        match self.0.last() {
            Some(&top) => self.0.len() * 32 - top.leading_zeros() as usize,
            None => 0,
        }
    }
}

/// Port of `APFloat::toString(Str, FormatPrecision, FormatMaxPadding, TruncateZero)`
/// for a finite value (exactly representable in f64, as every supported format is).
/// Its quirks matter for matching mlir-opt byte for byte: low digits beyond what the
/// precision needs are discarded before rounding half-up.
fn apfloat_to_string(
    out: &mut String,
    v: f64,
    precision: usize,
    max_padding: usize,
    truncate_zero: bool,
) {
    if v.is_sign_negative() {
        out.push('-');
    }
    if v == 0.0 {
        if max_padding == 0 {
            if truncate_zero {
                out.push_str("0.0E+0");
            } else {
                out.push_str("0.0");
                for _ in 1..precision {
                    out.push('0');
                }
                out.push_str("e+00");
            }
        } else {
            out.push('0');
        }
        return;
    }
    // v = mant * 2^e2 with mant odd.
    let b = v.abs().to_bits();
    let field = ((b >> 52) & 0x7ff) as i64;
    let (mut mant, mut e2) = if field == 0 {
        (b & ((1u64 << 52) - 1), -1074i64)
    } else {
        ((b & ((1u64 << 52) - 1)) | (1u64 << 52), field - 1075)
    };
    let tz = mant.trailing_zeros();
    mant >>= tz;
    e2 += tz as i64;
    let mut sig = Big(vec![mant as u32, (mant >> 32) as u32]);
    while sig.0.last() == Some(&0) {
        sig.0.pop();
    }
    let mut exp: i64 = 0;
    if e2 > 0 {
        sig.shl(e2 as u32);
    } else if e2 < 0 {
        // N * 2^-e == N * 5^e * 10^-e.
        let mut t = -e2;
        while t >= 13 {
            sig.mul_small(1_220_703_125); // 5^13
            t -= 13;
        }
        for _ in 0..t {
            sig.mul_small(5);
        }
        exp = e2;
    }
    let required = (precision * 196).div_ceil(59);
    let mut discard = sig.active_bits().saturating_sub(required) * 59 / 196;
    // Digits, least significant first.
    let mut buffer: Vec<u8> = Vec::with_capacity(24);
    let mut in_trail = true;
    while !sig.0.is_empty() {
        let d = sig.div10();
        if discard > 0 {
            discard -= 1;
            exp += 1;
            continue;
        }
        if in_trail && d == 0 {
            exp += 1;
        } else {
            in_trail = false;
            buffer.push(b'0' + d);
        }
    }
    if buffer.is_empty() {
        buffer.push(b'0');
    }
    if buffer.len() > precision {
        let mut first_sig = buffer.len() - precision;
        if buffer[first_sig - 1] < b'5' {
            while first_sig < buffer.len() && buffer[first_sig] == b'0' {
                first_sig += 1;
            }
        } else {
            // Decimal add-with-carry; carried-through nines become dropped zeros.
            let start = first_sig;
            for d in &mut buffer[start..] {
                if *d == b'9' {
                    first_sig += 1;
                } else {
                    *d += 1;
                    break;
                }
            }
        }
        exp += first_sig as i64;
        buffer.drain(..first_sig);
        if buffer.is_empty() {
            buffer.push(b'1');
        }
    }
    let digits = buffer.len();
    let scientific = if max_padding == 0 {
        true
    } else if exp >= 0 {
        exp as usize > max_padding || digits + exp as usize > precision
    } else {
        let msd = exp + digits as i64 - 1;
        msd < 0 && (-msd) as usize > max_padding
    };
    let digit = |i: usize| buffer[i] as char;
    if scientific {
        exp += digits as i64 - 1;
        out.push(digit(digits - 1));
        out.push('.');
        if digits == 1 && truncate_zero {
            out.push('0');
        } else {
            for i in (0..digits - 1).rev() {
                out.push(digit(i));
            }
        }
        if !truncate_zero && precision + 1 > digits {
            for _ in 0..=(precision - digits) {
                out.push('0');
            }
        }
        out.push(if truncate_zero { 'E' } else { 'e' });
        out.push(if exp < 0 { '-' } else { '+' });
        if !truncate_zero && exp.abs() < 10 {
            out.push('0');
        }
        push_u64(out, exp.unsigned_abs());
        return;
    }
    if exp >= 0 {
        for i in (0..digits).rev() {
            out.push(digit(i));
        }
        for _ in 0..exp {
            out.push('0');
        }
        return;
    }
    let unit_place = (-exp) as usize;
    if unit_place < digits {
        for i in (unit_place..digits).rev() {
            out.push(digit(i));
        }
        out.push('.');
        for i in (0..unit_place).rev() {
            out.push(digit(i));
        }
    } else {
        out.push_str("0.");
        for _ in digits..unit_place {
            out.push('0');
        }
        for i in (0..digits).rev() {
            out.push(digit(i));
        }
    }
}
