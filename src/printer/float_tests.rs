//! NaN payloads, signaling NaNs included, survive parse and print bit for bit in every
//! float type and every attribute that holds floats (the values go through f64 inside).

use std::sync::Arc;

use crate::dialect::DialectRegistry;
use crate::ir::Context;
use crate::parser::parse_str;
use crate::printer::{PrintOptions, print_op};

fn round_trip(attrs: &str) -> String {
    let mut c = Context::new(Arc::new(DialectRegistry::with_builtin()));
    c.allow_unregistered = true;
    let src = format!("\"t.a\"() {{{attrs}}} : () -> ()");
    let m = parse_str(&mut c, "in.mlir", &src).expect("parses").module;
    let opts = PrintOptions {
        generic: true,
        ..PrintOptions::default()
    };
    let out = print_op(&c, m, &opts);
    let line = out.lines().nth(1).expect("the op line");
    let start = line.find('{').expect("attributes") + 1;
    let end = line.rfind('}').expect("attributes");
    line[start..end].to_string()
}

/// Each `0x... : type` attribute must print back exactly as written.
fn assert_kept(attrs: &[&str]) {
    let text: Vec<String> = attrs
        .iter()
        .enumerate()
        .map(|(i, a)| format!("a{i:02} = {a}"))
        .collect();
    let text = text.join(", ");
    assert_eq!(round_trip(&text), text);
}

#[test]
fn signaling_and_payload_nans_per_scalar_type() {
    assert_kept(&[
        "0x7F800001 : f32",
        "0xFF800001 : f32",
        "0x7FC00001 : f32",
        "0x7FA00000 : f32",
        "0x7FF0000000000001 : f64",
        "0xFFF4000000000000 : f64",
        "0x7FF8000000000001 : f64",
        "0x7C01 : f16",
        "0xFD00 : f16",
        "0x7E01 : f16",
        "0x7F81 : bf16",
        "0xFFC1 : bf16",
        "0x7D : f8E5M2",
        "0x7F : f8E4M3FN",
        "0xFF : f8E4M3FN",
        "0x80 : f8E4M3FNUZ",
        "0x80 : f8E5M2FNUZ",
        "0xFF : f8E8M0FNU",
    ]);
}

#[test]
fn nans_in_dense_elements_and_dense_arrays() {
    assert_kept(&[
        "dense<[0x7F800001, 1.000000e+00]> : tensor<2xf32>",
        "dense<0x7C01> : tensor<2xf16>",
        "dense<[0x7F81, 0x7FC1]> : tensor<2xbf16>",
        "dense<[0x7FF0000000000001, 0xFFF8000000000000]> : tensor<2xf64>",
        "array<f32: 0x7F800001, 2.000000e+00>",
        "array<f64: 0x7FF0000000000001>",
        "array<f16: 0x7C01>",
    ]);
}

#[test]
fn quiet_nans_and_infinities_unchanged() {
    assert_kept(&[
        "0x7FC00000 : f32",
        "0x7F800000 : f32",
        "0xFF800000 : f32",
        "0x7E00 : f16",
        "0x7C00 : f16",
        "0x7FC0 : bf16",
        "0x7FF8000000000000 : f64",
    ]);
}

#[test]
fn wide_float_hex_literals_read_as_their_value() {
    // f80 (explicit integer bit) and f128 12.0, and f80 -0.5.
    assert_eq!(
        round_trip(
            "a = 0x4002C000000000000000 : f80, b = 0x40028000000000000000000000000000 : f128, c = 0xBFFE8000000000000000 : f80"
        ),
        "a = 1.200000e+01 : f80, b = 1.200000e+01 : f128, c = -5.000000e-01 : f80"
    );
}
