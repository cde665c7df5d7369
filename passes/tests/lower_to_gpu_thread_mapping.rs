//! The blocked thread-to-point mapping (`--lower-to-gpu` `thread-mapping=auto`, the
//! default): along a spatial axis whose thread tile is a multiple of 4 and which indexes a
//! staged tile's last dim, each thread owns runs of 4 consecutive points, so the compute
//! reads the 4 values of a run with one 16-byte `vector.load` from shared memory instead of
//! 4 scalar loads. Both mappings are checked against the te interpreter in the simulator
//! (uninitialised, out-of-bounds and racy shared reads are errors there) and on the loads
//! the compute issues per reduction index.

use rtile::ir::Context;
use rtile_dialects::te::model::TeCompute;
use rtile_dialects::te::module::parse_computes;
use rtile_passes::construct_rtile::RProgram;
use rtile_passes::lower_to_gpu::{
    CrossThread, LowerOptions, LowerToGpu, LoweredKernel, ThreadMapping, lower_compute_opts,
};
use rtile_runtime::sim::run_check_text;

mod common;
use common::{accesses_of, context, entry_args, kernel_text, module_text, shared_buffers};

/// A kernel and the context it is built in.
struct Kernel {
    ctx: Context,
    k: LoweredKernel,
}

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
    RProgram::manual(
        "v100",
        &[32, 64, 16],
        &[4, 8, 1],
        vec![vec![0, 1], vec![0, pad_b]],
        64,
    )
}

fn lower(c: &TeCompute, p: &RProgram, mapping: ThreadMapping, prefetch: bool) -> Kernel {
    lower_split(c, p, mapping, prefetch, CrossThread::Off)
}

fn lower_split(
    c: &TeCompute,
    p: &RProgram,
    mapping: ThreadMapping,
    prefetch: bool,
    cross: CrossThread,
) -> Kernel {
    let opts = LowerOptions {
        cross: Some(cross),
        prefetch,
        thread_mapping: mapping,
        ..LowerOptions::default()
    };
    let mut ctx = context();
    let k = lower_compute_opts(&mut ctx, c, p, "k", opts).unwrap_or_else(|e| panic!("lowers: {e}"));
    Kernel { ctx, k }
}

/// Runs the kernel in the simulator against the interpreter (it moves into a module).
fn check(kern: &mut Kernel, seed: u64) {
    let text = module_text(&mut kern.ctx, std::slice::from_ref(&kern.k));
    let r = run_check_text("k.mlir", &text, seed).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(r.max_rel_err() < 1e-5, "{}\n{text}", r.text());
}

/// The kernel's `gpu.func` in generic form.
fn text_of(kern: &Kernel) -> String {
    kernel_text(&kern.ctx, &kern.k)
}

fn count(text: &str, pat: &str) -> usize {
    text.lines().filter(|l| l.contains(pat)).count()
}

/// The `name` ops whose memref operand (at `index`) is shared buffer `i` (0: A's tile, 1:
/// B's).
fn shared_accesses(kern: &Kernel, name: &str, index: usize, i: usize) -> usize {
    let sh = shared_buffers(&kern.ctx, &kern.k);
    accesses_of(&kern.ctx, &kern.k, name, index, sh[i])
}

/// The `name` ops whose memref operand (at `index`) is the kernel's argument `i` itself
/// (0: A).
fn argument_accesses(kern: &Kernel, name: &str, index: usize, i: usize) -> usize {
    let arg = entry_args(&kern.ctx, &kern.k)[i];
    accesses_of(&kern.ctx, &kern.k, name, index, arg)
}

/// Per reduction index (the compute is unrolled once per k), the loads of A's tile and
/// B's: (scalar A, vector A, scalar B, vector B).
fn compute_loads(kern: &Kernel) -> (usize, usize, usize, usize) {
    (
        shared_accesses(kern, "memref.load", 0, 0),
        shared_accesses(kern, "vector.load", 0, 0),
        shared_accesses(kern, "memref.load", 0, 1),
        shared_accesses(kern, "vector.load", 0, 1),
    )
}

/// 64x64x32 (nothing padded) and 60x72x40 (m, n and k padded: the grid's last column of
/// blocks has guarded stores, k's last step a padding guard): blocked B reads are
/// `TN / 4 = 2` vector loads per reduction index and no scalar ones; interleaved, 8 scalar.
/// A's 4 values stay scalar under `auto`; under `transposed` its tile is stored transposed
/// and they are one vector load too (see `transposed_a_tile_reads_runs_with_vector_loads`).
#[test]
fn blocked_mapping_reads_b_with_vector_loads() {
    for (m, n, k) in [(64, 64, 32), (60, 72, 40)] {
        let c = matmul(m, n, k);
        let p = program(4);
        for prefetch in [true, false] {
            let mut auto = lower(&c, &p, ThreadMapping::Auto, prefetch);
            let mut blocked = lower(&c, &p, ThreadMapping::Transposed, prefetch);
            let mut inter = lower(&c, &p, ThreadMapping::Interleaved, prefetch);
            check(&mut auto, 7);
            check(&mut blocked, 7);
            check(&mut inter, 7);
            let at = text_of(&auto);
            let bt = text_of(&blocked);
            let it = text_of(&inter);
            assert_eq!(compute_loads(&auto), (4, 0, 0, 2), "{m}x{n}x{k}\n{at}");
            assert_eq!(count(&at, "\"vector.extract\""), 8, "{at}");
            assert_eq!(compute_loads(&blocked), (0, 1, 0, 2), "{m}x{n}x{k}\n{bt}");
            assert_eq!(compute_loads(&inter), (4, 0, 8, 0), "{m}x{n}x{k}\n{it}");
            // Every A and B value a point uses is one lane of a vector in the compute
            // (4 + 8 extracts); the cooperative load takes A's vector<4xf32> units apart
            // for the transposed tile's scalar stores (4 more per unit it stores).
            let units_a = argument_accesses(&blocked, "vector.load", 0, 0);
            assert!(units_a > 0, "{bt}");
            assert_eq!(count(&bt, "\"vector.extract\""), 12 + 4 * units_a, "{bt}");
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
    for mapping in [ThreadMapping::Auto, ThreadMapping::Transposed] {
        for split in [2, 4] {
            let mut k = lower_split(&c, &p, mapping, true, CrossThread::Split(split));
            assert_eq!(k.k.rsplit, i64::from(split));
            check(&mut k, 11);
            let t = text_of(&k);
            assert!(shared_accesses(&k, "vector.load", 0, 1) > 0, "{t}");
        }
    }
}

/// A B tile whose padded row is not a multiple of 4 floats (64 + 1) would misalign the
/// runs: auto keeps B's axis `n` interleaved with scalar loads (under `transposed`, A's
/// transposed tile, with its own padding, still takes vector loads along `m`).
#[test]
fn misaligned_row_keeps_interleaved() {
    let c = matmul(64, 64, 32);
    let p = program(1);
    let mut auto = lower(&c, &p, ThreadMapping::Auto, true);
    let mut trans = lower(&c, &p, ThreadMapping::Transposed, true);
    let mut inter = lower(&c, &p, ThreadMapping::Interleaved, true);
    check(&mut auto, 3);
    check(&mut trans, 3);
    check(&mut inter, 3);
    let at = text_of(&auto);
    assert_eq!(compute_loads(&auto), (4, 0, 8, 0), "{at}");
    let t = text_of(&trans);
    assert_eq!(compute_loads(&trans), (0, 1, 8, 0), "{t}");
    assert!(
        t.contains("memref<16x65xf32, #gpu.address_space<workgroup>>"),
        "{t}"
    );
    let it = text_of(&inter);
    assert_eq!(compute_loads(&inter), (4, 0, 8, 0), "{it}");
}

/// The pass option takes `auto`, `transposed` and `interleaved` and refuses anything else.
#[test]
fn thread_mapping_option_values() {
    let mut pass = LowerToGpu::default();
    assert!(pass.set_option("thread-mapping", "interleaved").is_ok());
    assert!(pass.set_option("thread-mapping", "auto").is_ok());
    assert!(pass.set_option("thread-mapping", "transposed").is_ok());
    let e = pass
        .set_option("thread-mapping", "blocked4")
        .expect_err("an unknown mapping is refused");
    assert!(e.contains("thread-mapping"), "{e}");
}

/// Block [32, 64, 16], thread tile [`tm`, 8, 1]; A padded by 1 (the program's padding, for
/// its untransposed rows), B by 4.
fn program_tm(tm: u64) -> RProgram {
    RProgram {
        block: vec![32, 64, 16],
        thread: vec![tm, 8, 1],
        threads: (32 / tm) * 8,
        ..program(4)
    }
}

/// A's tile `[m, k]` is read along `m` (rows apart) while `k`, the reduction, is its last
/// dim: under `auto` it is stored transposed (`As[k][m]`, 16 rows of 32 + 4 floats: see
/// the pitch below), so a thread's runs of 4 along `m` are one 16-byte vector load each:
/// `TM / 4` vector loads and no scalar ones per reduction index; the cooperative load
/// still reads A with `vector<4xf32>` along `k` (coalesced) and stores the 4 lanes as
/// scalars. Unpadded (64x64x32) and padded on m, n and k (60x72x44: a partial last k-step
/// whose tensor row, 44, keeps 16-byte global loads; 61x70x42: scalar global loads), thread
/// tiles 4 and 8 along `m`, with and without prefetch: every kernel matches the interpreter
/// with no race reported.
#[test]
fn transposed_a_tile_reads_runs_with_vector_loads() {
    for (m, n, k) in [(64, 64, 32), (60, 72, 44), (61, 70, 42)] {
        let c = matmul(m, n, k);
        for tm in [4, 8] {
            let p = program_tm(tm);
            for prefetch in [true, false] {
                let mut kr = lower(&c, &p, ThreadMapping::Transposed, prefetch);
                check(&mut kr, 5);
                let t = text_of(&kr);
                let tm = tm as usize;
                assert_eq!(
                    compute_loads(&kr),
                    (0, tm / 4, 0, 2),
                    "{m}x{n}x{k} TM {tm} prefetch {prefetch}\n{t}"
                );
                // The transposed tile: 16 rows (k) of 32 + 4 floats (m).
                assert!(
                    t.contains("memref<16x36xf32, #gpu.address_space<workgroup>>"),
                    "{t}"
                );
                assert!(!t.contains("memref<32x17xf32"), "{t}");
                // Its bytes are the kernel's shared total (with B's 16x68).
                assert_eq!(kr.k.shared_bytes, (16 * 36 + 16 * 68) * 4);
                // A's shared stores are scalar: no vector store into A's tile.
                assert_eq!(shared_accesses(&kr, "vector.store", 1, 0), 0, "{t}");
                assert!(count(&t, "\"memref.store\"") > 0, "{t}");
                // Global reads of A stay 16-byte vectors along k where k's row allows it.
                if k % 4 == 0 {
                    assert!(argument_accesses(&kr, "vector.load", 0, 0) > 0, "{t}");
                } else {
                    assert_eq!(argument_accesses(&kr, "vector.load", 0, 0), 0, "{t}");
                }
                // Interleaved: neither blocked nor transposed (the program's 32x17 A tile).
                let mut it = lower(&c, &p, ThreadMapping::Interleaved, prefetch);
                check(&mut it, 5);
                let itt = text_of(&it);
                assert!(itt.contains("memref<32x17xf32"), "{itt}");
                assert_eq!(compute_loads(&it), (tm, 0, 8, 0), "{itt}");
            }
        }
    }
}

/// Where it does not apply A keeps the program's layout and scalar reads: a thread tile
/// of 2 along `m` (no run of 4), and `m` read with a stride (`A[2m, k]`: not a plain tile).
#[test]
fn transposed_a_tile_only_where_it_applies() {
    let c = matmul(64, 64, 32);
    let p = program_tm(2);
    let mut kr = lower(&c, &p, ThreadMapping::Transposed, true);
    check(&mut kr, 9);
    let t = text_of(&kr);
    assert!(t.contains("memref<32x17xf32"), "{t}");
    assert_eq!(compute_loads(&kr), (2, 0, 0, 2), "{t}");
    assert_eq!(kr.k.shared_bytes, (32 * 17 + 16 * 68) * 4);

    let text = "func.func @mm(%A: tensor<128x32xf32>, %B: tensor<32x64xf32>) -> tensor<64x64xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [64, 64, 32] may_pad 0.0
         : (tensor<128x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32> {
    te.sum(%A[2 * %m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<64x64xf32>
}";
    let c = parse_computes("t.mlir", text)
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
        .compute;
    let p = RProgram {
        pad: vec![vec![0, 0], vec![0, 4]],
        ..program_tm(4)
    };
    let mut kr = lower(&c, &p, ThreadMapping::Transposed, true);
    check(&mut kr, 9);
    let t = text_of(&kr);
    assert_eq!(shared_accesses(&kr, "vector.load", 0, 0), 0, "{t}");
    assert!(shared_accesses(&kr, "memref.load", 0, 0) > 0, "{t}");
}

/// The transposed tile's row pitch is chosen against bank conflicts of the cooperative
/// load's scalar stores: a k-tile of 16 (4 vector units per row of A, a warp covering 8
/// rows m) with a 64-float m tile gets 68 (≡ 4 mod 8: the 4 units of a row fall 2 to a
/// bank group, where 64 would put all 4 on the same banks), a k-tile of 8 gets 68 too; and
/// a k-tile of 2 (scalar units, a warp covering 16 rows m and both k) gets 80 (2 rows 80
/// words apart: banks m and m + 16).
#[test]
fn transposed_tile_pitch() {
    let cases = [
        (vec![64, 64, 16], vec![4, 8, 1], 32u64, 68),
        (vec![64, 64, 8], vec![4, 8, 1], 32, 68),
        (vec![64, 64, 2], vec![4, 8, 1], 32, 80),
    ];
    for (block, thread, k, pitch) in cases {
        let c = matmul(64, 64, k);
        let p = RProgram {
            threads: (block[0] / thread[0]) * (block[1] / thread[1]),
            block: block.clone(),
            thread,
            ..program(4)
        };
        let mut kr = lower(&c, &p, ThreadMapping::Transposed, true);
        check(&mut kr, 13);
        let t = text_of(&kr);
        let ty = format!(
            "memref<{}x{pitch}xf32, #gpu.address_space<workgroup>>",
            block[2]
        );
        assert!(t.contains(&ty), "{ty}\n{t}");
    }
}
