//! Every compute of `bench/ops/roller-table1-small.mlir` (read with the real parser and
//! verifier) run by the interpreter and compared with a naive Rust loop nest written
//! independently of te (no affine maps, no expression trees), on seeded random inputs.

use std::time::Instant;

use rtile_dialects::te::module::{FoundCompute, parse_computes};
use rtile_runtime::{Accumulate, Tensor, eval_compute};

fn suite() -> Vec<FoundCompute> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench/ops/roller-table1-small.mlir");
    let text = std::fs::read_to_string(&p).expect("suite file");
    parse_computes("roller-table1-small.mlir", &text).unwrap_or_else(|e| panic!("{e}"))
}

fn at(t: &Tensor, idx: &[i64]) -> f64 {
    let mut off = 0;
    for (i, (&x, &d)) in idx.iter().zip(&t.shape).enumerate() {
        assert!(
            x >= 0 && x < d,
            "naive index {idx:?} out of {:?} at {i}",
            t.shape
        );
        off = off * d + x;
    }
    t.data[off as usize]
}

/// Zero outside the tensor (conv zero padding).
fn at_or0(t: &Tensor, idx: &[i64]) -> f64 {
    if idx.iter().zip(&t.shape).all(|(&x, &d)| x >= 0 && x < d) {
        at(t, idx)
    } else {
        0.0
    }
}

fn matmul(a: &Tensor, b: &Tensor) -> Vec<f64> {
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    let mut out = vec![];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for kk in 0..k {
                s += at(a, &[i, kk]) * at(b, &[kk, j]);
            }
            out.push(s);
        }
    }
    out
}

fn conv(d: &Tensor, k: &Tensor, out: &[i64], stride: i64, pad: i64) -> Vec<f64> {
    let mut v = vec![];
    for n in 0..out[0] {
        for f in 0..out[1] {
            for y in 0..out[2] {
                for x in 0..out[3] {
                    let mut s = 0.0;
                    for c in 0..d.shape[1] {
                        for ry in 0..k.shape[2] {
                            for rx in 0..k.shape[3] {
                                s += at_or0(
                                    d,
                                    &[n, c, y * stride + ry - pad, x * stride + rx - pad],
                                ) * at(k, &[f, c, ry, rx]);
                            }
                        }
                    }
                    v.push(s);
                }
            }
        }
    }
    v
}

fn depthwise(d: &Tensor, k: &Tensor, out: &[i64], stride: i64, pad: i64) -> Vec<f64> {
    let mult = out[1] / d.shape[1];
    let mut v = vec![];
    for n in 0..out[0] {
        for o in 0..out[1] {
            for y in 0..out[2] {
                for x in 0..out[3] {
                    let mut s = 0.0;
                    for ry in 0..k.shape[1] {
                        for rx in 0..k.shape[2] {
                            s += at_or0(
                                d,
                                &[n, o / mult, y * stride + ry - pad, x * stride + rx - pad],
                            ) * at(k, &[o, ry, rx]);
                        }
                    }
                    v.push(s);
                }
            }
        }
    }
    v
}

fn pool_sum(d: &Tensor, out: &[i64], win: i64, stride: i64, pad: i64) -> Vec<f64> {
    let mut v = vec![];
    for n in 0..out[0] {
        for c in 0..out[1] {
            for y in 0..out[2] {
                for x in 0..out[3] {
                    let mut s = 0.0;
                    for ry in 0..win {
                        for rx in 0..win {
                            s += at_or0(d, &[n, c, y * stride + ry - pad, x * stride + rx - pad]);
                        }
                    }
                    v.push(s);
                }
            }
        }
    }
    v
}

/// Sums the trailing `r` dims of `t` (row-major: contiguous groups).
fn sum_trailing(t: &Tensor, r: usize) -> Vec<f64> {
    let inner: i64 = t.shape[t.shape.len() - r..].iter().product();
    t.data
        .chunks(inner as usize)
        .map(|c| c.iter().fold(0.0, |s, x| s + x))
        .collect()
}

fn max_rows(t: &Tensor) -> Vec<f64> {
    let c = t.shape[1] as usize;
    t.data
        .chunks(c)
        .map(|r| {
            r.iter()
                .fold(f64::NEG_INFINITY, |m, &x| if x > m { x } else { m })
        })
        .collect()
}

/// The naive result of one compute of the suite, by function and result name.
fn naive(func: &str, res: &str, ins: &[Tensor], out: &[i64]) -> Vec<f64> {
    let class = func.trim_end_matches("_small");
    match (class, res) {
        ("m0" | "m1" | "m2", _) => matmul(&ins[0], &ins[1]),
        ("c0", _) => conv(&ins[0], &ins[1], out, 1, 1),
        ("c1" | "c2", _) => conv(&ins[0], &ins[1], out, 2, 0),
        ("d0", _) => depthwise(&ins[0], &ins[1], out, 2, 2),
        ("d1", _) => depthwise(&ins[0], &ins[1], out, 1, 2),
        ("d2", _) => depthwise(&ins[0], &ins[1], out, 1, 0),
        ("e0" | "e1" | "e2", _) => ins[0]
            .data
            .iter()
            .map(|&x| if x > 0.0 { x } else { 0.0 })
            .collect(),
        ("p0", "S") => pool_sum(&ins[0], out, 1, 2, 0),
        ("p1", "S") => pool_sum(&ins[0], out, 3, 2, 1),
        ("p2", "S") => pool_sum(&ins[0], out, 3, 1, 1),
        ("p0", "O") => ins[0].data.iter().map(|x| x / 1.0).collect(),
        ("p1" | "p2", "O") => ins[0].data.iter().map(|x| x / 9.0).collect(),
        ("r0" | "r1", "S") => sum_trailing(&ins[0], 1),
        ("r2", "S") => sum_trailing(&ins[0], 2),
        ("r0", "O") => ins[0].data.iter().map(|x| x / 16.0).collect(),
        ("r1", "O") => ins[0].data.iter().map(|x| x / 64.0).collect(),
        ("r2", "O") => ins[0].data.iter().map(|x| x / 121.0).collect(),
        ("bmm", _) => {
            let (q, k) = (&ins[0], &ins[1]);
            let mut v = vec![];
            for b in 0..out[0] {
                for h in 0..out[1] {
                    for m in 0..out[2] {
                        for n in 0..out[3] {
                            let mut s = 0.0;
                            for kk in 0..q.shape[3] {
                                s += at(q, &[b, h, m, kk]) * at(k, &[b, h, n, kk]);
                            }
                            v.push(s);
                        }
                    }
                }
            }
            v
        }
        ("transpose", _) => {
            let mut v = vec![];
            for b in 0..out[0] {
                for h in 0..out[1] {
                    for s in 0..out[2] {
                        for d in 0..out[3] {
                            v.push(at(&ins[0], &[b, s, h, d]));
                        }
                    }
                }
            }
            v
        }
        ("softmax", "M") => max_rows(&ins[0]),
        ("softmax", "E") => {
            let c = out[1];
            (0..ins[0].data.len() as i64)
                .map(|i| (ins[0].data[i as usize] - ins[1].data[(i / c) as usize]).exp())
                .collect()
        }
        ("softmax", "S") | ("layernorm", "S") => sum_trailing(&ins[0], 1),
        ("softmax", "P") => {
            let c = out[1];
            (0..ins[0].data.len() as i64)
                .map(|i| ins[0].data[i as usize] / ins[1].data[(i / c) as usize])
                .collect()
        }
        ("layernorm", "M") => ins[0].data.iter().map(|x| x / 16.0).collect(),
        ("layernorm", "V") => {
            let c = ins[0].shape[1] as usize;
            ins[0]
                .data
                .chunks(c)
                .zip(&ins[1].data)
                .map(|(r, m)| r.iter().fold(0.0, |s, x| s + (x - m) * (x - m)))
                .collect()
        }
        ("layernorm", "Y") => {
            let (x, m, var, g, b) = (&ins[0], &ins[1], &ins[2], &ins[3], &ins[4]);
            let c = x.shape[1];
            (0..x.data.len() as i64)
                .map(|i| {
                    let (r, j) = ((i / c) as usize, (i % c) as usize);
                    (x.data[i as usize] - m.data[r])
                        // The literal `1.0e-5` of an f32 compute is the f32 value.
                        * (1.0 / (var.data[r] / 16.0 + f64::from(1.0e-5f32)).sqrt())
                        * g.data[j]
                        + b.data[j]
                })
                .collect()
        }
        other => panic!("no naive implementation for {other:?}"),
    }
}

#[test]
fn interpreter_matches_naive_on_small_twins() {
    let start = Instant::now();
    let cs = suite();
    assert_eq!(cs.len(), 34);
    for (i, c) in cs.iter().enumerate() {
        let comp = &c.compute;
        let ins = Tensor::random_inputs(&comp.inputs, 7 + i as u64);
        let got = eval_compute(comp, &ins, Accumulate::F64).expect("interpret");
        let want = naive(&c.func, &c.result, &ins, &comp.result.shape);
        assert_eq!(got.data.len(), want.len(), "@{} %{}", c.func, c.result);
        for (k, (g, w)) in got.data.iter().zip(&want).enumerate() {
            let tol = 1e-12 * w.abs().max(1.0);
            assert!(
                (g - w).abs() <= tol || (g.is_nan() && w.is_nan()),
                "@{} %{} element {k}: interpreter {g} vs naive {w}",
                c.func,
                c.result
            );
        }
        // Native f32 stays close to the oracle.
        let native = eval_compute(comp, &ins, Accumulate::Native).expect("interpret");
        for (g, w) in native.data.iter().zip(&want) {
            assert!(
                (g - w).abs() <= 1e-4 * w.abs().max(1.0) || (g.is_nan() && w.is_nan()),
                "@{} %{}: native {g} vs {w}",
                c.func,
                c.result
            );
        }
    }
    let el = start.elapsed();
    eprintln!("small twins: {} computes, two modes, in {el:?}", cs.len());
    // The budget is 5 s in CI; debug builds on a loaded machine get slack.
    assert!(
        el.as_secs_f64() < 20.0,
        "interpreting the small twins took {el:?}"
    );
}

#[test]
fn npy_dump_of_an_output_round_trips() {
    let cs = suite();
    let c = &cs[0].compute;
    let ins = Tensor::random_inputs(&c.inputs, 1);
    let out = eval_compute(c, &ins, Accumulate::Native).expect("interpret");
    let dir = std::env::temp_dir().join(format!("rtile-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let p = dir.join("out.npy");
    rtile_runtime::npy::write_npy(&p, &out).expect("write");
    let back = rtile_runtime::npy::read_npy(&p, out.dtype).expect("read");
    assert!(out.bit_identical(&back));
    std::fs::remove_dir_all(&dir).ok();
}

/// The whole small-twin module, parsed, verified and run function by function (as
/// `rtile-run --interpret` does) in both modes, within the 5 s debug budget.
#[test]
fn whole_small_suite_module_runs_within_budget() {
    use rtile_dialects::te::module::{new_context, parse_and_verify};
    use rtile_runtime::driver::{RunOptions, checksum_report, interpret_module};
    let start = Instant::now();
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench/ops/roller-table1-small.mlir");
    let text = std::fs::read_to_string(&p).expect("suite file");
    let mut ctx = new_context();
    let m = parse_and_verify(&mut ctx, "small.mlir", &text).unwrap_or_else(|e| panic!("{e}"));
    let mut reports = Vec::new();
    for mode in [Accumulate::Native, Accumulate::F64] {
        let opts = RunOptions {
            func: None,
            seed: 7,
            inputs: vec![],
            mode,
            files: Default::default(),
        };
        let runs = interpret_module(&ctx, m, &opts).expect("runs");
        assert_eq!(runs.len(), 22);
        reports.push(checksum_report(&runs));
    }
    assert_ne!(reports[0], reports[1], "f64 and native differ somewhere");
    let el = start.elapsed();
    eprintln!("small-twin module, two modes: {el:?}");
    assert!(el.as_secs_f64() < 5.0, "took {el:?}");
}
