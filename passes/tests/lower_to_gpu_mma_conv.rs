//! Convolutions on tensor cores by implicit GEMM (`--construct-rtile` programs over the view
//! `[M = n*y*x, N = f, K = reduction axes]`, lowered with the im2col operand gathered into
//! shared memory, then the matmul's ldmatrix / mma.sync m16n8k16 / epilogue), in the CPU
//! GPU-simulator against the te interpreter's oracle.
//!
//! Tolerances as in `lower_to_gpu_mma.rs` (normwise, the oracle accumulates in f64 and
//! rounds once; the kernel accumulates in f32 and rounds once): f16 2^-10 + 1e-4, bf16
//! 2^-7 + 1e-4, f32 1e-4. Every K here is ≤ 19·3·3 = 171 ≤ 256, the bound that argument
//! assumes for the f32 accumulation term.

use proptest::prelude::*;
use rtile_dialects::te::model::{ElemType, TeCompute};
use rtile_passes::construct_rtile::implicit_gemm::{axis_names, implicit_gemm};
use rtile_passes::construct_rtile::te_adapter::expr_from_compute;
use rtile_passes::construct_rtile::{ConstructOptions, RProgram, construct};
use rtile_passes::device::Device;
use rtile_passes::lower_to_gpu::lower_compute;
use rtile_passes::lower_to_gpu::mma::MmaPlan;
use rtile_runtime::sim::run_check_text;

mod common;
use common::{
    compute, context, count_ops, mma_tolerance as tolerance, module_text, simulate_within_tolerance,
};
/// A 2-D convolution: `(n, c, h, w)` data, `f` filters of `kh × kw`, `stride`, zero
/// padding `pad`; `nhwc`: data and output channels-last with HWIO weights (else NCHW data
/// and output, OIHW weights).
#[derive(Clone, Copy, Debug)]
struct Conv {
    n: i64,
    c: i64,
    h: i64,
    w: i64,
    f: i64,
    k: (i64, i64),
    stride: i64,
    pad: i64,
    nhwc: bool,
}

impl Conv {
    fn out(&self) -> (i64, i64) {
        let o = |x: i64, k: i64| (x + 2 * self.pad - k) / self.stride + 1;
        (o(self.h, self.k.0), o(self.w, self.k.1))
    }

    /// The te text with `input` operands and an `output` result, `acc(f32)`.
    fn text(&self, (input, output): (&str, &str)) -> String {
        let Conv { n, c, h, w, f, .. } = *self;
        let (kh, kw) = self.k;
        let (oh, ow) = self.out();
        let s = self.stride;
        let win = |o: &str, r: &str| {
            let mut t = if s == 1 {
                format!("%{o} + %{r}")
            } else {
                format!("%{o} * {s} + %{r}")
            };
            if self.pad > 0 {
                t += &format!(" - {}", self.pad);
            }
            t
        };
        let (iy, ix) = (win("y", "r"), win("x", "s"));
        let pad = if self.pad > 0 { " pad 0.0" } else { "" };
        let (dsh, dix, ksh, kix, osh, axes, ext) = if self.nhwc {
            (
                format!("{n}x{h}x{w}x{c}"),
                format!("%n, {iy}, {ix}, %c"),
                format!("{kh}x{kw}x{c}x{f}"),
                "%r, %s, %c, %f".to_string(),
                format!("{n}x{oh}x{ow}x{f}"),
                "%n, %y, %x, %f",
                format!("{n}, {oh}, {ow}, {f}"),
            )
        } else {
            (
                format!("{n}x{c}x{h}x{w}"),
                format!("%n, %c, {iy}, {ix}"),
                format!("{f}x{c}x{kh}x{kw}"),
                "%f, %c, %r, %s".to_string(),
                format!("{n}x{f}x{oh}x{ow}"),
                "%n, %f, %y, %x",
                format!("{n}, {f}, {oh}, {ow}"),
            )
        };
        format!(
            "func.func @conv(%D: tensor<{dsh}x{input}>, %K: tensor<{ksh}x{input}>) -> tensor<{osh}x{output}> {{
  %O = te.compute ({axes}) reduce (%c, %r, %s) in [{ext}, {c}, {kh}, {kw}] acc(f32) : (tensor<{dsh}x{input}>, tensor<{ksh}x{input}>) -> tensor<{osh}x{output}> {{ te.sum(f32(%D[{dix}]{pad}) * f32(%K[{kix}])) }}
  func.return %O : tensor<{osh}x{output}>
}}"
        )
    }
}
/// Lowers `c` under `p` and checks it in the simulator; `Err` says why not.
fn check(c: &TeCompute, p: &RProgram, seed: u64) -> Result<f64, String> {
    let mut ctx = context();
    let k = lower_compute(&mut ctx, c, p, "k").map_err(|e| format!("lowering: {e}"))?;
    for op in ["nvgpu.mma.sync", "nvgpu.ldmatrix"] {
        if count_ops(&ctx, &k, op) == 0 {
            return Err(format!("no {op}"));
        }
    }
    simulate_within_tolerance(&mut ctx, k, c, seed)
}

/// `(n, c, h = w, f)`, `(kernel, stride, padding)`, channels last.
fn conv(
    (n, c, hw, f): (i64, i64, i64, i64),
    (k, stride, pad): (i64, i64, i64),
    nhwc: bool,
) -> Conv {
    Conv {
        n,
        c,
        h: hw,
        w: hw,
        f,
        k: (k, k),
        stride,
        pad,
        nhwc,
    }
}

/// Every tensor-core program of the top 10 `--construct-rtile` gives on the A100 and H100
/// descriptions (all over the implicit GEMM view), for f16 and bf16 convolutions at small and odd sizes, matches the
/// oracle.
#[test]
fn top_k_conv_programs_match_the_interpreter() {
    let cases = [
        (conv((1, 3, 7, 8), (3, 1, 1), false), ("f16", "f16")),
        (conv((2, 8, 9, 16), (3, 2, 0), false), ("bf16", "bf16")),
        (conv((1, 19, 11, 24), (3, 1, 1), true), ("f16", "f32")),
        (conv((2, 8, 17, 8), (1, 2, 0), false), ("f16", "f16")),
        (conv((1, 16, 13, 12), (1, 1, 0), true), ("bf16", "f32")),
        (conv((2, 19, 8, 20), (3, 2, 1), true), ("bf16", "bf16")),
    ];
    let (mut kernels, mut failures) = (0, Vec::new());
    let mut per_case = [0; 6];
    for dev_name in ["a100", "h100"] {
        let dev = Device::builtin(dev_name).expect("device");
        for (ci, (cv, types)) in cases.into_iter().enumerate() {
            let c = compute(&cv.text(types));
            let info = expr_from_compute(&c).expect("adapts");
            let names = axis_names(&implicit_gemm(&info).expect("a convolution view"));
            let res = construct(&info, &dev, &ConstructOptions::default()).expect("construct");
            // A small convolution's SIMT programs may outrank every tensor-core one on a
            // device (H100's 64-row warpgroup tiles); each case has some on one of them.
            let tc: Vec<&RProgram> = res.programs.iter().filter(|p| p.tensor_core).collect();
            per_case[ci] += tc.len();
            for (pi, p) in tc.into_iter().enumerate() {
                assert_eq!(p.axes, names, "tensor-core programs tile the GEMM view");
                kernels += 1;
                let tag = format!(
                    "{dev_name} {cv:?} {types:?} #{pi} {:?} {:?}",
                    p.block, p.thread
                );
                if let Err(e) = check(&c, p, 7 + pi as u64) {
                    failures.push(format!("{tag}: {e}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {kernels} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{kernels} tensor-core conv programs checked: {per_case:?} per case");
    assert!(per_case.iter().all(|&n| n > 0), "{per_case:?}");
    assert!(kernels >= 24, "only {kernels} tensor-core programs");
}

/// A hand-written A100 tensor-core program over the view of `c`: block `[bm, bn, bk]`,
/// warp tile `[wm, wn, bk]`.
fn view_program(c: &TeCompute, block: [u64; 3], warp: [u64; 2]) -> RProgram {
    let g = implicit_gemm(&expr_from_compute(c).expect("adapts")).expect("a convolution view");
    let threads = (block[0] / warp[0]) * (block[1] / warp[1]) * 32;
    RProgram {
        tensor_core: true,
        mma: Some([16, 8, 16]),
        axes: axis_names(&g),
        ..RProgram::manual(
            "a100",
            &block,
            &[warp[0], warp[1], block[2]],
            vec![vec![0, 0], vec![0, 0]],
            threads,
        )
    }
}

/// The plan of a 3x3 NCHW conv: the data is gathered (one element a copy), the OIHW
/// weights are a `[f, c·3·3]` matrix (k contiguous, 16-byte cp.async when `c·9` is a
/// multiple of 8), and the plan's axes stand for the compute's.
#[test]
fn conv_plan_gathers_the_data_and_views_the_weights() {
    let c = compute(&conv((2, 8, 10, 16), (3, 1, 1), false).text(("f16", "f16")));
    let p = view_program(&c, [32, 16, 32], [16, 16]);
    let dev = Device::builtin("a100").expect("a100");
    let plan = MmaPlan::new(&c, &p, &dev).expect("plan");
    assert_eq!(plan.groups, [vec![0, 2, 3], vec![1], vec![4, 5, 6]]);
    assert_eq!(plan.extents, [2 * 10 * 10, 16, 72]);
    let (a, b) = (&plan.ops[0], &plan.ops[1]);
    assert!(a.gather.is_some() && a.chunk == 1 && !a.trans);
    assert_eq!(b.collapse, Some(vec![vec![0], vec![1, 2, 3]]));
    assert_eq!(
        (b.shape.clone(), b.chunk, b.trans),
        (vec![16, 72], 8, false)
    );
    assert!(check(&c, &p, 1).is_ok());
}

/// Channels last with 16 channels and HWIO weights: consecutive k of a pixel are
/// consecutive channels, so the gather is 16-byte cp.async (zero-filled over the padding);
/// with 19 channels it falls back to plain loads. Both match the oracle.
#[test]
fn nhwc_gather_uses_cp_async_when_channels_align() {
    let dev = Device::builtin("a100").expect("a100");
    for (c, chunk) in [(16, 8), (6, 2), (19, 1)] {
        let cv = conv((2, c, 9, 16), (3, 1, 1), true);
        let te = compute(&cv.text(("f16", "f16")));
        let p = view_program(&te, [16, 16, 32], [16, 16]);
        let plan = MmaPlan::new(&te, &p, &dev).expect("plan");
        let a = &plan.ops[0];
        assert!(a.gather.as_ref().is_some_and(|g| g.channels_last));
        assert_eq!(a.chunk, chunk, "{c} channels");
        let mut ctx = context();
        let k = lower_compute(&mut ctx, &te, &p, "k").expect("lowers");
        let copies = count_ops(&ctx, &k, "nvgpu.device_async_copy");
        // Per stage issued (the S - 1 of the prologue, one in the loop): B's copies, plus
        // A's 16x32 tile in chunks over 32 threads when cp.async.
        let b = plan.ops[1].copies_per_thread as usize;
        let per_stage = b + if chunk > 1 {
            (16 * 32 / chunk / 32) as usize
        } else {
            0
        };
        let want = per_stage * plan.stages as usize;
        assert_eq!(copies, want, "{c} channels");
        check(&te, &p, 3).unwrap_or_else(|e| panic!("{c} channels: {e}"));
    }
}

/// Planted bug: the padding's bounds test dropped from the value (every read taken as
/// inside the data; the clamped index reads element 0 instead of the zero padding) gives
/// wrong numbers.
#[test]
fn a_dropped_padding_guard_is_caught() {
    let c = compute(&conv((1, 8, 7, 16), (3, 1, 1), false).text(("f16", "f16")));
    let p = view_program(&c, [32, 16, 32], [16, 16]);
    let mut ctx = context();
    let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
    let good = module_text(&mut ctx, &[k]);
    let r = run_check_text("k.mlir", &good, 5).expect("runs");
    assert!(r.max_rel_err() < tolerance(ElemType::F16), "{}", r.text());
    // The pad value selected in place of out-of-window reads: replace it by the load.
    let bad = drop_window_select(&good);
    assert_ne!(bad, good, "the window's select was found");
    let r = run_check_text("k.mlir", &bad, 5).expect("runs (the index is still clamped)");
    assert!(r.max_rel_err() > 0.01, "unnoticed: {}", r.text());
}

/// `text` with the condition of every `arith.select(%inside, %load, %pad)` over a load of
/// the data (`%arg0`) replaced by `true`: out-of-window reads taken as inside.
fn drop_window_select(text: &str) -> String {
    let mut loads: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.contains("\"memref.load\"(%arg0")
            && let Some((v, _)) = line.split_once(" = ")
        {
            loads.push(v.trim().to_string());
        }
        let ops = line
            .split_once("\"arith.select\"(")
            .and_then(|(_, r)| r.split_once(')'))
            .map(|(inside, _)| inside.split(", ").collect::<Vec<_>>());
        if let Some(ops) = ops
            && ops.len() == 3
            && loads.iter().any(|l| l == ops[1])
        {
            let t = format!("%planted{i}");
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push(format!(
                "{indent}{t} = \"arith.constant\"() <{{value = true}}> : () -> i1"
            ));
            out.push(line.replacen(&format!("({}, ", ops[0]), &format!("({t}, "), 1));
            continue;
        }
        out.push(line.to_string());
    }
    out.join("\n")
}

fn conv_case() -> impl Strategy<Value = (Conv, [u64; 3], [u64; 2])> {
    (
        (1i64..3, 1i64..20, 3i64..12, 1i64..25),
        (0usize..2, 1i64..3, 0i64..2, any::<bool>()),
        (0usize..2, 0usize..3, 0usize..2, 0usize..2, 0usize..2),
    )
        .prop_map(
            |((n, c, hw, f), (k, stride, pad, nhwc), (bm, bn, bk, wm, wn))| {
                let k = [1, 3][k];
                let cv = conv((n, c, hw.max(k), f), (k, stride, pad.min(k / 2)), nhwc);
                let block = [[16u64, 32][bm], [8u64, 16, 32][bn], [16u64, 32][bk]];
                let wm = if wm == 1 && block[0] >= 32 {
                    block[0] / 2
                } else {
                    block[0]
                };
                let wn = if wn == 1 && block[1] >= 16 {
                    block[1] / 2
                } else {
                    block[1]
                };
                (cv, block, [wm, wn])
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random small convolutions (odd channel counts and sizes, 1x1 and 3x3 windows,
    /// strides 1 and 2, padding 0 and 1, both layouts), types and tiles: the kernel
    /// matches the oracle.
    #[test]
    fn random_convs_match(case in conv_case(), bf16 in any::<bool>(), out in 0usize..3,
                          seed in 0u64..1000) {
        let (cv, block, warp) = case;
        let input = if bf16 { "bf16" } else { "f16" };
        let output = [input, "f32", input][out];
        let c = compute(&cv.text((input, output)));
        let p = view_program(&c, block, warp);
        let r = check(&c, &p, seed);
        prop_assert!(r.is_ok(), "{:?} {:?} {:?} {:?}: {:?}", cv, (input, output), block, warp, r);
    }
}
