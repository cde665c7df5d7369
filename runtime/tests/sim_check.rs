//! `run_check_text` (the `rtile-run --sim --check` driver) on the output of
//! `rtile-opt --lower-to-gpu` as printed in custom form (tests/lit/gpu/lower-to-gpu.mlir's
//! 60x64x48 matmul): the kernel parses, runs clean and matches the interpreter.

use rtile_runtime::sim::run_check_text;

#[test]
fn lowered_matmul_matches_the_interpreter() {
    let text = include_str!("inputs/lowered-matmul.mlir");
    let r = run_check_text("lowered-matmul.mlir", text, 1).expect("runs clean");
    assert_eq!(r.kernels.len(), 1);
    assert_eq!(r.kernels[0].kernel, "mm_0");
    assert_eq!(r.kernels[0].elements, 60 * 64);
    assert!(r.max_rel_err() < 1e-5, "{}", r.text());
    assert!(r.text().contains("max relative error"));
}

#[test]
fn a_kernel_without_reference_is_an_error() {
    let text = include_str!("inputs/lowered-matmul.mlir").replace("rtile.te", "test.te_reference");
    let e = run_check_text("x.mlir", &text, 1).unwrap_err();
    assert!(e.contains("has no 'rtile.te' reference"), "{e}");
}
