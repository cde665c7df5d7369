//! Gemm and MatMul against loop nests.

use rtile_dialects::te::model::ElemType;
use rtile_runtime::tensor::Tensor;

use super::{A, Attrs, In, assert_close, indices, offset, rand, rand_t, run, run_err};

/// `alpha · A' B' + beta · C`, C broadcast numpy-style.
fn gemm_ref(
    a: &Tensor,
    b: &Tensor,
    c: Option<&Tensor>,
    ta: bool,
    tb: bool,
    alpha: f64,
    beta: f64,
) -> (Vec<i64>, Vec<f64>) {
    let at = |i: i64, k: i64| {
        if ta {
            a.data[offset(&a.shape, &[k, i])]
        } else {
            a.data[offset(&a.shape, &[i, k])]
        }
    };
    let bt = |k: i64, j: i64| {
        if tb {
            b.data[offset(&b.shape, &[j, k])]
        } else {
            b.data[offset(&b.shape, &[k, j])]
        }
    };
    let m = if ta { a.shape[1] } else { a.shape[0] };
    let kk = if ta { a.shape[0] } else { a.shape[1] };
    let n = if tb { b.shape[0] } else { b.shape[1] };
    let mut y = Vec::new();
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..kk {
                s += at(i, k) * bt(k, j);
            }
            let mut v = alpha * s;
            if let Some(c) = c {
                // Right-aligned broadcast of C against [m, n].
                let full = [i, j];
                let r = c.shape.len();
                let idx: Vec<i64> = (0..r)
                    .map(|d| if c.shape[d] == 1 { 0 } else { full[2 - r + d] })
                    .collect();
                v += beta * c.data[offset(&c.shape, &idx)];
            }
            y.push(v);
        }
    }
    (vec![m, n], y)
}

#[test]
fn gemm_transposes_and_broadcast_c() {
    let (m, k, n) = (4, 5, 3);
    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
        let a = rand(&if ta { [k, m] } else { [m, k] }, 1);
        let b = rand(&if tb { [n, k] } else { [k, n] }, 2);
        for cs in [vec![], vec![n], vec![1, n], vec![m, 1], vec![m, n], vec![1]] {
            let c = rand(&cs, 3);
            let (shape, want) = gemm_ref(&a, &b, Some(&c), ta, tb, 0.5, -1.5);
            let attrs = Attrs::new(&[
                ("transA", A::I(ta as i64)),
                ("transB", A::I(tb as i64)),
                ("alpha", A::F(0.5)),
                ("beta", A::F(-1.5)),
            ]);
            let got = run(
                "Gemm",
                13,
                vec![In::T(a.clone()), In::T(b.clone()), In::T(c)],
                &attrs,
            );
            assert_close(&got, &shape, &want, 1e-12);
        }
        // No C, default alpha.
        let (shape, want) = gemm_ref(&a, &b, None, ta, tb, 1.0, 1.0);
        let attrs = Attrs::new(&[("transA", A::I(ta as i64)), ("transB", A::I(tb as i64))]);
        let got = run("Gemm", 11, vec![In::T(a.clone()), In::T(b.clone())], &attrs);
        assert_close(&got, &shape, &want, 1e-12);
    }
    // Opset 6 spells the broadcast of C out.
    let (a, b, c) = (rand(&[4, 5], 1), rand(&[5, 3], 2), rand(&[3], 3));
    let (shape, want) = gemm_ref(&a, &b, Some(&c), false, false, 1.0, 1.0);
    let attrs = Attrs::new(&[("broadcast", A::I(1))]);
    let got = run(
        "Gemm",
        6,
        vec![In::T(a.clone()), In::T(b.clone()), In::T(c)],
        &attrs,
    );
    assert_close(&got, &shape, &want, 1e-12);
    let e = run_err(
        "Gemm",
        13,
        vec![In::T(a), In::T(b), In::T(rand(&[2, 3], 3))],
        &Attrs::default(),
    );
    assert!(e.contains("does not broadcast"), "{e}");
}

/// numpy matmul, naive, on shapes already promoted to rank >= 2 (`a1`/`b1` say whether
/// the original was 1-D, to drop the added dim).
fn matmul_ref(a: &Tensor, b: &Tensor) -> (Vec<i64>, Vec<f64>) {
    let (a1, b1) = (a.shape.len() == 1, b.shape.len() == 1);
    let ash: Vec<i64> = if a1 {
        vec![1, a.shape[0]]
    } else {
        a.shape.clone()
    };
    let bsh: Vec<i64> = if b1 {
        vec![b.shape[0], 1]
    } else {
        b.shape.clone()
    };
    let (ra, rb) = (ash.len(), bsh.len());
    let nb = (ra - 2).max(rb - 2);
    let pad = |s: &[i64], r: usize| -> Vec<i64> {
        let mut v = vec![1; nb - (r - 2)];
        v.extend(&s[..r - 2]);
        v
    };
    let (ab, bb) = (pad(&ash, ra), pad(&bsh, rb));
    let batch: Vec<i64> = ab.iter().zip(&bb).map(|(&x, &y)| x.max(y)).collect();
    let (m, k, n) = (ash[ra - 2], ash[ra - 1], bsh[rb - 1]);
    let mut full = batch.clone();
    full.extend([m, n]);
    let data = indices(&full)
        .into_iter()
        .map(|idx| {
            let bi = &idx[..nb];
            let ai: Vec<i64> = bi
                .iter()
                .zip(&ab)
                .map(|(&i, &e)| if e == 1 { 0 } else { i })
                .collect();
            let bj: Vec<i64> = bi
                .iter()
                .zip(&bb)
                .map(|(&i, &e)| if e == 1 { 0 } else { i })
                .collect();
            (0..k)
                .map(|kk| {
                    let mut ia = ai[nb - (ra - 2)..].to_vec();
                    ia.extend([idx[nb], kk]);
                    let mut ib = bj[nb - (rb - 2)..].to_vec();
                    ib.extend([kk, idx[nb + 1]]);
                    a.data[offset(&ash, &ia)] * b.data[offset(&bsh, &ib)]
                })
                .sum()
        })
        .collect();
    let mut shape = batch;
    if !a1 {
        shape.push(m);
    }
    if !b1 {
        shape.push(n);
    }
    (shape, data)
}

#[test]
fn matmul_batched_broadcast_and_1d() {
    for (sa, sb) in [
        (vec![3, 4], vec![4, 5]),
        (vec![2, 3, 4], vec![2, 4, 5]),
        (vec![2, 1, 3, 4], vec![5, 4, 2]),
        (vec![3, 4], vec![6, 4, 2]),
        (vec![4], vec![2, 4, 3]),
        (vec![2, 3, 4], vec![4]),
        (vec![4], vec![4]),
        (vec![1, 3, 4], vec![2, 1, 4, 5]),
    ] {
        let a = rand(&sa, 5);
        let b = rand(&sb, 6);
        let (shape, want) = matmul_ref(&a, &b);
        let got = run("MatMul", 13, vec![In::T(a), In::T(b)], &Attrs::default());
        assert_close(&got, &shape, &want, 1e-12);
    }
    let e = run_err(
        "MatMul",
        13,
        vec![In::T(rand(&[2, 3, 4], 1)), In::T(rand(&[3, 4, 5], 2))],
        &Attrs::default(),
    );
    assert!(e.contains("do not broadcast"), "{e}");
}

#[test]
fn matmul_f16_and_i32() {
    for t in [ElemType::F16, ElemType::BF16, ElemType::F64, ElemType::I32] {
        let a = rand_t(&[2, 3, 4], t, 7);
        let b = rand_t(&[4, 2], t, 8);
        let (shape, want) = matmul_ref(&a, &b);
        let got = run("MatMul", 13, vec![In::T(a), In::T(b)], &Attrs::default());
        assert_close(&got, &shape, &want, 1e-12);
    }
}
