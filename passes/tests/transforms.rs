//! `--axis-fusion` and `--tensor-padding` leave outputs bit-identical, checked with the
//! interpreter (f64 oracle and native rounding) on random shapes including primes and 1:
//! on the model (`fuse_axes`, `pad_compute`), and end to end through the IR (custom-form
//! text → real parser → the registered passes → verifier → `run_func` on the function).

use proptest::prelude::*;
use rtile::ir::Context;
use rtile::pass::{Pass, PassStatistics};
use rtile::printer::{PrintOptions, print_op};
use rtile_dialects::te::expr::{CustomHeader, parse_custom, print_body, print_header};
use rtile_dialects::te::model::{ElemType, TeCompute, TensorType};
use rtile_dialects::te::module::{new_context, parse_and_verify};
use rtile_dialects::te::verify::verify;
use rtile_passes::{axis_fusion, tensor_padding};
use rtile_runtime::driver::module_funcs;
use rtile_runtime::func::run_func;
use rtile_runtime::{Accumulate, Tensor, eval_compute};

const EXTENTS: [i64; 9] = [1, 2, 3, 4, 5, 7, 8, 11, 13];

fn ty(shape: &[i64]) -> TensorType {
    TensorType::new(shape.to_vec(), ElemType::F32)
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn pct(v: &[String]) -> String {
    v.iter()
        .map(|n| format!("%{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A family of computes: (kind, parallel extents, reduction extents, variant).
fn build(kind: u8, par: &[i64], red: &[i64], variant: u8) -> TeCompute {
    let p = names("p", par.len());
    let r = names("r", red.len());
    let mut ext: Vec<i64> = par.to_vec();
    ext.extend_from_slice(red);
    let (ins, body, red_names, may_pad): (Vec<TensorType>, String, Vec<String>, f64) = match kind {
        // Elementwise with a second operand: full shape, or broadcast over the last axis.
        0 => {
            let second: Vec<String> = if variant.is_multiple_of(2) || p.len() == 1 {
                p.clone()
            } else {
                p[..p.len() - 1].to_vec()
            };
            let sshape: Vec<i64> = par[..second.len()].to_vec();
            (
                vec![ty(par), ty(&sshape)],
                format!("max(%I[{}], 0.0) * %J[{}] + 1.0", pct(&p), pct(&second)),
                vec![],
                0.0,
            )
        }
        // Sum over trailing axes of the input, weighted by a tensor over the reduction
        // axes; or a max reduction.
        1 => {
            let mut ishape = par.to_vec();
            ishape.extend_from_slice(red);
            let all: Vec<String> = p.iter().chain(&r).cloned().collect();
            if variant.is_multiple_of(2) {
                (
                    vec![ty(&ishape), ty(red)],
                    format!("te.sum(%I[{}] * %W[{}])", pct(&all), pct(&r)),
                    r.clone(),
                    0.0,
                )
            } else {
                (
                    vec![ty(&ishape)],
                    format!("te.max(%I[{}])", pct(&all)),
                    r.clone(),
                    f64::NEG_INFINITY,
                )
            }
        }
        // Batched matmul: parallel = batch.. , m, n; one reduction k.
        _ => {
            let nb = par.len() - 2;
            let (b, m, n) = (&p[..nb], &p[nb], &p[nb + 1]);
            let k = &r[0];
            let mut a_shape = par[..nb].to_vec();
            a_shape.extend([par[nb], red[0]]);
            let mut b_shape = par[..nb].to_vec();
            b_shape.extend([red[0], par[nb + 1]]);
            let bb = if b.is_empty() {
                String::new()
            } else {
                format!("{}, ", pct(b))
            };
            (
                vec![ty(&a_shape), ty(&b_shape)],
                format!("te.sum(%A[{bb}%{m}, %{k}] * %B[{bb}%{k}, %{n}])"),
                r[..1].to_vec(),
                0.0,
            )
        }
    };
    let ext = match kind {
        0 => par.to_vec(),
        1 => ext,
        _ => [par, &red[..1]].concat(),
    };
    let h = CustomHeader {
        parallel: p,
        reduction: red_names,
        extents: ext,
        input_types: ins,
        result: ty(par),
        may_pad: Some(may_pad),
        padded_from: None,
        accumulator: None,
    };
    let c = parse_custom(&h, body.as_str())
        .unwrap_or_else(|e| panic!("{body}: {e}"))
        .compute;
    verify(&c).unwrap_or_else(|e| panic!("{body}: {e}"));
    c
}

fn shapes() -> impl Strategy<Value = (u8, Vec<i64>, Vec<i64>, u8)> {
    let ext = proptest::sample::select(EXTENTS.to_vec());
    (
        0u8..3,
        proptest::collection::vec(ext.clone(), 1..=4),
        proptest::collection::vec(ext, 1..=3),
        0u8..4,
    )
        .prop_map(|(kind, mut par, red, v)| {
            if kind == 2 && par.len() < 2 {
                par.push(3);
            }
            // Keep the domain small enough for a debug-build interpreter.
            let mut red = red;
            let size = |p: &[i64], r: &[i64]| p.iter().chain(r).product::<i64>();
            while size(&par, &red) > 4096 {
                if red.len() > 1 {
                    red.pop();
                } else if par.len() > 2 {
                    par.pop();
                } else {
                    par[0] = 1;
                }
            }
            (kind, par, red, v)
        })
}

fn run_both(c: &TeCompute, ins: &[Tensor]) -> (Tensor, Tensor) {
    (
        eval_compute(c, ins, Accumulate::F64).expect("f64"),
        eval_compute(c, ins, Accumulate::Native).expect("native"),
    )
}

fn same_bits(a: &Tensor, b: &Tensor) -> bool {
    a.data.len() == b.data.len()
        && a.data
            .iter()
            .zip(&b.data)
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn axis_fusion_is_bit_identical((kind, par, red, v) in shapes(), seed in 0u64..1000) {
        let c = build(kind, &par, &red, v);
        let f = axis_fusion::fuse_axes(&c);
        prop_assert!(verify(&f.compute).is_ok(), "{:?}", verify(&f.compute));
        prop_assert!(f.compute.axes.len() <= c.axes.len());
        let ins = Tensor::random_inputs(&c.inputs, seed);
        let fins: Vec<Tensor> = ins
            .iter()
            .zip(&f.compute.inputs)
            .map(|(t, nt)| t.reshaped(nt.shape.clone()).expect("reshape"))
            .collect();
        let (a64, an) = run_both(&c, &ins);
        let (b64, bn) = run_both(&f.compute, &fins);
        prop_assert!(same_bits(&a64, &b64));
        prop_assert!(same_bits(&an, &bn));
    }

    #[test]
    fn tensor_padding_is_bit_identical(
        (kind, par, red, v) in shapes(),
        tile in proptest::collection::vec(1i64..=9, 8),
        eps in proptest::sample::select(vec![0.0, 0.25, 0.5, 1.0, 4.0]),
        fuse_first in any::<bool>(),
        seed in 0u64..1000,
    ) {
        let c = build(kind, &par, &red, v);
        let (c, ins) = if fuse_first {
            let f = axis_fusion::fuse_axes(&c);
            let ins: Vec<Tensor> = Tensor::random_inputs(&c.inputs, seed)
                .iter()
                .zip(&f.compute.inputs)
                .map(|(t, nt)| t.reshaped(nt.shape.clone()).expect("reshape"))
                .collect();
            (f.compute, ins)
        } else {
            let ins = Tensor::random_inputs(&c.inputs, seed);
            (c, ins)
        };
        let tile = &tile[..c.axes.len()];
        let p = tensor_padding::pad_compute(&c, tile, eps).expect("pads");
        prop_assert!(verify(&p).is_ok(), "{:?}", verify(&p));
        for (a, (pa, &s)) in c.axes.iter().zip(p.axes.iter().zip(tile)) {
            prop_assert!(pa.extent >= a.extent);
            if pa.extent != a.extent {
                prop_assert_eq!(pa.extent % s, 0);
                prop_assert!(((pa.extent - a.extent) as f64) / (a.extent as f64) <= eps);
            }
        }
        let (a64, an) = run_both(&c, &ins);
        let (b64, bn) = run_both(&p, &ins);
        prop_assert!(same_bits(&a64, &b64));
        prop_assert!(same_bits(&an, &bn));
    }
}

#[test]
fn paper_example_fuses_to_561_and_matches() {
    let c = build(0, &[17, 11, 3], &[1], 0);
    let f = axis_fusion::fuse_axes(&c);
    assert_eq!(f.compute.extents(), vec![561]);
    let ins = Tensor::random_inputs(&c.inputs, 5);
    let fins: Vec<Tensor> = ins
        .iter()
        .map(|t| t.reshaped(vec![561]).expect("reshape"))
        .collect();
    let (a, _) = run_both(&c, &ins);
    let (b, _) = run_both(&f.compute, &fins);
    assert!(same_bits(&a, &b));
}

#[test]
fn padded_conv_matches() {
    // Conv with zero padding 1, stride 2; pad every axis to multiples of 4.
    let h = CustomHeader {
        parallel: vec!["n".into(), "f".into(), "y".into(), "x".into()],
        reduction: vec!["c".into(), "ry".into(), "rx".into()],
        extents: vec![2, 3, 5, 5, 3, 3, 3],
        input_types: vec![ty(&[2, 3, 9, 9]), ty(&[3, 3, 3, 3])],
        result: ty(&[2, 3, 5, 5]),
        may_pad: Some(0.0),
        padded_from: None,
        accumulator: None,
    };
    let c = parse_custom(
        &h,
        "te.sum(%D[%n, %c, %y * 2 + %ry - 1, %x * 2 + %rx - 1] pad 0.0 * %K[%f, %c, %ry, %rx])",
    )
    .expect("parse")
    .compute;
    let p = tensor_padding::pad_compute(&c, &[4, 4, 4, 4, 4, 4, 4], 1.0).expect("pads");
    assert_eq!(p.extents(), vec![4, 4, 8, 8, 4, 4, 4]);
    verify(&p).expect("verifies");
    let ins = Tensor::random_inputs(&c.inputs, 9);
    let (a, an) = run_both(&c, &ins);
    let (b, bn) = run_both(&p, &ins);
    assert!(same_bits(&a, &b) && same_bits(&an, &bn));
}

/// The text of a module with one function running `c` (inputs `%in0`, `%in1`, ...),
/// with an `rtile.tile` attribute when given.
fn module_text(c: &TeCompute, tile: Option<&[i64]>) -> String {
    let names: Vec<String> = (0..c.inputs.len()).map(|i| format!("in{i}")).collect();
    let args: Vec<String> = names
        .iter()
        .zip(&c.inputs)
        .map(|(n, t)| format!("%{n}: {}", t.text()))
        .collect();
    let attr = tile
        .map(|t| {
            let v: Vec<String> = t.iter().map(|x| x.to_string()).collect();
            format!(" {{rtile.tile = #rtile.tile<[{}]>}}", v.join(", "))
        })
        .unwrap_or_default();
    format!(
        "func.func @f({}) -> {r} {{\n  %0 = te.compute {} {{\n    {}\n  }}{attr}\n  return %0 : {r}\n}}\n",
        args.join(", "),
        print_header(c),
        print_body(c, &names),
        r = c.result.text()
    )
}

/// Parses `text`, runs `pass` on the module, verifies, and returns the context, the
/// module and the printed result.
fn run_pass(text: &str, pass: &mut dyn Pass) -> (Context, rtile::ir::OpId, String) {
    let mut ctx = new_context();
    let m = parse_and_verify(&mut ctx, "in.mlir", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    pass.run(&mut ctx, m, &mut PassStatistics::default())
        .unwrap_or_else(|d| panic!("{}: {}\n{text}", pass.name(), d.message));
    rtile::verifier::verify(&ctx, m).unwrap_or_else(|ds| panic!("{:?}\n{text}", ds[0].message));
    let printed = print_op(&ctx, m, &PrintOptions::default());
    (ctx, m, printed)
}

/// Runs the module's only function on `ins` in both modes.
fn run_module(ctx: &Context, m: rtile::ir::OpId, ins: &[Tensor]) -> (Tensor, Tensor) {
    let f = module_funcs(ctx, m)[0];
    let go = |mode| {
        run_func(ctx, Some(m), f, ins.to_vec(), mode)
            .expect("runs")
            .remove(0)
    };
    (go(Accumulate::F64), go(Accumulate::Native))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// The real `--axis-fusion` on parsed IR, then the interpreter on the function
    /// (with the reshapes it inserted): bit-identical, and the printed result parses.
    #[test]
    fn axis_fusion_pass_on_ir_is_bit_identical((kind, par, red, v) in shapes(), seed in 0u64..1000) {
        let c = build(kind, &par, &red, v);
        let text = module_text(&c, None);
        let mut before = new_context();
        let m0 = parse_and_verify(&mut before, "in.mlir", &text).expect("parses");
        let (after, m1, printed) = run_pass(&text, &mut axis_fusion::AxisFusion);
        let mut again = new_context();
        prop_assert!(parse_and_verify(&mut again, "out.mlir", &printed).is_ok(), "{printed}");
        let ins = Tensor::random_inputs(&c.inputs, seed);
        let (a64, an) = run_module(&before, m0, &ins);
        let (b64, bn) = run_module(&after, m1, &ins);
        prop_assert!(same_bits(&a64, &b64));
        prop_assert!(same_bits(&an, &bn));
    }

    /// The real `--tensor-padding` (tile from the `rtile.tile` attribute) on parsed IR.
    #[test]
    fn tensor_padding_pass_on_ir_is_bit_identical(
        (kind, par, red, v) in shapes(),
        tile in proptest::collection::vec(1i64..=9, 8),
        eps in proptest::sample::select(vec!["0.0", "0.25", "1.0", "4.0"]),
        seed in 0u64..1000,
    ) {
        let c = build(kind, &par, &red, v);
        let tile = &tile[..c.axes.len()];
        let text = module_text(&c, Some(tile));
        let mut before = new_context();
        let m0 = parse_and_verify(&mut before, "in.mlir", &text).expect("parses");
        let mut pass = tensor_padding::TensorPadding::default();
        pass.set_option("epsilon", eps).expect("epsilon");
        let (after, m1, _) = run_pass(&text, &mut pass);
        let ins = Tensor::random_inputs(&c.inputs, seed);
        let (a64, an) = run_module(&before, m0, &ins);
        let (b64, bn) = run_module(&after, m1, &ins);
        prop_assert!(same_bits(&a64, &b64));
        prop_assert!(same_bits(&an, &bn));
    }
}

/// Roller's example through the pass: one fused axis of 561, reshapes around it.
#[test]
fn paper_example_through_the_pass() {
    let c = build(0, &[17, 11, 3], &[1], 0);
    let (_, _, printed) = run_pass(&module_text(&c, None), &mut axis_fusion::AxisFusion);
    assert!(
        printed.contains("te.compute (%p0_p1_p2) in [561]"),
        "{printed}"
    );
    assert!(
        printed.contains(
            "tensor.collapse_shape %arg0 [[0, 1, 2]] : tensor<17x11x3xf32> into tensor<561xf32>"
        ),
        "{printed}"
    );
    assert!(printed.contains("tensor.expand_shape"), "{printed}");
}

/// Refusals are diagnostics on the op, not panics.
#[test]
fn padding_refusal_is_a_diagnostic() {
    let mut c = build(1, &[4], &[13], 1); // te.max: pads with -inf; make it not allowed
    c.may_pad = None;
    let text = module_text(&c, Some(&[4, 8]));
    let mut ctx = new_context();
    let m = parse_and_verify(&mut ctx, "in.mlir", &text).expect("parses");
    let mut pass = tensor_padding::TensorPadding::default();
    pass.set_option("epsilon", "1.0").expect("epsilon");
    let d = pass
        .run(&mut ctx, m, &mut PassStatistics::default())
        .expect_err("refused");
    assert!(
        d.message.contains("the compute does not allow padding"),
        "{}",
        d.message
    );
    assert!(d.span.is_some());
    assert!(pass.set_option("epsilon", "-1").is_err());
}
