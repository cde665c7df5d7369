//! The bridge crate's ONE integration-test binary (MLIR is linked statically, ~300 MB per
//! test binary).

use rtile_mlir_bridge::mlir::{HostTensor, execute_on_host, run_pipeline};

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

/// One function per imported op class (named ops, linalg.reduce/map/transpose, elementwise
/// named ops, a hand-written linalg.generic).
const CASES: &[(&str, &str)] = &[
    (
        "matmul",
        r#"func.func @matmul(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.matmul ins(%A, %B : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}"#,
    ),
    (
        "bmm",
        r#"func.func @bmm(%A: tensor<2x4x8xf32>, %B: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %r = linalg.batch_matmul ins(%A, %B : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%f : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}"#,
    ),
    (
        "conv",
        r#"func.func @conv(%I: tensor<1x3x16x16xf32>, %W: tensor<8x3x3x3xf32>) -> tensor<1x8x7x7xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x7x7xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%I, %W : tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  return %r : tensor<1x8x7x7xf32>
}"#,
    ),
    (
        "conv_pad",
        r#"func.func @conv_pad(%I: tensor<1x3x8x8xf32>, %W: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %I low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %W : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}"#,
    ),
    (
        "depthwise",
        r#"func.func @depthwise(%I: tensor<1x4x11x11xf32>, %W: tensor<4x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {strides = dense<2> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
    ins(%I, %W : tensor<1x4x11x11xf32>, tensor<4x3x3xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}"#,
    ),
    (
        "pool_sum",
        r#"func.func @pool_sum(%I: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = linalg.pooling_nchw_sum {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%I, %k : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}"#,
    ),
    (
        "pool_max",
        r#"func.func @pool_max(%I: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0xFF800000 : f32
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%I, %k : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}"#,
    ),
    (
        "reduce",
        r#"func.func @reduce(%I: tensor<4x16x8xf32>) -> tensor<4x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.reduce ins(%I : tensor<4x16x8xf32>) outs(%f : tensor<4x8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4x8xf32>
}"#,
    ),
    (
        "map",
        r#"func.func @map(%A: tensor<4x8xf32>, %B: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.map ins(%A, %B : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
    (%a: f32, %b: f32, %o: f32) {
      %s = arith.subf %a, %b : f32
      %x = math.exp %s : f32
      linalg.yield %x : f32
    }
  return %r : tensor<4x8xf32>
}"#,
    ),
    (
        "transpose",
        r#"func.func @transpose(%A: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %r = linalg.transpose ins(%A : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  return %r : tensor<8x4xf32>
}"#,
    ),
    (
        "elementwise",
        r#"func.func @elementwise(%A: tensor<4x8xf32>, %B: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.add ins(%A, %B : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}"#,
    ),
    (
        "elementwise_exp",
        r#"func.func @elementwise_exp(%A: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.exp ins(%A : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}"#,
    ),
    (
        "relu",
        r#"func.func @relu(%A: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x10xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} ins(%A : tensor<6x10xf32>) outs(%e : tensor<6x10xf32>) {
    ^bb0(%x: f32, %out: f32):
      %m = arith.maximumf %x, %z : f32
      linalg.yield %m : f32
  } -> tensor<6x10xf32>
  return %o : tensor<6x10xf32>
}"#,
    ),
];

/// The te import of `text` (after upstream generalisation) as exactly one compute.
fn imported_compute(text: &str) -> rtile_dialects::te::model::TeCompute {
    let out = run_pipeline(
        text,
        "builtin.module(linalg-generalize-named-ops,rtile-import-linalg,canonicalize)",
        true,
    )
    .unwrap();
    let mut ctx = rtile::ir::Context::new(std::sync::Arc::new(
        rtile_mlir_bridge::compat::bridge_registry(),
    ));
    ctx.allow_unregistered = true;
    let m = rtile::parser::parse_str(&mut ctx, "out", &out)
        .unwrap()
        .module;
    let found = rtile_dialects::te::module::computes_in(&ctx, m).unwrap();
    assert_eq!(found.len(), 1, "{out}");
    assert!(!out.contains("linalg."), "{out}");
    found[0].compute.clone()
}

/// For every op class: the te import, run by rtile's interpreter, computes the same values
/// as MLIR's own lowering of the linalg op (convert-linalg-to-loops, LLVM, ExecutionEngine)
/// on random inputs.
#[test]
fn te_import_matches_mlir_lowering() {
    use rtile_runtime::interp::{Accumulate, eval_compute};
    use rtile_runtime::tensor::Tensor;
    for (i, (name, text)) in CASES.iter().enumerate() {
        let c = imported_compute(text);
        let inputs = Tensor::random_inputs(&c.inputs, 17 + i as u64);
        let te = eval_compute(&c, &inputs, Accumulate::Native).unwrap();
        let host_inputs: Vec<HostTensor> = inputs
            .iter()
            .map(|t| HostTensor {
                shape: t.shape.clone(),
                data: t.data.iter().map(|&x| x as f32).collect(),
            })
            .collect();
        let mlir = execute_on_host(text, name, &host_inputs, &c.result.shape).unwrap();
        assert_eq!(mlir.len(), te.data.len(), "{name}");
        let mut worst = 0f64;
        for (a, b) in mlir.iter().zip(&te.data) {
            let err = (*a as f64 - b).abs() / (1.0 + b.abs());
            worst = worst.max(err);
        }
        assert!(worst <= 1e-5, "{name}: max relative error {worst}");
        eprintln!(
            "{name}: {} values, max relative error {worst:e}",
            mlir.len()
        );
    }
}

/// Export round trip: linalg → te → construct/select → linalg.generic with a
/// `lowering_config` → MLIR's own host lowering computes what te computes.
#[test]
fn exported_linalg_matches_te() {
    use rtile_runtime::interp::{Accumulate, eval_compute};
    use rtile_runtime::tensor::Tensor;
    for name in ["matmul", "conv", "pool_max", "reduce", "relu"] {
        let text = CASES.iter().find(|c| c.0 == name).unwrap().1;
        let c = imported_compute(text);
        let exported = run_pipeline(
            text,
            "builtin.module(linalg-generalize-named-ops,rtile-import-linalg,\
             rtile-construct{device=h100},rtile-select,rtile-export-linalg,canonicalize)",
            false,
        )
        .unwrap();
        assert!(
            exported.contains("lowering_config = {device = \"h100\""),
            "{exported}"
        );
        assert!(!exported.contains("te.compute"), "{exported}");
        let inputs = Tensor::random_inputs(&c.inputs, 99);
        let te = eval_compute(&c, &inputs, Accumulate::Native).unwrap();
        let host: Vec<HostTensor> = inputs
            .iter()
            .map(|t| HostTensor {
                shape: t.shape.clone(),
                data: t.data.iter().map(|&x| x as f32).collect(),
            })
            .collect();
        let mlir = execute_on_host(&exported, name, &host, &c.result.shape).unwrap();
        for (a, b) in mlir.iter().zip(&te.data) {
            assert!(
                (*a as f64 - b).abs() <= 1e-5 * (1.0 + b.abs()),
                "{name}: {a} vs {b}"
            );
        }
    }
}
