//! The activations against their formulas, evaluated in f64.

use rtile_dialects::te::model::ElemType;

use super::{A, Attrs, In, assert_close, rand, rand_t, run, run_err};

fn erf(x: f64) -> f64 {
    rtile_runtime::interp::erf(x)
}

fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

/// An op type, its attributes and the formula.
type Case = (
    &'static str,
    Vec<(&'static str, A)>,
    Box<dyn Fn(f64) -> f64>,
);

#[test]
fn activations_match_their_formulas() {
    let mut x = rand(&[3, 4, 5], 1);
    // Spread the inputs over [-4, 4) so every branch is taken.
    x.data.iter_mut().for_each(|v| *v *= 4.0);
    let cases: Vec<Case> = vec![
        ("Sigmoid", vec![], Box::new(|v| 1.0 / (1.0 + (-v).exp()))),
        (
            "HardSigmoid",
            vec![],
            Box::new(|v| (0.2 * v + 0.5).clamp(0.0, 1.0)),
        ),
        (
            "HardSigmoid",
            vec![("alpha", A::F(0.5)), ("beta", A::F(0.25))],
            Box::new(|v| (0.5 * v + 0.25).clamp(0.0, 1.0)),
        ),
        ("Softplus", vec![], Box::new(softplus)),
        (
            "Elu",
            vec![],
            Box::new(|v| if v < 0.0 { v.exp() - 1.0 } else { v }),
        ),
        (
            "Elu",
            vec![("alpha", A::F(0.5))],
            Box::new(|v| if v < 0.0 { 0.5 * (v.exp() - 1.0) } else { v }),
        ),
        (
            "Selu",
            vec![],
            Box::new(|v| {
                let (a, g) = (1.673_263_2_f32 as f64, 1.050_701_f32 as f64);
                g * if v > 0.0 { v } else { a * v.exp() - a }
            }),
        ),
        (
            "Celu",
            vec![("alpha", A::F(2.0))],
            Box::new(|v| v.max(0.0) + (2.0 * ((v / 2.0).exp() - 1.0)).min(0.0)),
        ),
        (
            "HardSwish",
            vec![],
            Box::new(|v| v * (v / 6.0 + 0.5).clamp(0.0, 1.0)),
        ),
        ("Mish", vec![], Box::new(|v| v * softplus(v).tanh())),
        ("Softsign", vec![], Box::new(|v| v / (1.0 + v.abs()))),
        (
            "ThresholdedRelu",
            vec![],
            Box::new(|v| if v > 1.0 { v } else { 0.0 }),
        ),
        (
            "ThresholdedRelu",
            vec![("alpha", A::F(-0.5))],
            Box::new(|v| if v > -0.5 { v } else { 0.0 }),
        ),
        (
            "Gelu",
            vec![],
            Box::new(|v| 0.5 * v * (1.0 + erf(v / 2f64.sqrt()))),
        ),
        (
            "Gelu",
            vec![("approximate", A::S("tanh"))],
            Box::new(|v| {
                let c = (2.0 / std::f64::consts::PI).sqrt();
                0.5 * v * (1.0 + (c * (v + 0.044715 * v * v * v)).tanh())
            }),
        ),
    ];
    for (op, attrs, f) in cases {
        let want: Vec<f64> = x.data.iter().map(|&v| f(v)).collect();
        let got = run(op, 20, vec![In::T(x.clone())], &Attrs::new(&attrs));
        // 1/6, 0.044715 and the Selu constants are rounded to f32 in an f32 body.
        assert_close(&got, &x.shape, &want, 1e-7);
    }
}

#[test]
fn softplus_does_not_overflow() {
    let x = rtile_runtime::tensor::Tensor::from_data(
        vec![3],
        ElemType::F32,
        vec![-1000.0, 0.0, 1000.0],
    )
    .unwrap();
    let got = run("Softplus", 1, vec![In::T(x)], &Attrs::default());
    assert_close(&got, &[3], &[0.0, 2f64.ln(), 1000.0], 1e-12);
}

#[test]
fn activation_types_and_errors() {
    let x = rand_t(&[4], ElemType::F16, 2);
    let got = run("Sigmoid", 13, vec![In::T(x.clone())], &Attrs::default());
    let want: Vec<f64> = x.data.iter().map(|v| 1.0 / (1.0 + (-v).exp())).collect();
    assert_close(&got, &[4], &want, 1e-12);
    let e = run_err(
        "Gelu",
        20,
        vec![In::T(x.clone())],
        &Attrs::new(&[("approximate", A::S("fast"))]),
    );
    assert!(
        e.contains("approximate 'fast' is not one of none, tanh"),
        "{e}"
    );
    let i = rand_t(&[4], ElemType::I32, 3);
    let e = run_err("Sigmoid", 13, vec![In::T(i)], &Attrs::default());
    assert!(e.contains("needs a float type"), "{e}");
}
