//! The sm_90a tensor-core lowering (`tensor-core=wgmma`: TMA into a ring of mbarrier-tracked
//! stages, `nvgpu.warpgroup.mma`, the epilogue through shared memory) in the CPU GPU-simulator
//! against the te interpreter's oracle, in both structures: warp-specialised (a producer
//! warpgroup, full/empty mbarriers) and single-role (`warp-specialize=false`).
//!
//! Tolerances (normwise, as the checker measures): the oracle accumulates in f64 and rounds
//! once to the result type; the kernel accumulates in f32 (k in order within each wgmma,
//! k-steps in order) and rounds once. An f16 result may differ by one f16 ulp (≤ 2^-10 of the
//! largest element), bf16 by one bf16 ulp (≤ 2^-7); the f32 accumulation adds about
//! K·2^-24·Σ|a·b| / max|c| (≤ 1e-4 for K ≤ 320 with the checker's inputs in [-1, 1]).

use proptest::prelude::*;
use rtile_dialects::te::model::TeCompute;
use rtile_dialects::te::module::parse_computes;
use rtile_passes::construct_rtile::RProgram;
use rtile_passes::device::Device;
use rtile_passes::lower_to_gpu::mma::MmaPlan;
use rtile_passes::lower_to_gpu::mma::wgmma::WgmmaPlan;
use rtile_runtime::sim::run_check_text;

mod common;
use common::wgmma::{
    check, lowered, program_for, wg_batch_program, wg_batches_program, wg_program, zero_coordinate,
};
use common::{Shared, bmm_text, compute, gemm_text};

/// `C[m, n] = Σ_k A[m, k]·B[k, n]` with `acc(f32)`.
fn gemm((m, n, k): (i64, i64, i64), input: &str, output: &str) -> TeCompute {
    let text = format!(
        "func.func @mm(%A: tensor<{m}x{k}x{input}>, %B: tensor<{k}x{n}x{input}>) -> tensor<{m}x{n}x{output}> {{
  %C = te.compute (%m, %n) reduce (%k) in [{m}, {n}, {k}] acc(f32) : (tensor<{m}x{k}x{input}>, tensor<{k}x{n}x{input}>) -> tensor<{m}x{n}x{output}> {{ te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) }}
  func.return %C : tensor<{m}x{n}x{output}>
}}"
    );
    let sc = parse_computes("t.mlir", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    sc[0].compute.clone()
}

/// `C[m, n] = Σ_k A[m, k]·B[n, k]` (B stored k-contiguous: A·Bᵀ) with `acc(f32)`.
fn gemm_bt((m, n, k): (i64, i64, i64), input: &str, output: &str) -> TeCompute {
    let text = format!(
        "func.func @mm(%A: tensor<{m}x{k}x{input}>, %B: tensor<{n}x{k}x{input}>) -> tensor<{m}x{n}x{output}> {{
  %C = te.compute (%m, %n) reduce (%k) in [{m}, {n}, {k}] acc(f32) : (tensor<{m}x{k}x{input}>, tensor<{n}x{k}x{input}>) -> tensor<{m}x{n}x{output}> {{ te.sum(f32(%A[%m, %k]) * f32(%B[%n, %k])) }}
  func.return %C : tensor<{m}x{n}x{output}>
}}"
    );
    let sc = parse_computes("t.mlir", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    sc[0].compute.clone()
}

/// `(m, n, k)`, `(input, output)` types, block and warpgroup tiles.
type Case = (
    (i64, i64, i64),
    (&'static str, &'static str),
    [u64; 2],
    [u64; 2],
);

/// Shapes at and off the tile edges (k below one step, m and n padding the block), every
/// input/output type pair, warpgroup tiles of one and two slabs and 64 to 256 columns,
/// blocks of one to four warpgroups, tiles of 40, 48 and 56 columns computed as whole
/// 64-column boxes: each kernel equals the oracle, warp-specialised and not.
#[test]
fn wgmma_kernels_match_the_interpreter() {
    let cases: [Case; 11] = [
        ((64, 64, 64), ("f16", "f16"), [64, 64], [64, 64]),
        ((200, 136, 136), ("f16", "f16"), [128, 128], [64, 64]),
        ((130, 72, 40), ("bf16", "bf16"), [128, 64], [64, 64]),
        ((64, 256, 192), ("f16", "f32"), [64, 256], [64, 256]),
        ((250, 136, 320), ("bf16", "f32"), [256, 128], [128, 128]),
        ((96, 200, 72), ("f16", "bf16"), [128, 128], [128, 64]),
        ((17, 8, 8), ("bf16", "f16"), [64, 64], [64, 64]),
        ((192, 128, 264), ("f16", "f16"), [192, 128], [64, 128]),
        ((100, 112, 96), ("f16", "f16"), [64, 112], [64, 56]),
        ((70, 152, 128), ("bf16", "f32"), [128, 96], [64, 48]),
        ((64, 40, 64), ("f16", "f16"), [64, 40], [64, 40]),
    ];
    let mut failures = Vec::new();
    for (i, (shape, (input, output), block, wg)) in cases.into_iter().enumerate() {
        let c = gemm(shape, input, output);
        for ws in [true, false] {
            if let Err(e) = check(&c, &wg_program(block, wg), 7 + i as u64, ws) {
                failures.push(format!(
                    "{shape:?} {input}->{output} {block:?}/{wg:?} ws={ws}: {e}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// B stored [n, k] (k contiguous), taken K-major without `transposeB`: shapes at and off
/// the tile edges (n not a multiple of 8 too: B's TMA rows are k long), f16 and bf16,
/// tiles of 40 to 256 columns (not padded to 64-column boxes), one to four warpgroups,
/// warp-specialised and not: each kernel equals the oracle.
#[test]
fn wgmma_b_k_contiguous_matches_the_interpreter() {
    let cases: [Case; 8] = [
        ((64, 64, 64), ("f16", "f16"), [64, 64], [64, 64]),
        ((200, 136, 136), ("bf16", "bf16"), [128, 128], [64, 64]),
        ((130, 72, 40), ("f16", "f32"), [128, 64], [64, 64]),
        ((97, 120, 200), ("bf16", "f32"), [64, 80], [64, 40]),
        ((70, 152, 128), ("f16", "f16"), [128, 96], [64, 48]),
        ((64, 256, 72), ("bf16", "bf16"), [64, 256], [64, 256]),
        ((33, 100, 96), ("f16", "f16"), [64, 112], [64, 56]),
        ((17, 8, 8), ("bf16", "f16"), [64, 64], [64, 64]),
    ];
    let mut failures = Vec::new();
    for (i, (shape, (input, output), block, wg)) in cases.into_iter().enumerate() {
        let c = gemm_bt(shape, input, output);
        for ws in [true, false] {
            let p = wg_program(block, wg);
            match lowered(&c, &p, ws) {
                Ok(t) if t.contains("transposeB") => {
                    failures.push(format!("{shape:?} ws={ws}: transposeB on a K-major B"));
                    continue;
                }
                Err(e) => {
                    failures.push(format!("{shape:?} ws={ws}: {e}"));
                    continue;
                }
                Ok(_) => {}
            }
            if let Err(e) = check(&c, &p, 11 + i as u64, ws) {
                failures.push(format!(
                    "{shape:?} {input}->{output} {block:?}/{wg:?} ws={ws}: {e}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `(batch, m, n, k)`, `(input, output)`, B stored `[b, n, k]`, block and warpgroup tiles.
type BatchCase = (
    (Option<i64>, i64, i64, i64),
    (&'static str, &'static str),
    bool,
    [u64; 2],
    [u64; 2],
);

/// Batch matmuls `C[b, m, n] = Σ_k A[b, m, k]·B[b, k, n]` and with B as `[b, n, k]` (as
/// attention's Q·Kᵀ): 3-d tensor maps (boxes `[1, rows, cols]`, the block's batch index the
/// outermost coordinate), batch 1 and 3, m, n and k off the tiles (the boxes past an edge
/// zero filled, not the next batch's rows), f16 and bf16, warp-specialised and not: each
/// kernel equals the oracle.
#[test]
fn wgmma_batch_matmuls_match_the_interpreter() {
    let cases: [BatchCase; 8] = [
        (
            (Some(1), 64, 64, 64),
            ("f16", "f16"),
            false,
            [64, 64],
            [64, 64],
        ),
        (
            (Some(3), 100, 72, 40),
            ("f16", "f32"),
            false,
            [128, 64],
            [64, 64],
        ),
        (
            (Some(3), 70, 136, 136),
            ("bf16", "bf16"),
            false,
            [64, 128],
            [64, 64],
        ),
        (
            (Some(2), 33, 40, 200),
            ("bf16", "f32"),
            false,
            [64, 40],
            [64, 40],
        ),
        (
            (Some(1), 64, 64, 64),
            ("bf16", "bf16"),
            true,
            [64, 64],
            [64, 64],
        ),
        (
            (Some(3), 97, 100, 72),
            ("f16", "f16"),
            true,
            [128, 112],
            [64, 56],
        ),
        (
            (Some(3), 17, 8, 136),
            ("bf16", "f16"),
            true,
            [64, 64],
            [64, 64],
        ),
        (
            (Some(2), 130, 96, 64),
            ("f16", "f32"),
            true,
            [128, 96],
            [128, 96],
        ),
    ];
    let mut failures = Vec::new();
    for (i, (shape, types, b_nk, block, wg)) in cases.into_iter().enumerate() {
        let c = compute(&gemm_text(shape, types, (false, b_nk)));
        for ws in [true, false] {
            let p = program_for(shape.0, block, wg);
            match lowered(&c, &p, ws) {
                Ok(t) if !t.contains("memref<1x") => {
                    failures.push(format!("{shape:?} ws={ws}: no 3-d boxes"));
                    continue;
                }
                Err(e) => {
                    failures.push(format!("{shape:?} ws={ws}: {e}"));
                    continue;
                }
                Ok(_) => {}
            }
            if let Err(e) = check(&c, &p, 23 + i as u64, ws) {
                failures.push(format!(
                    "{shape:?} {types:?} b_nk={b_nk} {block:?}/{wg:?} ws={ws}: {e}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `(batch, m, n, k)`, `(input, output)`, `(A stored [k, m], B stored [n, k])`, block and
/// warpgroup tiles.
type LayoutCase = (
    (Option<i64>, i64, i64, i64),
    (&'static str, &'static str),
    (bool, bool),
    [u64; 2],
    [u64; 2],
);

/// A stored m-contiguous (`A[k, m]`, or `A[b, k, m]` in a batch matmul), taken MN-major
/// with `transposeA` (boxes 64 k × 64 m, PTX `imm-trans-a` 1), with either B layout: m off
/// the tiles (A's boxes cross it; its rows of m must be 16-byte multiples, k need not be
/// when B is n-contiguous), one and two 64-row slabs per warpgroup, f16 and bf16, both
/// structures: each kernel equals the oracle.
#[test]
fn wgmma_a_m_contiguous_matches_the_interpreter() {
    let cases: [LayoutCase; 8] = [
        (
            (None, 64, 64, 64),
            ("f16", "f16"),
            (true, false),
            [64, 64],
            [64, 64],
        ),
        (
            (None, 200, 136, 136),
            ("bf16", "bf16"),
            (true, false),
            [128, 128],
            [64, 64],
        ),
        (
            (None, 136, 72, 44),
            ("f16", "f32"),
            (true, false),
            [128, 64],
            [128, 64],
        ),
        (
            (None, 96, 100, 72),
            ("bf16", "f32"),
            (true, true),
            [128, 112],
            [64, 56],
        ),
        (
            (None, 72, 40, 200),
            ("f16", "f16"),
            (true, true),
            [64, 40],
            [64, 40],
        ),
        (
            (Some(3), 104, 72, 40),
            ("f16", "f16"),
            (true, false),
            [128, 64],
            [64, 64],
        ),
        (
            (Some(1), 64, 96, 64),
            ("bf16", "bf16"),
            (true, true),
            [64, 96],
            [64, 96],
        ),
        (
            (Some(2), 136, 64, 72),
            ("bf16", "f32"),
            (true, true),
            [256, 64],
            [128, 64],
        ),
    ];
    let mut failures = Vec::new();
    for (i, (shape, types, layout, block, wg)) in cases.into_iter().enumerate() {
        let c = compute(&gemm_text(shape, types, layout));
        for ws in [true, false] {
            let p = program_for(shape.0, block, wg);
            match lowered(&c, &p, ws) {
                Ok(t) if !t.contains("transposeA") => {
                    failures.push(format!("{shape:?} ws={ws}: no transposeA"));
                    continue;
                }
                Err(e) => {
                    failures.push(format!("{shape:?} ws={ws}: {e}"));
                    continue;
                }
                Ok(_) => {}
            }
            if let Err(e) = check(&c, &p, 31 + i as u64, ws) {
                failures.push(format!(
                    "{shape:?} {types:?} {layout:?} {block:?}/{wg:?} ws={ws}: {e}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The m-contiguous A plan and planted bugs: m not a multiple of 8 is refused (A's rows
/// are m long); the `transposeA` flag dropped (A's boxes read K-major) gives wrong
/// numbers; A's box coordinates swapped gives wrong numbers.
#[test]
fn a_m_contiguous_plan_and_planted_bugs() {
    let dev = Device::builtin("h100").expect("device");
    let p = wg_program([128, 128], [64, 64]);
    let plan = |c: &TeCompute| {
        let m = MmaPlan::new(c, &p, &dev).expect("mma plan");
        WgmmaPlan::new(c, &m, &dev, true)
    };
    let c = compute(&gemm_text(
        (None, 256, 128, 128),
        ("f16", "f16"),
        (true, false),
    ));
    let w = plan(&c).expect("applies");
    assert!(w.a_m_major && !w.b_k_major);
    assert_eq!(w.stage_bytes, (128 + 128) * 64 * 2);
    let odd_m = compute(&gemm_text(
        (None, 100, 128, 128),
        ("f16", "f16"),
        (true, false),
    ));
    let e = plan(&odd_m).expect_err("m = 100");
    assert!(e.contains("A's rows are 100 long"), "{e}");
    // k = 100 is fine with A [k, m] and B [k, n]: no operand's rows are k long.
    plan(&compute(&gemm_text(
        (None, 128, 128, 100),
        ("f16", "f16"),
        (true, false),
    )))
    .expect("k = 100 applies");
    for (ws, b_nk) in [(true, false), (false, true)] {
        let c = compute(&gemm_text(
            (None, 128, 128, 128),
            ("f16", "f16"),
            (true, b_nk),
        ));
        let text = lowered(&c, &wg_program([128, 128], [64, 64]), ws).expect("lowers");
        run_check_text("k.mlir", &text, 3).expect("the kernel runs clean");
        let dropped = text
            .replace(" <{transposeA}>", "")
            .replace("transposeA, ", "");
        assert_ne!(dropped, text);
        let r = run_check_text("k.mlir", &dropped, 3).expect("runs");
        assert!(
            r.max_rel_err() > 0.05,
            "a dropped transposeA goes unnoticed: {}",
            r.text()
        );
        let swapped = swap_coordinates(&text, "%arg3");
        assert_ne!(swapped, text);
        let r = run_check_text("k.mlir", &swapped, 3).expect("runs");
        assert!(
            r.max_rel_err() > 0.05,
            "wrong A boxes go unnoticed: {}",
            r.text()
        );
    }
}

/// The batch matmul plan (the batch extent, blocks over it, a shared B's 2-d map) and its
/// refusal of a block tile of two batch slices; planted bugs: every TMA load's
/// batch coordinate replaced by 0 (each block reads batch 0) gives wrong numbers.
#[test]
fn batch_plan_refusals_and_planted_bug() {
    let dev = Device::builtin("h100").expect("device");
    let c = compute(&gemm_text(
        (Some(3), 200, 136, 64),
        ("f16", "f16"),
        (false, false),
    ));
    let p = wg_batch_program([128, 128], [64, 64]);
    let m = MmaPlan::new(&c, &p, &dev).expect("mma plan");
    let w = WgmmaPlan::new(&c, &m, &dev, true).expect("applies");
    assert_eq!(
        (w.batch, w.grid_m, w.grid_n, w.blocks()),
        (Some(3), 2, 2, 12)
    );
    let mut two = p.clone();
    two.block[0] = 2;
    two.threads = 1024;
    let m2 = MmaPlan::new(&c, &two, &dev).expect("mma plan of two slices");
    let e = WgmmaPlan::new(&c, &m2, &dev, true).expect_err("two slices");
    assert!(e.contains("one batch index"), "{e}");
    // B shared by every batch index ([k, n]): its tensor map stays 2-d.
    let shared_b = compute(
        "func.func @mm(%A: tensor<3x64x64xf16>, %B: tensor<64x64xf16>) -> tensor<3x64x64xf16> {
  %C = te.compute (%b, %m, %n) reduce (%k) in [3, 64, 64, 64] acc(f32) : (tensor<3x64x64xf16>, tensor<64x64xf16>) -> tensor<3x64x64xf16> { te.sum(f32(%A[%b, %m, %k]) * f32(%B[%k, %n])) }
  func.return %C : tensor<3x64x64xf16>
}",
    );
    let p64 = wg_batch_program([64, 64], [64, 64]);
    let m = MmaPlan::new(&shared_b, &p64, &dev).expect("mma plan");
    let w = WgmmaPlan::new(&shared_b, &m, &dev, true).expect("2-d B");
    assert_eq!((w.maps[1].len(), w.batch), (2, Some(3)));
    for (b_nk, ws) in [(false, true), (true, false)] {
        let c = compute(&gemm_text(
            (Some(3), 64, 64, 128),
            ("f16", "f16"),
            (false, b_nk),
        ));
        let text = lowered(&c, &p64, ws).expect("lowers");
        run_check_text("k.mlir", &text, 3).expect("the kernel runs clean");
        let batch0 = zero_coordinate(&text, 3, 2);
        assert_ne!(batch0, text);
        let r = run_check_text("k.mlir", &batch0, 3).expect("runs");
        assert!(
            r.max_rel_err() > 0.05,
            "a wrong batch coordinate goes unnoticed: {}",
            r.text()
        );
    }
}

/// The K-major B plan: its tile is the warpgroup's own columns (no padding to 64-column
/// boxes), its box `wg_n × 64`; swapping its box coordinates gives wrong numbers.
#[test]
fn b_k_contiguous_plan_and_planted_bug() {
    let dev = Device::builtin("h100").expect("device");
    let c = gemm_bt((4096, 4096, 4096), "f16", "f16");
    let p = wg_program([128, 112], [64, 56]);
    let m = MmaPlan::new(&c, &p, &dev).expect("mma plan");
    let w = WgmmaPlan::new(&c, &m, &dev, false).expect("applies");
    assert!(w.b_k_major);
    assert_eq!((w.wg_n, w.wg_n_pad), (56, 56));
    assert_eq!(w.stage_bytes, (128 + 2 * 56) * 64 * 2);
    let n_major = gemm((4096, 4096, 4096), "f16", "f16");
    let m = MmaPlan::new(&n_major, &p, &dev).expect("mma plan");
    let w = WgmmaPlan::new(&n_major, &m, &dev, false).expect("applies");
    assert!(!w.b_k_major);
    // n = 100 is refused with B [k, n] (rows of 200 bytes) and taken with B [n, k].
    let odd_n = |c: &TeCompute| {
        let m = MmaPlan::new(c, &p, &dev).expect("mma plan");
        WgmmaPlan::new(c, &m, &dev, true)
    };
    let e = odd_n(&gemm((128, 100, 128), "f16", "f16")).expect_err("n = 100");
    assert!(e.contains("multiple of 16 bytes"), "{e}");
    odd_n(&gemm_bt((128, 100, 128), "f16", "f16")).expect("applies");
    for ws in [true, false] {
        let c = gemm_bt((128, 128, 128), "f16", "f16");
        let text = lowered(&c, &wg_program([128, 128], [64, 64]), ws).expect("lowers");
        run_check_text("k.mlir", &text, 3).expect("the kernel runs clean");
        let swapped = swap_b_coordinates(&text);
        assert_ne!(swapped, text);
        let r = run_check_text("k.mlir", &swapped, 3).expect("runs");
        assert!(
            r.max_rel_err() > 0.05,
            "wrong B boxes go unnoticed: {}",
            r.text()
        );
    }
}

/// The plan: stages as many as fit (up to 4, at most the k-steps), the epilogue reusing the
/// ring, and the reasons wgmma does not apply.
#[test]
fn plan_stages_and_refusals() {
    let dev = Device::builtin("h100").expect("device");
    let plan = |c: &TeCompute, p: &RProgram| {
        let m = MmaPlan::new(c, p, &dev).expect("mma plan");
        WgmmaPlan::new(c, &m, &dev, false)
    };
    let plan_ws = |c: &TeCompute, p: &RProgram| {
        let m = MmaPlan::new(c, p, &dev).expect("mma plan");
        WgmmaPlan::new(c, &m, &dev, true)
    };
    let big = gemm((4096, 4096, 4096), "f16", "f16");
    let w = plan(&big, &wg_program([256, 128], [64, 64])).expect("applies");
    // (256 + 128) × 64 halves = 48 KiB a stage: 4 fit in the H100's 227 KiB.
    assert_eq!((w.stages, w.stage_bytes, w.threads), (4, 49152, 1024));
    assert_eq!(w.shared_bytes, 4 * 49152);
    let short = gemm((256, 256, 96), "f16", "f16");
    let w = plan(&short, &wg_program([128, 256], [64, 256])).expect("applies");
    // Two k-steps (64 + 32): two stages; the 128×256 f32 epilogue (128 KiB) reuses them.
    assert_eq!((w.stages, w.k_steps, w.threads), (2, 2, 256));
    assert_eq!(w.shared_bytes, 128 * 256 * 4);
    // A 128×256 warpgroup accumulator is 256 f32 registers per thread: more than a thread has.
    let e = plan(&short, &wg_program([128, 256], [128, 256])).expect_err("registers");
    assert!(e.contains("needs 256 registers per thread"), "{e}");
    let narrow = plan(&big, &wg_program([128, 16], [64, 16])).expect_err("16 columns");
    assert!(narrow.contains("32 to 256 columns"), "{narrow}");
    // 56 columns per warpgroup, two groups: each computes a whole 64-column box.
    let w = plan(&big, &wg_program([128, 112], [64, 56])).expect("applies");
    assert_eq!((w.wg_n, w.wg_n_pad, w.threads), (56, 64, 512));
    assert_eq!(w.stage_bytes, (128 + 2 * 64) * 64 * 2);
    // Six warpgroups of 64×128 (768 threads): 80 registers each, 64 of them accumulator.
    let e = plan(&big, &wg_program([384, 128], [64, 128])).expect_err("registers");
    assert!(
        e.contains("needs 64 registers per thread and 768 threads leave 80"),
        "{e}"
    );
    let odd_k = gemm((128, 128, 100), "f16", "f16"); // rows of 200 bytes
    let e = plan(&odd_k, &wg_program([128, 128], [64, 64])).expect_err("k = 100");
    assert!(e.contains("multiple of 16 bytes"), "{e}");
    let a100 = Device::builtin("a100").expect("a100");
    let mut p = wg_program([128, 128], [64, 64]);
    p.mma = Some([16, 8, 16]);
    p.thread = vec![16, 64, 16];
    p.device = "a100".into();
    let m = MmaPlan::new(&big, &p, &a100).expect("sm_80 plan");
    let e = WgmmaPlan::new(&big, &m, &a100, true).expect_err("sm_80");
    assert!(e.contains("sm_90a"), "{e}");
    // Warp specialisation adds a producer warpgroup where the block has room: 256 + 128
    // threads leave 168 registers, enough for the 128-register accumulator and 32 more.
    let w = plan_ws(&short, &wg_program([128, 256], [64, 256])).expect("applies");
    assert!(w.warp_specialized);
    assert_eq!((w.threads, w.consumer_threads()), (384, 256));
    // Eight warpgroups are 1024 threads already: no room, the single-role kernel.
    let w = plan_ws(&big, &wg_program([256, 128], [64, 64])).expect("applies");
    assert!(!w.warp_specialized);
    assert_eq!(w.threads, 1024);
    // Four 64×256 warpgroups (128 accumulator registers): 512 threads leave 128, too few
    // beside the accumulator, so not 640 either; 512 + 128 would leave 96.
    let e = plan_ws(&big, &wg_program([256, 256], [64, 256])).expect_err("registers");
    assert!(e.contains("512 threads leave 128"), "{e}");
    // Two 64×128 warpgroups (64 registers): 384 threads leave 168, specialised.
    let w = plan_ws(&big, &wg_program([128, 128], [64, 128])).expect("applies");
    assert_eq!((w.warp_specialized, w.threads), (true, 384));
    // Five 64×128 warpgroups (64 accumulator registers, 96 with the headroom) fit at 640
    // threads (96 registers) but not with a producer (768 threads leave 80): single-role.
    let w = plan_ws(&big, &wg_program([320, 128], [64, 128])).expect("applies");
    assert_eq!((w.warp_specialized, w.threads), (false, 640));
}

/// Planted bugs: no wait on the stage's barrier → the simulator reports the read of bytes
/// TMA has not landed for this thread; no `expect_tx` → the barrier never completes its
/// phase (a deadlock, reported); B's box coordinates swapped → wrong numbers.
#[test]
fn planted_bugs_are_caught() {
    for ws in [true, false] {
        planted_bugs(ws);
    }
}

fn planted_bugs(ws: bool) {
    let c = gemm((128, 128, 128), "f16", "f16");
    let text = lowered(&c, &wg_program([128, 128], [64, 64]), ws).expect("lowers");
    run_check_text("k.mlir", &text, 3).expect("the kernel runs clean");
    let without = |needle: &str| -> String {
        let t: Vec<&str> = text.lines().filter(|l| !l.contains(needle)).collect();
        assert_ne!(t.len(), text.lines().count(), "{needle} found");
        t.join("\n")
    };
    let e = run_check_text("k.mlir", &without("nvgpu.mbarrier.try_wait.parity"), 3)
        .expect_err("a missing wait is caught");
    assert!(e.to_lowercase().contains("tma"), "{e}");
    let e = run_check_text("k.mlir", &without("nvgpu.mbarrier.arrive.expect_tx"), 3)
        .expect_err("a barrier that never completes is caught");
    assert!(e.contains("deadlock"), "{e}");
    let swapped = swap_b_coordinates(&text);
    assert_ne!(swapped, text);
    let r = run_check_text("k.mlir", &swapped, 3).expect("runs");
    assert!(
        r.max_rel_err() > 0.05,
        "wrong B boxes go unnoticed: {}",
        r.text()
    );
}

/// The warp-specialised pipeline's own synchronisation, planted wrong on a kernel whose six
/// k-steps refill its four stages: consumers that never release a stage (no arrival on
/// `empty`) → the producer waits forever (a deadlock, reported); a producer that does not
/// wait on `empty` → it arrives on a `full` barrier whose phase is not over (more arrivals
/// than its count, reported); consumers that release a stage before their MMA reads it →
/// the refill overwrites bytes the MMA read before the read was released (reported).
#[test]
fn planted_pipeline_bugs_are_caught() {
    let c = gemm((128, 128, 384), "f16", "f16");
    let text = lowered(&c, &wg_program([128, 128], [64, 64]), true).expect("lowers");
    assert!(text.contains("num_barriers = 4"), "four stages");
    run_check_text("k.mlir", &text, 5).expect("the kernel runs clean");
    let lines: Vec<&str> = text.lines().collect();
    let arrive = "\"nvgpu.mbarrier.arrive\"(";
    let no_release: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.contains(arrive))
        .collect();
    assert_eq!(no_release.len() + 1, lines.len(), "one consumer arrival");
    let e = run_check_text("k.mlir", &no_release.join("\n"), 5)
        .expect_err("consumers that never release are caught");
    assert!(e.contains("deadlock"), "{e}");
    // The `empty` group is the second mbarrier group created.
    let empty = lines
        .iter()
        .filter(|l| l.contains("\"nvgpu.mbarrier.create\""))
        .nth(1)
        .and_then(|l| l.split(" = ").next())
        .expect("an empty group")
        .trim()
        .to_string();
    let wait_on_empty = format!("\"nvgpu.mbarrier.try_wait.parity\"({empty},");
    let no_wait: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.contains(&wait_on_empty))
        .collect();
    assert_eq!(no_wait.len() + 1, lines.len(), "one producer wait");
    let e = run_check_text("k.mlir", &no_wait.join("\n"), 5)
        .expect_err("a producer that does not wait for the release is caught");
    assert!(e.contains("more arrivals than its init count"), "{e}");
    let e = run_check_text("k.mlir", &release_before_mma(&lines), 5)
        .expect_err("an early release is caught");
    assert!(e.contains("before that read was released"), "{e}");
}

/// `lines` with the consumers' `nvgpu.warpgroup.mma` moved after their release (just before
/// the loop's `scf.yield` of its result).
fn release_before_mma(lines: &[&str]) -> String {
    let mma = lines
        .iter()
        .position(|l| l.contains("\"nvgpu.warpgroup.mma\"("))
        .expect("an mma");
    let result = lines[mma].split(" = ").next().expect("a result").trim();
    let yield_ = format!("\"scf.yield\"({result})");
    let at = lines
        .iter()
        .position(|l| l.contains(&yield_))
        .expect("the loop's yield");
    assert!(
        lines[mma..at]
            .iter()
            .any(|l| l.contains("\"nvgpu.mbarrier.arrive\"(")),
        "the release follows the mma"
    );
    let mut out: Vec<&str> = lines.to_vec();
    let moved = out.remove(mma);
    out.insert(at - 1, moved);
    out.join("\n")
}

/// `text` with every TMA load of B (the second tensor map, `%arg4`) given its coordinates
/// swapped: the box at (k, n) instead of (n, k).
fn swap_b_coordinates(text: &str) -> String {
    swap_coordinates(text, "%arg4")
}

/// `text` with every 2-d TMA load of tensor map `map` given its two coordinates swapped.
fn swap_coordinates(text: &str, map: &str) -> String {
    text.lines()
        .map(|l| {
            let Some(at) = l.find("\"nvgpu.tma.async.load\"(") else {
                return l.to_string();
            };
            let args: Vec<&str> = l[at + 23..]
                .split(')')
                .next()
                .unwrap_or("")
                .split(", ")
                .collect();
            if args.len() != 6 || args[2] != map {
                return l.to_string();
            }
            let from = format!("{}, {}, {}, {}", args[2], args[3], args[4], args[5]);
            let to = format!("{}, {}, {}, {}", args[2], args[4], args[3], args[5]);
            l.replacen(&from, &to, 1)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn wg_tiles() -> impl Strategy<Value = ([u64; 2], [u64; 2])> {
    (0usize..3, 0usize..5, 0usize..2, 0usize..2).prop_map(|(wm, wn, gm, gn)| {
        let wg = [[64u64, 128, 64][wm], [64u64, 128, 256, 40, 56][wn]];
        // 128×256 would need 256 accumulator registers per thread.
        let wg = if wg == [128, 256] { [64, 256] } else { wg };
        let groups_m = if wg[0] == 64 { [1, 2][gm] } else { 1 };
        let groups_n = if wg[1] <= 64 { [1, 2][gn] } else { 1 };
        ([wg[0] * groups_m, wg[1] * groups_n], wg)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random shapes (n and k multiples of 8 as TMA needs, m any, or a multiple of 8 when A
    /// is m-contiguous), batch axes (none: a matmul; one of 1 to 3, or two or three with the
    /// later ones of 1 or 2), either operand shared by every batch index or neither,
    /// types, A's layout ([.., m, k] or [.., k, m]), B's ([.., k, n] or [.., n, k]) and
    /// warpgroup tilings: the kernel matches the oracle.
    #[test]
    fn random_shapes_match(m in 1i64..160, n8 in 1i64..24, k8 in 1i64..24, bf16 in any::<bool>(),
                           out in 0usize..3, tiles in wg_tiles(), seed in 0u64..1000,
                           b_nk in any::<bool>(), batch in 0i64..4, a_km in any::<bool>(),
                           more in prop::collection::vec(1i64..3, 0..3), shared in 0usize..3) {
        let input = if bf16 { "bf16" } else { "f16" };
        let output = [input, "f32", input][out];
        let mut axes: Vec<i64> = Vec::new();
        if batch > 0 {
            axes.push(batch);
            axes.extend(&more);
        }
        let shared = if axes.is_empty() { Shared::Neither } else { [Shared::Neither, Shared::A, Shared::B][shared] };
        let m = if a_km { (m + 7) / 8 * 8 } else { m };
        let shape = (m, n8 * 8, k8 * 8);
        let c = compute(&bmm_text(&axes, shape, (input, output), (a_km, b_nk), shared));
        let (block, wg) = tiles;
        let p = if axes.is_empty() { wg_program(block, wg) } else { wg_batches_program(axes.len(), block, wg) };
        for ws in [true, false] {
            let r = check(&c, &p, seed, ws);
            prop_assert!(r.is_ok(), "{axes:?} {shared:?} {shape:?} a_km={a_km} b_nk={b_nk} {input}->{output} {block:?}/{wg:?} ws={ws}: {:?}", r);
        }
    }
}
