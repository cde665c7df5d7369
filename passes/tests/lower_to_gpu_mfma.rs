//! The AMD tensor-core lowering of `--lower-to-gpu` (gfx90a `amdgpu.mfma` on 64-lane
//! wavefronts, LDS double buffer fed by plain loads) in the CPU GPU-simulator against the te
//! interpreter's oracle.
//!
//! Tolerances (normwise: max |got - want| / max |want|, as the checker measures): the
//! oracle accumulates in f64 and rounds once to the result type; the kernel (the
//! simulator's MFMA: f16/bf16 products exact in f32, summed in f32 in k order) accumulates
//! in f32 and rounds once. An f16 result's two roundings can differ by one f16 ulp (≤ 2^-10
//! of the largest element), a bf16 one by one bf16 ulp (≤ 2^-7); the f32 accumulation adds
//! about K·2^-24·Σ|a·b| / max|c| (≤ 1e-4 for K ≤ 256 with the checker's inputs in [-1, 1]).
//! So: f16 2^-10 + 1e-4, bf16 2^-7 + 1e-4, f32 1e-4. A wrong lane mapping or fragment is
//! off by O(1).

use proptest::prelude::*;
use rtile_dialects::te::model::{ElemType, TeCompute};
use rtile_passes::construct_rtile::{ConstructOptions, RProgram, construct};
use rtile_passes::device::Device;
use rtile_passes::lower_to_gpu::mma::{Family, MmaPlan, lower_plan};
use rtile_passes::lower_to_gpu::{LowerOptions, expr_info, lower_compute};
use rtile_runtime::sim::profile::{OpClass, profile_text};
use rtile_runtime::sim::run_check_text;

mod common;
use common::{
    compute, context, count_ops, gemm_text, mma_tolerance as tolerance, module_text,
    simulate_within_tolerance,
};
/// Lowers `c` under `p`, checks it uses MFMAs and none of NVIDIA's ops, runs it in the
/// simulator; `Err` says why not.
fn check(c: &TeCompute, p: &RProgram, seed: u64) -> Result<f64, String> {
    let mut ctx = context();
    let k = lower_compute(&mut ctx, c, p, "k").map_err(|e| format!("lowering: {e}"))?;
    if count_ops(&ctx, &k, "amdgpu.mfma") == 0 {
        return Err("no amdgpu.mfma".into());
    }
    for op in [
        "nvgpu.mma.sync",
        "nvgpu.ldmatrix",
        "nvgpu.device_async_copy",
    ] {
        if count_ops(&ctx, &k, op) != 0 {
            return Err(format!("{op} in an AMD kernel"));
        }
    }
    let threads = k.launch.block.map_or(0, |b| b[0]);
    if threads == 0 || threads % 64 != 0 {
        return Err(format!("{threads} threads: not whole wavefronts"));
    }
    simulate_within_tolerance(&mut ctx, k, c, seed)
}

/// Every tensor-core program of the construction's top 10 on the MI250X description, for
/// f16 and bf16 matmuls and batch matmuls at small and odd sizes and every operand layout,
/// matches the oracle; both MFMA shapes are among them.
#[test]
fn top_k_mfma_programs_match_the_interpreter() {
    let cases = [
        ((None, 37, 45, 29), ("f16", "f16"), (false, false)),
        ((None, 64, 96, 40), ("f16", "f32"), (false, false)),
        ((None, 130, 70, 33), ("bf16", "bf16"), (false, false)),
        ((None, 64, 96, 40), ("bf16", "f32"), (true, true)),
        ((None, 37, 45, 29), ("bf16", "bf16"), (true, false)),
        ((None, 48, 40, 64), ("f16", "f16"), (false, true)),
        ((Some(3), 32, 24, 48), ("f16", "f16"), (false, false)),
        ((Some(2), 20, 18, 36), ("bf16", "bf16"), (true, false)),
    ];
    let dev = Device::builtin("mi250x").expect("device");
    let (mut kernels, mut failures, mut shapes) = (0, Vec::new(), Vec::new());
    for (shape, types, layout) in cases {
        let c = compute(&gemm_text(shape, types, layout));
        let res = construct(&expr_info(&c), &dev, &ConstructOptions::default()).expect("construct");
        for (pi, p) in res.programs.iter().filter(|p| p.tensor_core).enumerate() {
            kernels += 1;
            shapes.push(p.mma);
            let tag = format!(
                "{shape:?} {types:?} {layout:?} #{pi} {:?} {:?} {:?} {}",
                p.block, p.thread, p.mma, p.threads
            );
            if let Err(e) = check(&c, p, 11 + pi as u64) {
                failures.push(format!("{tag}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {kernels} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let big = shapes.iter().filter(|&&s| s == Some([32, 32, 8])).count();
    let small = shapes.iter().filter(|&&s| s == Some([16, 16, 16])).count();
    eprintln!("{kernels} MFMA programs checked ({big} of 32x32x8, {small} of 16x16x16)");
    assert!(kernels >= 20, "only {kernels} tensor-core programs");
    assert!(big > 0 && small > 0, "both MFMA shapes: {big} and {small}");
}

/// MI50 (gfx906, CDNA's predecessor Vega 20) has no matrix cores: the construction offers
/// no tensor-core program, and a hand-made one is refused, not lowered.
#[test]
fn mi50_has_no_mfma() {
    let dev = Device::builtin("mi50").expect("mi50");
    assert!(dev.mma("f16").is_none());
    let c = compute(&gemm_text(
        (None, 64, 64, 64),
        ("f16", "f16"),
        (false, false),
    ));
    let res = construct(&expr_info(&c), &dev, &ConstructOptions::default()).expect("construct");
    assert!(res.programs.iter().all(|p| !p.tensor_core));
    let p = program("mi50", [32, 32, 8], [32, 32, 16], [32, 32, 16], 64);
    let e = MmaPlan::new(&c, &p, &dev).expect_err("mi50 has no MFMA");
    assert!(e.contains("has no f16 matrix instruction"), "{e}");
}

/// A hand-written tensor-core program on `dev` with instruction `mma`.
fn program(dev: &str, mma: [u64; 3], block: [u64; 3], thread: [u64; 3], threads: u64) -> RProgram {
    RProgram {
        tensor_core: true,
        mma: Some(mma),
        grid: vec![],
        ..RProgram::manual(dev, &block, &thread, vec![vec![0, 0], vec![0, 0]], threads)
    }
}

/// The plan on MI250X: MFMA, 64-lane wavefronts, rows of an odd number of 8-byte units,
/// 8-byte copies, two LDS stages when they fit; NVIDIA's instructions on AMD, MFMA on
/// NVIDIA and wgmma on AMD are refused with the reason.
#[test]
fn plan_and_refusals() {
    let c = compute(&gemm_text(
        (None, 256, 256, 256),
        ("f16", "f16"),
        (false, false),
    ));
    let dev = Device::builtin("mi250x").expect("mi250x");
    let p = program("mi250x", [32, 32, 8], [128, 128, 32], [64, 64, 32], 256);
    let plan = MmaPlan::new(&c, &p, &dev).expect("plan");
    assert_eq!(plan.family, Family::Mfma([32, 32, 8]));
    assert_eq!(plan.threads, 256);
    assert_eq!(plan.stages, 2);
    // A: 128 rows of k 32 + 4 (72 bytes: 9 8-byte units); B: 32 rows of n 128 + 4.
    assert_eq!((plan.ops[0].pad, plan.ops[1].pad), (4, 4));
    assert_eq!((plan.ops[0].chunk, plan.ops[1].chunk), (4, 4));
    assert_eq!(plan.shared_bytes, 2 * (128 * 36 + 32 * 132) * 2);
    let mut ctx = context();
    let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
    // 4 wavefronts, each 2x2 tiles of 32x32, 4 k slices of 8 per k-step.
    assert_eq!(count_ops(&ctx, &k, "amdgpu.mfma"), 16);
    assert_eq!(count_ops(&ctx, &k, "gpu.barrier"), 2);
    let text = module_text(&mut ctx, &[k]);
    let r = run_check_text("k.mlir", &text, 1).expect("runs");
    assert!(r.max_rel_err() <= tolerance(ElemType::F16), "{}", r.text());

    let nv = program("mi250x", [16, 8, 16], [64, 64, 32], [32, 32, 32], 256);
    let e = MmaPlan::new(&c, &nv, &dev).expect_err("mma.sync on AMD");
    assert!(
        e.contains("no f16 matrix instruction of shape [16, 8, 16]"),
        "{e}"
    );
    let a100 = Device::builtin("a100").expect("a100");
    let amd = program("a100", [32, 32, 8], [64, 64, 32], [32, 32, 32], 128);
    let e = MmaPlan::new(&c, &amd, &a100).expect_err("MFMA on NVIDIA");
    assert!(
        e.contains("no f16 matrix instruction of shape [32, 32, 8]"),
        "{e}"
    );
    let opts = LowerOptions {
        tensor_core: rtile_passes::lower_to_gpu::mma::TensorCoreMode::Wgmma,
        ..LowerOptions::default()
    };
    let mut ctx = context();
    let e = rtile_passes::lower_to_gpu::lower_compute_opts(&mut ctx, &c, &p, "k", opts)
        .expect_err("wgmma on AMD");
    assert!(e.contains("wgmma"), "{e}");
}

/// The operands of the generic `"amdgpu.mfma"(%a, %b, %c)` on `line`.
fn mfma_operands(line: &str) -> Option<Vec<String>> {
    let rest = line.split("\"amdgpu.mfma\"(").nth(1)?;
    let inside = rest.split(')').next()?;
    Some(inside.split(", ").map(str::to_string).collect())
}

/// `text` with the first MFMA reading operand `which` (0: A, 1: B) of the first MFMA whose
/// operand differs (another tile's fragment: a wrong fragment index).
fn swap_fragment(text: &str, which: usize) -> String {
    let mfmas: Vec<Vec<String>> = text.lines().filter_map(mfma_operands).collect();
    let Some(first) = mfmas.first() else {
        return text.to_string();
    };
    let Some(other) = mfmas.iter().find(|o| o[which] != first[which]) else {
        return text.to_string();
    };
    let mut out = Vec::new();
    let mut done = false;
    for line in text.lines() {
        if !done && mfma_operands(line).is_some() {
            let (from, to) = (&first[which], &other[which]);
            out.push(line.replacen(&format!("{from},"), &format!("{to},"), 1));
            done = true;
        } else {
            out.push(line.to_string());
        }
    }
    out.join("\n")
}

/// Planted bugs: the first MFMA given another tile's A or B fragment (a wrong fragment
/// index), and the lanes' k quads (4·(lane / m)) computed as lane / m (a swapped lane
/// mapping): each gives wrong numbers the check sees.
#[test]
fn planted_bugs_are_caught() {
    let c = compute(&gemm_text(
        (None, 64, 64, 32),
        ("f16", "f16"),
        (false, true),
    ));
    for mma in [[32, 32, 8], [16, 16, 16]] {
        let p = program("mi250x", mma, [64, 64, 32], [64, 64, 32], 64);
        let mut ctx = context();
        let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
        let good = module_text(&mut ctx, &[k]);
        let r = run_check_text("k.mlir", &good, 3).expect("the kernel runs clean");
        assert!(r.max_rel_err() <= tolerance(ElemType::F16), "{}", r.text());
        for which in [0, 1] {
            let bad = swap_fragment(&good, which);
            assert_ne!(bad, good, "operand {which} was found");
            let r = run_check_text("k.mlir", &bad, 3).expect("runs");
            assert!(
                r.max_rel_err() > 0.05,
                "a wrong fragment goes unnoticed: {}",
                r.text()
            );
        }
        // The k quad of a lane, `arith.muli %q, 4`, becomes `arith.muli %q, 1`.
        let bad = plant_quad(&good, mma[0] as i64);
        assert_ne!(bad, good, "the k quad was found");
        let r = run_check_text("k.mlir", &bad, 3).expect("runs");
        assert!(
            r.max_rel_err() > 0.05,
            "a swapped lane mapping: {}",
            r.text()
        );
    }
}

/// The result and operands of a generic `%r = "name"(%x, %y)` line.
fn binary<'t>(line: &'t str, name: &str) -> Option<(&'t str, &'t str, &'t str)> {
    let (r, rest) = line.trim().split_once(" = ")?;
    let args = rest.strip_prefix(&format!("\"{name}\"("))?;
    let (x, rest) = args.split_once(", ")?;
    let y = rest.split(')').next()?;
    Some((r, x, y))
}

/// The SSA name of the index constant `v`.
fn constant(text: &str, v: i64) -> Option<String> {
    text.lines().find_map(|l| {
        let (name, rest) = l.trim().split_once(" = ")?;
        (rest.starts_with("\"arith.constant\"") && rest.contains(&format!("value = {v} : index")))
            .then(|| name.to_string())
    })
}

/// `text` with the lanes' k quad `4·(lane / m)` (A's fragment; the same value gives B's
/// and the output rows) computed as `1·(lane / m)`: the lane is `tid % 64`, the quad
/// index `lane / m`.
fn plant_quad(text: &str, m: i64) -> String {
    let (Some(c64), Some(cm), Some(c4), Some(c1)) = (
        constant(text, 64),
        constant(text, m),
        constant(text, 4),
        constant(text, 1),
    ) else {
        return text.to_string();
    };
    let lane = text
        .lines()
        .find_map(|l| binary(l, "arith.remui").filter(|b| b.2 == c64).map(|b| b.0));
    let Some(lane) = lane else {
        return text.to_string();
    };
    let quad = text.lines().find_map(|l| {
        binary(l, "arith.divui")
            .filter(|b| b.1 == lane && b.2 == cm)
            .map(|b| b.0)
    });
    let Some(quad) = quad else {
        return text.to_string();
    };
    text.lines()
        .map(|l| match binary(l, "arith.muli") {
            Some((_, x, y)) if x == quad && y == c4 => {
                l.replacen(&format!("({x}, {y})"), &format!("({x}, {c1})"), 1)
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn small_program() -> impl Strategy<Value = ([u64; 3], [u64; 3], [u64; 3])> {
    (
        any::<bool>(),
        0usize..2,
        0usize..2,
        0usize..2,
        any::<bool>(),
    )
        .prop_map(|(big, bm, bn, bk, split)| {
            let mma: [u64; 3] = if big { [32, 32, 8] } else { [16, 16, 16] };
            let block = [mma[0] << bm, mma[1] << bn, [16u64, 32][bk]];
            // Two wavefronts along m where the block has two instruction rows.
            let wm = if split && bm == 1 {
                block[0] / 2
            } else {
                block[0]
            };
            (mma, block, [wm, block[1], block[2]])
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random small shapes (odd ones included), layouts, input and output types, batch
    /// counts, MFMA shapes and tiles: the kernel matches the oracle.
    #[test]
    fn random_shapes_match(m in 1i64..48, n in 1i64..48, k in 1i64..50, batch in 0i64..3,
                           bf16 in any::<bool>(), out in 0usize..3, at in any::<bool>(),
                           bt in any::<bool>(), tiles in small_program(), seed in 0u64..1000) {
        let input = if bf16 { "bf16" } else { "f16" };
        let output = [input, "f32", input][out];
        let batch = (batch > 0).then_some(batch);
        let c = compute(&gemm_text((batch, m, n, k), (input, output), (at, bt)));
        let (mma, block, thread) = tiles;
        let threads = (block[0] / thread[0]) * (block[1] / thread[1]) * 64;
        let mut p = program("mi250x", mma, block, thread, threads);
        if batch.is_some() {
            p.block = vec![1, block[0], block[1], block[2]];
            p.thread = vec![1, thread[0], thread[1], thread[2]];
        }
        let r = check(&c, &p, seed);
        prop_assert!(r.is_ok(), "{:?} {:?} {:?}: {:?}", (batch, m, n, k), (input, output, at, bt), tiles, r);
    }
}

/// The simulator's bank-conflict counters (32 banks of 4 bytes, 64-bit accesses served 16
/// lanes at a time, as CDNA's LDS serves `ds_read_b64`) on the fragment reads: none for
/// k-contiguous tiles (one 8-byte read a lane) with rows an odd number of 8-byte units
/// apart, conflicts with the padding taken out (rows 64 bytes apart: rows `r` and `r + 2`
/// of one 16-lane group share banks); none either for m/n-contiguous tiles read element by
/// element (consecutive lanes, consecutive halves of a row).
#[test]
fn fragment_reads_are_bank_conflict_free() {
    let dev = Device::builtin("mi250x").expect("mi250x");
    let conflicts = |c: &TeCompute, plan: &MmaPlan, op: &str| {
        let mut ctx = context();
        let k = lower_plan(&mut ctx, c, plan, "k").expect("lowers");
        let text = module_text(&mut ctx, &[k]);
        let r = profile_text("k.mlir", &text, 5, None).expect("profiles");
        let k = &r.kernels[0];
        assert!(
            k.max_rel_err()
                .is_some_and(|e| e < tolerance(ElemType::F16))
        );
        let loads: Vec<_> = k
            .ops
            .iter()
            .filter(|o| o.class == OpClass::SharedLd)
            .collect();
        assert!(!loads.is_empty() && loads.iter().all(|o| o.op == op));
        let t = k.total(OpClass::SharedLd);
        assert!(t.requests > 0);
        t.bank_conflicts()
    };
    let by_k = compute(&gemm_text(
        (None, 64, 64, 64),
        ("f16", "f16"),
        (false, true),
    ));
    let by_mn = compute(&gemm_text(
        (None, 64, 64, 64),
        ("f16", "f16"),
        (true, false),
    ));
    for mma in [[32, 32, 8], [16, 16, 16]] {
        let p = program("mi250x", mma, [64, 64, 32], [32, 32, 32], 256);
        let plan = MmaPlan::new(&by_k, &p, &dev).expect("plan");
        assert_eq!((plan.ops[0].pad, plan.ops[1].pad), (4, 4));
        assert_eq!(conflicts(&by_k, &plan, "vector.load"), 0, "{mma:?}");
        let mut unpadded = plan.clone();
        unpadded.ops[0].pad = 0;
        unpadded.ops[1].pad = 0;
        assert!(conflicts(&by_k, &unpadded, "vector.load") > 0, "{mma:?}");
        let plan = MmaPlan::new(&by_mn, &p, &dev).expect("plan");
        assert_eq!(conflicts(&by_mn, &plan, "memref.load"), 0, "{mma:?}");
    }
}

/// Convolutions as implicit GEMMs (the sm_80 plan's gathered im2col A and collapsed
/// weights) under every tensor-core program of the top 10 on MI250X: NCHW f16 3x3 with
/// padding, NHWC bf16 3x3 stride 2 into f32 (19 channels: element copies), NHWC f16 1x1
/// with 16 channels (8-byte chunk copies of the gather), NCHW bf16 5x5 into bf16.
#[test]
fn convolutions_match_the_interpreter() {
    let convs = [
        "func.func @conv(%D: tensor<2x8x9x9xf16>, %K: tensor<16x8x3x3xf16>) -> tensor<2x16x9x9xf16> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [2, 16, 9, 9, 8, 3, 3] acc(f32) : (tensor<2x8x9x9xf16>, tensor<16x8x3x3xf16>) -> tensor<2x16x9x9xf16> { te.sum(f32(%D[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0) * f32(%K[%f, %c, %ry, %rx])) }
  func.return %O : tensor<2x16x9x9xf16>
}",
        "func.func @conv(%D: tensor<1x11x11x19xbf16>, %K: tensor<3x3x19x24xbf16>) -> tensor<1x6x6x24xf32> {
  %O = te.compute (%n, %y, %x, %f) reduce (%c, %ry, %rx) in [1, 6, 6, 24, 19, 3, 3] acc(f32) : (tensor<1x11x11x19xbf16>, tensor<3x3x19x24xbf16>) -> tensor<1x6x6x24xf32> { te.sum(f32(%D[%n, %y * 2 + %ry - 1, %x * 2 + %rx - 1, %c] pad 0.0) * f32(%K[%ry, %rx, %c, %f])) }
  func.return %O : tensor<1x6x6x24xf32>
}",
        "func.func @conv(%D: tensor<2x7x7x16xf16>, %K: tensor<1x1x16x40xf16>) -> tensor<2x7x7x40xf16> {
  %O = te.compute (%n, %y, %x, %f) reduce (%c, %ry, %rx) in [2, 7, 7, 40, 16, 1, 1] acc(f32) : (tensor<2x7x7x16xf16>, tensor<1x1x16x40xf16>) -> tensor<2x7x7x40xf16> { te.sum(f32(%D[%n, %y + %ry, %x + %rx, %c]) * f32(%K[%ry, %rx, %c, %f])) }
  func.return %O : tensor<2x7x7x40xf16>
}",
        "func.func @conv(%D: tensor<1x3x13x13xbf16>, %K: tensor<20x3x5x5xbf16>) -> tensor<1x20x9x9xbf16> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 20, 9, 9, 3, 5, 5] acc(f32) : (tensor<1x3x13x13xbf16>, tensor<20x3x5x5xbf16>) -> tensor<1x20x9x9xbf16> { te.sum(f32(%D[%n, %c, %y + %ry, %x + %rx]) * f32(%K[%f, %c, %ry, %rx])) }
  func.return %O : tensor<1x20x9x9xbf16>
}",
    ];
    let dev = Device::builtin("mi250x").expect("device");
    let (mut kernels, mut failures) = (0, Vec::new());
    for (ci, text) in convs.iter().enumerate() {
        let c = compute(text);
        let res = construct(&expr_info(&c), &dev, &ConstructOptions::default()).expect("construct");
        for (pi, p) in res.programs.iter().filter(|p| p.tensor_core).enumerate() {
            kernels += 1;
            if let Err(e) = check(&c, p, 5 + pi as u64) {
                failures.push(format!(
                    "conv {ci} #{pi} {:?} {:?} {:?}: {e}",
                    p.block, p.thread, p.mma
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {kernels} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(kernels >= 8, "only {kernels} tensor-core conv programs");
}
