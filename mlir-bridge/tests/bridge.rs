//! The bridge crate's ONE integration-test binary (MLIR is linked statically, ~300 MB per
//! test binary).

use rtile_mlir_bridge::mlir::run_pipeline;

const MATMUL_RELU: &str = r#"
func.func @mm_relu(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.matmul ins(%A, %B : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} ins(%r : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
    ^bb0(%x: f32, %out: f32):
      %m = arith.maximumf %x, %z : f32
      linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}
"#;

#[test]
fn import_matmul_relu() {
    let out = run_pipeline(
        MATMUL_RELU,
        "builtin.module(linalg-generalize-named-ops,rtile-import-linalg,canonicalize)",
        true,
    )
    .unwrap();
    assert_eq!(out.matches("\"te.compute\"").count(), 2, "{out}");
    assert!(!out.contains("linalg."), "{out}");
}
