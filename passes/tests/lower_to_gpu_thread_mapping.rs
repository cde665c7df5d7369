//! The blocked thread-to-point mapping (`--lower-to-gpu` `thread-mapping=auto`, the
//! default): along a spatial axis whose thread tile is a multiple of 4 and which indexes a
//! staged tile's last dim, each thread owns runs of 4 consecutive points, so the compute
//! reads the 4 values of a run with one 16-byte `vector.load` from shared memory instead of
//! 4 scalar loads. Both mappings are checked against the te interpreter in the simulator
//! (uninitialised, out-of-bounds and racy shared reads are errors there) and on the loads
//! the compute issues per reduction index.

use rtile::pass::Pass;
use rtile_dialects::te::model::TeCompute;
use rtile_dialects::te::module::parse_computes;
use rtile_passes::construct_rtile::RProgram;
use rtile_passes::lower_to_gpu::{
    CrossThread, LowerOptions, LowerToGpu, LoweredKernel, ThreadMapping, lower_compute_opts,
    module_text,
};
use rtile_runtime::sim::run_check_text;

fn matmul(m: u64, n: u64, k: u64) -> TeCompute {
    let text = format!(
        "func.func @mm(%A: tensor<{m}x{k}xf32>, %B: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %C = te.compute (%m, %n) reduce (%k) in [{m}, {n}, {k}] may_pad 0.0
         : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
    te.sum(%A[%m, %k] * %B[%k, %n])
  }}
  func.return %C : tensor<{m}x{n}xf32>
}}"
    );
    parse_computes("t.mlir", &text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .remove(0)
        .compute
}

/// Block [32, 64, 16], thread tile [4, 8, 1] (8·8 = 64 threads); A's tile padded by 1
/// (its rows stay scalar), B's by 4 (a 68-float row keeps every run 16-byte aligned).
fn program(pad_b: u64) -> RProgram {
    RProgram {
        device: "v100".into(),
        device_file: None,
        axes: vec![],
        block: vec![32, 64, 16],
        thread: vec![4, 8, 1],
        pad: vec![vec![0, 1], vec![0, pad_b]],
        grid: vec![],
        threads: 64,
        tensor_core: false,
        staged: true,
        epsilon: 0.0,
        est_us: 1.0,
        footprint: [0; 3],
        traffic: [0; 3],
    }
}

fn lower(c: &TeCompute, p: &RProgram, mapping: ThreadMapping, prefetch: bool) -> LoweredKernel {
    lower_split(c, p, mapping, prefetch, CrossThread::Off)
}

fn lower_split(
    c: &TeCompute,
    p: &RProgram,
    mapping: ThreadMapping,
    prefetch: bool,
    cross: CrossThread,
) -> LoweredKernel {
    let opts = LowerOptions {
        cross: Some(cross),
        prefetch,
        thread_mapping: mapping,
    };
    lower_compute_opts(c, p, "k", opts).unwrap_or_else(|e| panic!("lowers: {e}"))
}

fn check(k: &LoweredKernel, seed: u64) {
    let text = module_text("kernels", std::slice::from_ref(k));
    let r = run_check_text("k.mlir", &text, seed).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(r.max_rel_err() < 1e-5, "{}\n{text}", r.text());
}

fn count(text: &str, pat: &str) -> usize {
    text.lines().filter(|l| l.contains(pat)).count()
}

/// Per reduction index (the compute is unrolled once per k), the loads of A's tile (`%sh0`)
/// and B's (`%sh1`): (scalar A, scalar B, vector B).
fn compute_loads(text: &str) -> (usize, usize, usize) {
    (
        count(text, "\"memref.load\"(%sh0"),
        count(text, "\"memref.load\"(%sh1"),
        count(text, "\"vector.load\"(%sh1"),
    )
}

/// 64x64x32 (nothing padded) and 60x72x40 (m, n and k padded: the grid's last column of
/// blocks has guarded stores, k's last step a padding guard): blocked B reads are
/// `TN / 4 = 2` vector loads per reduction index and no scalar ones; interleaved, 8 scalar.
#[test]
fn blocked_mapping_reads_b_with_vector_loads() {
    for (m, n, k) in [(64, 64, 32), (60, 72, 40)] {
        let c = matmul(m, n, k);
        let p = program(4);
        for prefetch in [true, false] {
            let blocked = lower(&c, &p, ThreadMapping::Auto, prefetch);
            let inter = lower(&c, &p, ThreadMapping::Interleaved, prefetch);
            check(&blocked, 7);
            check(&inter, 7);
            let bt = module_text("kernels", std::slice::from_ref(&blocked));
            let it = module_text("kernels", std::slice::from_ref(&inter));
            assert_eq!(compute_loads(&bt), (4, 0, 2), "{m}x{n}x{k}\n{bt}");
            assert_eq!(compute_loads(&it), (4, 8, 0), "{m}x{n}x{k}\n{it}");
            // Every B value a point uses is one lane of a vector: 8 extracts.
            assert_eq!(count(&bt, "\"vector.extract\""), 8, "{bt}");
            if n % 64 != 0 {
                // The padded n axis: the epilogue's stores are guarded.
                assert!(bt.contains("\"arith.cmpi\""), "{bt}");
            }
        }
    }
}

/// With a cross-thread split the lane-0 epilogue walks the points in a loop: the blocked
/// coordinates there (`j / 4`, `j mod 4` of the loop index) must match the compute's.
#[test]
fn blocked_mapping_with_cross_thread_split() {
    let c = matmul(60, 72, 40);
    let p = program(4);
    for split in [2, 4] {
        let k = lower_split(&c, &p, ThreadMapping::Auto, true, CrossThread::Split(split));
        assert_eq!(k.rsplit, i64::from(split));
        check(&k, 11);
        let t = module_text("kernels", std::slice::from_ref(&k));
        assert!(t.contains("\"vector.load\"(%sh1"), "{t}");
    }
}

/// A B tile whose padded row is not a multiple of 4 floats (64 + 1) would misalign the
/// runs: auto keeps the interleaved mapping and scalar loads (and the same kernel).
#[test]
fn misaligned_row_keeps_interleaved() {
    let c = matmul(64, 64, 32);
    let p = program(1);
    let auto = lower(&c, &p, ThreadMapping::Auto, true);
    let inter = lower(&c, &p, ThreadMapping::Interleaved, true);
    check(&auto, 3);
    assert_eq!(auto.text, inter.text);
    let t = module_text("kernels", std::slice::from_ref(&auto));
    assert_eq!(compute_loads(&t), (4, 8, 0), "{t}");
}

/// The pass option takes `auto` and `interleaved` and refuses anything else.
#[test]
fn thread_mapping_option_values() {
    let mut pass = LowerToGpu::default();
    assert!(pass.set_option("thread-mapping", "interleaved").is_ok());
    assert!(pass.set_option("thread-mapping", "auto").is_ok());
    let e = pass
        .set_option("thread-mapping", "blocked4")
        .expect_err("an unknown mapping is refused");
    assert!(e.contains("thread-mapping"), "{e}");
}
