//! Softmax/LogSoftmax (both axis conventions) and the reductions against loop nests.

use rtile_runtime::tensor::Tensor;

use super::{A, Attrs, In, assert_close, indices, offset, rand, run, run_err};

/// Softmax over groups of positions: `groups[g]` lists flat offsets normalized together.
pub fn softmax_groups(x: &Tensor, groups: &[Vec<usize>], log: bool) -> Vec<f64> {
    let mut y = vec![0.0; x.data.len()];
    for g in groups {
        let z: f64 = g.iter().map(|&i| x.data[i].exp()).sum();
        for &i in g {
            y[i] = if log {
                x.data[i] - z.ln()
            } else {
                x.data[i].exp() / z
            };
        }
    }
    y
}

/// Flat offsets grouped by every index but `axis`.
pub fn groups_along(shape: &[i64], axis: usize) -> Vec<Vec<usize>> {
    let mut outer = shape.to_vec();
    outer[axis] = 1;
    indices(&outer)
        .into_iter()
        .map(|o| {
            (0..shape[axis])
                .map(|j| {
                    let mut i = o.clone();
                    i[axis] = j;
                    offset(shape, &i)
                })
                .collect()
        })
        .collect()
}

#[test]
fn softmax_opset13_one_axis() {
    // Large values: the max subtraction keeps exp finite.
    let mut x = rand(&[2, 3, 4], 1);
    x.data.iter_mut().for_each(|v| *v *= 300.0);
    for (axis, attr) in [(2usize, None), (1, Some(1)), (0, Some(-3))] {
        let attrs = match attr {
            Some(a) => Attrs::new(&[("axis", A::I(a))]),
            None => Attrs::default(),
        };
        for (op, log) in [("Softmax", false), ("LogSoftmax", true)] {
            // Both are invariant under a shift of each group: the reference shifts by the
            // maximum so that it does not overflow either.
            let shifted = shift_max(&x, &groups_along(&x.shape, axis));
            let want = softmax_groups(&shifted, &groups_along(&x.shape, axis), log);
            let got = run(op, 13, vec![In::T(x.clone())], &attrs);
            assert!(got.data.iter().all(|v| v.is_finite()), "{op} axis {axis}");
            assert_close(&got, &x.shape, &want, 1e-12);
        }
    }
}

/// `x` minus the maximum of each group (so the reference does not overflow either).
fn shift_max(x: &Tensor, groups: &[Vec<usize>]) -> Tensor {
    let mut y = x.clone();
    for g in groups {
        let m = g
            .iter()
            .map(|&i| x.data[i])
            .fold(f64::NEG_INFINITY, f64::max);
        for &i in g {
            y.data[i] = x.data[i] - m;
        }
    }
    y
}

#[test]
fn softmax_before_opset13_coerces_to_2d() {
    let x = rand(&[2, 3, 4], 2);
    for (axis, attr) in [(1usize, None), (2, Some(2)), (0, Some(0)), (1, Some(-2))] {
        let attrs = match attr {
            Some(a) => Attrs::new(&[("axis", A::I(a))]),
            None => Attrs::default(),
        };
        let rows: usize = x.shape[..axis].iter().product::<i64>() as usize;
        let cols = x.data.len() / rows;
        let groups: Vec<Vec<usize>> = (0..rows)
            .map(|r| (r * cols..(r + 1) * cols).collect())
            .collect();
        for (op, log) in [("Softmax", false), ("LogSoftmax", true)] {
            let want = softmax_groups(&x, &groups, log);
            let got = run(op, 11, vec![In::T(x.clone())], &attrs);
            assert_close(&got, &x.shape, &want, 1e-12);
        }
    }
}

/// A reduction over `axes` with `f` folding the values of each group.
fn reduce_ref(
    x: &Tensor,
    axes: &[usize],
    keep: bool,
    f: impl Fn(&[f64]) -> f64,
) -> (Vec<i64>, Vec<f64>) {
    let mut outer = x.shape.clone();
    for &a in axes {
        outer[a] = 1;
    }
    let mut red = vec![1; x.shape.len()];
    for &a in axes {
        red[a] = x.shape[a];
    }
    let data = indices(&outer)
        .into_iter()
        .map(|o| {
            let vals: Vec<f64> = indices(&red)
                .into_iter()
                .map(|r| {
                    let i: Vec<i64> = o.iter().zip(&r).map(|(a, b)| a + b).collect();
                    x.data[offset(&x.shape, &i)]
                })
                .collect();
            f(&vals)
        })
        .collect();
    let shape = if keep {
        outer
    } else {
        x.shape
            .iter()
            .enumerate()
            .filter(|(i, _)| !axes.contains(i))
            .map(|(_, &e)| e)
            .collect()
    };
    (shape, data)
}

type Fold = fn(&[f64]) -> f64;

fn folds() -> Vec<(&'static str, Fold)> {
    vec![
        ("ReduceSum", |v| v.iter().sum()),
        ("ReduceMean", |v| v.iter().sum::<f64>() / v.len() as f64),
        ("ReduceMax", |v| {
            v.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        }),
        ("ReduceMin", |v| {
            v.iter().cloned().fold(f64::INFINITY, f64::min)
        }),
        ("ReduceProd", |v| v.iter().product()),
        ("ReduceL1", |v| v.iter().map(|a| a.abs()).sum()),
        ("ReduceL2", |v| v.iter().map(|a| a * a).sum::<f64>().sqrt()),
        ("ReduceSumSquare", |v| v.iter().map(|a| a * a).sum()),
        ("ReduceLogSum", |v| {
            v.iter().map(|a| a.abs()).sum::<f64>().ln()
        }),
        ("ReduceLogSumExp", |v| {
            v.iter().map(|a| a.exp()).sum::<f64>().ln()
        }),
    ]
}

#[test]
fn reductions_attribute_and_input_axes() {
    let x = rand(&[3, 4, 5], 3);
    let pos = Tensor {
        data: x.data.iter().map(|v| v.abs()).collect(),
        ..x.clone()
    };
    for (op, f) in folds() {
        // LogSum takes the log of a sum: feed it positive values.
        let input = if op == "ReduceLogSum" { &pos } else { &x };
        let axes_input_opset = if op == "ReduceSum" { 13 } else { 18 };
        for (axes, attr_axes) in [
            (vec![1usize], vec![1i64]),
            (vec![0, 2], vec![-1, 0]),
            (vec![0, 1, 2], vec![]),
        ] {
            for keep in [0, 1] {
                let (shape, want) = reduce_ref(input, &axes, keep == 1, f);
                // Axes as an attribute (old opsets).
                let mut list = vec![("keepdims", A::I(keep))];
                if !attr_axes.is_empty() {
                    list.push(("axes", A::Is(attr_axes.clone())));
                }
                let got = run(op, 11, vec![In::T(input.clone())], &Attrs::new(&list));
                assert_close(&got, &shape, &want, 1e-12);
                // Axes as an input.
                let got = run(
                    op,
                    axes_input_opset,
                    vec![In::T(input.clone()), In::Ints(attr_axes.clone())],
                    &Attrs::new(&[("keepdims", A::I(keep))]),
                );
                assert_close(&got, &shape, &want, 1e-12);
            }
        }
    }
}

#[test]
fn reductions_noop_with_empty_axes_and_errors() {
    let x = rand(&[2, 3], 4);
    let attrs = Attrs::new(&[("noop_with_empty_axes", A::I(1))]);
    let got = run("ReduceSum", 13, vec![In::T(x.clone())], &attrs);
    assert_close(&got, &x.shape, &x.data, 0.0);
    // The element function still applies (ReduceSumSquare squares).
    let got = run(
        "ReduceSumSquare",
        18,
        vec![In::T(x.clone()), In::Ints(vec![])],
        &attrs,
    );
    let sq: Vec<f64> = x.data.iter().map(|v| v * v).collect();
    assert_close(&got, &x.shape, &sq, 0.0);
    let e = run_err(
        "ReduceMax",
        18,
        vec![In::T(x.clone())],
        &Attrs::new(&[("axes", A::Is(vec![0]))]),
    );
    assert!(e.contains("attribute 'axes' is not supported"), "{e}");
    let e = run_err(
        "ReduceMax",
        13,
        vec![In::T(x)],
        &Attrs::new(&[("axes", A::Is(vec![2]))]),
    );
    assert!(e.contains("out of range"), "{e}");
}

#[test]
fn reductions_of_empty_tensors_and_booleans() {
    use rtile_dialects::te::model::ElemType;
    let empty = Tensor::from_data(vec![2, 0, 3], ElemType::F32, vec![]).unwrap();
    for (op, v) in [
        ("ReduceSum", 0.0),
        ("ReduceProd", 1.0),
        ("ReduceMax", f64::NEG_INFINITY),
        ("ReduceMin", f64::INFINITY),
        ("ReduceLogSumExp", f64::NEG_INFINITY),
    ] {
        let got = run(
            op,
            18,
            vec![In::T(empty.clone()), In::Ints(vec![1])],
            &Attrs::default(),
        );
        assert_close(&got, &[2, 1, 3], &[v; 6], 0.0);
    }
    // A kept zero dim: the result is empty too.
    let got = run(
        "ReduceSum",
        13,
        vec![In::T(empty), In::Ints(vec![2])],
        &Attrs::default(),
    );
    assert_close(&got, &[2, 0, 1], &[], 0.0);
    // Booleans: max is any, min is all.
    let b = Tensor::from_data(vec![2, 3], ElemType::I1, vec![0., 1., 0., 0., 0., 0.]).unwrap();
    let keep0 = Attrs::new(&[("keepdims", A::I(0))]);
    let got = run(
        "ReduceMax",
        18,
        vec![In::T(b.clone()), In::Ints(vec![1])],
        &keep0,
    );
    assert_eq!(
        (got.dtype, got.data.clone()),
        (ElemType::I1, vec![1.0, 0.0])
    );
    let got = run("ReduceMin", 18, vec![In::T(b), In::Ints(vec![0])], &keep0);
    assert_eq!(got.data, [0.0, 0.0, 0.0]);
}
