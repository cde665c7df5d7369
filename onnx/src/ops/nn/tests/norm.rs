//! BatchNormalization, LayerNormalization and LRN against loop nests.

use rtile_dialects::te::model::ElemType;
use rtile_runtime::tensor::Tensor;

use super::{A, Attrs, In, assert_close, indices, offset, rand, rand_t, run, run_err, run_n};

fn positive(t: &Tensor) -> Tensor {
    Tensor {
        data: t.data.iter().map(|v| v.abs() + 0.1).collect(),
        ..t.clone()
    }
}

#[test]
fn batch_norm_inference() {
    let x = rand(&[2, 3, 4, 5], 1);
    let [s, b, m] = [2, 3, 4].map(|i| rand(&[3], i));
    let v = positive(&rand(&[3], 5));
    let eps = 1e-3;
    let want: Vec<f64> = indices(&x.shape)
        .iter()
        .map(|i| {
            let c = i[1] as usize;
            let xv = x.data[offset(&x.shape, i)];
            (xv - m.data[c]) / (v.data[c] + eps as f64).sqrt() * s.data[c] + b.data[c]
        })
        .collect();
    for opset in [7, 9, 15] {
        let inputs = [&x, &s, &b, &m, &v]
            .map(|t| In::T(t.clone()))
            .into_iter()
            .collect();
        let got = run(
            "BatchNormalization",
            opset,
            inputs,
            &Attrs::new(&[("epsilon", A::F(eps))]),
        );
        assert_close(&got, &x.shape, &want, 1e-12);
    }
    // Opset 7's spatial = 0: parameters per channel and position.
    let x = rand(&[2, 3, 4], 6);
    let [s, b, m] = [7, 8, 9].map(|i| rand(&[3, 4], i));
    let v = positive(&rand(&[3, 4], 10));
    let want: Vec<f64> = indices(&x.shape)
        .iter()
        .map(|i| {
            let p = (i[1] * 4 + i[2]) as usize;
            let xv = x.data[offset(&x.shape, i)];
            (xv - m.data[p]) / (v.data[p] + 1e-5f32 as f64).sqrt() * s.data[p] + b.data[p]
        })
        .collect();
    let inputs = [&x, &s, &b, &m, &v]
        .map(|t| In::T(t.clone()))
        .into_iter()
        .collect();
    let got = run(
        "BatchNormalization",
        7,
        inputs,
        &Attrs::new(&[("spatial", A::I(0))]),
    );
    assert_close(&got, &x.shape, &want, 1e-12);
    // Training mode is refused.
    let inputs = [&x, &s, &b, &m, &v]
        .map(|t| In::T(t.clone()))
        .into_iter()
        .collect();
    let e = run_err(
        "BatchNormalization",
        15,
        inputs,
        &Attrs::new(&[("training_mode", A::I(1))]),
    );
    assert!(e.contains("training_mode"), "{e}");
    let x = rand(&[2, 3, 4], 6);
    let [s, b, m, v] = [7, 8, 9, 10].map(|i| positive(&rand(&[3], i)));
    let inputs = [&x, &s, &b, &m, &v]
        .map(|t| In::T(t.clone()))
        .into_iter()
        .collect();
    let e = run_n("BatchNormalization", 9, inputs, &Attrs::default(), 5).unwrap_err();
    assert!(e.0.contains("training-mode outputs"), "{e}");
}

/// Layer normalization over the dims from `axis`, with the Mean and InvStdDev outputs.
fn layer_norm_ref(
    x: &Tensor,
    s: &Tensor,
    b: Option<&Tensor>,
    axis: usize,
    eps: f64,
) -> [Vec<f64>; 3] {
    let rows: i64 = x.shape[..axis].iter().product();
    let cols: i64 = x.shape[axis..].iter().product();
    let (mut y, mut means, mut invs) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rows as usize {
        let v = &x.data[r * cols as usize..(r + 1) * cols as usize];
        let mean = v.iter().sum::<f64>() / cols as f64;
        let var = v.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / cols as f64;
        let inv = 1.0 / (var + eps).sqrt();
        for (j, a) in v.iter().enumerate() {
            // Scale and B have the normalized shape (or broadcast to it).
            let sj = s.data[j % s.data.len()];
            let bj = b.map_or(0.0, |b| b.data[j % b.data.len()]);
            y.push((a - mean) * inv * sj + bj);
        }
        means.push(mean);
        invs.push(inv);
    }
    [y, means, invs]
}

#[test]
fn layer_norm_axes_and_outputs() {
    let x = rand(&[2, 3, 4], 1);
    for (axis, attr) in [(2usize, -1i64), (1, 1), (1, -2), (0, 0)] {
        let s = rand(&x.shape[axis..], 2);
        let b = rand(&x.shape[axis..], 3);
        let eps = 1e-3f32;
        let [y, mean, inv] = layer_norm_ref(&x, &s, Some(&b), axis, eps as f64);
        let attrs = Attrs::new(&[("axis", A::I(attr)), ("epsilon", A::F(eps))]);
        let inputs = vec![In::T(x.clone()), In::T(s.clone()), In::T(b.clone())];
        let got = run_n("LayerNormalization", 17, inputs, &attrs, 3).unwrap();
        let mut stat = x.shape.clone();
        for d in stat.iter_mut().skip(axis) {
            *d = 1;
        }
        assert_close(&got[0], &x.shape, &y, 1e-12);
        assert_close(&got[1], &stat, &mean, 1e-12);
        assert_close(&got[2], &stat, &inv, 1e-12);
    }
    // No bias, Scale broadcast from the last dim only, one output.
    let s = rand(&[4], 4);
    let [y, _, _] = layer_norm_ref(&x, &s, None, 1, 1e-5f32 as f64);
    let attrs = Attrs::new(&[("axis", A::I(1))]);
    let got = run(
        "LayerNormalization",
        17,
        vec![In::T(x.clone()), In::T(s)],
        &attrs,
    );
    assert_close(&got, &x.shape, &y, 1e-12);
}

#[test]
fn layer_norm_f16_with_f32_stash() {
    let x = rand_t(&[3, 8], ElemType::F16, 5);
    let s = rand_t(&[8], ElemType::F16, 6);
    let [y, ..] = layer_norm_ref(&x, &s, None, 1, 1e-5f32 as f64);
    let got = run(
        "LayerNormalization",
        17,
        vec![In::T(x), In::T(s)],
        &Attrs::default(),
    );
    // The oracle keeps f64 everywhere; casts to f16 are exact in it.
    assert_close(&got, &[3, 8], &y, 1e-9);
}

#[test]
fn lrn_across_channels() {
    let x = rand(&[2, 6, 3, 2], 7);
    for size in [1i64, 3, 4, 5] {
        let (alpha, beta, bias) = (0.02f32, 0.6f32, 1.5f32);
        let c = 6;
        let want: Vec<f64> = indices(&x.shape)
            .iter()
            .map(|i| {
                let lo = (i[1] - (size - 1) / 2).max(0);
                let hi = (i[1] + (size - 1 + 1) / 2).min(c - 1);
                let sq: f64 = (lo..=hi)
                    .map(|cc| {
                        let v = x.data[offset(&x.shape, &[i[0], cc, i[2], i[3]])];
                        v * v
                    })
                    .sum();
                let base = bias as f64 + (alpha as f64 / size as f64) * sq;
                x.data[offset(&x.shape, i)] / base.powf(beta as f64)
            })
            .collect();
        let attrs = Attrs::new(&[
            ("size", A::I(size)),
            ("alpha", A::F(alpha)),
            ("beta", A::F(beta)),
            ("bias", A::F(bias)),
        ]);
        let got = run("LRN", 13, vec![In::T(x.clone())], &attrs);
        // alpha/size is rounded to f32 in the expansion.
        assert_close(&got, &x.shape, &want, 1e-7);
    }
}

#[test]
fn instance_norm_per_sample_and_channel() {
    let x = rand(&[2, 3, 4, 5], 8);
    let s = rand(&[3], 9);
    let b = rand(&[3], 10);
    let eps = 1e-2f32 as f64;
    let mut want = Vec::new();
    for nc in 0..6 {
        let v = &x.data[nc * 20..(nc + 1) * 20];
        let mean = v.iter().sum::<f64>() / 20.0;
        let var = v.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / 20.0;
        let c = nc % 3;
        want.extend(
            v.iter()
                .map(|a| s.data[c] * (a - mean) / (var + eps).sqrt() + b.data[c]),
        );
    }
    let attrs = Attrs::new(&[("epsilon", A::F(1e-2))]);
    let got = run(
        "InstanceNormalization",
        6,
        vec![In::T(x.clone()), In::T(s), In::T(b)],
        &attrs,
    );
    assert_close(&got, &x.shape, &want, 1e-12);
}
