//! Imported models computed end to end and compared with naive references written
//! here: the function is walked op by op (constants decoded from their
//! `dense_resource` blobs, `te.compute`s on the te interpreter, reshapes as row-major
//! reinterpretation), so the blobs, the folding and the expansions are all checked.

use rtile::ir::{AttrKind, Context, OpId, ResourceValue, Value};
use rtile_dialects::te::ir::compute_from_op;
use rtile_dialects::te::model::{ElemType, TensorType};
use rtile_onnx::{ImportOptions, import_model};
use rtile_runtime::interp::{Accumulate, eval_compute};
use rtile_runtime::tensor::{SplitMix64, Tensor};
use std::collections::HashMap;

fn input_file(name: &str) -> Vec<u8> {
    let p = format!(
        "{}/../tests/lit/onnx/Inputs/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// Decodes a builtin blob (`"0x"`, 4-byte alignment, little-endian f32 or i32).
fn blob(ctx: &Context, handle: &str, t: &TensorType) -> Tensor {
    let Some(ResourceValue::String(hex)) = ctx.resources.builtin_blob(handle) else {
        panic!("no blob {handle}")
    };
    let bytes: Vec<u8> = (2..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let data = bytes[4..]
        .chunks_exact(4)
        .map(|c| {
            let b = [c[0], c[1], c[2], c[3]];
            match t.elem {
                ElemType::F32 => f32::from_le_bytes(b) as f64,
                ElemType::I32 => i32::from_le_bytes(b) as f64,
                e => panic!("blob of {e:?}"),
            }
        })
        .collect();
    Tensor::from_data(t.shape.clone(), t.elem, data).unwrap()
}

/// Runs the only function of `module` on `args`.
fn run(ctx: &Context, module: OpId, args: &[Tensor]) -> Vec<Tensor> {
    let block = ctx.region_blocks(ctx.regions(module)[0])[0];
    let f = ctx.block_ops(block).next().unwrap();
    let body = ctx.region_blocks(ctx.regions(f)[0])[0];
    let mut vals: HashMap<Value, Tensor> = ctx
        .block_args(body)
        .iter()
        .copied()
        .zip(args.iter().cloned())
        .collect();
    for op in ctx.block_ops(body) {
        let res = ctx.results(op).first().copied();
        let out = match ctx.op_name(op) {
            "arith.constant" => {
                let Some(AttrKind::DenseResource { handle, ty }) =
                    ctx.inherent_attr(op, "value").map(|a| a.kind().clone())
                else {
                    panic!("constant without a blob")
                };
                blob(ctx, &handle, &TensorType::from_type(&ty).unwrap())
            }
            "te.compute" => {
                let (c, operands) = compute_from_op(ctx, op).unwrap();
                let ins: Vec<Tensor> = operands.iter().map(|v| vals[v].clone()).collect();
                eval_compute(&c, &ins, Accumulate::Native).unwrap()
            }
            "tensor.collapse_shape" | "tensor.expand_shape" => {
                let t = TensorType::from_type(ctx.value_type(res.unwrap())).unwrap();
                vals[&ctx.operands(op)[0]].reshaped(t.shape).unwrap()
            }
            "func.return" => return ctx.operands(op).iter().map(|v| vals[v].clone()).collect(),
            other => panic!("unexpected op {other}"),
        };
        vals.insert(res.unwrap(), out);
    }
    panic!("no return")
}

fn random(shape: &[i64], seed: u64) -> Tensor {
    Tensor::random(
        &TensorType::new(shape.to_vec(), ElemType::F32),
        &mut SplitMix64(seed),
    )
}

#[test]
fn mlp_like_matches_a_reference() {
    let opts = ImportOptions {
        input_shapes: vec![("x".into(), vec![4, 4])],
    };
    let (ctx, m) = import_model(&input_file("mlp_like.onnx"), &opts).unwrap();
    let x = random(&[4, 4], 3);
    let got = run(&ctx, m, std::slice::from_ref(&x)).remove(0);
    // y = sigmoid(reshape(transpose(relu(x + bias)), [2, 2, 4])), bias = [-0.5, -0.25, 0, 0.25].
    let bias = [-0.5f32, -0.25, 0.0, 0.25];
    let r = |i: usize, j: usize| ((x.data[i * 4 + j] as f32) + bias[j]).max(0.0);
    let want: Vec<f64> = (0..16)
        .map(|p| {
            let (i, j) = (p / 4, p % 4); // transposed [j][i] in row-major order of the 4x4
            let v = r(j, i);
            (1.0 / (1.0 + (-(v as f64)).exp())) as f32 as f64
        })
        .collect();
    assert_eq!(got.shape, vec![2, 2, 4]);
    for (g, w) in got.data.iter().zip(&want) {
        assert!((g - w).abs() < 1e-6, "{g} vs {w}");
    }
}

#[test]
fn movement_matches_a_reference() {
    let (ctx, m) = import_model(&input_file("movement.onnx"), &ImportOptions::default()).unwrap();
    let (a, b) = (random(&[2, 3], 5), random(&[2, 5], 6));
    let outs = run(&ctx, m, &[a.clone(), b.clone()]);
    // c = concat([a, b], -1): 2x8; s = c[:, 7::-2] (cols 7, 5, 3, 1); p = pad cols by 2
    // each side with 1.5; split into two 2x4 halves.
    let c = |i: usize, j: usize| {
        if j < 3 {
            a.data[i * 3 + j]
        } else {
            b.data[i * 5 + j - 3]
        }
    };
    let p = |i: usize, j: usize| {
        if (2..6).contains(&j) {
            c(i, 7 - 2 * (j - 2))
        } else {
            1.5
        }
    };
    for (k, o) in outs.iter().enumerate() {
        assert_eq!(o.shape, vec![2, 4]);
        for i in 0..2 {
            for j in 0..4 {
                assert_eq!(
                    o.data[i * 4 + j],
                    p(i, j + 4 * k),
                    "output {k} at [{i}, {j}]"
                );
            }
        }
    }
}
