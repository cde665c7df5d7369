//! A small model end to end: conv (pad 1) -> relu -> 2x2 max pool (a max reduction) ->
//! flatten (tensor.collapse_shape) -> matmul -> bias add, with the conv and matmul weights
//! as `dense_resource` constants and the bias as inline `dense` elements. It is lowered by
//! `rtile-opt --construct-rtile=device=h100 --lower-to-gpu` (in-process), run whole in the
//! simulator (`rtile-run --sim`), and compared with the interpreter's f64 oracle and with
//! a naive f64 loop nest written here.

use rtile_dialects::te::model::{ElemType, TensorType};
use rtile_manifest::model::{Buffer, ModelManifest};
use rtile_runtime::npy::write_npy;
use rtile_runtime::sim::run_models_text;
use rtile_runtime::tensor::{SplitMix64, Tensor};
use rtile_tools::run::RunCli;
use rtile_tools::sim::{SimCli, sim_outcome};
use rtile_tools::{OptOptions, Pipeline, run_opt};

/// Values uniform in [-1, 1), rounded to f32.
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut r = SplitMix64(seed);
    (0..n).map(|_| (r.next_f64() * 2.0 - 1.0) as f32).collect()
}

/// A builtin blob: 4-byte alignment, then little-endian f32s.
fn blob(v: &[f32]) -> String {
    let mut s = String::from("0x04000000");
    for x in v {
        for b in x.to_le_bytes() {
            s.push_str(&format!("{b:02X}"));
        }
    }
    s
}

struct Model {
    w1: Vec<f32>,
    w2: Vec<f32>,
    bias: Vec<f32>,
}

impl Model {
    fn new() -> Model {
        Model {
            w1: values(4 * 3 * 3 * 3, 11),
            w2: values(100 * 10, 12),
            bias: values(10, 13),
        }
    }

    fn text(&self) -> String {
        let bias: Vec<String> = self.bias.iter().map(|b| format!("{b:e}")).collect();
        format!(
            r#"func.func @net(%X: tensor<1x3x10x10xf32>) -> tensor<1x10xf32> {{
  %W1 = "arith.constant"() <{{value = dense_resource<conv_w> : tensor<4x3x3x3xf32>}}> : () -> tensor<4x3x3x3xf32>
  %W2 = "arith.constant"() <{{value = dense_resource<fc_w> : tensor<100x10xf32>}}> : () -> tensor<100x10xf32>
  %B = "arith.constant"() <{{value = dense<[{}]> : tensor<10xf32>}}> : () -> tensor<10xf32>
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 4, 10, 10, 3, 3, 3] may_pad 0.0
         : (tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x10x10xf32> {{
    te.sum(%X[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %W1[%f, %c, %ry, %rx])
  }}
  %R = te.compute (%n, %c, %h, %w) in [1, 4, 10, 10] : (tensor<1x4x10x10xf32>) -> tensor<1x4x10x10xf32> {{
    max(%C[%n, %c, %h, %w], 0.0)
  }}
  %P = te.compute (%n, %c, %y, %x) reduce (%ph, %pw) in [1, 4, 5, 5, 2, 2]
         : (tensor<1x4x10x10xf32>) -> tensor<1x4x5x5xf32> {{
    te.max(%R[%n, %c, %y * 2 + %ph, %x * 2 + %pw])
  }}
  %F = tensor.collapse_shape %P [[0], [1, 2, 3]] : tensor<1x4x5x5xf32> into tensor<1x100xf32>
  %M = te.compute (%i, %j) reduce (%k) in [1, 10, 100] : (tensor<1x100xf32>, tensor<100x10xf32>) -> tensor<1x10xf32> {{
    te.sum(%F[%i, %k] * %W2[%k, %j])
  }}
  %Y = te.compute (%i, %j) in [1, 10] : (tensor<1x10xf32>, tensor<10xf32>) -> tensor<1x10xf32> {{
    %M[%i, %j] + %B[%j]
  }}
  return %Y : tensor<1x10xf32>
}}

{{-#
  dialect_resources: {{
    builtin: {{
      conv_w: "{}",
      fc_w: "{}"
    }}
  }}
#-}}
"#,
            bias.join(", "),
            blob(&self.w1),
            blob(&self.w2)
        )
    }

    /// The model as naive loops in f64 on `x` (1x3x10x10).
    fn reference(&self, x: &[f64]) -> Vec<f64> {
        let w1 = |f: usize, c: usize, ry: usize, rx: usize| {
            f64::from(self.w1[((f * 3 + c) * 3 + ry) * 3 + rx])
        };
        let mut r = vec![0.0; 4 * 10 * 10];
        for f in 0..4 {
            for y in 0..10 {
                for xx in 0..10 {
                    let mut s = 0.0;
                    for c in 0..3 {
                        for ry in 0..3 {
                            for rx in 0..3 {
                                let (iy, ix) = (y + ry, xx + rx);
                                if (1..=10).contains(&iy) && (1..=10).contains(&ix) {
                                    s += x[(c * 10 + iy - 1) * 10 + ix - 1] * w1(f, c, ry, rx);
                                }
                            }
                        }
                    }
                    r[(f * 10 + y) * 10 + xx] = s.max(0.0);
                }
            }
        }
        let mut flat = vec![f64::NEG_INFINITY; 100];
        for c in 0..4 {
            for y in 0..5 {
                for xx in 0..5 {
                    for p in 0..4 {
                        let v = r[(c * 10 + 2 * y + p / 2) * 10 + 2 * xx + p % 2];
                        let o = &mut flat[(c * 5 + y) * 5 + xx];
                        *o = o.max(v);
                    }
                }
            }
        }
        (0..10)
            .map(|j| {
                (0..100)
                    .map(|k| flat[k] * f64::from(self.w2[k * 10 + j]))
                    .sum::<f64>()
                    + f64::from(self.bias[j])
            })
            .collect()
    }
}

fn lower(text: &str) -> String {
    let opts = OptOptions {
        pipeline: Pipeline::Flags(vec![
            ("construct-rtile".into(), "device=h100".into()),
            ("lower-to-gpu".into(), String::new()),
        ]),
        color: Some(false),
        ..OptOptions::default()
    };
    let out = run_opt(&opts, "net.mlir", text.to_string());
    assert!(out.success, "{}", out.log);
    out.output
}

fn rel(got: &[f64], want: &[f64]) -> f64 {
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    got.iter()
        .zip(want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
        / scale
}

#[test]
fn a_small_model_runs_whole_in_the_simulator() {
    let model = Model::new();
    let lowered = lower(&model.text());
    // Host code: one arena, the flatten as a view, the three constants as globals.
    assert_eq!(lowered.matches("memref.alloc()").count(), 1, "{lowered}");
    assert!(lowered.contains("memref.collapse_shape %"), "{lowered}");
    assert_eq!(
        lowered.matches("\"memref.global\"()").count(),
        3,
        "{lowered}"
    );
    assert!(lowered.contains("@__constant_conv_w"), "{lowered}");
    assert!(lowered.contains("@__constant_10xf32"), "{lowered}");
    // conv [0, 1] 1792 B at 0; relu [1, 2] 1792 B above it; pool [2, 3] 512 B in the
    // conv's bytes; matmul [3, 4] 256 B above the pool: 3584 bytes (5 intermediates would
    // take 4352 unshared).
    assert!(
        lowered.contains("rtile.peak_bytes = 3584 : i64"),
        "{lowered}"
    );

    let seed = 5;
    let runs = run_models_text(
        "net.gpu.mlir",
        &lowered,
        seed,
        &[],
        Default::default(),
        None,
    )
    .expect("runs");
    let [run] = &runs[..] else {
        panic!("one host function, got {}", runs.len())
    };
    assert!(run.max_rel_err() < 1e-5, "{}", run.text());
    assert_eq!(run.manifest.steps.len(), 5);
    let launch = |k: usize| {
        run.manifest.steps[k]
            .launch()
            .cloned()
            .expect("a launch step")
    };
    assert_eq!(run.manifest.arena_bytes, 3584);
    assert_eq!(run.manifest.constants.len(), 3);
    // The pool writes where the conv was, and the matmul reads the pool through the view.
    assert_eq!(launch(2).args[1].buffer, Buffer::Arena);
    assert_eq!(launch(2).args[1].offset, 0);
    assert_eq!(launch(3).args[0].shape, vec![1, 100]);
    assert_eq!(launch(4).args[2].buffer, Buffer::Output(0));
    // The same seeded input as the run, through the naive loops.
    let x = Tensor::random_inputs(&[TensorType::new(vec![1, 3, 10, 10], ElemType::F32)], seed);
    let want = model.reference(&x[0].data);
    let e = rel(&run.outputs[0].data, &want);
    assert!(e < 1e-5, "simulator vs naive loops: {e:e}");
}

#[test]
fn inputs_dump_and_manifest_through_rtile_run() {
    let model = Model::new();
    let lowered = lower(&model.text());
    let dir = std::env::temp_dir().join(format!("rtile-model-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let x: Vec<f64> = values(300, 99).into_iter().map(f64::from).collect();
    let xt = Tensor::from_data(vec![1, 3, 10, 10], ElemType::F32, x.clone()).expect("tensor");
    let xin = dir.join("x.npy");
    write_npy(&xin, &xt).expect("write x");
    let out = dir.join("y.npy");
    let manifest = dir.join("net.json");
    let opts = RunCli {
        inputs: vec![xin],
        dump: Some(out.clone()),
        color: Some(false),
        ..RunCli::default()
    };
    let sim = SimCli {
        check: false,
        tolerance: 1e-5,
        manifest: Some(manifest.clone()),
    };
    let r = sim_outcome(&opts, &sim, "net.gpu.mlir", &lowered);
    assert!(r.success, "{}{}", r.output, r.log);
    assert!(
        r.output
            .contains("@net: 5 kernels, 3 constants, peak intermediate memory 3584 bytes"),
        "{}",
        r.output
    );
    let y = rtile_runtime::npy::read_npy(&out, ElemType::F32).expect("dumped output");
    assert_eq!(y.shape, vec![1, 10]);
    let e = rel(&y.data, &model.reference(&x));
    assert!(e < 1e-5, "dumped output vs naive loops: {e:e}");
    let m = ModelManifest::from_json(&std::fs::read_to_string(&manifest).expect("manifest"))
        .expect("parses");
    assert_eq!(m.constants_file.as_deref(), Some("net.bin"));
    let bin = std::fs::read(dir.join("net.bin")).expect("constants");
    assert_eq!(
        bin.len() as u64,
        m.constants.iter().map(|c| c.bytes).sum::<u64>()
    );
    // The conv weights are the blob's bytes, where the manifest says.
    let c = m
        .constants
        .iter()
        .find(|c| c.name == "__constant_conv_w")
        .expect("conv_w");
    let w: Vec<f32> = bin[c.offset as usize..(c.offset + c.bytes) as usize]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(w, model.w1);
    let _ = std::fs::remove_dir_all(&dir);
    // An input of the wrong shape is a clear error.
    let bad = std::env::temp_dir().join(format!("rtile-model-bad-{}.npy", std::process::id()));
    write_npy(
        &bad,
        &Tensor::from_data(vec![3], ElemType::F32, vec![0.0; 3]).expect("t"),
    )
    .expect("w");
    let r = sim_outcome(
        &RunCli {
            inputs: vec![bad.clone()],
            ..RunCli::default()
        },
        &SimCli {
            tolerance: 1e-5,
            ..SimCli::default()
        },
        "net.gpu.mlir",
        &lowered,
    );
    assert!(!r.success);
    assert!(
        r.log.contains("@net expects tensor<1x3x10x10xf32>"),
        "{}",
        r.log
    );
    let _ = std::fs::remove_file(bad);
}
