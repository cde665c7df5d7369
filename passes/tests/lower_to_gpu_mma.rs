//! The sm_80 tensor-core lowering of `--lower-to-gpu` (cp.async pipeline, ldmatrix,
//! mma.sync m16n8k16) in the CPU GPU-simulator against the te interpreter's oracle.
//!
//! Tolerances (normwise: max |got - want| / max |want|, as the checker measures): the
//! oracle accumulates in f64 and rounds once to the result type; the kernel accumulates in
//! f32 in another order and rounds once. For an f16 result the two roundings can differ by
//! one f16 ulp (≤ 2^-10 of the largest element), for bf16 by one bf16 ulp (≤ 2^-7); the
//! f32 accumulation adds about K·2^-24·Σ|a·b| / max|c| (≤ 1e-4 for K ≤ 256 with the
//! checker's inputs in [-1, 1]). So: f16 2^-10 + 1e-4, bf16 2^-7 + 1e-4, f32 1e-4.

use proptest::prelude::*;
use rtile_dialects::te::model::ElemType;
use rtile_passes::construct_rtile::{ConstructOptions, RProgram, construct};
use rtile_passes::device::Device;
use rtile_passes::lower_to_gpu::mma::{MmaPlan, PIPELINE_STAGES, lower_plan};
use rtile_passes::lower_to_gpu::{expr_info, lower_compute};
use rtile_runtime::sim::profile::{OpClass, profile_text};
use rtile_runtime::sim::run_check_text;

mod common;
use common::{
    compute, context, count_ops, gemm_text, mma_tolerance as tolerance, module_text,
    simulate_within_tolerance,
};
/// Lowers `c` under `p` and checks it in the simulator; `Err` says why not.
fn check(c: &rtile_dialects::te::model::TeCompute, p: &RProgram, seed: u64) -> Result<f64, String> {
    let mut ctx = context();
    let k = lower_compute(&mut ctx, c, p, "k").map_err(|e| format!("lowering: {e}"))?;
    for op in ["nvgpu.mma.sync", "nvgpu.ldmatrix"] {
        if count_ops(&ctx, &k, op) == 0 {
            return Err(format!("no {op}"));
        }
    }
    simulate_within_tolerance(&mut ctx, k, c, seed)
}

/// Every tensor-core program of the top 10 on the A100 and H100 descriptions, for f16 and
/// bf16 matmuls and batch matmuls at small and odd sizes, matches the oracle.
#[test]
fn top_k_tensor_core_programs_match_the_interpreter() {
    let cases = [
        ((None, 64, 48, 80), ("f16", "f16"), (false, false)),
        ((None, 100, 60, 72), ("f16", "f16"), (false, false)),
        ((None, 37, 29, 41), ("f16", "f32"), (false, false)),
        ((None, 48, 40, 64), ("bf16", "bf16"), (true, true)),
        ((None, 33, 24, 50), ("bf16", "f32"), (false, true)),
        ((Some(3), 32, 24, 48), ("f16", "f16"), (false, false)),
        ((Some(2), 20, 18, 36), ("bf16", "bf16"), (true, false)),
    ];
    let (mut kernels, mut failures) = (0, Vec::new());
    for dev_name in ["a100", "h100"] {
        let dev = Device::builtin(dev_name).expect("device");
        for (shape, types, layout) in cases {
            let c = compute(&gemm_text(shape, types, layout));
            let res =
                construct(&expr_info(&c), &dev, &ConstructOptions::default()).expect("construct");
            for (pi, p) in res.programs.iter().filter(|p| p.tensor_core).enumerate() {
                kernels += 1;
                let tag = format!(
                    "{dev_name} {shape:?} {types:?} {layout:?} #{pi} {:?} {:?}",
                    p.block, p.thread
                );
                if let Err(e) = check(&c, p, 11 + pi as u64) {
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
    eprintln!("{kernels} tensor-core programs checked");
    assert!(kernels >= 30, "only {kernels} tensor-core programs");
}

/// The pipeline's stages: as many as fit the shared memory (up to 4, at most the k-steps),
/// recorded on the kernel; fewer when the tiles are large, never a dropped tile.
#[test]
fn stages_follow_shared_capacity() {
    let c = compute(&gemm_text(
        (None, 256, 256, 512),
        ("f16", "f16"),
        (false, false),
    ));
    let dev = Device::builtin("a100").expect("a100");
    let p = tc_program([128, 128, 64], [64, 64, 64], 128);
    let plan = MmaPlan::new(&c, &p, &dev).expect("plan");
    // A: 128 rows of 64+8 halves, B: 64 rows of 128+8: 18432 + 17408 bytes per stage; four
    // stages (143 KiB) fit A100's 164 KiB.
    assert_eq!(plan.stages, 4);
    assert_eq!(plan.shared_bytes, 4 * (128 * 72 + 64 * 136) * 2);
    let wide = tc_program([512, 256, 32], [64, 128, 32], 512);
    let plan = MmaPlan::new(&c, &wide, &dev).expect("plan");
    // 512×40 + 32×264 halves = 57856 bytes per stage: two stages fit, three do not, and
    // no shallower k-step than 32 is tried.
    assert_eq!(plan.stages, 2);
    assert_eq!(plan.block[2], 32);
    assert_eq!(plan.shared_bytes, 2 * (512 * 40 + 32 * 264) * 2);
    // Two stages of the program's own k-tile (256×72 + 64×264 halves, 70656 bytes) are
    // fewer than the pipeline wants: k-steps of 32 (37376 bytes) give four.
    let two = tc_program([256, 256, 64], [64, 128, 64], 256);
    let plan = MmaPlan::new(&c, &two, &dev).expect("plan");
    assert_eq!(plan.block[2], 32);
    assert_eq!(plan.stages, 4);
    // A k-tile deeper than 64 is streamed in k-steps of 64: staged whole (256×136 +
    // 128×136 halves, 104448 bytes) only one buffer would fit; in steps of 64 (256×72 +
    // 64×136 halves, 54272 bytes) three stages do, as many as the pipeline wants.
    let deep = tc_program([256, 128, 128], [64, 64, 128], 256);
    let plan = MmaPlan::new(&c, &deep, &dev).expect("plan");
    assert_eq!(plan.block[2], 64);
    assert_eq!(plan.k_steps, 512 / 64);
    assert_eq!(plan.stages, 3);
    assert_eq!(plan.shared_bytes, 3 * (256 * 72 + 64 * 136) * 2);
    let mut ctx = context();
    let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
    assert_eq!(
        ctx.attr(k.func, PIPELINE_STAGES).and_then(|a| a.as_int()),
        Some(4)
    );
    // Over 48 KiB: dynamic shared memory.
    assert_eq!(k.launch.dynamic_shared_memory, plan_bytes(&c, &p, &dev));
}

fn plan_bytes(c: &rtile_dialects::te::model::TeCompute, p: &RProgram, dev: &Device) -> u64 {
    MmaPlan::new(c, p, dev).expect("plan").shared_bytes
}

/// A hand-written sm_80 tensor-core program for a matmul on A100.
fn tc_program(block: [u64; 3], thread: [u64; 3], threads: u64) -> RProgram {
    RProgram {
        tensor_core: true,
        mma: Some([16, 8, 16]),
        grid: vec![],
        ..RProgram::manual(
            "a100",
            &block,
            &thread,
            vec![vec![0, 0], vec![0, 0]],
            threads,
        )
    }
}

/// Planted bugs: without the pipeline's waits the first ldmatrix reads a stage whose
/// cp.async is still in flight (a simulator error); a wrong fragment index (B's k offset
/// dropped) gives wrong numbers.
#[test]
fn planted_bugs_are_caught() {
    let c = compute(&gemm_text(
        (None, 32, 16, 64),
        ("f16", "f16"),
        (false, false),
    ));
    let p = tc_program([32, 16, 32], [16, 16, 32], 64);
    let mut ctx = context();
    let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
    let good = module_text(&mut ctx, &[k]);
    run_check_text("k.mlir", &good, 3).expect("the kernel runs clean");
    let no_wait: String = good
        .lines()
        .filter(|l| !l.contains("nvgpu.device_async_wait"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(no_wait, good);
    let e = run_check_text("k.mlir", &no_wait, 3).expect_err("a missing wait is caught");
    assert!(e.contains("while a cp.async"), "{e}");
    // The first mma.sync given the second's B fragment (the next 8 columns): a wrong
    // fragment index.
    let swapped = swap_b_fragment(&good);
    assert_ne!(swapped, good, "the B operand was found");
    let r = run_check_text("k.mlir", &swapped, 3).expect("runs");
    assert!(
        r.max_rel_err() > 0.05,
        "a wrong fragment goes unnoticed: {}",
        r.text()
    );
}

/// The operands of the generic `"nvgpu.mma.sync"(%a, %b, %c)` on `line`.
fn mma_operands(line: &str) -> Option<Vec<String>> {
    let rest = line.split("\"nvgpu.mma.sync\"(").nth(1)?;
    let inside = rest.split(')').next()?;
    Some(inside.split(", ").map(str::to_string).collect())
}

/// `text` with the first `nvgpu.mma.sync` reading the second one's B fragment.
fn swap_b_fragment(text: &str) -> String {
    let mmas: Vec<Vec<String>> = text.lines().filter_map(mma_operands).collect();
    let (Some(first), Some(second)) = (mmas.first(), mmas.get(1)) else {
        return text.to_string();
    };
    let mut out = Vec::new();
    let mut done = false;
    for line in text.lines() {
        if !done && let Some(ops) = mma_operands(line) {
            let from = format!("({}, {}, ", ops[0], first[1]);
            let to = format!("({}, {}, ", ops[0], second[1]);
            out.push(line.replacen(&from, &to, 1));
            done = true;
        } else {
            out.push(line.to_string());
        }
    }
    out.join("\n")
}

fn small_program() -> impl Strategy<Value = ([u64; 3], [u64; 3])> {
    (0usize..2, 0usize..3, 0usize..2, 0usize..2, 0usize..2).prop_map(|(bm, bn, bk, wm, wn)| {
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
        (block, [wm, wn, 16])
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random small shapes (odd ones included), layouts, input and output types, batch
    /// counts and tiles: the kernel matches the oracle.
    #[test]
    fn random_shapes_match(m in 1i64..40, n in 1i64..40, k in 1i64..60, batch in 0i64..3,
                           bf16 in any::<bool>(), out in 0usize..3, at in any::<bool>(),
                           bt in any::<bool>(), tiles in small_program(), seed in 0u64..1000) {
        let input = if bf16 { "bf16" } else { "f16" };
        let output = [input, "f32", input][out];
        let batch = (batch > 0).then_some(batch);
        let c = compute(&gemm_text((batch, m, n, k), (input, output), (at, bt)));
        let (block, thread) = tiles;
        let threads = (block[0] / thread[0]) * (block[1] / thread[1]) * 32;
        let mut p = tc_program(block, thread, threads);
        if batch.is_some() {
            p.block = vec![1, block[0], block[1], block[2]];
            p.thread = vec![1, thread[0], thread[1], thread[2]];
        }
        let r = check(&c, &p, seed);
        prop_assert!(r.is_ok(), "{:?} {:?} {:?}: {:?}", (batch, m, n, k), (input, output, at, bt), tiles, r);
    }
}

/// The simulator's bank-conflict counters on the ldmatrix reads (the kernel's only shared
/// loads): none with the padded tiles (rows an odd number of 16-byte units apart), and
/// conflicts when the same kernel is built with the padding taken out (rows 64 and 128
/// bytes apart: 2 and 4 rows of one 8-row phase share banks).
#[test]
fn ldmatrix_reads_are_bank_conflict_free() {
    let c = compute(&gemm_text(
        (None, 64, 64, 64),
        ("f16", "f16"),
        (false, false),
    ));
    let dev = Device::builtin("a100").expect("a100");
    let p = tc_program([64, 64, 32], [32, 32, 32], 128);
    let conflicts = |plan: &MmaPlan| {
        let mut ctx = context();
        let k = lower_plan(&mut ctx, &c, plan, "k").expect("lowers");
        let text = module_text(&mut ctx, &[k]);
        let r = profile_text("k.mlir", &text, 5, None).expect("profiles");
        let k = &r.kernels[0];
        assert!(
            k.max_rel_err()
                .is_some_and(|e| e < tolerance(ElemType::F16))
        );
        assert!(
            k.ops
                .iter()
                .filter(|o| o.class == OpClass::SharedLd)
                .all(|o| o.op == "nvgpu.ldmatrix")
        );
        let t = k.total(OpClass::SharedLd);
        assert!(t.requests > 0);
        t.bank_conflicts()
    };
    let plan = MmaPlan::new(&c, &p, &dev).expect("plan");
    assert_eq!((plan.ops[0].pad, plan.ops[1].pad), (8, 8));
    assert_eq!(conflicts(&plan), 0);
    let mut unpadded = plan.clone();
    unpadded.ops[0].pad = 0;
    unpadded.ops[1].pad = 0;
    assert!(conflicts(&unpadded) > 0);
}
