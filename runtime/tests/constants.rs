//! Tensor `arith.constant`s in functions run by the interpreter: dense lists, splats and
//! `dense_resource` blobs (added with `FileResources::add_blob`, or read from the file's
//! resource section) give their elements, in both modes; unsupported types are errors.

use rtile::ir::{Type, encode_elements};
use rtile_dialects::te::model::ElemType;
use rtile_dialects::te::module::{new_context, parse_and_verify};
use rtile_runtime::Accumulate;
use rtile_runtime::func::{find_func, run_func};

fn run(text: &str, func: &str, mode: Accumulate) -> Result<Vec<rtile_runtime::Tensor>, String> {
    let mut ctx = new_context();
    let m = parse_and_verify(&mut ctx, "c.mlir", text)?;
    let f = find_func(&ctx, m, func).expect("func");
    run_func(&ctx, Some(m), f, vec![], mode)
}

const TEXT: &str = r#"
func.func @all() -> (tensor<2x2xf32>, tensor<3xi8>, tensor<4xi1>, tensor<2xbf16>, tensor<2x3xi32>, tensor<3xf64>) {
  %a = arith.constant dense<[[1.5, -2.0], [0.1, 3.0e38]]> : tensor<2x2xf32>
  %b = arith.constant dense_resource<bytes> : tensor<3xi8>
  %c = arith.constant dense_resource<flags> : tensor<4xi1>
  %d = arith.constant dense<[1.00390625, -0.3]> : tensor<2xbf16>
  %e = arith.constant dense<-9> : tensor<2x3xi32>
  %f = arith.constant dense_resource<doubles> : tensor<3xf64>
  return %a, %b, %c, %d, %e, %f : tensor<2x2xf32>, tensor<3xi8>, tensor<4xi1>, tensor<2xbf16>, tensor<2x3xi32>, tensor<3xf64>
}

func.func @used() -> tensor<3xf32> {
  %w = arith.constant dense_resource<w> : tensor<3xf32>
  %s = arith.constant dense<2.0> : tensor<3xf32>
  %0 = te.compute (%i) reduce (%k) in [3, 3] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> {
    te.sum(%w[%k] * %s[%i] + %w[%i])
  }
  return %0 : tensor<3xf32>
}

func.func @wide() -> tensor<2xi64> {
  %0 = arith.constant dense<[1, 2]> : tensor<2xi64>
  return %0 : tensor<2xi64>
}
{-#
  dialect_resources: {
    builtin: {
      bytes: "0x01000000FF7F80",
      flags: "0x0100000001000201",
      doubles: "0x08000000000000000000F03F9A9999999999B93F000000000000F0FF",
      w: "0x040000000000803F000000400000A0C0"
    }
  }
#-}
"#;

#[test]
fn constants_give_their_elements() {
    for mode in [Accumulate::Native, Accumulate::F64] {
        let out = run(TEXT, "all", mode).expect("runs");
        assert_eq!(out[0].shape, vec![2, 2]);
        assert_eq!(out[0].dtype, ElemType::F32);
        assert_eq!(
            out[0].data,
            vec![1.5, -2.0, 0.1f32 as f64, 3.0e38f32 as f64]
        );
        assert_eq!(out[1].data, vec![-1.0, 127.0, -128.0]);
        // A nonzero byte is true.
        assert_eq!(out[2].data, vec![1.0, 0.0, 1.0, 1.0]);
        // 1.00390625 is halfway between bf16 neighbours 1 and 1.0078125: ties to even.
        assert_eq!(out[3].data[0], 1.0);
        assert_eq!(out[3].data[1], -0.30078125);
        assert_eq!(out[4].data, vec![-9.0; 6]);
        assert_eq!(out[5].data, vec![1.0, 0.1, f64::NEG_INFINITY]);
    }
}

#[test]
fn constants_feed_computes() {
    // w = [1, 2, -5]; out[i] = Σ_k (w[k] * 2 + w[i]) = 2 * (-2) + 3 * w[i].
    let out = run(TEXT, "used", Accumulate::Native).expect("runs");
    assert_eq!(out[0].data, vec![-1.0, 2.0, -19.0]);
}

#[test]
fn unsupported_element_types_are_errors() {
    let e = run(TEXT, "wide", Accumulate::Native).expect_err("i64");
    assert!(e.contains("not tensor<2xi64>"), "{e}");
}

#[test]
fn blobs_added_through_the_api_run() {
    let mut ctx = new_context();
    let text = "func.func @f() -> tensor<2x2xf16> {\n  %0 = arith.constant dense_resource<k> : tensor<2x2xf16>\n  return %0 : tensor<2x2xf16>\n}\n";
    // The handle a module refers to is added before parsing, as an importer does.
    let bytes = encode_elements(
        &Type::float(rtile::ir::FloatKind::F16),
        &[0.5, -1.0, 1e-8, 7.0],
    )
    .expect("encode");
    assert_eq!(ctx.resources.add_blob("k", 2, &bytes), "k");
    let m = parse_and_verify(&mut ctx, "f.mlir", text).expect("parses");
    let f = find_func(&ctx, m, "f").expect("f");
    let out = run_func(&ctx, Some(m), f, vec![], Accumulate::Native).expect("runs");
    // 1e-8 is below half of f16's smallest subnormal (2^-24 ≈ 6e-8): it rounds to 0.
    assert_eq!(out[0].data, vec![0.5, -1.0, 0.0, 7.0]);
}
