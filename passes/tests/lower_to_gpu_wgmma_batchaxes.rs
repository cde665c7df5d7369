//! The sm_90a wgmma lowering of batch matmuls beyond one batch axis: several batch axes
//! (BERT's attention `[batch, heads, seq, d]`), an operand shared by every batch index (a
//! batched activation times a weight, `A[b, m, k]·W[k, n]` or `W[n, k]`, and a shared A),
//! and batch axes that are not outermost in an operand (`Q[b, s, h, d]`): each kernel in the
//! simulator against the te interpreter's oracle (the tolerances of
//! `lower_to_gpu_wgmma.rs`), warp-specialised and not; the refusals TMA forces; planted
//! bugs in the batch coordinates.

use rtile_dialects::te::model::TeCompute;
use rtile_passes::device::Device;
use rtile_passes::lower_to_gpu::lower_compute_opts;
use rtile_passes::lower_to_gpu::mma::MmaPlan;
use rtile_passes::lower_to_gpu::mma::wgmma::{Dim, WgmmaPlan};
use rtile_runtime::sim::run_check_text;

mod common;
use common::wgmma::{check, lowered, wg_batches_program, wgmma_options, zero_coordinate};
use common::{Shared, bmm_text, compute, context};

/// `batch` extents, `(m, n, k)`, `(input, output)`, `(A stored [.., k, m], B stored
/// [.., n, k])`, the shared operand, block and warpgroup tiles.
type Case = (
    &'static [i64],
    (i64, i64, i64),
    (&'static str, &'static str),
    (bool, bool),
    Shared,
    [u64; 2],
    [u64; 2],
);

/// The box shapes each case's tensor maps must have (A, B), as they print.
fn boxes(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("\"gpu.func\""))
        .flat_map(|l| {
            l.split("!nvgpu.tensormap.descriptor<tensor = memref<")
                .skip(1)
                .map(|t| t.split(',').next().unwrap_or("").to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Two and three batch axes, B and A shared, every layout, m, n and k off the tiles, f16
/// and bf16 in and f16, bf16 and f32 out, one to four warpgroups: each kernel equals the
/// oracle in both structures, and its tensor maps are the operands' own rank with one
/// slice of each batch axis (`1x..`) per box.
#[test]
fn several_batch_axes_and_shared_operands_match_the_interpreter() {
    let cases: [Case; 10] = [
        (
            &[2, 3],
            (64, 64, 64),
            ("f16", "f16"),
            (false, false),
            Shared::Neither,
            [64, 64],
            [64, 64],
        ),
        (
            &[2, 3],
            (100, 72, 40),
            ("bf16", "f32"),
            (false, true),
            Shared::Neither,
            [128, 64],
            [64, 64],
        ),
        (
            &[3, 2],
            (88, 40, 136),
            ("f16", "bf16"),
            (true, true),
            Shared::Neither,
            [64, 40],
            [64, 40],
        ),
        (
            &[2, 1, 3],
            (70, 56, 72),
            ("bf16", "bf16"),
            (false, false),
            Shared::Neither,
            [128, 112],
            [64, 56],
        ),
        (
            &[1, 2, 2],
            (17, 8, 64),
            ("f16", "f32"),
            (false, false),
            Shared::Neither,
            [64, 64],
            [64, 64],
        ),
        (
            &[3],
            (97, 100, 72),
            ("f16", "f16"),
            (false, true),
            Shared::B,
            [128, 112],
            [64, 56],
        ),
        (
            &[2, 3],
            (64, 96, 136),
            ("bf16", "f32"),
            (false, true),
            Shared::B,
            [64, 96],
            [64, 96],
        ),
        (
            &[3],
            (136, 64, 40),
            ("f16", "f32"),
            (true, true),
            Shared::A,
            [128, 64],
            [128, 64],
        ),
        (
            &[2, 2],
            (72, 136, 64),
            ("bf16", "bf16"),
            (false, false),
            Shared::A,
            [64, 128],
            [64, 64],
        ),
        (
            &[2, 1, 2],
            (64, 48, 200),
            ("f16", "f16"),
            (false, true),
            Shared::B,
            [64, 48],
            [64, 48],
        ),
    ];
    let mut failures = Vec::new();
    for (i, (batch, shape, types, layout, shared, block, wg)) in cases.into_iter().enumerate() {
        let c = compute(&bmm_text(batch, shape, types, layout, shared));
        let p = wg_batches_program(batch.len(), block, wg);
        let rank = |has: bool| 2 + if has { batch.len() } else { 0 };
        let ranks = [rank(shared != Shared::A), rank(shared != Shared::B)];
        for ws in [true, false] {
            let tag = format!("{batch:?} {shape:?} {types:?} {layout:?} {shared:?} ws={ws}");
            let text = match lowered(&c, &p, ws) {
                Ok(t) => t,
                Err(e) => {
                    failures.push(format!("{tag}: {e}"));
                    continue;
                }
            };
            let got: Vec<usize> = boxes(&text)
                .iter()
                .map(|b| b.split('x').count() - 1)
                .collect();
            let ones = |b: &str, r: usize| b.starts_with(&"1x".repeat(r - 2));
            let bx = boxes(&text);
            if got != ranks || !ones(&bx[0], ranks[0]) || !ones(&bx[1], ranks[1]) {
                failures.push(format!("{tag}: boxes {bx:?}, want ranks {ranks:?}"));
                continue;
            }
            if let Err(e) = check(&c, &p, 41 + i as u64, ws) {
                failures.push(format!("{tag}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Attention with the heads axis inside the operands (`Q[b, s, h, d]`, as a Linear layer
/// leaves them before any transpose): scores `S[b, h, m, n] = Σ_k Q[b, m, h, k]·K[b, n, h,
/// k]` and `O[b, h, m, n] = Σ_k P[b, h, m, k]·V[b, k, h, n]`. The tensor maps keep the
/// tensors' dims (`[1, 64, 1, 64]` boxes: the same bytes as a 64×64 tile); each kernel
/// equals the oracle.
#[test]
fn batch_axes_inside_an_operand_match_the_interpreter() {
    let scores = compute(
        "func.func @qk(%Q: tensor<2x100x3x64xf16>, %K: tensor<2x72x3x64xf16>) -> tensor<2x3x100x72xf16> {
  %S = te.compute (%b, %h, %m, %n) reduce (%k) in [2, 3, 100, 72, 64] acc(f32) : (tensor<2x100x3x64xf16>, tensor<2x72x3x64xf16>) -> tensor<2x3x100x72xf16> { te.sum(f32(%Q[%b, %m, %h, %k]) * f32(%K[%b, %n, %h, %k])) }
  func.return %S : tensor<2x3x100x72xf16>
}",
    );
    let pv = compute(
        "func.func @pv(%P: tensor<2x3x100x72xbf16>, %V: tensor<2x72x3x64xbf16>) -> tensor<2x3x100x64xf32> {
  %O = te.compute (%b, %h, %m, %n) reduce (%k) in [2, 3, 100, 64, 72] acc(f32) : (tensor<2x3x100x72xbf16>, tensor<2x72x3x64xbf16>) -> tensor<2x3x100x64xf32> { te.sum(f32(%P[%b, %h, %m, %k]) * f32(%V[%b, %k, %h, %n])) }
  func.return %O : tensor<2x3x100x64xf32>
}",
    );
    let p = wg_batches_program(2, [128, 64], [64, 64]);
    for ws in [true, false] {
        let t = lowered(&scores, &p, ws).expect("scores lower");
        assert_eq!(boxes(&t), ["1x64x1x64xf16", "1x64x1x64xf16"]);
        check(&scores, &p, 5, ws).expect("scores");
        let t = lowered(&pv, &p, ws).expect("P·V lowers");
        assert_eq!(boxes(&t), ["1x1x64x64xbf16", "1x64x1x64xbf16"]);
        check(&pv, &p, 6, ws).expect("P·V");
    }
}

/// BERT-base's attention scores, `[1, 12, 128, 64]·[1, 12, 128, 64]ᵀ` (Q·Kᵀ per head,
/// K stored `[b, h, n, d]`: K-major), under a 128×128 block of two 64×128 warpgroups: one
/// block per head, 4-d tensor maps, equal to the oracle.
#[test]
fn bert_attention_scores_match_the_interpreter() {
    let c = compute(&bmm_text(
        &[1, 12],
        (128, 128, 64),
        ("f16", "f16"),
        (false, true),
        Shared::Neither,
    ));
    let p = wg_batches_program(2, [128, 128], [64, 128]);
    let dev = Device::builtin("h100").expect("device");
    let m = MmaPlan::new(&c, &p, &dev).expect("mma plan");
    let w = WgmmaPlan::new(&c, &m, &dev, true).expect("applies");
    assert_eq!(
        (w.batch, w.batch_extents.clone(), w.blocks(), w.b_k_major),
        (Some(12), vec![1, 12], 12, true)
    );
    check(&c, &p, 9, true).expect("BERT scores");
}

/// The plan's layouts and refusals: the maps' dims per operand (a shared B keeps its own
/// two), an operand of rank 6 (four batch axes: TMA maps have at most 5 dims), a batch
/// axis as an operand's contiguous dim (TMA's innermost dim is the box's row), and a block
/// tile of two batch slices.
#[test]
fn plan_layouts_and_refusals() {
    let dev = Device::builtin("h100").expect("device");
    let plan = |c: &TeCompute, axes: usize| {
        let p = wg_batches_program(axes, [64, 64], [64, 64]);
        let m = MmaPlan::new(c, &p, &dev)?;
        WgmmaPlan::new(c, &m, &dev, true)
    };
    let shared_b = compute(&bmm_text(
        &[2, 3],
        (64, 64, 64),
        ("f16", "f16"),
        (false, true),
        Shared::B,
    ));
    let w = plan(&shared_b, 2).expect("shared B applies");
    use Dim::*;
    assert_eq!(w.maps, [vec![Batch(0), Batch(1), M, K], vec![N, K]]);
    assert_eq!(w.out, [Batch(0), Batch(1), M, N]);
    assert_eq!((w.batch, w.blocks()), (Some(6), 6));
    let shared_a = compute(&bmm_text(
        &[2],
        (64, 64, 64),
        ("f16", "f16"),
        (true, false),
        Shared::A,
    ));
    let w = plan(&shared_a, 1).expect("shared A applies");
    assert_eq!(w.maps, [vec![K, M], vec![Batch(0), K, N]]);
    let four = compute(&bmm_text(
        &[2, 1, 2, 1],
        (64, 64, 64),
        ("f16", "f16"),
        (false, false),
        Shared::Neither,
    ));
    let e = plan(&four, 4).expect_err("rank 6");
    assert!(e.contains("A has rank 6") && e.contains("at most 5"), "{e}");
    // Four batch axes with B shared: A still has rank 6.
    let e = plan(
        &compute(&bmm_text(
            &[2, 1, 2, 1],
            (64, 64, 64),
            ("f16", "f16"),
            (false, false),
            Shared::B,
        )),
        4,
    )
    .expect_err("rank 6");
    assert!(e.contains("rank 6"), "{e}");
    // The batch axis contiguous in A: no TMA box row; wgmma mode says why.
    let inner = compute(
        "func.func @mm(%A: tensor<64x64x2xf16>, %B: tensor<2x64x64xf16>) -> tensor<2x64x64xf16> {
  %C = te.compute (%b, %m, %n) reduce (%k) in [2, 64, 64, 64] acc(f32) : (tensor<64x64x2xf16>, tensor<2x64x64xf16>) -> tensor<2x64x64xf16> { te.sum(f32(%A[%m, %k, %b]) * f32(%B[%b, %k, %n])) }
  func.return %C : tensor<2x64x64xf16>
}",
    );
    let mut ctx = context();
    let p = wg_batches_program(1, [64, 64], [64, 64]);
    let e = lower_compute_opts(&mut ctx, &inner, &p, "k", wgmma_options(true))
        .map(|_| ())
        .expect_err("a contiguous batch axis");
    assert!(e.contains("contiguous dim"), "{e}");
    let mut two = wg_batches_program(2, [64, 64], [64, 64]);
    two.block[1] = 2;
    two.threads = 256;
    let c = compute(&bmm_text(
        &[2, 2],
        (64, 64, 64),
        ("f16", "f16"),
        (false, false),
        Shared::Neither,
    ));
    let m = MmaPlan::new(&c, &two, &dev).expect("mma plan of two slices");
    let e = WgmmaPlan::new(&c, &m, &dev, true).expect_err("two slices");
    assert!(e.contains("one batch index"), "{e}");
}

/// Planted bugs: the second batch axis's coordinate of every 4-d TMA load forced to 0
/// (each block reads that axis's first slice), and the first's, give wrong numbers; with
/// B shared, the same on A alone does too (B's 2-d loads are untouched).
#[test]
fn planted_batch_coordinate_bugs_are_caught() {
    for (shared, b_nk, ws) in [
        (Shared::Neither, false, true),
        (Shared::Neither, true, false),
        (Shared::B, false, false),
    ] {
        let c = compute(&bmm_text(
            &[2, 3],
            (64, 64, 128),
            ("f16", "f16"),
            (false, b_nk),
            shared,
        ));
        let text = lowered(&c, &wg_batches_program(2, [64, 64], [64, 64]), ws).expect("lowers");
        let clean = run_check_text("k.mlir", &text, 3).expect("the kernel runs clean");
        assert!(clean.max_rel_err() < 2e-3, "{}", clean.text());
        // Coordinates innermost first: (row, other GEMM axis, batch 1, batch 0).
        for at in [2, 3] {
            let planted = zero_coordinate(&text, 4, at);
            assert_ne!(planted, text);
            let r = run_check_text("k.mlir", &planted, 3).expect("runs");
            assert!(
                r.max_rel_err() > 0.05,
                "batch coordinate {at} forced to 0 goes unnoticed ({shared:?}): {}",
                r.text()
            );
        }
    }
}

/// The result's dims follow the compute's axes, whatever their order: `C[h, n, m, b]`
/// stores each element at its own batch indices, column and row (the epilogue's index
/// order comes from the plan, not from a fixed `[b.., m, n]`), equal to the oracle.
#[test]
fn a_result_in_another_axis_order_matches_the_interpreter() {
    let c = compute(
        "func.func @t(%A: tensor<2x3x100x64xf16>, %B: tensor<2x3x64x72xf16>) -> tensor<3x72x100x2xf32> {
  %C = te.compute (%h, %n, %m, %b) reduce (%k) in [3, 72, 100, 2, 64] acc(f32) : (tensor<2x3x100x64xf16>, tensor<2x3x64x72xf16>) -> tensor<3x72x100x2xf32> { te.sum(f32(%A[%b, %h, %m, %k]) * f32(%B[%b, %h, %k, %n])) }
  func.return %C : tensor<3x72x100x2xf32>
}",
    );
    let mut p = wg_batches_program(0, [128, 64], [64, 64]);
    // Axes (h, n, m, b, k): the batch axes' tiles 1, m 128, n 64.
    p.block = vec![1, 64, 128, 1, 64];
    p.thread = vec![1, 64, 64, 1, 16];
    let dev = Device::builtin("h100").expect("device");
    let m = MmaPlan::new(&c, &p, &dev).expect("mma plan");
    let w = WgmmaPlan::new(&c, &m, &dev, true).expect("applies");
    assert_eq!(w.out, [Dim::Batch(0), Dim::N, Dim::M, Dim::Batch(1)]);
    assert_eq!(w.maps[0], [Dim::Batch(1), Dim::Batch(0), Dim::M, Dim::K]);
    for ws in [true, false] {
        check(&c, &p, 13, ws).expect("C[h, n, m, b]");
    }
}
