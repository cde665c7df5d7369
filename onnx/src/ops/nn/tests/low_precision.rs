//! f16, bf16 and f64 through the operators: exact in the f64 oracle, and close to it
//! when the interpreter rounds as a GPU does (`Native`).

use rtile_dialects::te::model::ElemType;
use rtile_runtime::interp::Accumulate;

use super::conv::{Geo, conv_ref};
use super::softmax_reduce::{groups_along, softmax_groups};
use super::{A, Attrs, In, assert_close, rand_t, run_mode};

fn geo() -> Geo {
    Geo {
        strides: vec![2, 1],
        dil: vec![1, 2],
        pb: vec![1, 2],
        pe: vec![1, 0],
    }
}

#[test]
fn conv_in_every_float_type() {
    let attrs = Attrs::new(&[
        ("strides", A::Is(vec![2, 1])),
        ("dilations", A::Is(vec![1, 2])),
        ("pads", A::Is(vec![1, 2, 1, 0])),
    ]);
    for (t, native_tol) in [
        (ElemType::F16, 1e-2),
        (ElemType::BF16, 5e-2),
        (ElemType::F64, 1e-12),
        (ElemType::F32, 1e-5),
    ] {
        let x = rand_t(&[1, 3, 7, 6], t, 1);
        let w = rand_t(&[2, 3, 3, 2], t, 2);
        let b = rand_t(&[2], t, 3);
        let (shape, want) = conv_ref(&x, &w, Some(&b), 1, &geo());
        let ins = || vec![In::T(x.clone()), In::T(w.clone()), In::T(b.clone())];
        let got = run_mode("Conv", 11, ins(), &attrs, 1, Accumulate::F64).unwrap();
        assert_close(&got[0], &shape, &want, 1e-12);
        let got = run_mode("Conv", 11, ins(), &attrs, 1, Accumulate::Native).unwrap();
        assert_eq!(got[0].dtype, t);
        assert_close(&got[0], &shape, &want, native_tol);
    }
}

#[test]
fn softmax_and_pool_in_half_types() {
    for (t, native_tol) in [(ElemType::F16, 5e-3), (ElemType::BF16, 3e-2)] {
        let x = rand_t(&[2, 3, 5], t, 4);
        let want = softmax_groups(&x, &groups_along(&x.shape, 2), false);
        let got = run_mode(
            "Softmax",
            13,
            vec![In::T(x.clone())],
            &Attrs::default(),
            1,
            Accumulate::Native,
        )
        .unwrap();
        assert_eq!(got[0].dtype, t);
        assert_close(&got[0], &x.shape, &want, native_tol);
        // Global average pool over 5 positions.
        let want: Vec<f64> = x
            .data
            .chunks(5)
            .map(|c| c.iter().sum::<f64>() / 5.0)
            .collect();
        let got = run_mode(
            "GlobalAveragePool",
            1,
            vec![In::T(x.clone())],
            &Attrs::default(),
            1,
            Accumulate::F64,
        )
        .unwrap();
        assert_close(&got[0], &[2, 3, 1], &want, 1e-12);
        let got = run_mode(
            "GlobalAveragePool",
            1,
            vec![In::T(x)],
            &Attrs::default(),
            1,
            Accumulate::Native,
        )
        .unwrap();
        assert_close(&got[0], &[2, 3, 1], &want, native_tol);
    }
}
