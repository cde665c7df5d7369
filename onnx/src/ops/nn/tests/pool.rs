//! MaxPool, AveragePool and the global pools against loop nests of the specification.

use proptest::prelude::*;
use rtile_runtime::tensor::Tensor;

use super::{A, Attrs, In, assert_close, indices, offset, rand, run, run_n};

/// Pooling geometry for the reference.
#[derive(Clone, Debug)]
struct P {
    k: Vec<i64>,
    s: Vec<i64>,
    d: Vec<i64>,
    pb: Vec<i64>,
    pe: Vec<i64>,
    ceil: bool,
}

/// Output size per the MaxPool/AveragePool specification: `⌊ or ⌈ (in + pb + pe -
/// ((k-1)d+1)) / s ⌉ + 1`; with ceil_mode the last window must start inside the input
/// or its begin padding.
fn out_size(p: &P, input: &[i64]) -> Vec<i64> {
    (0..input.len())
        .map(|i| {
            let span = (input[i] + p.pb[i] + p.pe[i] - ((p.k[i] - 1) * p.d[i] + 1)) as f64;
            let q = span / p.s[i] as f64;
            let mut o = if p.ceil { q.ceil() } else { q.floor() } as i64 + 1;
            if p.ceil && (o - 1) * p.s[i] >= input[i] + p.pb[i] {
                o -= 1;
            }
            o
        })
        .collect()
}

/// The naive pool: max, or the average over the window positions inside the input
/// (count_include_pad 0) or inside the padded input (count_include_pad 1, where the
/// padding adds zeros).
fn pool_ref(x: &Tensor, p: &P, max: bool, include_pad: bool) -> (Vec<i64>, Vec<f64>) {
    let n = x.shape.len() - 2;
    let mut out = x.shape[..2].to_vec();
    out.extend(out_size(p, &x.shape[2..]));
    let data = indices(&out)
        .into_iter()
        .map(|o| {
            let (mut best, mut sum, mut count) = (f64::NEG_INFINITY, 0.0, 0);
            for j in indices(&p.k) {
                let mut xi = vec![o[0], o[1]];
                let (mut inside, mut in_padded) = (true, true);
                for i in 0..n {
                    let q = o[2 + i] * p.s[i] - p.pb[i] + j[i] * p.d[i];
                    inside &= q >= 0 && q < x.shape[2 + i];
                    in_padded &= q < x.shape[2 + i] + p.pe[i];
                    xi.push(q);
                }
                if inside {
                    let v = x.data[offset(&x.shape, &xi)];
                    best = best.max(v);
                    sum += v;
                }
                if inside || (include_pad && in_padded) {
                    count += 1;
                }
            }
            if max { best } else { sum / count as f64 }
        })
        .collect();
    (out, data)
}

fn attrs_of(p: &P, extra: &[(&str, A)]) -> Attrs {
    let mut pads = p.pb.clone();
    pads.extend(&p.pe);
    let mut a = Attrs::new(&[
        ("kernel_shape", A::Is(p.k.clone())),
        ("strides", A::Is(p.s.clone())),
        ("dilations", A::Is(p.d.clone())),
        ("pads", A::Is(pads)),
        ("ceil_mode", A::I(p.ceil as i64)),
    ]);
    for (n, v) in extra {
        a.0.insert(n.to_string(), v.clone());
    }
    a
}

fn check_pool(xs: &[i64], p: &P, seed: u64) {
    let x = rand(xs, seed);
    let (shape, want) = pool_ref(&x, p, true, false);
    let got = run("MaxPool", 12, vec![In::T(x.clone())], &attrs_of(p, &[]));
    assert_close(&got, &shape, &want, 1e-12);
    for include in [0, 1] {
        let (shape, want) = pool_ref(&x, p, false, include == 1);
        let a = attrs_of(p, &[("count_include_pad", A::I(include))]);
        let got = run("AveragePool", 19, vec![In::T(x.clone())], &a);
        assert_close(&got, &shape, &want, 1e-12);
    }
}

fn p2(k: [i64; 2], s: [i64; 2], d: [i64; 2], pb: [i64; 2], pe: [i64; 2], ceil: bool) -> P {
    P {
        k: k.to_vec(),
        s: s.to_vec(),
        d: d.to_vec(),
        pb: pb.to_vec(),
        pe: pe.to_vec(),
        ceil,
    }
}

#[test]
fn pool_2d_variants() {
    check_pool(
        &[1, 2, 6, 6],
        &p2([2, 2], [2, 2], [1, 1], [0, 0], [0, 0], false),
        1,
    );
    check_pool(
        &[2, 3, 7, 8],
        &p2([3, 3], [2, 2], [1, 1], [1, 1], [1, 1], false),
        2,
    );
    check_pool(
        &[1, 2, 9, 7],
        &p2([3, 2], [1, 2], [2, 1], [2, 0], [1, 1], false),
        3,
    );
}

#[test]
fn pool_ceil_mode_with_count_include_pad() {
    // ONNX's maxpool_2d_ceil: 4x4, kernel 3, stride 2, ceil -> 2x2.
    let p = p2([3, 3], [2, 2], [1, 1], [0, 0], [0, 0], true);
    assert_eq!(out_size(&p, &[4, 4]), [2, 2]);
    check_pool(&[1, 1, 4, 4], &p, 4);
    // Ceil windows past the end padding, with begin padding (count varies per position).
    check_pool(
        &[1, 2, 7, 6],
        &p2([3, 2], [2, 3], [1, 1], [1, 1], [1, 0], true),
        5,
    );
    // The last-window rule drops an output: in 5, k 1, s 3, ceil -> 2 (not 3).
    let p = p2([1, 1], [3, 3], [1, 1], [0, 0], [0, 0], true);
    assert_eq!(out_size(&p, &[5, 5]), [2, 2]);
    check_pool(&[1, 1, 5, 5], &p, 6);
}

#[test]
fn pool_1d_3d_and_auto_pad() {
    let p1 = P {
        k: vec![3],
        s: vec![2],
        d: vec![1],
        pb: vec![1],
        pe: vec![2],
        ceil: true,
    };
    check_pool(&[2, 3, 9], &p1, 7);
    let p3 = P {
        k: vec![2, 3, 2],
        s: vec![2, 1, 2],
        d: vec![1, 1, 2],
        pb: vec![1, 0, 1],
        pe: vec![0, 1, 1],
        ceil: false,
    };
    check_pool(&[1, 2, 5, 4, 6], &p3, 8);
    // SAME_UPPER: in 7, k 3, s 2 -> out 4, total pad 2 (1 + 1); in 6, k 2, s 2 -> out 3, no pad.
    let x = rand(&[1, 2, 7, 6], 9);
    for (mode, pb, pe) in [
        ("SAME_UPPER", [1, 0], [1, 0]),
        ("SAME_LOWER", [1, 0], [1, 0]),
    ] {
        let p = p2([3, 2], [2, 2], [1, 1], pb, pe, false);
        let a = Attrs::new(&[
            ("auto_pad", A::S(mode)),
            ("kernel_shape", A::Is(vec![3, 2])),
            ("strides", A::Is(vec![2, 2])),
        ]);
        let got = run("MaxPool", 12, vec![In::T(x.clone())], &a);
        let (shape, want) = pool_ref(&x, &p, true, false);
        assert_eq!(shape, [1, 2, 4, 3]);
        assert_close(&got, &shape, &want, 1e-12);
        let got = run("AveragePool", 11, vec![In::T(x.clone())], &a);
        let (shape, want) = pool_ref(&x, &p, false, false);
        assert_close(&got, &shape, &want, 1e-12);
    }
    // SAME_LOWER with an odd total pads more at the beginning: in 6, k 2, s 1 -> total 1.
    let x = rand(&[1, 1, 6], 10);
    let a = Attrs::new(&[
        ("auto_pad", A::S("SAME_LOWER")),
        ("kernel_shape", A::Is(vec![2])),
    ]);
    let p = P {
        k: vec![2],
        s: vec![1],
        d: vec![1],
        pb: vec![1],
        pe: vec![0],
        ceil: false,
    };
    let got = run("AveragePool", 11, vec![In::T(x.clone())], &a);
    let (shape, want) = pool_ref(&x, &p, false, false);
    assert_close(&got, &shape, &want, 1e-12);
}

#[test]
fn max_pool_indices_refused() {
    let x = rand(&[1, 1, 4, 4], 1);
    let a = Attrs::new(&[("kernel_shape", A::Is(vec![2, 2]))]);
    let e = run_n("MaxPool", 12, vec![In::T(x)], &a, 2).unwrap_err();
    assert!(e.0.contains("Indices output is not supported"), "{e}");
}

#[test]
fn global_pools() {
    let x = rand(&[2, 3, 4, 5], 3);
    let mut avg = Vec::new();
    let mut mx = Vec::new();
    for nc in 0..6 {
        let vals = &x.data[nc * 20..(nc + 1) * 20];
        avg.push(vals.iter().sum::<f64>() / 20.0);
        mx.push(vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max));
    }
    let got = run(
        "GlobalAveragePool",
        1,
        vec![In::T(x.clone())],
        &Attrs::default(),
    );
    assert_close(&got, &[2, 3, 1, 1], &avg, 1e-12);
    let got = run("GlobalMaxPool", 1, vec![In::T(x)], &Attrs::default());
    assert_close(&got, &[2, 3, 1, 1], &mx, 0.0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Random 2-D pooling geometry, both ceil modes and both count_include_pad values.
    #[test]
    fn pool_random_geometry(
        dims in proptest::collection::vec((3i64..9, 1i64..4, 1i64..4, 1i64..3, 0i64..3, 0i64..3), 2),
        ceil in any::<bool>(),
        seed in 0u64..1000,
    ) {
        // Pads smaller than the kernel (the specification's requirement), kernel inside
        // the padded input.
        let dims: Vec<_> = dims.iter().map(|&(i, k, s, d, pb, pe)| {
            let k = k.min((i - 1) / d + 1);
            (i, k, s, d, pb.min(k - 1), pe.min(k - 1))
        }).collect();
        let p = P {
            k: dims.iter().map(|t| t.1).collect(),
            s: dims.iter().map(|t| t.2).collect(),
            d: dims.iter().map(|t| t.3).collect(),
            pb: dims.iter().map(|t| t.4).collect(),
            pe: dims.iter().map(|t| t.5).collect(),
            ceil,
        };
        let xs = [1, 2, dims[0].0, dims[1].0];
        check_pool(&xs, &p, seed);
    }
}
