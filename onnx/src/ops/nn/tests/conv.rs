//! Conv and ConvTranspose against loop nests of the specification.

use proptest::prelude::*;
use rtile_runtime::tensor::Tensor;

use super::{A, Attrs, In, assert_close, indices, offset, rand, run, run_err};

/// Explicit geometry for the references.
#[derive(Clone, Debug)]
pub struct Geo {
    pub strides: Vec<i64>,
    pub dil: Vec<i64>,
    pub pb: Vec<i64>,
    pub pe: Vec<i64>,
}

/// ONNX Conv, naive: `Y[n, m, o] = B[m] + Σ_{c, j} X[n, g·C/G + c, o·s + j·d - pb] ·
/// W[m, c, j]`, zero outside X; output size `⌊(in + pb + pe - ((k-1)d+1)) / s⌋ + 1`.
pub fn conv_ref(
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    group: i64,
    g: &Geo,
) -> (Vec<i64>, Vec<f64>) {
    let n = x.shape.len() - 2;
    let (m, cg) = (w.shape[0], w.shape[1]);
    let mut out = vec![x.shape[0], m];
    for i in 0..n {
        let eff = (w.shape[2 + i] - 1) * g.dil[i] + 1;
        out.push((x.shape[2 + i] + g.pb[i] + g.pe[i] - eff) / g.strides[i] + 1);
    }
    let mg = m / group;
    let data = indices(&out)
        .into_iter()
        .map(|o| {
            let mut acc = b.map_or(0.0, |b| b.data[o[1] as usize]);
            for c in 0..cg {
                let ch = (o[1] / mg) * cg + c;
                for j in indices(&w.shape[2..]) {
                    let mut xi = vec![o[0], ch];
                    let mut inside = true;
                    for i in 0..n {
                        let p = o[2 + i] * g.strides[i] + j[i] * g.dil[i] - g.pb[i];
                        inside &= p >= 0 && p < x.shape[2 + i];
                        xi.push(p);
                    }
                    if inside {
                        let mut wi = vec![o[1], c];
                        wi.extend(&j);
                        acc += x.data[offset(&x.shape, &xi)] * w.data[offset(&w.shape, &wi)];
                    }
                }
            }
            acc
        })
        .collect();
    (out, data)
}

/// ONNX ConvTranspose, naive scatter: every `X[n, c, i]·W[c, m', j]` adds to
/// `Y[n, g·M/G + m', i·s + j·d - pb]` when that lies in the output.
pub fn conv_transpose_ref(
    x: &Tensor,
    w: &Tensor,
    b: Option<&Tensor>,
    group: i64,
    g: &Geo,
    out_sp: &[i64],
) -> (Vec<i64>, Vec<f64>) {
    let n = x.shape.len() - 2;
    let c = x.shape[1];
    let (cg, mg) = (c / group, w.shape[1]);
    let mut out = vec![x.shape[0], mg * group];
    out.extend(out_sp);
    let mut y = vec![0.0; out.iter().product::<i64>() as usize];
    for xi in indices(&x.shape) {
        let grp = xi[1] / cg;
        for mm in 0..mg {
            for j in indices(&w.shape[2..]) {
                let mut yi = vec![xi[0], grp * mg + mm];
                let mut inside = true;
                for i in 0..n {
                    let p = xi[2 + i] * g.strides[i] + j[i] * g.dil[i] - g.pb[i];
                    inside &= p >= 0 && p < out_sp[i];
                    yi.push(p);
                }
                if inside {
                    let mut wi = vec![xi[1], mm];
                    wi.extend(&j);
                    y[offset(&out, &yi)] +=
                        x.data[offset(&x.shape, &xi)] * w.data[offset(&w.shape, &wi)];
                }
            }
        }
    }
    if let Some(b) = b {
        for o in indices(&out) {
            y[offset(&out, &o)] += b.data[o[1] as usize];
        }
    }
    (out, y)
}

fn geo(strides: &[i64], dil: &[i64], pb: &[i64], pe: &[i64]) -> Geo {
    Geo {
        strides: strides.to_vec(),
        dil: dil.to_vec(),
        pb: pb.to_vec(),
        pe: pe.to_vec(),
    }
}

fn conv_attrs(group: i64, g: &Geo) -> Attrs {
    let mut pads = g.pb.clone();
    pads.extend(&g.pe);
    Attrs::new(&[
        ("group", A::I(group)),
        ("strides", A::Is(g.strides.clone())),
        ("dilations", A::Is(g.dil.clone())),
        ("pads", A::Is(pads)),
    ])
}

fn check_conv(xs: &[i64], ws: &[i64], bias: bool, group: i64, g: &Geo, seed: u64) {
    let x = rand(xs, seed);
    let w = rand(ws, seed + 1);
    let b = rand(&[ws[0]], seed + 2);
    let (shape, want) = conv_ref(&x, &w, bias.then_some(&b), group, g);
    let inputs = vec![In::T(x), In::T(w), if bias { In::T(b) } else { In::None }];
    let got = run("Conv", 11, inputs, &conv_attrs(group, g));
    assert_close(&got, &shape, &want, 1e-9);
}

#[test]
fn conv_2d_plain_strided_dilated_padded() {
    check_conv(
        &[1, 3, 6, 7],
        &[4, 3, 3, 3],
        true,
        1,
        &geo(&[1, 1], &[1, 1], &[0, 0], &[0, 0]),
        1,
    );
    check_conv(
        &[2, 3, 9, 8],
        &[4, 3, 3, 2],
        true,
        1,
        &geo(&[2, 3], &[1, 1], &[1, 0], &[1, 2]),
        2,
    );
    check_conv(
        &[1, 2, 9, 9],
        &[3, 2, 3, 3],
        false,
        1,
        &geo(&[1, 2], &[2, 3], &[2, 1], &[0, 3]),
        3,
    );
}

#[test]
fn conv_grouped_and_depthwise() {
    check_conv(
        &[1, 6, 7, 7],
        &[4, 3, 3, 3],
        true,
        2,
        &geo(&[1, 1], &[1, 1], &[1, 1], &[1, 1]),
        4,
    );
    // Depthwise with channel multiplier 2.
    check_conv(
        &[2, 4, 8, 6],
        &[8, 1, 3, 3],
        true,
        4,
        &geo(&[2, 1], &[1, 2], &[1, 2], &[1, 2]),
        5,
    );
    // Pure depthwise.
    check_conv(
        &[1, 5, 6, 6],
        &[5, 1, 3, 3],
        false,
        5,
        &geo(&[1, 1], &[1, 1], &[1, 1], &[1, 1]),
        6,
    );
}

#[test]
fn conv_1d_and_3d() {
    check_conv(
        &[2, 3, 11],
        &[4, 3, 4],
        true,
        1,
        &geo(&[2], &[2], &[3], &[1]),
        7,
    );
    check_conv(
        &[1, 2, 5, 6, 4],
        &[3, 2, 2, 3, 2],
        true,
        1,
        &geo(&[1, 2, 1], &[2, 1, 1], &[1, 0, 1], &[0, 1, 1]),
        8,
    );
}

#[test]
fn conv_auto_pad() {
    let x = rand(&[1, 2, 6, 7], 9);
    let w = rand(&[3, 2, 3, 2], 10);
    // in 6, k 3, s 2: out 3, total pad 1; in 7, k 2 (dilation 2: 3), s 2: out 4, total 2.
    for (mode, pb, pe) in [
        ("SAME_UPPER", [0, 1], [1, 1]),
        ("SAME_LOWER", [1, 1], [0, 1]),
        ("VALID", [0, 0], [0, 0]),
    ] {
        let g = geo(&[2, 2], &[1, 2], &pb, &pe);
        let (shape, want) = conv_ref(&x, &w, None, 1, &g);
        let attrs = Attrs::new(&[
            ("auto_pad", A::S(mode)),
            ("strides", A::Is(vec![2, 2])),
            ("dilations", A::Is(vec![1, 2])),
        ]);
        let got = run("Conv", 11, vec![In::T(x.clone()), In::T(w.clone())], &attrs);
        if mode != "VALID" {
            assert_eq!(shape, [1, 3, 3, 4], "{mode}");
        }
        assert_close(&got, &shape, &want, 1e-9);
    }
    let e = run_err(
        "Conv",
        11,
        vec![In::T(x), In::T(w)],
        &Attrs::new(&[("auto_pad", A::S("FOO"))]),
    );
    assert!(e.contains("auto_pad 'FOO' is not one of NOTSET"), "{e}");
}

#[test]
fn conv_errors() {
    let x = rand(&[1, 4, 5, 5], 1);
    let w = rand(&[4, 3, 3, 3], 2);
    let e = run_err(
        "Conv",
        11,
        vec![In::T(x.clone()), In::T(w.clone())],
        &Attrs::default(),
    );
    assert!(e.contains("group 1 does not fit"), "{e}");
    let w = rand(&[4, 4, 3, 3], 2);
    let attrs = Attrs::new(&[("kernel_shape", A::Is(vec![2, 2]))]);
    let e = run_err("Conv", 11, vec![In::T(x.clone()), In::T(w.clone())], &attrs);
    assert!(e.contains("kernel_shape"), "{e}");
    let attrs = Attrs::new(&[("foo", A::I(1))]);
    let e = run_err("Conv", 11, vec![In::T(x), In::T(w)], &attrs);
    assert!(e.contains("attribute 'foo' is not supported"), "{e}");
}

fn check_conv_transpose(xs: &[i64], ws: &[i64], group: i64, g: &Geo, out_pad: &[i64], seed: u64) {
    let x = rand(xs, seed);
    let w = rand(ws, seed + 1);
    let b = rand(&[ws[1] * group], seed + 2);
    let n = xs.len() - 2;
    let out_sp: Vec<i64> = (0..n)
        .map(|i| {
            g.strides[i] * (xs[2 + i] - 1) + out_pad[i] + (ws[2 + i] - 1) * g.dil[i] + 1
                - g.pb[i]
                - g.pe[i]
        })
        .collect();
    let (shape, want) = conv_transpose_ref(&x, &w, Some(&b), group, g, &out_sp);
    let mut attrs = conv_attrs(group, g);
    attrs
        .0
        .insert("output_padding".into(), A::Is(out_pad.to_vec()));
    let got = run(
        "ConvTranspose",
        11,
        vec![In::T(x), In::T(w), In::T(b)],
        &attrs,
    );
    assert_close(&got, &shape, &want, 1e-9);
}

#[test]
fn conv_transpose_variants() {
    check_conv_transpose(
        &[1, 2, 3, 4],
        &[2, 3, 3, 3],
        1,
        &geo(&[1, 1], &[1, 1], &[0, 0], &[0, 0]),
        &[0, 0],
        1,
    );
    check_conv_transpose(
        &[2, 2, 3, 3],
        &[2, 2, 3, 2],
        1,
        &geo(&[3, 2], &[1, 1], &[1, 0], &[1, 1]),
        &[1, 1],
        2,
    );
    check_conv_transpose(
        &[1, 4, 4, 3],
        &[4, 2, 2, 3],
        2,
        &geo(&[2, 2], &[2, 1], &[0, 1], &[1, 0]),
        &[1, 0],
        3,
    );
    check_conv_transpose(
        &[1, 3, 5],
        &[3, 1, 4],
        3,
        &geo(&[3], &[2], &[2], &[1]),
        &[2],
        4,
    );
}

#[test]
fn conv_transpose_output_shape_and_same() {
    // The ONNX node test `convtranspose_output_shape`: X 1x1x3x3, strides [3, 2],
    // output_shape [10, 8]; the full output is 9x7, the rest is zero.
    let x = rand(&[1, 1, 3, 3], 11);
    let w = rand(&[1, 2, 3, 3], 12);
    let g = geo(&[3, 2], &[1, 1], &[0, 0], &[0, 0]);
    let (shape, want) = conv_transpose_ref(&x, &w, None, 1, &g, &[10, 8]);
    let attrs = Attrs::new(&[
        ("strides", A::Is(vec![3, 2])),
        ("output_shape", A::Is(vec![10, 8])),
    ]);
    let got = run(
        "ConvTranspose",
        11,
        vec![In::T(x.clone()), In::T(w.clone())],
        &attrs,
    );
    assert_close(&got, &shape, &want, 1e-9);
    // SAME_UPPER, strides 2: output 6x6, total padding 1 at the end.
    let g = geo(&[2, 2], &[1, 1], &[0, 0], &[1, 1]);
    let (shape, want) = conv_transpose_ref(&x, &w, None, 1, &g, &[6, 6]);
    let attrs = Attrs::new(&[
        ("strides", A::Is(vec![2, 2])),
        ("auto_pad", A::S("SAME_UPPER")),
    ]);
    let got = run(
        "ConvTranspose",
        11,
        vec![In::T(x.clone()), In::T(w.clone())],
        &attrs,
    );
    assert_close(&got, &shape, &want, 1e-9);
    // SAME_LOWER puts the odd padding at the beginning.
    let g = geo(&[2, 2], &[1, 1], &[1, 1], &[0, 0]);
    let (shape, want) = conv_transpose_ref(&x, &w, None, 1, &g, &[6, 6]);
    let attrs = Attrs::new(&[
        ("strides", A::Is(vec![2, 2])),
        ("auto_pad", A::S("SAME_LOWER")),
    ]);
    let got = run("ConvTranspose", 11, vec![In::T(x), In::T(w)], &attrs);
    assert_close(&got, &shape, &want, 1e-9);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Random 1-D/2-D conv geometry (groups, strides, dilations, asymmetric pads).
    #[test]
    fn conv_random_geometry(
        nd in 1usize..3,
        groups in 1i64..3,
        cg in 1i64..3,
        mg in 1i64..3,
        sp in proptest::collection::vec((3i64..8, 1i64..4, 1i64..3, 1i64..3, 0i64..3, 0i64..3), 2),
        seed in 0u64..1000,
    ) {
        let sp = &sp[..nd];
        // Keep the (dilated) kernel inside the padded input.
        let sp: Vec<_> = sp.iter().map(|&(i, k, s, d, pb, pe)| {
            let k = k.min((i + pb + pe - 1) / d + 1);
            (i, k, s, d, pb, pe)
        }).collect();
        let mut xs = vec![1, groups * cg];
        xs.extend(sp.iter().map(|t| t.0));
        let mut ws = vec![groups * mg, cg];
        ws.extend(sp.iter().map(|t| t.1));
        let g = Geo {
            strides: sp.iter().map(|t| t.2).collect(),
            dil: sp.iter().map(|t| t.3).collect(),
            pb: sp.iter().map(|t| t.4).collect(),
            pe: sp.iter().map(|t| t.5).collect(),
        };
        check_conv(&xs, &ws, seed % 2 == 0, groups, &g, seed);
        let mut wt = vec![groups * cg, mg];
        wt.extend(sp.iter().map(|t| t.1));
        let gt = Geo { pb: vec![0; nd], pe: vec![0; nd], ..g.clone() };
        let out_pad: Vec<i64> = g.strides.iter().map(|&s| (seed as i64) % s).collect();
        check_conv_transpose(&xs, &wt, groups, &gt, &out_pad, seed);
    }
}
