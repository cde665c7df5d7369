//! Roller's alignment claims checked with the simulator's profile counters
//! (`rtile_runtime::sim::profile`), not assumed, for a matmul and a convolution (Table-1
//! shapes at a smaller size, so a sample of blocks profiles in seconds): on the best-ranked
//! H100 matmul program that pads a shared tile, and on a conv program that pads, the
//! compute's shared reads show no bank conflict; the same program with the padding forced
//! off (built with `RProgram::manual`, pad all zero) shows conflicts for the matmul and none
//! for the conv, whose reads need no padding; the matmul's aligned global loads are at least
//! 95% coalesced. And where the claim fails: the best-ranked conv program that pads reads
//! rows two apart, which conflict whatever the padding.

mod common;

use rtile_dialects::te::module::parse_computes;
use rtile_passes::construct_rtile::{ConstructOptions, RProgram, construct};
use rtile_passes::device::Device;
use rtile_passes::lower_to_gpu::{expr_info, lower_compute};
use rtile_runtime::sim::profile::{KernelProfile, OpClass, profile_text};

/// Blocks profiled per kernel: counter ratios are per block.
const SAMPLE: u64 = 4;

fn compute(text: &str) -> rtile_dialects::te::model::TeCompute {
    parse_computes("t.mlir", text)
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
        .compute
}

/// Table-1's M2 shape (K = 1024) over a 256x256 output.
const MATMUL: &str =
    "func.func @mm(%A: tensor<256x1024xf32>, %B: tensor<1024x256xf32>) -> tensor<256x256xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [256, 256, 1024] may_pad 0.0
         : (tensor<256x1024xf32>, tensor<1024x256xf32>) -> tensor<256x256xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<256x256xf32>
}";

/// Table-1's C0 (128 channels, 28x28, 3x3, zero padding 1) at batch 2.
const CONV: &str = "func.func @c0(%D: tensor<2x128x28x28xf32>, %K: tensor<128x128x3x3xf32>) -> tensor<2x128x28x28xf32> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [2, 128, 28, 28, 128, 3, 3] may_pad 0.0
         : (tensor<2x128x28x28xf32>, tensor<128x128x3x3xf32>) -> tensor<2x128x28x28xf32> {
    te.sum(%D[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %K[%f, %c, %ry, %rx])
  }
  func.return %O : tensor<2x128x28x28xf32>
}";

fn profiled(c: &rtile_dialects::te::model::TeCompute, p: &RProgram) -> KernelProfile {
    let mut ctx = common::context();
    let k = lower_compute(&mut ctx, c, p, "k").unwrap_or_else(|e| panic!("lowers: {e}"));
    let text = common::module_text(&mut ctx, &[k]);
    let mut r = profile_text("k.mlir", &text, 0, Some(SAMPLE)).unwrap_or_else(|e| panic!("{e}"));
    r.kernels.pop().expect("one kernel")
}

/// The best-ranked H100 program of `c` that pads a shared tile, and the same program with
/// its padding forced off.
fn padded_and_unpadded(c: &rtile_dialects::te::model::TeCompute) -> (RProgram, RProgram) {
    let dev = Device::builtin("h100").expect("device");
    let res = construct(&expr_info(c), &dev, &ConstructOptions::default()).expect("construct");
    let best = res
        .programs
        .iter()
        .find(|p| p.pad.iter().flatten().any(|&x| x > 0))
        .unwrap_or_else(|| panic!("no top-k program pads: {:?}", res.programs))
        .clone();
    assert!(best.axes.iter().all(|a| !a.contains('*')), "{best:?}");
    let zero = best.pad.iter().map(|d| vec![0; d.len()]).collect();
    let mut off = RProgram::manual(&best.device, &best.block, &best.thread, zero, best.threads);
    off.grid = best.grid.clone();
    (best, off)
}

/// What the profile shows: the padded program's compute reads are conflict-free; with the
/// padding off they conflict (`unpadded_conflicts`) or stay conflict-free; its global loads
/// are at least 95% coalesced where `aligned`.
fn check_claims(text: &str, unpadded_conflicts: bool, aligned: bool) {
    let c = compute(text);
    let (padded, unpadded) = padded_and_unpadded(&c);
    check_programs(&c, &padded, &unpadded, unpadded_conflicts, aligned);
}

/// [`check_claims`] on given programs: `padded` and the same tiles with no padding.
fn check_programs(
    c: &rtile_dialects::te::model::TeCompute,
    padded: &RProgram,
    unpadded: &RProgram,
    unpadded_conflicts: bool,
    aligned: bool,
) {
    let on = profiled(c, padded);
    assert!(on.sampled());
    let reads = on.total(OpClass::SharedLd);
    assert!(reads.requests > 0, "the compute reads shared memory");
    assert_eq!(
        reads.bank_conflicts(),
        0,
        "padded tiles {:?}: the compute's shared reads are conflict-free",
        padded.pad
    );
    let coalescing = on.coalescing(&[OpClass::GlobalLd]);
    assert!(
        !aligned || coalescing >= 0.95,
        "global loads of aligned tiles are {:.1}% coalesced",
        100.0 * coalescing
    );
    let off = profiled(c, unpadded).total(OpClass::SharedLd);
    assert_eq!(
        off.bank_conflicts() > 0,
        unpadded_conflicts,
        "with the padding off: {off:?}"
    );
}

/// An H100 program for [`CONV`] with the given tiles and padding on D (K is not padded).
fn conv_program(block: &[u64], thread: &[u64], d_pad: u64, threads: u64) -> RProgram {
    let c = compute(CONV);
    let grid = c
        .axes
        .iter()
        .zip(block)
        .filter(|(a, _)| a.kind == rtile_dialects::te::model::AxisKind::Parallel)
        .map(|(a, &b)| (a.extent as u64).div_ceil(b))
        .collect();
    let mut p = RProgram::manual(
        "h100",
        block,
        thread,
        vec![vec![0, 0, 0, d_pad], vec![0, 0, 0, 0]],
        threads,
    );
    p.grid = grid;
    p
}

#[test]
fn padded_matmul_tiles_have_no_bank_conflicts_and_unpadded_ones_do() {
    // Block [4, 64, 64], pad [[0, 1], [0, 8]]: B's 64-wide rows padded to 72 words.
    check_claims(MATMUL, true, true);
}

#[test]
fn conv_reads_are_conflict_free_with_or_without_the_padding() {
    // Block [1, 24, 2, 32, 1, 1, 3], thread [1, 6, 2, 2, 1, 1, 3], pad 2 on D's 34-word halo
    // rows: the best H100 program that pads until the model's load term moved it to rank 7
    // (PERF.md). It reads conflict-free with or without the padding. Its global loads are
    // not aligned (the x - 1 halo, 28-wide image rows), so 95% coalescing is not expected.
    let c = compute(CONV);
    let (block, thread) = ([1, 24, 2, 32, 1, 1, 3], [1, 6, 2, 2, 1, 1, 3]);
    let padded = conv_program(&block, &thread, 2, 64);
    let unpadded = conv_program(&block, &thread, 0, 64);
    check_programs(&c, &padded, &unpadded, false, false);
}

/// Where Roller's padding formula (§3.1, Figure 5b) cannot help: the best H100 program that
/// pads now (block [1, 12, 4, 32, 4, 3, 3], thread [1, 6, 2, 2, 1, 1, 3], pad 2 on the
/// 34-word rows). A warp's 16 x-threads read every other word of a row (2 points each) and
/// its 2 y-threads rows 2 apart: 2 × 36 words is 8 banks, even like the x stride, so the two
/// halves of the warp meet on the even banks. Any row length gives rows 2 apart an even bank
/// offset, so no padding of the row removes the conflicts; the formula assumes adjacent
/// threads read adjacent rows. The construction's tie-breaks do not see conflicts: this pins
/// them, counted by the simulator, for the day they do.
#[test]
fn conv_rows_two_apart_conflict_with_or_without_the_padding() {
    let c = compute(CONV);
    let (padded, _) = padded_and_unpadded(&c);
    assert_eq!(padded.block, [1, 12, 4, 32, 4, 3, 3], "{padded:?}");
    assert_eq!(padded.pad, [vec![0, 0, 0, 2], vec![0, 0, 0, 0]]);
    let (block, thread) = (padded.block.clone(), padded.thread.clone());
    for d_pad in [0, 1, 2, 3] {
        let p = conv_program(&block, &thread, d_pad, padded.threads);
        let reads = profiled(&c, &p).total(OpClass::SharedLd);
        assert!(reads.requests > 0);
        assert!(
            reads.bank_conflicts() > 0,
            "pad {d_pad}: rows two apart share the even banks: {reads:?}"
        );
    }
}
