//! The model's shared-memory features (`features.rs`, OOPSLA'21 §5.1 and Appendix A:
//! shared load and store transactions with bank conflicts counted) against the simulator's
//! counters (`rtile-run --sim --profile`: wavefronts over 32 banks of 4 bytes) on the
//! lowered kernel, for hand-built schedules whose producer is computed at the consumer's
//! block level (shared memory). Exact values, per kernel: every block runs (no sampling).

use std::sync::Arc;

use rtile::ir::OpId;
use rtile::printer::{PrintOptions, print_op};
use rtile_dialects::te::module::{new_context, parse_and_verify};
use rtile_passes::autoschedule_beam::cost::Coefficients;
use rtile_passes::autoschedule_beam::features::{StageFeatures, featurize};
use rtile_passes::autoschedule_beam::kernel::{levels, plan_kernel};
use rtile_passes::autoschedule_beam::pass::write_schedule;
use rtile_passes::autoschedule_beam::pipeline::Pipeline as Stages;
use rtile_passes::autoschedule_beam::space::{Loc, Tiling};
use rtile_passes::connect::pass::reorder_block;
use rtile_passes::device::Device;
use rtile_runtime::sim::profile::{OpClass, profile_text};
use rtile_runtime::sim::run_check_text;
use rtile_tools::{OptOptions, Pipeline, run_opt};

/// Per kernel totals: shared load and store transactions (wavefronts), global load and
/// store sectors.
#[derive(Debug, PartialEq)]
struct Counts {
    shared_ld: u64,
    shared_st: u64,
    global_ld: u64,
    global_st: u64,
}

/// A root tiling of an `N`-D stage.
fn tiling<const N: usize>(serial: [u64; N], threads: [u64; N]) -> Loc {
    Loc::Root(Some(Tiling {
        serial: Arc::from(serial),
        threads: Arc::from(threads),
    }))
}

/// Schedules `text` (one function, two stages) with `locs`, lowers it with
/// `--lower-to-gpu` and returns the model's counts and the simulator's for the one kernel,
/// and the float operations each counts: the model's points computed × flops per point,
/// the simulator's thread-level executions of float arithmetic (guarded-off points run
/// none).
fn model_and_sim(text: &str, locs: &[Loc]) -> (Counts, Counts, (u64, u64)) {
    let dev = Device::builtin("v100").expect("v100");
    let mut ctx = new_context();
    let m = parse_and_verify(&mut ctx, "p.mlir", text).expect("parses");
    let f = ctx
        .collect_ops(m)
        .into_iter()
        .find(|&o| ctx.op_name(o) == "func.func")
        .expect("a function");
    let b = ctx.region_blocks(ctx.regions(f)[0])[0];
    let ops: Vec<OpId> = ctx.block_ops(b).collect();
    let p = Stages::build(&ctx, &ops).expect("a pipeline");
    let opt_locs: Vec<_> = locs.iter().cloned().map(Some).collect();
    let lv = levels(&p, &opt_locs);
    let root = p.len() - 1;
    let k = plan_kernel(&p, &opt_locs, &lv, root, &dev).expect("fits");
    let feats: Vec<StageFeatures> = featurize(&p, &k, &lv, &dev);
    let blocks = feats[0].num_blocks;
    let sum = |g: &dyn Fn(&StageFeatures) -> f64| -> u64 {
        let t: f64 = feats.iter().map(|s| blocks * g(s)).sum();
        // Per-block features average the kinds of blocks (whole and edge blocks), so the
        // kernel's total is whole up to the rounding of that average.
        assert!(
            (t - t.round()).abs() < 1e-9 * t.max(1.0),
            "a whole count: {t}"
        );
        t.round() as u64
    };
    let model = Counts {
        shared_ld: sum(&|s| s.num_shared_mem_loads_per_block),
        shared_st: sum(&|s| s.num_shared_mem_stores_per_block),
        global_ld: sum(&|s| s.num_global_mem_loads_per_block),
        global_st: sum(&|s| s.num_global_mem_stores_per_block),
    };
    let flops: f64 = feats
        .iter()
        .map(|s| s.points_computed * s.flops_per_point)
        .sum();
    let coef = Coefficients::from_device(&dev);
    let n = write_schedule(&mut ctx, &p, locs, &dev, &coef).expect("writes");
    assert_eq!(n, 1, "one kernel");
    reorder_block(&mut ctx, b);
    let scheduled = print_op(&ctx, m, &PrintOptions::default());
    let opts = OptOptions {
        pipeline: Pipeline::Flags(vec![("lower-to-gpu".into(), String::new())]),
        color: Some(false),
        ..OptOptions::default()
    };
    let out = run_opt(&opts, "p.mlir", scheduled.clone());
    assert!(out.success, "lowers:\n{scheduled}\n{}", out.log);
    let lowered = out.output;
    // The fused kernel equals the unfused chain (the counts are of a correct kernel).
    let report = run_check_text("p.gpu.mlir", &lowered, 5).expect("every kernel runs");
    for kr in &report.kernels {
        assert!(kr.max_rel_err < 1e-5, "{}: {}", kr.kernel, kr.max_rel_err);
    }
    let prof = profile_text("p.gpu.mlir", &lowered, 3, None).expect("profiles");
    let [kp] = &prof.kernels[..] else {
        panic!("one kernel, got {}", prof.kernels.len())
    };
    assert!(!kp.sampled());
    let sim = Counts {
        shared_ld: kp.total(OpClass::SharedLd).wavefronts,
        shared_st: kp.total(OpClass::SharedSt).wavefronts,
        global_ld: kp.total(OpClass::GlobalLd).sectors,
        global_st: kp.total(OpClass::GlobalSt).sectors,
    };
    (
        model,
        sim,
        (flops.round() as u64, kp.total(OpClass::Fp).thread),
    )
}

const POINTWISE: &str = "func.func @f(%A: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %P = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { %A[%i, %j] * 2.0 }
  %C = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { %P[%i, %j] + 1.0 }
  func.return %C : tensor<64x64xf32>
}";

const TRANSPOSED: &str = "func.func @f(%A: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %P = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { %A[%i, %j] * 2.0 }
  %C = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { %P[%j, %i] + 1.0 }
  func.return %C : tensor<64x64xf32>
}";

const PADDED: &str = "func.func @f(%A: tensor<64x65xf32>) -> tensor<64x64xf32> {
  %P = te.compute (%i, %j) in [64, 65] : (tensor<64x65xf32>) -> tensor<64x65xf32> { %A[%i, %j] * 2.0 }
  %C = te.compute (%i, %j) in [64, 64] : (tensor<64x65xf32>) -> tensor<64x64xf32> { %P[%j, %i] + %P[%j, %i + 1] }
  func.return %C : tensor<64x64xf32>
}";

const BLUR: &str = "func.func @f(%A: tensor<66x66xf32>) -> tensor<64x64xf32> {
  %P = te.compute (%i, %j) in [66, 64] : (tensor<66x66xf32>) -> tensor<66x64xf32> { %A[%i, %j] + %A[%i, %j + 1] + %A[%i, %j + 2] }
  %C = te.compute (%i, %j) in [64, 64] : (tensor<66x64xf32>) -> tensor<64x64xf32> { %P[%i, %j] + %P[%i + 1, %j] + %P[%i + 2, %j] }
  func.return %C : tensor<64x64xf32>
}";

const ODD_POINTWISE: &str = "func.func @f(%A: tensor<37x29xf32>) -> tensor<37x29xf32> {
  %P = te.compute (%i, %j) in [37, 29] : (tensor<37x29xf32>) -> tensor<37x29xf32> { %A[%i, %j] * 2.0 }
  %C = te.compute (%i, %j) in [37, 29] : (tensor<37x29xf32>) -> tensor<37x29xf32> { %P[%i, %j] + 1.0 }
  func.return %C : tensor<37x29xf32>
}";

const ODD_COLUMNS: &str = "func.func @f(%A: tensor<37x40xf32>) -> tensor<37x40xf32> {
  %P = te.compute (%i, %j) in [37, 40] : (tensor<37x40xf32>) -> tensor<37x40xf32> { %A[%i, %j] * 2.0 }
  %C = te.compute (%i, %j) in [37, 40] : (tensor<37x40xf32>) -> tensor<37x40xf32> { %P[%i, %j] + 1.0 }
  func.return %C : tensor<37x40xf32>
}";

const ODD_BLUR: &str = "func.func @f(%A: tensor<39x31xf32>) -> tensor<37x29xf32> {
  %P = te.compute (%i, %j) in [39, 29] : (tensor<39x31xf32>) -> tensor<39x29xf32> { %A[%i, %j] + %A[%i, %j + 1] + %A[%i, %j + 2] }
  %C = te.compute (%i, %j) in [37, 29] : (tensor<39x29xf32>) -> tensor<37x29xf32> { %P[%i, %j] + %P[%i + 1, %j] + %P[%i + 2, %j] }
  func.return %C : tensor<37x29xf32>
}";

const SKEWED: &str = "func.func @f(%A: tensor<76xf32>) -> tensor<37x40xf32> {
  %P = te.compute (%x) in [76] : (tensor<76xf32>) -> tensor<76xf32> { %A[%x] * 2.0 }
  %C = te.compute (%i, %j) in [37, 40] : (tensor<76xf32>) -> tensor<37x40xf32> { %P[%i + %j] + 1.0 }
  func.return %C : tensor<37x40xf32>
}";

const SKEWED_2D: &str = "func.func @f(%A: tensor<76x40xf32>) -> tensor<37x40xf32> {
  %P = te.compute (%x, %y) in [76, 37] : (tensor<76x40xf32>) -> tensor<76x37xf32> { %A[%x, %y] * 2.0 }
  %C = te.compute (%i, %j) in [37, 40] : (tensor<76x37xf32>) -> tensor<37x40xf32> { %P[%i + %j, %i] + 1.0 }
  func.return %C : tensor<37x40xf32>
}";

const COLSUM: &str = "func.func @f(%A: tensor<32x256xf32>) -> tensor<256xf32> {
  %P = te.compute (%i, %j) in [32, 256] : (tensor<32x256xf32>) -> tensor<32x256xf32> { %A[%i, %j] * 2.0 }
  %C = te.compute (%j) reduce (%i) in [256, 32] : (tensor<32x256xf32>) -> tensor<256xf32> { te.sum(%P[%i, %j]) }
  func.return %C : tensor<256xf32>
}";

const COLSUM_EDGE: &str = "func.func @f(%A: tensor<32x200xf32>) -> tensor<200xf32> {
  %P = te.compute (%i, %j) in [32, 200] : (tensor<32x200xf32>) -> tensor<32x200xf32> { %A[%i, %j] * 2.0 }
  %C = te.compute (%j) reduce (%i) in [200, 32] : (tensor<32x200xf32>) -> tensor<200xf32> { te.sum(%P[%i, %j]) }
  func.return %C : tensor<200xf32>
}";

/// One case: a schedule, the simulator's counts derived by hand, and whether the model's
/// global load sectors are exact (a block-level stage whose region rows are not a whole
/// number of sectors wide is counted from its first warp, the representative warp of
/// §5.1; its other warps straddle rows).
struct Case {
    name: &'static str,
    text: &'static str,
    locs: Vec<Loc>,
    want: Counts,
    global_ld_exact: bool,
}

/// The 64×64 cases run 16 blocks (8×32 block tiles), the odd ones a partial last block
/// row (37 rows) and, on 37×40, a partial last block column; counts are per kernel.
fn cases() -> Vec<Case> {
    let c = |shared_ld, shared_st, global_ld, global_st| Counts {
        shared_ld,
        shared_st,
        global_ld,
        global_st,
    };
    vec![
        // P computed into an 8×32 shared region by 256 threads: 8 warps, each a row of 32
        // consecutive words (1 wavefront); C reads it the same way; A and C: 8 warps × 4
        // sectors × 16 blocks = 512.
        Case {
            name: "pointwise",
            text: POINTWISE,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([1, 1], [8, 32])],
            want: c(128, 128, 512, 512),
            global_ld_exact: true,
        },
        // The same with the producer's own serial tile [1, 2]: the lowering computes a
        // block-level stage flat over its region (tid, tid + 256, ..), so nothing changes
        // (a model with strided lanes would count 2-way store conflicts: 256).
        Case {
            name: "pointwise-serial",
            text: POINTWISE,
            locs: vec![Loc::Shared(vec![1, 2]), tiling([1, 1], [8, 32])],
            want: c(128, 128, 512, 512),
            global_ld_exact: true,
        },
        // C reads P transposed from a 32×8 region: lane j reads word 8j + i, so the 32
        // lanes hit 4 banks, 8 distinct words each: 8 wavefronts × 8 warps × 16 blocks.
        Case {
            name: "transposed",
            text: TRANSPOSED,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([1, 1], [8, 32])],
            want: c(1024, 128, 512, 512),
            global_ld_exact: true,
        },
        // Transposed with C's serial tile [1, 2] on 8×16 threads: serial points interleave
        // (j = t + 16·s), a warp is 2 rows of 16 lanes, words 8j + i over j < 16: 4 banks
        // per row, 4 words each: 4 wavefronts × 4 warps × 2 points × 16 blocks = 512
        // (stores: 16 lanes × 4 B contiguous per row, 4 sectors per warp request).
        Case {
            name: "transposed-serial",
            text: TRANSPOSED,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([1, 2], [8, 16])],
            want: c(512, 128, 512, 512),
            global_ld_exact: true,
        },
        // Transposed with a halo (P[j, i] + P[j, i + 1]): the region is 32×9, row stride
        // 9 words, coprime with 32 banks, so the transposed read is conflict-free: 2
        // reads × 8 warps × 16 blocks = 256; stores: 288 points = 9 warps × 16 = 144.
        Case {
            name: "padded",
            text: PADDED,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([1, 1], [8, 32])],
            want: c(256, 144, 1024, 512),
            global_ld_exact: false,
        },
        // A 2-stage blur, the horizontal pass at the vertical pass's block level: a 10×32
        // region (320 points: 10 warp stores, 1 wavefront each), 3 conflict-free row reads
        // per warp: 3 × 8 × 16 = 384. Global: each producer warp reads 3 runs of 32 floats
        // of an A row (264 B a row, so row r starts at 8r mod 32): 4 sectors when the run
        // is 32-byte aligned (c = 0 on rows r ≡ 0 mod 4, c = 2 on r ≡ 3), else 5; a block's
        // rows 8b .. 8b + 9 give 150 − 5 = 145, × 16 = 2320 (the model: row 0's 14 per
        // warp, 2240).
        Case {
            name: "blur",
            text: BLUR,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([1, 1], [8, 32])],
            want: c(384, 160, 2320, 512),
            global_ld_exact: false,
        },
        // 37×29: the 8×32 block tile is clipped to the 29 columns (the kernel's shared
        // tile), so 8×29 = 232 threads run, lanes numbered row-major: a warp takes 32
        // consecutive points of the block, which is 232 consecutive floats of a
        // 29-wide tensor from byte 928·b (32-byte aligned). P's region (8×29, the column
        // dim does not move with the block) by 232 threads: 7 full warps and a tail of 8,
        // one wavefront each, in every block, the last too (its rows past 36 store 0):
        // 8 × 5 = 40. C's reads: 8 per whole block, 5 warps for the last block's 145
        // points: 37. A's loads and C's stores: 29 sectors a whole block, 19 for the last
        // (145 floats: 4 warps of 4 sectors and one of 17 floats, 3): 4 × 29 + 19 = 135.
        Case {
            name: "odd-pointwise",
            text: ODD_POINTWISE,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([1, 1], [8, 32])],
            want: c(37, 40, 135, 135),
            global_ld_exact: true,
        },
        // The same with C's serial tile 2×1 (block tile 16×29, 3 blocks): thread `t` runs
        // rows t and t + 8 (interleaved), 928 bytes apart (aligned), so each iteration is
        // a whole block of the case above: 16 reads, 16 stores of P's 16×29 region, 58
        // sectors of A and of C per block. The last block (rows 32..47 of 37) runs its
        // first iteration on rows 32..36 only (145 points: 5 reads, 19 sectors) and
        // nothing in its second: 37, 48, 135, 135.
        Case {
            name: "odd-serial",
            text: ODD_POINTWISE,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([2, 1], [8, 32])],
            want: c(37, 48, 135, 135),
            global_ld_exact: true,
        },
        // 37×40: two block columns, the second covering columns 32..39 of its 32 (8 lanes
        // of each warp run); P's region moves with both dims (8×32, 8 warp stores in each
        // of 10 blocks: 80), the second column's region past column 39 computes nothing.
        // Rows are 160 bytes (aligned): a warp's row is 4 sectors in the first block
        // column, 1 in the second. 37 rows × 2 columns of C warps read P once each: 74;
        // A's loads and C's stores: 37 × (4 + 1) = 185.
        Case {
            name: "odd-columns",
            text: ODD_COLUMNS,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([1, 1], [8, 32])],
            want: c(74, 80, 185, 185),
            global_ld_exact: true,
        },
        // A 2-stage blur with a halo on 37×29 outputs (232 threads, as above): P's region
        // is 10 rows × 29 columns (290 points: the threads' first turn 7 full warps and a
        // tail of 8, the second 1 and a tail of 26: 10 wavefronts in each of the 5 blocks:
        // 50); the last block's region reaches rows 32..41 of P's 39: rows 39..41 compute
        // nothing. C: 3 conflict-free reads (consecutive words) per warp, 8 warps in 4
        // blocks, 5 in the last: 3 × 37 = 111. C's stores as above: 135. A's loads: the
        // warps straddle region rows (29 wide) of a 31-wide A, so the whole blocks' are
        // counted from their first warp; the kernel's 650 sectors are those of every
        // warp's 3 reads, lane by lane (enumerated outside the model: per block `b`,
        // region point `(r, c)` at byte `((8b + r)·31 + c + tap)·4` for rows `8b + r <
        // 39`, distinct 32-byte sectors per warp and tap, summed).
        Case {
            name: "odd-blur",
            text: ODD_BLUR,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([1, 1], [8, 32])],
            want: c(111, 50, 650, 135),
            global_ld_exact: false,
        },
        // C reads P[i + j] (37×40 on 8×32 threads, 5 × 2 blocks): P's region starts at
        // 8·bi + 32·bj, 39 points, so whether it reaches past P's 76 depends on both
        // block indices (blocks (1..4, 1) do, (0, 1) and the first column do not). Each
        // block stores its 39 points in 2 warps (a tail of 7): 20. C's warps read 32 (8 in
        // the last column) consecutive words: one per row, 37 × 2 = 74. A's loads: the
        // region's points inside P, 32-byte aligned (8·bi + 32·bj floats): 5 sectors in
        // the first column's blocks and at bj = 1 for starts 32 and 40 (39 and 36 points),
        // then 28, 20 and 12 points: 4, 3, 2: 25 + 19 = 44 (as `staged_sectors` counts).
        // C's stores as on 37×40: 185.
        // (`staged_sectors_counts_the_hand_derived_skew` checks the enumeration gives 44.)
        Case {
            name: "skewed",
            text: SKEWED,
            locs: vec![Loc::Shared(vec![1]), tiling([1, 1], [8, 32])],
            want: c(74, 20, 44, 185),
            global_ld_exact: true,
        },
        // P[i + j, i] (P is 76×37): the region is 39×8, its row dim moving with both
        // block indices as above, its column dim with the row block alone (the last block
        // row's columns 32..39 reach past 36); 312 points, 10 warp stores a block: 100.
        // Lane (r, c) reads word 8·(r + c) + r = 8c + 9r: 4 banks, 8 words each in a
        // 32-lane warp (8 wavefronts), 2 in the last column's 8-lane ones: 37 × (8 + 2) =
        // 370. A's loads (A is 76×40: region rows of 8 floats start 32-byte aligned, one
        // sector per row with a point inside; a warp covers 4 rows): enumerated by
        // `staged_sectors`.
        Case {
            name: "skewed-2d",
            text: SKEWED_2D,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([1, 1], [8, 32])],
            want: c(
                370,
                100,
                staged_sectors(
                    (5, 2),
                    &|bi, bj| (8 * bi + 32 * bj, 8 * bi),
                    (39, 8),
                    (76, 37),
                    40,
                ),
                185,
            ),
            global_ld_exact: true,
        },
        // A column sum (a reduction anchor) reading a block-level producer P: C's 32
        // threads have a serial tile of 4 along j, and P's tile has j indexing its last
        // dim alone, but P is a shared stage read in place a word at a time, not a staged
        // tile read 16 bytes at a time, so the lowering keeps the threads interleaved
        // (`StagePlan::unblock_unstaged`; before, it gave each thread the run 4t .. 4t + 3
        // and paid 4-way bank conflicts: 1024 loads). At each i and point l, lane t reads
        // word 128·i + t + 32l, 32 consecutive words, 1 wavefront: 4 points × 32 rows × 2
        // blocks = 256. C's stores: 4 sectors a warp per point, 4 × 2 × 4 = 32. P's 32×128
        // region by 32 threads flat: 128 warp turns a block, 1 wavefront and 4 sectors of
        // A each: 256 and 1024.
        Case {
            name: "colsum-stage-serial-4",
            text: COLSUM,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([4], [32])],
            want: c(256, 256, 1024, 32),
            global_ld_exact: true,
        },
        // The same column sum with serial 2 on 64 threads (2 is not a multiple of 4, so
        // nothing could be blocked anyway): each warp's read of P is 32 consecutive
        // words, 1 wavefront: 32 rows × 2 points × 2 warps × 2 blocks = 256; stores 4
        // sectors each: 2 × 2 × 4 × 2 = 32; P as above.
        Case {
            name: "colsum-interleaved",
            text: COLSUM,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([2], [64])],
            want: c(256, 256, 1024, 32),
            global_ld_exact: true,
        },
        // Serial 4 with a partial last block (200 columns, block tiles of 128): the second
        // block's lane t runs the points 128 + t + 32l < 200 (the lowering guards each
        // point): l = 0 and 1 on 32 lanes, l = 2 on 8, l = 3 on none. Its reads: 3
        // wavefronts a row, the first block's 4: 7 × 32 = 224. Its stores: 4 + 4 + 1
        // sectors (columns 192..199 are one aligned sector), the first block's 16: 25. P's
        // region (32×128 in both blocks; past column 199 it stores 0): 128 warp stores a
        // block, 256; A's rows are 800 bytes (32-byte aligned), the first block's 4 warps
        // a row 4 sectors each, the second's 4, 4, 1 (columns 192..199) and 0: 512 + 288
        // = 800.
        Case {
            name: "colsum-stage-edge",
            text: COLSUM_EDGE,
            locs: vec![Loc::Shared(vec![1, 1]), tiling([4], [32])],
            want: c(224, 256, 800, 25),
            global_ld_exact: true,
        },
    ]
}

/// The 32-byte sectors of a tensor `A` of `shape` (row-major floats) that a block-level
/// stage loads on a `grid` of blocks, enumerated lane by lane (independent of the model):
/// per block, the stage's region of `size` starting at `lo(bi, bj)` is computed flat by
/// 256 threads (warps of 32 consecutive points, a turn per 256), and a region point inside
/// `shape` (the stage's domain) loads `A` (rows of `stride` floats) at its own
/// coordinates; distinct sectors per warp, summed.
fn staged_sectors(
    grid: (i64, i64),
    lo: &dyn Fn(i64, i64) -> (i64, i64),
    size: (i64, i64),
    shape: (i64, i64),
    stride: i64,
) -> u64 {
    let total = size.0 * size.1;
    let mut sectors = 0;
    for bi in 0..grid.0 {
        for bj in 0..grid.1 {
            let (l0, l1) = lo(bi, bj);
            for first in (0..total).step_by(32) {
                let last = (first + 32).min(total).min((first / 256 + 1) * 256);
                let mut seen: Vec<i64> = (first..last)
                    .map(|q| (l0 + q / size.1, l1 + q % size.1))
                    .filter(|&(x, y)| x < shape.0 && y < shape.1)
                    .map(|(x, y)| (x * stride + y) * 4 / 32)
                    .collect();
                seen.sort_unstable();
                seen.dedup();
                sectors += seen.len() as u64;
            }
        }
    }
    sectors
}

/// The lane-by-lane enumeration agrees with the skewed case's hand derivation (44 sectors
/// of A: 5 per block in the first block column; 5, 5, 4, 3, 2 in the second).
#[test]
fn staged_sectors_counts_the_hand_derived_skew() {
    let lo = |bi: i64, bj: i64| (8 * bi + 32 * bj, 0);
    assert_eq!(staged_sectors((5, 2), &lo, (39, 1), (76, 1), 1), 44);
}

/// The model's shared load and store transactions (bank conflicts counted) equal the
/// simulator's wavefronts on the lowered kernel, and both equal the hand-derived counts;
/// global stores too, and global loads where the representative warp is exact.
#[test]
fn shared_features_match_the_simulator_counters() {
    for case in cases() {
        let (model, sim, (model_fp, sim_fp)) = model_and_sim(case.text, &case.locs);
        let name = case.name;
        assert_eq!(sim, case.want, "{name}: the simulator's counts");
        assert_eq!(model.shared_ld, sim.shared_ld, "{name}: shared loads");
        assert_eq!(model.shared_st, sim.shared_st, "{name}: shared stores");
        assert_eq!(model.global_st, sim.global_st, "{name}: global stores");
        assert_eq!(model_fp, sim_fp, "{name}: float operations (points run)");
        if case.global_ld_exact {
            assert_eq!(model.global_ld, sim.global_ld, "{name}: global loads");
        } else {
            // Representative warp: never more than the kernel's, within 10%.
            assert!(
                model.global_ld <= sim.global_ld && 10 * model.global_ld >= 9 * sim.global_ld,
                "{name}: global loads {} vs {}",
                model.global_ld,
                sim.global_ld
            );
        }
    }
}

const COLSUM_DIRECT: &str = "func.func @f(%A: tensor<32x256xf32>) -> tensor<256xf32> {
  %C = te.compute (%j) reduce (%i) in [256, 32] : (tensor<32x256xf32>) -> tensor<256xf32> { te.sum(%A[%i, %j]) }
  func.return %C : tensor<256xf32>
}";

/// A blocked column sum reading A itself (serial 4 × 32 threads, 2 blocks): the lowering
/// stages A's 32×128 tile per block with 16-byte cooperative loads (1024 units, 32 warp
/// requests of 16 sectors: 512 a block, 1024 in all), stores it (256 wavefronts: 8-lane
/// phases of 128 bytes) and reads it a run at a time (one 16-byte load per row and warp,
/// 4 phases: 32 × 4 × 2 = 256). The model counts those cooperative loads (not the blocked
/// lanes' reads 16 bytes apart as global reads: 4096), the tiles' stores and reads, and its
/// stores follow the runs (16 sectors a warp per point: 128).
#[test]
fn blocked_reduction_root_counts_its_staged_reads_coalesced() {
    let (model, sim, (model_fp, sim_fp)) = model_and_sim(COLSUM_DIRECT, &[tiling([4], [32])]);
    let want = Counts {
        shared_ld: 256,
        shared_st: 256,
        global_ld: 1024,
        global_st: 128,
    };
    assert_eq!(sim, want, "the simulator's counts");
    assert_eq!(model, sim, "the model's counts");
    assert_eq!(model_fp, sim_fp, "float operations");
}

const MATMUL: &str = "func.func @f(%A: tensor<64x64xf32>, %B: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %C = te.compute (%i, %j) reduce (%k) in [64, 64, 64] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> { te.sum(%A[%i, %k] * %B[%k, %j]) }
  func.return %C : tensor<64x64xf32>
}";

const ROWSUM: &str = "func.func @f(%A: tensor<256x64xf32>) -> tensor<256xf32> {
  %C = te.compute (%i) reduce (%j) in [256, 64] : (tensor<256x64xf32>) -> tensor<256xf32> { te.sum(%A[%i, %j]) }
  func.return %C : tensor<256xf32>
}";

const ODD_MATMUL: &str = "func.func @f(%A: tensor<37x19xf32>, %B: tensor<19x29xf32>) -> tensor<37x29xf32> {
  %C = te.compute (%i, %j) reduce (%k) in [37, 29, 19] : (tensor<37x19xf32>, tensor<19x29xf32>) -> tensor<37x29xf32> { te.sum(%A[%i, %k] * %B[%k, %j]) }
  func.return %C : tensor<37x29xf32>
}";

const STEPPED_ROWSUM: &str = "func.func @f(%A: tensor<200x300xf32>) -> tensor<200xf32> {
  %C = te.compute (%i) reduce (%j) in [200, 300] : (tensor<200x300xf32>) -> tensor<200xf32> { te.sum(%A[%i, %j] * 2.0) }
  func.return %C : tensor<200xf32>
}";

const RELU_ROWSUM: &str = "func.func @f(%A: tensor<256x64xf32>) -> tensor<256xf32> {
  %S = te.compute (%i) reduce (%j) in [256, 64] : (tensor<256x64xf32>) -> tensor<256xf32> { te.sum(%A[%i, %j]) }
  %C = te.compute (%i) in [256] : (tensor<256xf32>) -> tensor<256xf32> { max(%S[%i], 0.0) }
  func.return %C : tensor<256xf32>
}";

const RELU_COLSUM: &str = "func.func @f(%A: tensor<32x256xf32>) -> tensor<256xf32> {
  %S = te.compute (%j) reduce (%i) in [256, 32] : (tensor<32x256xf32>) -> tensor<256xf32> { te.sum(%A[%i, %j]) }
  %C = te.compute (%j) in [256] : (tensor<256xf32>) -> tensor<256xf32> { max(%S[%j], 0.0) }
  func.return %C : tensor<256xf32>
}";

const BIAS_RELU_ROWSUM: &str = "func.func @f(%A: tensor<200x36xf32>, %b: tensor<200xf32>) -> tensor<200xf32> {
  %S = te.compute (%i) reduce (%j) in [200, 36] : (tensor<200x36xf32>) -> tensor<200xf32> { te.sum(%A[%i, %j]) }
  %C = te.compute (%i) in [200] : (tensor<200xf32>, tensor<200xf32>) -> tensor<200xf32> { max(%S[%i] + %b[%i], 0.0) }
  func.return %C : tensor<200xf32>
}";

/// One staged case: a schedule and the simulator's counts, derived by hand.
struct Staged {
    name: &'static str,
    text: &'static str,
    locs: Vec<Loc>,
    want: Counts,
    fp: u64,
}

/// Reduction anchors reading tensors from outside their kernel (v100: 16-byte units where
/// the tile row, the tensor row and the tile origin allow; no storage padding).
fn staged_cases() -> Vec<Staged> {
    let c = |shared_ld, shared_st, global_ld, global_st| Counts {
        shared_ld,
        shared_st,
        global_ld,
        global_st,
    };
    vec![
        // 64³ matmul, serial 2×4 on 8×16 threads: 16×64 block tiles, 4 blocks, k whole.
        // B's tile has j as its last dim and a thread tile of 4 along j: j is blocked. A's
        // 16×64 tile (256 units) and B's 64×64 (1024) load in 8 + 32 warp requests of 16
        // contiguous sectors: 640 a block; stored 4 wavefronts each (8-lane phases): 160.
        // Per k, a warp (2 i-threads × 16 j-threads) reads A twice (its 2 points along i:
        // rows 64 words apart, one bank, 2 wavefronts each) and B once, 16 bytes a lane
        // (4 phases, 1 wavefront each): 8 × 4 warps × 64 × 4 = 8192. Stores: per point, 16
        // lanes 16 bytes apart on 2 rows: 16 sectors × 8 points × 4 warps × 4 = 2048.
        Staged {
            name: "matmul",
            text: MATMUL,
            locs: vec![tiling([2, 4], [8, 16])],
            want: c(8192, 640, 2560, 2048),
            fp: 2 * 64 * 64 * 64,
        },
        // Row sum of 256×64 on 128 threads (2 blocks, no split: 128 > 64 threads): the
        // 128×64 tile is 64 requests of 16 sectors (1024 a block) and 256 store wavefronts;
        // lane i reads word 64·i + k: one bank, 32 wavefronts per warp and k: 32 × 4 × 64
        // × 2 = 16384. Stores: 4 sectors × 4 warps × 2 = 32.
        Staged {
            name: "rowsum",
            text: ROWSUM,
            locs: vec![tiling([1], [128])],
            want: c(16384, 512, 2048, 32),
            fp: 256 * 64,
        },
        // Column sum, serial 4 × 32 threads (blocked): see
        // `blocked_reduction_root_counts_its_staged_reads_coalesced`.
        Staged {
            name: "colsum-blocked",
            text: COLSUM_DIRECT,
            locs: vec![tiling([4], [32])],
            want: c(256, 256, 1024, 128),
            fp: 256 * 32,
        },
        // Column sum, serial 2 × 64 threads (interleaved): A's 32×128 tile per block (1024
        // units, 32 requests of 16 sectors; 128 store wavefronts); lane t reads word 128·i
        // + t + 64·l: 32 consecutive words, 1 wavefront × 2 warps × 2 points × 32 × 2 =
        // 256; stores 4 sectors × 2 points × 2 warps × 2 = 32.
        Staged {
            name: "colsum-interleaved",
            text: COLSUM_DIRECT,
            locs: vec![tiling([2], [64])],
            want: c(256, 256, 1024, 32),
            fp: 256 * 32,
        },
        // 37×29×19 matmul on 8×32 threads: the block tile is clipped to 8×29 (232 threads),
        // 5 blocks, the last with 5 rows. Scalar units (19 and 29 are not multiples of 4).
        // A (rows of 19 floats, 608 bytes a block: 32-byte aligned): 152 units in 5 warp
        // requests, 4+4+4+4+3 sectors; the last block's 95 inside: 4+4+4: 4 × 19 + 12 =
        // 88. B (the whole 19×29, 551 floats) in 3 turns of 232: chunks of 32 units, 29 +
        // 29 + 11 = 69 sectors a block: 345. Stores: A 5 warps, B 19, a wavefront each
        // (every unit stores, the pad where out of range): 24 × 5 = 120. Per k a warp
        // reads A at 2 rows (words 19 apart: 2 banks, 1 wavefront) and B's row at 29
        // consecutive words: 2 × 8 warps × 19 × 5 = 1520 (the last block's padded rows
        // compute too). Stores: 135 (as `odd-pointwise`).
        Staged {
            name: "odd-matmul",
            text: ODD_MATMUL,
            locs: vec![tiling([1, 1], [8, 32])],
            want: c(1520, 120, 433, 135),
            fp: 2 * 5 * 232 * 19,
        },
        // Row sum of 200×300 (A × 2) on 128 threads: the whole rows overflow shared memory,
        // so k-steps of 64 (5, the last 44 wide), 2 blocks (the second 72 rows). Loads: a
        // request is 2 rows × 16 units; rows are 1200 bytes (odd rows start 16 bytes into
        // a sector): 8 + 9 sectors, the last step 6 + 6: 64 × 80 + 36 × 80 = 8000. Stores:
        // 4 wavefronts a request with every lane in range; the last step's 10 lanes out of
        // range store the pad as 4 scalar stores, 2 wavefronts each (rows 64 words apart),
        // 12 a request; the second block's 28 requests past row 199, 16 each: 1024 + 768 +
        // 4 × (144 + 448) + 432 + 448 = 5040. Reads: 32-way per warp and k: 32 × 300 × 4 ×
        // 2 = 76800. Stores: 16 + 9 sectors.
        Staged {
            name: "stepped-rowsum",
            text: STEPPED_ROWSUM,
            locs: vec![tiling([1], [128])],
            want: c(76800, 5040, 8000, 25),
            fp: 2 * 2 * 128 * 300,
        },
        // The row sum on 32 threads: 64-point reductions on ≤ 64 threads get the
        // cross-thread split (8 lanes, 256 threads, 8 blocks of 32 rows). Loads: 16
        // requests × 16 sectors a block: 2048; stores 64 a block plus the tree's (8 warps
        // store their partials, 4 + 2 + 1 at the levels, 1 wavefront each): 8 × (64 + 15)
        // = 632. Reads: a warp is one lane, 8 k each, 32-way: 8 × 8 × 32 = 2048 a block,
        // plus the tree's (2 reads per active warp per level: 14) and lane 0's result
        // read (1): 8 × 2063 = 16504. Float operations: 256 × 64 and the tree's 7 × 32 per
        // block.
        Staged {
            name: "rowsum-split",
            text: ROWSUM,
            locs: vec![tiling([1], [32])],
            want: c(16504, 632, 2048, 32),
            fp: 256 * 64 + 8 * 7 * 32,
        },
        // 64³ matmul, serial 2×2 on 4×8 threads: 32 threads, split 8 (256 threads), 8×16
        // block tiles, 32 blocks; nothing blocked (thread tiles of 2). Loads: A's 8×64
        // tile 4 requests × 16 sectors, B's 64×16 8 requests of 8 rows × 2 sectors: 192 a
        // block. Stores: 4 points × 4 sectors (4 rows of 8 floats) a block. Shared
        // stores: A 16 + B 32 wavefronts, the tree's 4 points × (8 + 4 + 2 + 1): 108 a
        // block. Reads per k (8 a lane; a warp is one lane): A at 2 points (4 rows, one
        // bank: 4 wavefronts each), B at 2 (8 consecutive words: 1): 10 × 8 × 8 warps,
        // the tree's 4 × 2 × 7 and lane 0's 4: 700 a block.
        Staged {
            name: "matmul-split",
            text: MATMUL,
            locs: vec![tiling([2, 2], [4, 8])],
            want: c(22400, 3456, 6144, 512),
            fp: 2 * 64 * 64 * 64 + 32 * 7 * 32 * 4,
        },
        // relu over a row sum computed in its thread level (§4.1 compute_at): the lowering
        // makes the relu the reduction's epilogue, so the kernel is the row sum's (above)
        // with a max per stored point.
        Staged {
            name: "relu-rowsum",
            text: RELU_ROWSUM,
            locs: vec![Loc::Register, tiling([1], [128])],
            want: c(16384, 512, 2048, 32),
            fp: 256 * 64 + 256,
        },
        // relu over the blocked column sum: the reduction's thread map (runs of 4) decides
        // the relu's stores: 128 sectors, as the column sum's own.
        Staged {
            name: "relu-colsum",
            text: RELU_COLSUM,
            locs: vec![Loc::Register, tiling([4], [32])],
            want: c(256, 256, 1024, 128),
            fp: 256 * 32 + 256,
        },
        // relu(rowsum + b) on 200×36: 2 blocks of 128 rows, 16-byte units (9 a row, rows
        // of 144 bytes, a block's tile contiguous): 36 requests of 16 sectors, the second
        // block's 648 units in range 20 × 16 + 4: 900; b read by the epilogue at the
        // stored points: 25. Stores: 144; 80 + (1 + 12) + 15 × 16 = 333. Reads: word 36·i
        // + k: 8 banks, 4-way: 4 × 36 × 4 × 2 = 1152.
        Staged {
            name: "bias-relu-rowsum-odd",
            text: BIAS_RELU_ROWSUM,
            locs: vec![Loc::Register, tiling([1], [128])],
            want: c(1152, 477, 925, 25),
            fp: 2 * 128 * 36 + 2 * 200,
        },
        // A column sum of P = A × 2 fused into it in registers (composed into the staged
        // read of A): as `colsum-interleaved`, two operations a point.
        Staged {
            name: "colsum-of-scaled",
            text: COLSUM,
            locs: vec![Loc::Register, tiling([2], [64])],
            want: c(256, 256, 1024, 32),
            fp: 2 * 256 * 32,
        },
    ]
}

/// The model counts what the lowering runs for reduction anchors reading outside tensors
/// (the staging of `autoschedule_beam::staged`): cooperative loads' sectors, the tiles'
/// shared stores, the compute's shared reads by the thread map, the cross-thread split's
/// tree, every point's arithmetic; each equal to the simulator's counters, which equal
/// the hand derivation.
#[test]
fn staged_reduction_features_match_the_simulator_counters() {
    for case in staged_cases() {
        let (model, sim, (model_fp, sim_fp)) = model_and_sim(case.text, &case.locs);
        let name = case.name;
        assert_eq!(sim, case.want, "{name}: the simulator's counts");
        assert_eq!(sim_fp, case.fp, "{name}: the simulator's float operations");
        assert_eq!(model, sim, "{name}: the model's counts");
        assert_eq!(model_fp, sim_fp, "{name}: the model's float operations");
    }
}
