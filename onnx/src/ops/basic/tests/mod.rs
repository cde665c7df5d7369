//! Each basic operator's expansion run on the te interpreter against a naive reference
//! computed here (broadcasting, negative axes, opset variants, errors).

use crate::eval::eval_expansion;
use crate::import::attrs::{AttrValue, MapAttrs};
use crate::ops::{ConstData, ConstTensor, NodeInfo, OpInput, ValueType, expand};
use rtile_dialects::te::model::ElemType;
use rtile_runtime::interp::Accumulate;
use rtile_runtime::tensor::{SplitMix64, Tensor};

mod movement;

/// A node input: a te tensor (runtime data) or a constant.
enum In {
    Data(Tensor),
    Const(ConstTensor),
    Absent,
}

fn data(shape: &[i64], seed: u64) -> In {
    let t = rtile_dialects::te::model::TensorType::new(shape.to_vec(), ElemType::F32);
    In::Data(Tensor::random(&t, &mut SplitMix64(seed)))
}

fn ints(v: &[i64]) -> In {
    In::Const(ConstTensor {
        shape: vec![v.len() as i64],
        data: ConstData::I64(v.to_vec()),
    })
}

fn scalar_f32(v: f32) -> In {
    In::Const(ConstTensor {
        shape: vec![],
        data: ConstData::F32(vec![v]),
    })
}

fn tensor_of(i: &In) -> &Tensor {
    match i {
        In::Data(t) => t,
        _ => panic!("not data"),
    }
}

/// Expands and evaluates `op`; `Err` carries the expansion's or the evaluation's error.
fn run(
    op: &str,
    opset: i64,
    ins: &[In],
    attrs: MapAttrs,
    nout: usize,
) -> Result<Vec<Tensor>, String> {
    let types: Vec<Option<ValueType>> = ins
        .iter()
        .map(|i| match i {
            In::Data(t) => Some(ValueType {
                shape: t.shape.clone(),
                elem: Some(t.dtype),
            }),
            In::Const(c) => Some(crate::import::tensor::const_type(c)),
            In::Absent => None,
        })
        .collect();
    let inputs: Vec<Option<OpInput>> = ins
        .iter()
        .zip(&types)
        .map(|(i, t)| {
            t.as_ref().map(|ty| OpInput {
                ty,
                value: if let In::Const(c) = i { Some(c) } else { None },
            })
        })
        .collect();
    let info = NodeInfo {
        op_type: op,
        opset,
        num_outputs: nout,
    };
    let exp = expand(info, &inputs, &attrs)
        .ok_or("unknown op")?
        .map_err(|e| e.0)?;
    let tensors: Vec<Option<Tensor>> = ins
        .iter()
        .map(|i| match i {
            In::Data(t) => Some(t.clone()),
            In::Const(c) => crate::eval::const_to_tensor(c),
            In::Absent => None,
        })
        .collect();
    eval_expansion(&exp, &tensors, Accumulate::Native)
}

fn run1(op: &str, opset: i64, ins: &[In], attrs: MapAttrs) -> Tensor {
    run(op, opset, ins, attrs, 1)
        .unwrap_or_else(|e| panic!("{op}: {e}"))
        .remove(0)
}

/// Row-major multi-index of position `p` in `shape`.
fn unravel(mut p: usize, shape: &[i64]) -> Vec<i64> {
    let mut idx = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        idx[k] = (p as i64) % shape[k];
        p /= shape[k] as usize;
    }
    idx
}

fn ravel(idx: &[i64], shape: &[i64]) -> usize {
    idx.iter().zip(shape).fold(0i64, |a, (&i, &d)| a * d + i) as usize
}

/// The element of `t` that numpy broadcasting maps to output index `idx`.
fn bcast_get(t: &Tensor, idx: &[i64]) -> f64 {
    let off = idx.len() - t.shape.len();
    let own: Vec<i64> = t
        .shape
        .iter()
        .enumerate()
        .map(|(k, &d)| if d == 1 { 0 } else { idx[off + k] })
        .collect();
    t.data[ravel(&own, &t.shape)]
}

fn assert_close(got: &Tensor, shape: &[i64], want: &[f64], tol: f64) {
    assert_eq!(got.shape, shape);
    assert_eq!(got.data.len(), want.len());
    for (k, (g, w)) in got.data.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "element {k}: got {g}, want {w}"
        );
    }
}

#[test]
fn binary_ops_broadcast_multidirectionally() {
    let (a, b) = (data(&[2, 1, 4], 1), data(&[3, 1], 2));
    let out = [2, 3, 4];
    for (op, f) in [
        ("Add", (|x, y| x + y) as fn(f64, f64) -> f64),
        ("Sub", |x, y| x - y),
        ("Mul", |x, y| x * y),
        ("Div", |x, y| x / y),
        ("Max", f64::max),
        ("Min", f64::min),
    ] {
        let got = run1(op, 14, &[a.clone_in(), b.clone_in()], MapAttrs::new());
        let want: Vec<f64> = (0..24)
            .map(|p| {
                let i = unravel(p, &out);
                f(bcast_get(tensor_of(&a), &i), bcast_get(tensor_of(&b), &i)) as f32 as f64
            })
            .collect();
        assert_close(&got, &out, &want, 1e-6);
    }
}

impl In {
    fn clone_in(&self) -> In {
        match self {
            In::Data(t) => In::Data(t.clone()),
            In::Const(c) => In::Const(c.clone()),
            In::Absent => In::Absent,
        }
    }
}

#[test]
fn sum_of_three_and_incompatible_shapes() {
    let (a, b, c) = (data(&[3], 1), data(&[2, 1], 2), data(&[1], 3));
    let got = run1(
        "Sum",
        13,
        &[a.clone_in(), b.clone_in(), c.clone_in()],
        MapAttrs::new(),
    );
    let want: Vec<f64> = (0..6)
        .map(|p| {
            let i = unravel(p, &[2, 3]);
            ((bcast_get(tensor_of(&a), &i) as f32 + bcast_get(tensor_of(&b), &i) as f32)
                + bcast_get(tensor_of(&c), &i) as f32) as f64
        })
        .collect();
    assert_close(&got, &[2, 3], &want, 0.0);
    let e = run(
        "Add",
        14,
        &[data(&[3], 1), data(&[4], 2)],
        MapAttrs::new(),
        1,
    )
    .unwrap_err();
    assert!(e.contains("cannot be broadcast"), "{e}");
}

/// A reference function of one value.
type Unary = fn(f64) -> f64;

#[test]
fn activations_match_their_formulas() {
    let x = data(&[2, 5], 7);
    let xs = &tensor_of(&x).data;
    let cases: Vec<(&str, Unary)> = vec![
        ("Relu", |v| v.max(0.0)),
        ("Sigmoid", |v| 1.0 / (1.0 + (-v).exp())),
        ("Tanh", f64::tanh),
        ("Exp", f64::exp),
        ("Abs", f64::abs),
        ("Neg", |v| -v),
        ("Reciprocal", |v| 1.0 / v),
        ("LeakyRelu", |v| if v < 0.0 { 0.01 * v } else { v }),
    ];
    for (op, f) in cases {
        let got = run1(op, 13, &[x.clone_in()], MapAttrs::new());
        let want: Vec<f64> = xs.iter().map(|&v| f(v)).collect();
        assert_close(&got, &[2, 5], &want, 1e-6);
    }
    let got = run1(
        "LeakyRelu",
        16,
        &[x.clone_in()],
        MapAttrs::new().with("alpha", AttrValue::Float(0.5)),
    );
    let want: Vec<f64> = xs
        .iter()
        .map(|&v| if v < 0.0 { 0.5 * v } else { v })
        .collect();
    assert_close(&got, &[2, 5], &want, 1e-6);
    // Log and Sqrt on positive values.
    let pos = In::Data(Tensor::from_data(vec![3], ElemType::F32, vec![0.5, 2.0, 9.0]).unwrap());
    assert_close(
        &run1("Sqrt", 13, &[pos.clone_in()], MapAttrs::new()),
        &[3],
        &[0.5f64.sqrt(), 2f64.sqrt(), 3.0],
        1e-6,
    );
    assert_close(
        &run1("Log", 13, &[pos], MapAttrs::new()),
        &[3],
        &[0.5f64.ln(), 2f64.ln(), 9f64.ln()],
        1e-6,
    );
}

#[test]
fn erf_matches_a_series() {
    let x = In::Data(Tensor::from_data(vec![3], ElemType::F32, vec![-0.5, 0.25, 1.0]).unwrap());
    // erf by its Maclaurin series (converges fast for |x| <= 1).
    let erf = |v: f64| {
        let mut s = 0.0;
        let mut term = v;
        for n in 0..30 {
            s += term / (2 * n + 1) as f64;
            term *= -v * v / (n + 1) as f64;
        }
        s * 2.0 / std::f64::consts::PI.sqrt()
    };
    let got = run1("Erf", 13, &[x], MapAttrs::new());
    assert_close(&got, &[3], &[erf(-0.5), erf(0.25), erf(1.0)], 1e-6);
}

#[test]
fn prelu_broadcasts_the_slope_one_way() {
    let (x, s) = (data(&[2, 3, 2], 3), data(&[3, 1], 4));
    let got = run1("PRelu", 16, &[x.clone_in(), s.clone_in()], MapAttrs::new());
    let want: Vec<f64> = (0..12)
        .map(|p| {
            let i = unravel(p, &[2, 3, 2]);
            let v = bcast_get(tensor_of(&x), &i);
            if v < 0.0 {
                (v as f32 * bcast_get(tensor_of(&s), &i) as f32) as f64
            } else {
                v
            }
        })
        .collect();
    assert_close(&got, &[2, 3, 2], &want, 0.0);
    let e = run(
        "PRelu",
        16,
        &[data(&[3], 1), data(&[2, 3], 2)],
        MapAttrs::new(),
        1,
    )
    .unwrap_err();
    assert!(e.contains("does not broadcast"), "{e}");
}

#[test]
fn prelu_before_opset_7_has_a_slope_per_channel() {
    // PyTorch's exports (opset 6): a [C] slope applies along axis 1 of [N, C, L].
    let (x, s) = (data(&[2, 3, 4], 5), data(&[3], 6));
    let got = run1("PRelu", 6, &[x.clone_in(), s.clone_in()], MapAttrs::new());
    let want: Vec<f64> = (0..24)
        .map(|p| {
            let i = unravel(p, &[2, 3, 4]);
            let v = bcast_get(tensor_of(&x), &i);
            let slope = tensor_of(&s).data[i[1] as usize];
            if v < 0.0 {
                (v as f32 * slope as f32) as f64
            } else {
                v
            }
        })
        .collect();
    assert_close(&got, &[2, 3, 4], &want, 0.0);
    // From opset 7 the same shapes are numpy broadcasting, which [2, 3, 4] and [3] are not.
    let e = run(
        "PRelu",
        7,
        &[x.clone_in(), s.clone_in()],
        MapAttrs::new(),
        1,
    )
    .unwrap_err();
    assert!(e.contains("broadcast"), "{e}");
}

#[test]
fn clip_attributes_before_11_and_inputs_after() {
    let x = data(&[8], 5);
    let xs = tensor_of(&x).data.clone();
    let want = |lo: f64, hi: f64| xs.iter().map(|v| v.max(lo).min(hi)).collect::<Vec<_>>();
    let old = run1(
        "Clip",
        6,
        &[x.clone_in()],
        MapAttrs::new()
            .with("min", AttrValue::Float(-0.25))
            .with("max", AttrValue::Float(0.5)),
    );
    assert_close(&old, &[8], &want(-0.25, 0.5), 0.0);
    let new = run1(
        "Clip",
        13,
        &[x.clone_in(), scalar_f32(-0.25), scalar_f32(0.5)],
        MapAttrs::new(),
    );
    assert_close(&new, &[8], &want(-0.25, 0.5), 0.0);
    let only_max = run1(
        "Clip",
        13,
        &[x.clone_in(), In::Absent, scalar_f32(0.0)],
        MapAttrs::new(),
    );
    assert_close(&only_max, &[8], &want(f64::NEG_INFINITY, 0.0), 0.0);
    // A bound that is a runtime scalar.
    let lo = In::Data(Tensor::from_data(vec![], ElemType::F32, vec![0.1]).unwrap());
    let dynamic = run1("Clip", 13, &[x.clone_in(), lo], MapAttrs::new());
    assert_close(&dynamic, &[8], &want(0.1f32 as f64, f64::INFINITY), 0.0);
}

#[test]
fn identity_dropout_and_cast() {
    let x = data(&[2, 2], 9);
    let xs = tensor_of(&x).data.clone();
    assert_close(
        &run1("Identity", 13, &[x.clone_in()], MapAttrs::new()),
        &[2, 2],
        &xs,
        0.0,
    );
    let outs = run("Dropout", 13, &[x.clone_in()], MapAttrs::new(), 2).unwrap();
    assert_close(&outs[0], &[2, 2], &xs, 0.0);
    assert_eq!(outs[1].dtype, ElemType::I1);
    assert!(outs[1].data.iter().all(|&b| b == 1.0));
    let tm = In::Const(ConstTensor {
        shape: vec![],
        data: ConstData::Bool(vec![true]),
    });
    assert!(
        run(
            "Dropout",
            13,
            &[x.clone_in(), In::Absent, tm],
            MapAttrs::new(),
            1
        )
        .is_err()
    );
    let h = run1(
        "Cast",
        13,
        &[x.clone_in()],
        MapAttrs::new().with("to", AttrValue::Int(10)),
    );
    assert_eq!(h.dtype, ElemType::F16);
    for (g, w) in h.data.iter().zip(&xs) {
        assert!((g - w).abs() <= 1e-3, "{g} vs {w}");
    }
    let e = run(
        "Cast",
        13,
        &[x.clone_in()],
        MapAttrs::new().with("to", AttrValue::Int(7)),
        1,
    )
    .unwrap_err();
    assert!(e.contains("INT64"), "{e}");
}

#[test]
fn reshape_zero_minus_one_and_allowzero() {
    let x = data(&[2, 3, 4], 1);
    let xs = tensor_of(&x).data.clone();
    let got = run1(
        "Reshape",
        14,
        &[x.clone_in(), ints(&[0, -1])],
        MapAttrs::new(),
    );
    assert_close(&got, &[2, 12], &xs, 0.0);
    let old = run1(
        "Reshape",
        1,
        &[x.clone_in()],
        MapAttrs::new().with("shape", AttrValue::Ints(vec![4, 0, -1])),
    );
    assert_close(&old, &[4, 3, 2], &xs, 0.0);
    let e = run(
        "Reshape",
        14,
        &[x.clone_in(), ints(&[0, 24])],
        MapAttrs::new().with("allowzero", AttrValue::Int(1)),
        1,
    )
    .unwrap_err();
    assert!(e.contains("cannot reshape"), "{e}");
    let e = run(
        "Reshape",
        14,
        &[x.clone_in(), ints(&[-1, -1])],
        MapAttrs::new(),
        1,
    )
    .unwrap_err();
    assert!(e.contains("more than one -1"), "{e}");
}

#[test]
fn flatten_squeeze_unsqueeze() {
    let x = data(&[2, 1, 3, 1], 2);
    let xs = tensor_of(&x).data.clone();
    assert_close(
        &run1(
            "Flatten",
            13,
            &[x.clone_in()],
            MapAttrs::new().with("axis", AttrValue::Int(-2)),
        ),
        &[2, 3],
        &xs,
        0.0,
    );
    assert_close(
        &run1(
            "Flatten",
            13,
            &[x.clone_in()],
            MapAttrs::new().with("axis", AttrValue::Int(0)),
        ),
        &[1, 6],
        &xs,
        0.0,
    );
    assert_close(
        &run1("Squeeze", 13, &[x.clone_in()], MapAttrs::new()),
        &[2, 3],
        &xs,
        0.0,
    );
    assert_close(
        &run1("Squeeze", 13, &[x.clone_in(), ints(&[-1])], MapAttrs::new()),
        &[2, 1, 3],
        &xs,
        0.0,
    );
    assert_close(
        &run1(
            "Squeeze",
            11,
            &[x.clone_in()],
            MapAttrs::new().with("axes", AttrValue::Ints(vec![1])),
        ),
        &[2, 3, 1],
        &xs,
        0.0,
    );
    assert!(
        run(
            "Squeeze",
            13,
            &[x.clone_in(), ints(&[0])],
            MapAttrs::new(),
            1
        )
        .is_err()
    );
    assert_close(
        &run1(
            "Unsqueeze",
            13,
            &[x.clone_in(), ints(&[0, -1])],
            MapAttrs::new(),
        ),
        &[1, 2, 1, 3, 1, 1],
        &xs,
        0.0,
    );
    assert_close(
        &run1(
            "Unsqueeze",
            11,
            &[x.clone_in()],
            MapAttrs::new().with("axes", AttrValue::Ints(vec![2])),
        ),
        &[2, 1, 1, 3, 1],
        &xs,
        0.0,
    );
}

#[test]
fn transpose_default_and_given_perm() {
    let x = data(&[2, 3, 4], 3);
    let t = tensor_of(&x);
    let got = run1(
        "Transpose",
        13,
        &[x.clone_in()],
        MapAttrs::new().with("perm", AttrValue::Ints(vec![1, 2, 0])),
    );
    let want: Vec<f64> = (0..24)
        .map(|p| {
            let i = unravel(p, &[3, 4, 2]);
            t.data[ravel(&[i[2], i[0], i[1]], &[2, 3, 4])]
        })
        .collect();
    assert_close(&got, &[3, 4, 2], &want, 0.0);
    let rev = run1("Transpose", 13, &[x.clone_in()], MapAttrs::new());
    let want: Vec<f64> = (0..24)
        .map(|p| {
            let i = unravel(p, &[4, 3, 2]);
            t.data[ravel(&[i[2], i[1], i[0]], &[2, 3, 4])]
        })
        .collect();
    assert_close(&rev, &[4, 3, 2], &want, 0.0);
    assert!(
        run(
            "Transpose",
            13,
            &[x.clone_in()],
            MapAttrs::new().with("perm", AttrValue::Ints(vec![0, 0, 1])),
            1
        )
        .is_err()
    );
}

#[test]
fn expand_shape_constant_and_constant_of_shape() {
    let x = data(&[3, 1], 10);
    let t = tensor_of(&x);
    let got = run1(
        "Expand",
        13,
        &[x.clone_in(), ints(&[2, 1, 4])],
        MapAttrs::new(),
    );
    let want: Vec<f64> = (0..24)
        .map(|p| t.data[unravel(p, &[2, 3, 4])[1] as usize])
        .collect();
    assert_close(&got, &[2, 3, 4], &want, 0.0);
    let info = |op| NodeInfo {
        op_type: op,
        opset: 21,
        num_outputs: 1,
    };
    let ty = ValueType {
        shape: vec![2, 3, 4, 5],
        elem: Some(ElemType::F32),
    };
    let inp = [Some(OpInput {
        ty: &ty,
        value: None,
    })];
    let e = expand(
        info("Shape"),
        &inp,
        &MapAttrs::new()
            .with("start", AttrValue::Int(-3))
            .with("end", AttrValue::Int(3)),
    )
    .unwrap()
    .unwrap();
    assert_eq!(e.consts[0].data, ConstData::I64(vec![3, 4]));
    let e = expand(
        info("Constant"),
        &[],
        &MapAttrs::new().with("value_ints", AttrValue::Ints(vec![1, 2])),
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        e.consts[0],
        ConstTensor {
            shape: vec![2],
            data: ConstData::I64(vec![1, 2])
        }
    );
    let e = expand(
        info("Constant"),
        &[],
        &MapAttrs::new().with("value_float", AttrValue::Float(0.5)),
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        e.consts[0],
        ConstTensor {
            shape: vec![],
            data: ConstData::F32(vec![0.5])
        }
    );
    assert!(
        expand(
            info("Constant"),
            &[],
            &MapAttrs::new().with("value_string", AttrValue::Str("x".into()))
        )
        .unwrap()
        .is_err()
    );
    let shape = ConstTensor {
        shape: vec![2],
        data: ConstData::I64(vec![2, 2]),
    };
    let sty = crate::import::tensor::const_type(&shape);
    let v = ConstTensor {
        shape: vec![1],
        data: ConstData::I64(vec![7]),
    };
    let e = expand(
        info("ConstantOfShape"),
        &[Some(OpInput {
            ty: &sty,
            value: Some(&shape),
        })],
        &MapAttrs::new().with("value", AttrValue::Tensor(v)),
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        e.consts[0],
        ConstTensor {
            shape: vec![2, 2],
            data: ConstData::I64(vec![7; 4])
        }
    );
    // Past the fold limit the fill is a te stage with no inputs, not a constant.
    let big = ConstTensor {
        shape: vec![2],
        data: ConstData::I64(vec![8192, 8193]),
    };
    let bty = crate::import::tensor::const_type(&big);
    let e = expand(
        info("ConstantOfShape"),
        &[Some(OpInput {
            ty: &bty,
            value: Some(&big),
        })],
        &MapAttrs::new().with(
            "value",
            AttrValue::Tensor(ConstTensor {
                shape: vec![1],
                data: ConstData::F32(vec![0.25]),
            }),
        ),
    )
    .unwrap()
    .unwrap();
    assert!(e.consts.is_empty());
    let [crate::ops::Step::Compute { compute, operands }] = &e.steps[..] else {
        panic!("expected one stage, got {:?}", e.steps);
    };
    assert!(operands.is_empty() && compute.inputs.is_empty());
    assert_eq!(compute.result.shape, vec![8192, 8193]);
    assert_eq!(
        compute.body,
        rtile_dialects::te::model::Expr::Const(0.25, ElemType::F32)
    );
}

#[test]
fn pow_with_scalar_tensor_and_runtime_exponents() {
    let x =
        In::Data(Tensor::from_data(vec![2, 2], ElemType::F32, vec![0.5, 2.0, 3.0, 1.5]).unwrap());
    let xs = tensor_of(&x).data.clone();
    let got = run1("Pow", 15, &[x.clone_in(), scalar_f32(2.0)], MapAttrs::new());
    assert_close(
        &got,
        &[2, 2],
        &xs.iter().map(|v| v * v).collect::<Vec<_>>(),
        1e-6,
    );
    // An int64 exponent per column, broadcast over rows.
    let got = run1("Pow", 15, &[x.clone_in(), ints(&[3, -1])], MapAttrs::new());
    assert_close(&got, &[2, 2], &[0.125, 0.5, 27.0, 1.0 / 1.5], 1e-6);
    let e = In::Data(Tensor::from_data(vec![2, 1], ElemType::F32, vec![0.5, 2.0]).unwrap());
    let got = run1("Pow", 15, &[x.clone_in(), e], MapAttrs::new());
    assert_close(
        &got,
        &[2, 2],
        &[0.5f64.sqrt(), 2f64.sqrt(), 9.0, 2.25],
        1e-6,
    );
}

#[test]
fn legacy_variants_before_opset_7_and_4() {
    let (a, b) = (data(&[2, 3], 1), data(&[3], 2));
    let e = run(
        "Add",
        6,
        &[a.clone_in(), b.clone_in()],
        MapAttrs::new()
            .with("broadcast", AttrValue::Int(1))
            .with("axis", AttrValue::Int(1)),
        1,
    )
    .unwrap_err();
    assert!(e.contains("legacy broadcast"), "{e}");
    // Concat before opset 4: axis 1 by default.
    let got = run1("Concat", 1, &[a.clone_in(), a.clone_in()], MapAttrs::new());
    assert_eq!(got.shape, vec![2, 6]);
    let t = tensor_of(&a);
    assert_eq!(got.data[3..6], t.data[0..3]);
    assert!(
        run(
            "Concat",
            4,
            &[a.clone_in(), a.clone_in()],
            MapAttrs::new(),
            1
        )
        .is_err()
    );
}
