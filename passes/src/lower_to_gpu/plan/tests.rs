//! Unit tests of the kernel plan: the plans of hand-written H100 programs, checked value by
//! value (no IR is built).

use rtile_dialects::te::model::{Combiner, TeCompute};
use rtile_dialects::te::module::parse_computes;

use super::*;
use crate::construct_rtile::RProgram;
use crate::construct_rtile::device_check::program_device;

fn compute(text: &str) -> TeCompute {
    parse_computes("t.mlir", text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .remove(0)
        .compute
}

/// The plan of `c` under `p` on the device `p` names.
fn plan_of(
    c: &TeCompute,
    p: &RProgram,
    cross: CrossThread,
    prefetch: bool,
    mapping: ThreadMapping,
) -> KernelPlan {
    let device = program_device(p).ok();
    KernelPlan::new(c, p, device.as_ref(), cross, (prefetch, mapping))
        .unwrap_or_else(|e| panic!("plans: {e}"))
}

/// A 1024³ matmul on H100 with 128x128 block tiles, 16-deep k-steps, 8x8 thread tiles and
/// rows padded by 4.
fn matmul() -> (TeCompute, RProgram) {
    let c = compute(
        "func.func @mm(%A: tensor<1024x1024xf32>, %B: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [1024, 1024, 1024]
         : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<1024x1024xf32>
}",
    );
    let p = RProgram::manual(
        "h100",
        &[128, 128, 16],
        &[8, 8, 1],
        vec![vec![0, 4], vec![0, 4]],
        256,
    );
    (c, p)
}

#[test]
fn h100_matmul_plan_has_one_stage_with_its_tiles_per_layer() {
    let (c, p) = matmul();
    let plan = plan_of(&c, &p, CrossThread::Auto, true, ThreadMapping::Auto);
    assert_eq!(plan.device.as_ref().map(|d| d.name.as_str()), Some("h100"));
    assert_eq!(plan.limits.threads_per_block, 1024);
    assert_eq!(plan.stages.len(), 1);
    let stage = &plan.stages[0];
    let names: Vec<&str> = stage.axes.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["m", "n", "k"]);
    let tiles: Vec<(i64, i64, i64)> = stage
        .axes
        .iter()
        .map(|a| (a.block_tile, a.thread_tile, a.threads))
        .collect();
    assert_eq!(tiles, [(128, 8, 16), (128, 8, 16), (16, 1, 1)]);
    assert_eq!(stage.spatial(), [0, 1]);
    assert_eq!(stage.reduction_axes(), [2]);
    // 64 k-steps of 16 along k; 8x8 blocks of 256 threads, no split (256 > 64 threads).
    assert_eq!(stage.k_steps, [(2, 64)]);
    assert_eq!((plan.grid.clone(), plan.blocks), (vec![8, 8], 64));
    assert_eq!((plan.threads, plan.block_threads), (256, 256));
    assert_eq!(
        stage.split,
        CrossThreadPlan {
            axis: Some(2),
            lanes: 1
        }
    );
    assert_eq!(
        stage.body,
        StageBody::Reduction(ReductionPlan {
            combiner: Combiner::Sum,
            axes: vec![2],
            register_tile: RegisterTile::Unrolled { points: 64 },
        })
    );
    assert_eq!(stage.epilogue, Epilogue::StoreRegisterTile);
    assert_eq!(stage.output, OutputTarget::Global);
}

#[test]
fn h100_matmul_plan_stages_both_inputs_in_padded_shared_tiles() {
    let (c, p) = matmul();
    let plan = plan_of(&c, &p, CrossThread::Auto, true, ThreadMapping::Auto);
    let stage = &plan.stages[0];
    let a = stage.shared_read(0).expect("A is staged");
    let b = stage.shared_read(1).expect("B is staged");
    // A[m, k]'s last dim is the reduction axis: no vector reads; B[k, n]'s is n, blocked.
    assert_eq!((a.vector_axis, a.transpose), (None, None));
    assert_eq!((b.vector_axis, b.transpose), (Some(1), None));
    let blocked: Vec<bool> = stage.axes.iter().map(|a| a.blocked).collect();
    assert_eq!(blocked, [false, true, false]);
    // A: 128x16 tile, rows padded to 20; B: 16x128, rows padded to 132; both loaded in
    // 16-byte units.
    let tiles = &plan.staging.tiles;
    assert_eq!(tiles.len(), 2);
    assert_eq!((tiles[0].units.clone(), tiles[0].lanes), (vec![128, 4], 4));
    assert_eq!((tiles[1].units.clone(), tiles[1].lanes), (vec![16, 32], 4));
    assert_eq!(plan.staging.vectorized, [true, true]);
    let bytes: Vec<u64> = plan.shared_buffers.iter().map(|b| b.bytes).collect();
    assert_eq!(bytes, [128 * 20 * 4, 16 * 132 * 4]);
    assert_eq!(plan.shared_bytes, 18688);
    assert_eq!(
        plan.shared_buffers[0].ty.shape(),
        Some(&[128i64, 20][..]),
        "A's shared tile"
    );
    // One k-step's share: 2 units of A and 2 of B per thread, 5 registers each: 20, within
    // the 32-register prefetch cap.
    assert_eq!(tiles[0].per_thread(plan.block_threads), 2);
    assert!(plan.staging.prefetch);
    let off = plan_of(&c, &p, CrossThread::Auto, false, ThreadMapping::Auto);
    assert!(!off.staging.prefetch);
}

#[test]
fn transposed_mapping_transposes_a_and_blocks_m() {
    let (c, p) = matmul();
    let plan = plan_of(&c, &p, CrossThread::Auto, true, ThreadMapping::Transposed);
    let stage = &plan.stages[0];
    let t = stage.shared_read(0).and_then(|r| r.transpose);
    let t = t.expect("A is stored transposed");
    // As[k][m]: m's 128 rows padded to 132 (4P ≡ 16 mod 32: conflict-free scalar stores).
    assert_eq!((t.dim, t.axis, t.pitch), (0, 0, 132));
    let blocked: Vec<bool> = stage.axes.iter().map(|a| a.blocked).collect();
    assert_eq!(blocked, [true, true, false]);
    assert_eq!(plan.shared_buffers[0].ty.shape(), Some(&[16i64, 132][..]));
    assert_eq!(plan.shared_buffers[0].bytes, 16 * 132 * 4);
    let interleaved = plan_of(&c, &p, CrossThread::Auto, true, ThreadMapping::Interleaved);
    assert!(interleaved.stages[0].axes.iter().all(|a| !a.blocked));
}

/// A row sum of 64 rows of 4096 with 32 threads per block: reduction-heavy, few threads.
fn row_sum() -> (TeCompute, RProgram) {
    let c = compute(
        "func.func @rs(%X: tensor<64x4096xf32>) -> tensor<64xf32> {
  %S = te.compute (%i) reduce (%k) in [64, 4096] : (tensor<64x4096xf32>) -> tensor<64xf32> {
    te.sum(%X[%i, %k])
  }
  func.return %S : tensor<64xf32>
}",
    );
    let p = RProgram::manual("h100", &[32, 256], &[1, 256], vec![vec![0, 0]], 32);
    (c, p)
}

#[test]
fn a_reduction_heavy_program_splits_across_threads() {
    let (c, p) = row_sum();
    let plan = plan_of(&c, &p, CrossThread::Auto, true, ThreadMapping::Auto);
    let stage = &plan.stages[0];
    // auto_split: 32 threads, 4096 reduction points: 8 lanes (32 · 8 = 256 threads).
    assert_eq!(
        stage.split,
        CrossThreadPlan {
            axis: Some(1),
            lanes: 8
        }
    );
    assert_eq!((plan.threads, plan.block_threads), (32, 256));
    assert_eq!(stage.epilogue, Epilogue::CrossThreadTree { lanes: 8 });
    // The staged 32x256 tile, then the reduction buffer [points, lanes, threads].
    let last = plan.shared_buffers.last().expect("a reduction buffer");
    assert_eq!(last.slot, crate::lower_to_gpu::context::REDUCTION_SLOT);
    assert_eq!(last.ty.shape(), Some(&[1i64, 8, 32][..]));
    assert_eq!(last.bytes, 1024);
    assert_eq!(plan.shared_bytes, 32 * 256 * 4 + 1024);
    let off = plan_of(&c, &p, CrossThread::Off, true, ThreadMapping::Auto);
    assert_eq!(off.stages[0].split.lanes, 1);
    assert_eq!(off.stages[0].epilogue, Epilogue::StoreRegisterTile);
    assert_eq!(off.shared_buffers.len(), 1);
    let three = KernelPlan::new(
        &c,
        &p,
        plan.device.as_ref(),
        CrossThread::Split(3),
        (true, ThreadMapping::Auto),
    );
    assert_eq!(
        three.err().as_deref(),
        Some("the cross-thread split must be a power of two")
    );
}

#[test]
fn an_elementwise_plan_moves_16_bytes_and_unrolls() {
    let c = compute(
        "func.func @add(%X: tensor<1024x1024xf32>, %Y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %Z = te.compute (%i, %j) in [1024, 1024]
         : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    %X[%i, %j] + %Y[%i, %j]
  }
  func.return %Z : tensor<1024x1024xf32>
}",
    );
    let mut p = RProgram::manual("h100", &[32, 128], &[1, 8], vec![], 512);
    p.staged = false;
    let plan = plan_of(&c, &p, CrossThread::Auto, true, ThreadMapping::Auto);
    let stage = &plan.stages[0];
    assert!(stage.inputs.iter().all(|i| i.source == InputSource::Global));
    assert_eq!(
        stage.body,
        StageBody::Elementwise(ElementwisePlan {
            vector_lanes: 4,
            units: vec![1, 2],
            unroll: vec![1, 2],
        })
    );
    assert_eq!(stage.epilogue, Epilogue::StoreEachPoint);
    assert!(plan.shared_buffers.is_empty());
    assert!(!plan.staging.prefetch);
}

#[test]
fn the_plan_refuses_what_the_device_cannot_run() {
    let (c, mut p) = matmul();
    p.tensor_core = true;
    let dev = program_device(&p).ok();
    let plan = |c: &TeCompute, p: &RProgram| {
        KernelPlan::new(
            c,
            p,
            dev.as_ref(),
            CrossThread::Auto,
            (true, ThreadMapping::Auto),
        )
    };
    assert!(plan(&c, &p).is_err_and(|e| e.contains("tensor-core")));
    let (c, mut p) = matmul();
    p.threads = 128;
    assert_eq!(
        plan(&c, &p).err().as_deref(),
        Some("128 threads do not match the tiles (256)")
    );
    // Tiles over the device's block limit: one point per thread over the 128 x 128 block
    // (as a hand-written tilegraph.kernel can give) said "16384 threads do not match the
    // tiles (16384)".
    let (c, mut p) = matmul();
    p.thread = vec![1; p.block.len()];
    p.threads = p.block[..2].iter().product();
    assert_eq!(p.threads, 16384);
    assert_eq!(
        plan(&c, &p).err().as_deref(),
        Some("the tiles give 16384 threads per block, over the device's 1024")
    );
    // An unreadable device: NVIDIA's limits, no register prefetch.
    let (c, p) = matmul();
    let plan = KernelPlan::new(&c, &p, None, CrossThread::Auto, (true, ThreadMapping::Auto))
        .expect("plans");
    assert!(plan.device.is_none());
    assert_eq!(plan.limits.threads_per_block, 1024);
    assert!(!plan.staging.prefetch);
}
