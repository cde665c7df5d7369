//! Round-to-nearest-even, special values and NaN payloads against IEEE bit patterns (and,
//! for the f8/f6/f4 formats, what `mlir-opt-22` prints for the same constants).

use super::*;

fn f16(x: f64) -> u64 {
    FloatFormat::F16.encode(x)
}

#[test]
fn f16_normals_and_ties_to_even() {
    assert_eq!(f16(1.0), 0x3C00);
    assert_eq!(f16(-2.0), 0xC000);
    assert_eq!(f16(0.1), 0x2E66);
    assert_eq!(f16(65504.0), 0x7BFF);
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: the even neighbour is 1.
    assert_eq!(f16(1.0 + 2f64.powi(-11)), 0x3C00);
    // 1 + 3·2^-11 is halfway between 0x3C01 and 0x3C02: the even one wins.
    assert_eq!(f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3C02);
    // Just above a tie rounds up (no double rounding through f32).
    assert_eq!(f16(1.0 + 2f64.powi(-11) + 2f64.powi(-40)), 0x3C01);
    // A carry out of the mantissa bumps the exponent: 2 - 2^-12 rounds to 2.
    assert_eq!(f16(2.0 - 2f64.powi(-12)), 0x4000);
}

#[test]
fn f16_subnormals() {
    assert_eq!(f16(2f64.powi(-14)), 0x0400);
    assert_eq!(f16(2f64.powi(-24)), 0x0001);
    assert_eq!(f16(1023.0 * 2f64.powi(-24)), 0x03FF);
    // 2^-25 ties between 0 and the smallest subnormal: even is 0.
    assert_eq!(f16(2f64.powi(-25)), 0x0000);
    assert_eq!(f16(3.0 * 2f64.powi(-25)), 0x0002);
    assert_eq!(f16(-2f64.powi(-26)), 0x8000);
    // The largest subnormal plus half an ulp rounds up into the normals.
    assert_eq!(f16(1023.5 * 2f64.powi(-24)), 0x0400);
    assert_eq!(FloatFormat::F16.decode(0x0001), 2f64.powi(-24));
    assert_eq!(FloatFormat::F16.decode(0x83FF), -1023.0 * 2f64.powi(-24));
}

#[test]
fn f16_overflow_and_infinities() {
    assert_eq!(f16(65519.0), 0x7BFF);
    // 65520 is halfway between 65504 and 2^16: ties to even overflows.
    assert_eq!(f16(65520.0), 0x7C00);
    assert_eq!(f16(-1e10), 0xFC00);
    assert_eq!(f16(f64::INFINITY), 0x7C00);
    assert_eq!(f16(f64::NEG_INFINITY), 0xFC00);
    assert_eq!(f16(-0.0), 0x8000);
    assert_eq!(FloatFormat::F16.decode(0x7C00), f64::INFINITY);
    assert_eq!(FloatFormat::F16.decode(0xFC00), f64::NEG_INFINITY);
}

#[test]
fn nan_payloads_survive_round_trips() {
    // Signalling NaNs stay signalling, payload and sign kept.
    for (fmt, bits) in [
        (FloatFormat::F16, 0x7C01u64),
        (FloatFormat::F16, 0xFE2A),
        (FloatFormat::BF16, 0x7F81),
        (FloatFormat::BF16, 0xFFC1),
        (FloatFormat::F32, 0x7F80_0001),
        (FloatFormat::F32, 0xFFC0_1234),
        (FloatFormat::F8E5M2, 0x7D),
    ] {
        let x = fmt.decode(bits);
        assert!(x.is_nan());
        assert_eq!(fmt.encode(x), bits, "{fmt:?} {bits:#x}");
    }
    assert_eq!(
        FloatFormat::F16.decode(0x7C01).to_bits(),
        0x7FF0_0400_0000_0000
    );
    // A payload that does not fit is cut to its top bits; cut to nothing, the NaN is quiet.
    assert_eq!(f16(f64::from_bits(0x7FF0_0000_0000_0001)), 0x7E00);
    assert_eq!(f16(f64::from_bits(0xFFFF_FC00_0000_0000)), 0xFFFF);
    assert_eq!(f32_to_f16_bits(f32::from_bits(0x7F80_2000)), 0x7C01);
}

#[test]
fn bf16_rounding() {
    assert_eq!(f32_to_bf16_bits(1.0), 0x3F80);
    assert_eq!(FloatFormat::BF16.encode(1.0 + 2f64.powi(-8)), 0x3F80);
    assert_eq!(FloatFormat::BF16.encode(1.0 + 3.0 * 2f64.powi(-8)), 0x3F82);
    assert_eq!(f32_to_bf16_bits(f32::MAX), 0x7F80);
    assert_eq!(f32_to_bf16_bits(f32::from_bits(1)), 0x0000);
    assert_eq!(f32_to_bf16_bits(f32::from_bits(0x0000_8001)), 0x0001);
    assert_eq!(bf16_bits_to_f32(0xC0A0), -5.0);
    // 3e38 / 2^120 = 225.7: the quantum at 2^127 is 2^120.
    assert_eq!(FloatFormat::BF16.round(3.0e38), 226.0 * 2f64.powi(120));
}

#[test]
fn every_narrow_pattern_round_trips() {
    let formats = [
        FloatFormat::F16,
        FloatFormat::BF16,
        FloatFormat::F8E5M2,
        FloatFormat::F8E4M3,
        FloatFormat::F8E3M4,
        FloatFormat::F8E4M3FN,
        FloatFormat::F8E5M2FNUZ,
        FloatFormat::F8E4M3FNUZ,
        FloatFormat::F8E4M3B11FNUZ,
        FloatFormat::F8E8M0FNU,
        FloatFormat::F6E2M3FN,
        FloatFormat::F6E3M2FN,
        FloatFormat::F4E2M1FN,
    ];
    for fmt in formats {
        for b in 0..1u64 << fmt.width() {
            let x = fmt.decode(b);
            let back = fmt.encode(x);
            // The NaN-only formats have one NaN per sign; FNUZ has one in all.
            let canonical = match fmt.non_finite {
                NonFinite::NanNegativeZero if x.is_nan() => fmt.nan_bits(),
                _ => b,
            };
            assert_eq!(back, canonical, "{fmt:?} {b:#x} -> {x}");
        }
    }
}

#[test]
fn f16_matches_f32_conversions() {
    for h in 0..=u16::MAX {
        let x = f16_bits_to_f32(h);
        if x.is_nan() {
            continue;
        }
        assert_eq!(f16_bits_to_f64(h), f64::from(x));
        assert_eq!(f32_to_f16_bits(x), h);
        assert_eq!(f64_to_f16_bits(f64::from(x)), h);
    }
}

#[test]
fn f8_formats_as_mlir_rounds_them() {
    let fnm = FloatFormat::F8E4M3FN;
    assert_eq!(fnm.encode(448.0), 0x7E);
    // 464 ties between 448 and the NaN encoding: even keeps 448.
    assert_eq!(fnm.encode(464.0), 0x7E);
    assert_eq!(fnm.encode(500.0), 0x7F);
    assert_eq!(fnm.encode(-500.0), 0xFF);
    assert_eq!(fnm.encode(f64::INFINITY), 0x7F);
    assert_eq!(fnm.encode(-0.0), 0x80);
    assert_eq!(fnm.encode(2f64.powi(-9)), 0x01);
    assert!(fnm.decode(0x7F).is_nan());
    assert_eq!(fnm.decode(0x7E), 448.0);
    assert_eq!(fnm.decode(0x78), 256.0);

    let e5fnuz = FloatFormat::F8E5M2FNUZ;
    assert_eq!(e5fnuz.encode(1e9), 0x80);
    assert_eq!(e5fnuz.encode(-0.0), 0x00);
    assert_eq!(e5fnuz.encode(1.0), 0x40);
    let e4fnuz = FloatFormat::F8E4M3FNUZ;
    assert_eq!(e4fnuz.encode(1e-30), 0x00);
    assert_eq!(e4fnuz.encode(-1e-30), 0x00);
    assert_eq!(e4fnuz.encode(240.0), 0x7F);
    assert_eq!(FloatFormat::F8E4M3B11FNUZ.decode(0x7F), 30.0);
    assert_eq!(FloatFormat::F8E5M2.encode(57344.0), 0x7B);
    assert_eq!(FloatFormat::F8E5M2.encode(61440.0), 0x7C);

    // f8E8M0FNU: powers of two; its one-bit significand is odd, so ties round up.
    let e8 = FloatFormat::F8E8M0FNU;
    assert_eq!(e8.decode(e8.encode(3.0)), 4.0);
    assert_eq!(e8.decode(e8.encode(6.0)), 8.0);
    assert_eq!(e8.encode(1e-50), 0x00);
    assert_eq!(e8.encode(0.0), 0x00);
    assert_eq!(e8.decode(0x00), 2f64.powi(-127));
    assert_eq!(e8.encode(1.0), 0x7F);
    assert!(e8.decode(0xFF).is_nan());

    // The finite-only MX formats saturate.
    let f4 = FloatFormat::F4E2M1FN;
    assert_eq!(f4.decode(f4.encode(7.0)), 6.0);
    assert_eq!(f4.encode(f64::NEG_INFINITY), 0xF);
    assert_eq!(f4.encode(0.25), 0x0);
    assert_eq!(f4.encode(0.75), 0x2);
    assert_eq!(FloatFormat::F6E2M3FN.round(100.0), 7.5);
    assert_eq!(FloatFormat::F6E3M2FN.round(1e6), 28.0);
}

#[test]
fn kinds_map_to_formats() {
    for (k, _) in FloatKind::ALL {
        match k.format() {
            Some(f) if k != FloatKind::TF32 => assert_eq!(f.width(), k.width(), "{k:?}"),
            Some(f) => assert_eq!(f.width(), 19),
            None => assert!(matches!(k, FloatKind::F80 | FloatKind::F128)),
        }
    }
}
