//! The numerical suite of `--lower-to-gpu`: every compute of the small twins of Roller's
//! Table 1 (`bench/ops/roller-table1-small.mlir`), under every one of its top-k programs on
//! the V100 and H100 descriptions, lowered to a gpu.func and run in the CPU GPU-simulator,
//! matches the te interpreter's f64 oracle (relative error < 1e-5), with no simulator error;
//! plus proptest-generated shapes (primes, 1, non-multiples of the tile).

use rtile_dialects::te::module::parse_computes;
use rtile_passes::construct_rtile::{ConstructOptions, RProgram, construct};
use rtile_passes::device::Device;
use rtile_passes::lower_to_gpu::kernel::MAX_UNROLLED_POINTS;
use rtile_passes::lower_to_gpu::{CrossThread, expr_info, lower_compute, lower_compute_with};
use rtile_runtime::sim::run_check_text;

mod common;
use common::{accesses_of, context, count_ops, kernel_text, module_text, shared_buffers};

fn suite() -> Vec<rtile_dialects::te::module::FoundCompute> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench/ops/roller-table1-small.mlir");
    parse_computes(
        "roller-table1-small.mlir",
        &std::fs::read_to_string(p).expect("suite file"),
    )
    .unwrap_or_else(|e| panic!("suite parses: {e}"))
}

#[test]
fn small_twins_all_top_k_programs_match_the_interpreter() {
    let mut failures = Vec::new();
    let mut kernels = 0;
    let (mut staged, mut vectorized, mut fused, mut multi_k, mut split) = (0, 0, 0, 0, 0);
    let mut prefetched = 0;
    for dev_name in ["v100", "h100"] {
        let dev = Device::builtin(dev_name).expect("device");
        for sc in suite() {
            let c = &sc.compute;
            let info = expr_info(c);
            let res = construct(&info, &dev, &ConstructOptions::default()).expect("construct");
            assert!(!res.programs.is_empty(), "{}: no programs", sc.func);
            for (pi, p) in res.programs.iter().enumerate() {
                let tag = format!(
                    "{dev_name} @{}/%{} program {pi} ({:?} {:?} pad {:?} axes {:?})",
                    sc.func, sc.result, p.block, p.thread, p.pad, p.axes
                );
                let mut ctx = context();
                let k = match lower_compute(&mut ctx, c, p, "k") {
                    Ok(k) => k,
                    Err(e) => {
                        failures.push(format!("{tag}: lowering failed: {e}"));
                        continue;
                    }
                };
                staged += usize::from(k.staged.iter().any(|&s| s));
                vectorized += usize::from(k.vectorized.iter().any(|&s| s));
                fused += usize::from(p.axes.iter().any(|a| a.contains('*')));
                multi_k += usize::from(count_ops(&ctx, &k, "gpu.barrier") > 1);
                // The cross-thread reduction's buffer: a shared buffer after the staged
                // tiles, [points, lanes, threads] with `rsplit` lanes.
                let bufs = shared_buffers(&ctx, &k);
                let tiles = k.staged.iter().filter(|&&s| s).count();
                split += usize::from(
                    bufs.len() > tiles && k.rsplit > 1 && {
                        let t = ctx.value_type(bufs[bufs.len() - 1]);
                        t.shape().is_some_and(|s| {
                            s.len() == 3
                                && s[1] == k.rsplit
                                && k.launch.block.map(|b| i64::from(b[0])) == Some(s[1] * s[2])
                        })
                    },
                );
                prefetched += usize::from(k.prefetched);
                if std::env::var("PEEK").is_ok_and(|v| tag.contains(&v)) {
                    eprintln!("{tag}\n{}", kernel_text(&ctx, &k));
                }
                let text = module_text(&mut ctx, &[k]);
                kernels += 1;
                if let Ok(dir) = std::env::var("DUMP_KERNELS") {
                    let f = format!("{dir}/{dev_name}_{}_{}_{pi}.mlir", sc.func, sc.result);
                    std::fs::write(f, &text).expect("dump");
                }
                match run_check_text("k.mlir", &text, 7 + pi as u64) {
                    Ok(r) if r.max_rel_err() < 1e-5 => {}
                    Ok(r) => {
                        failures.push(format!("{tag}: max relative error {:e}", r.max_rel_err()))
                    }
                    Err(e) => failures.push(format!("{tag}: {e}\n{text}")),
                }
            }
        }
    }
    eprintln!(
        "{kernels} kernels: {staged} staged, {vectorized} vectorised, {fused} over fused axes, {multi_k} with several barriers, {split} with a cross-thread reduction, {prefetched} register-prefetched"
    );
    assert!(staged > 0 && vectorized > 0 && fused > 0 && multi_k > 0 && split > 0);
    // (At these sizes every program holds the whole reduction in one block, so none takes
    // the register-prefetch form: lower_to_gpu_prefetch.rs covers it.)
    assert!(
        failures.is_empty(),
        "{} of {kernels} kernels failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(kernels > 100, "only {kernels} kernels");
}

/// A tensor read twice through the same index map is one distinct read (te already merges
/// such accesses): one shared tile, one `pad` entry (as `#rtile.program` counts them), and
/// the kernel matches.
#[test]
fn repeated_read_shares_one_shared_tile() {
    let text = "func.func @sq(%A: tensor<9x20xf32>) -> tensor<9xf32> {
  %S = te.compute (%m) reduce (%k) in [9, 20] may_pad 0.0
         : (tensor<9x20xf32>) -> tensor<9xf32> {
    te.sum(%A[%m, %k] * %A[%m, %k])
  }
  func.return %S : tensor<9xf32>
}";
    let sc = parse_computes("t.mlir", text).unwrap_or_else(|e| panic!("{e}"));
    let c = &sc[0].compute;
    let info = expr_info(c);
    assert_eq!(info.inputs.len(), 1, "one distinct read");
    assert_eq!(rtile_dialects::rtile::verify::distinct_reads(c), vec![0]);
    let p = RProgram {
        grid: vec![3],
        ..RProgram::manual("v100", &[3, 8], &[1, 1], vec![vec![0, 1]], 3)
    };
    let mut ctx = context();
    let k = lower_compute(&mut ctx, c, &p, "k").expect("lowers");
    // Exactly one shared buffer: the workgroup attribution of the one distinct read.
    let bufs: Vec<String> = shared_buffers(&ctx, &k)
        .iter()
        .map(|&b| rtile::printer::type_to_string(ctx.value_type(b)))
        .collect();
    assert_eq!(
        bufs,
        vec!["memref<3x9xf32, #gpu.address_space<workgroup>>".to_string()],
        "{}",
        kernel_text(&ctx, &k)
    );
    let r = run_check_text("sq.mlir", &module_text(&mut ctx, &[k]), 3).expect("runs clean");
    assert!(r.max_rel_err() < 1e-5, "{}", r.text());
}

/// On V100 (48 KiB of shared memory per block) every Table-1 operator at the paper's size
/// lowers, under its best program, to a kernel whose static shared memory fits the 48 KiB a
/// kernel may declare (the automatic cross-thread split shrinks its reduction buffer to fit):
/// ptxas accepts all of them for sm_70.
#[test]
fn v100_table1_kernels_fit_static_shared_memory() {
    let p =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/ops/roller-table1.mlir");
    let found = parse_computes(
        "roller-table1.mlir",
        &std::fs::read_to_string(p).expect("suite"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let dev = Device::builtin("v100").expect("v100");
    let mut over = Vec::new();
    for f in &found {
        let info = expr_info(&f.compute);
        let res = construct(
            &info,
            &dev,
            &ConstructOptions {
                top_k: 1,
                ..ConstructOptions::default()
            },
        )
        .expect("construct");
        let k = lower_compute(&mut context(), &f.compute, &res.programs[0], "k").expect("lowers");
        if k.shared_bytes > rtile_passes::lower_to_gpu::kernel::STATIC_SHARED_LIMIT {
            over.push(format!("@{}: {} bytes", f.func, k.shared_bytes));
        }
    }
    assert_eq!(found.len(), 34);
    assert!(over.is_empty(), "over 48 KiB: {over:?}");
}

fn matmul_program(block: [u64; 3], thread: [u64; 3], staged: bool) -> RProgram {
    let threads = (block[0] / thread[0]) * (block[1] / thread[1]);
    RProgram {
        staged,
        ..RProgram::manual(
            "v100",
            &block,
            &thread,
            vec![vec![0, 1], vec![0, 4]],
            threads,
        )
    }
}

fn matmul(elem: &str, body: &str) -> String {
    format!(
        "func.func @mm(%A: tensor<13x19x{elem}>, %B: tensor<19x22x{elem}>) -> tensor<13x22x{elem}> {{
  %C = te.compute (%m, %n) reduce (%k) in [13, 22, 19] may_pad 0.0
         : (tensor<13x19x{elem}>, tensor<19x22x{elem}>) -> tensor<13x22x{elem}> {{
    te.sum({body})
  }}
  func.return %C : tensor<13x22x{elem}>
}}"
    )
}

/// The register tile (Roller §4, the register layer) on a matmul whose m, n and k are all
/// padded by the tiles: a 4x6 thread tile is unrolled (accumulators as `iter_args`, no
/// private array; per reduction index one shared load per row of A and per column of B, 24
/// multiplies), with and without a cross-thread split; a 16x16 tile (256 points, over
/// `MAX_UNROLLED_POINTS`) keeps the loop form over a private array; a direct (unstaged)
/// program guards each point's global reads. All match the interpreter.
#[test]
fn register_tile_unrolled_and_loop_forms_match_the_interpreter() {
    let sc = parse_computes("t.mlir", &matmul("f32", "%A[%m, %k] * %B[%k, %n]"))
        .unwrap_or_else(|e| panic!("{e}"));
    let c = &sc[0].compute;
    let count = |t: &str, s: &str| t.matches(s).count();
    let check = |ctx: &mut rtile::ir::Context, k: rtile_passes::lower_to_gpu::LoweredKernel| {
        let r = run_check_text("mm.mlir", &module_text(ctx, &[k]), 5).expect("runs clean");
        assert!(r.max_rel_err() < 1e-5, "{}", r.text());
    };
    for cross in [CrossThread::Off, CrossThread::Split(4)] {
        let mut ctx = context();
        let k = lower_compute_with(
            &mut ctx,
            c,
            &matmul_program([16, 24, 8], [4, 6, 1], true),
            "k",
            cross,
        )
        .expect("lowers");
        let t = kernel_text(&ctx, &k);
        assert!(!t.contains("memref.alloca"), "{t}");
        // The k-step loop and the in-tile reduction loop carry the 24 accumulators.
        assert_eq!(count(&t, ":24 = \"scf.for\""), 2, "{t}");
        // Loads of A's shared tile (the first buffer) and B's (the second).
        let sh = shared_buffers(&ctx, &k);
        assert_eq!(accesses_of(&ctx, &k, "memref.load", 0, sh[0]), 4, "{t}");
        assert_eq!(accesses_of(&ctx, &k, "memref.load", 0, sh[1]), 6, "{t}");
        assert_eq!(count(&t, "\"arith.mulf\""), 24, "{t}");
        check(&mut ctx, k);
    }
    let big = matmul_program([16, 16, 8], [16, 16, 1], true);
    const { assert!(256 > MAX_UNROLLED_POINTS) };
    for cross in [CrossThread::Off, CrossThread::Split(2)] {
        let mut ctx = context();
        let k = lower_compute_with(&mut ctx, c, &big, "k", cross).expect("lowers");
        let t = kernel_text(&ctx, &k);
        assert!(
            t.contains(
                "\"memref.alloca\"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<256xf32>"
            ),
            "{t}"
        );
        check(&mut ctx, k);
    }
    // Direct reads: each point's loads are guarded on the padded m and n.
    let mut ctx = context();
    let k = lower_compute_with(
        &mut ctx,
        c,
        &matmul_program([16, 24, 8], [4, 6, 1], false),
        "k",
        CrossThread::Off,
    )
    .expect("lowers");
    let t = kernel_text(&ctx, &k);
    assert!(!t.contains("memref.alloca"), "{t}");
    assert!(count(&t, "\"scf.if\"") >= 24, "{t}");
    check(&mut ctx, k);
}

/// An integer division in the body is not evaluated past the tensor's extent, where the
/// staged tile holds the pad value 0 (`arith.divsi` by zero is undefined in LLVM): the
/// unrolled points are guarded then; a float body is not.
#[test]
fn trapping_bodies_keep_the_point_guard() {
    let p = matmul_program([16, 24, 8], [4, 6, 1], true);
    let guards = |text: &str| {
        let sc = parse_computes("t.mlir", text).unwrap_or_else(|e| panic!("{e}"));
        let mut ctx = context();
        let k = lower_compute_with(&mut ctx, &sc[0].compute, &p, "k", CrossThread::Off)
            .expect("lowers");
        // The guards inside the reduction loop yield the point's accumulator.
        count_ops(&ctx, &k, "scf.if")
    };
    let int = guards(&matmul("i32", "%A[%m, %k] / (%B[%k, %n] + 1)"));
    let float = guards(&matmul("f32", "%A[%m, %k] / (%B[%k, %n] + 1.0)"));
    assert!(int >= float + 24, "int {int} float {float}");
}

fn relu(n: i64, c: i64, h: i64, w: i64) -> String {
    format!(
        "func.func @relu(%I: tensor<{n}x{c}x{h}x{w}xf32>) -> tensor<{n}x{c}x{h}x{w}xf32> {{
  %O = te.compute (%n, %c, %h, %w) in [{n}, {c}, {h}, {w}] may_pad 0.0
         : (tensor<{n}x{c}x{h}x{w}xf32>) -> tensor<{n}x{c}x{h}x{w}xf32> {{
    te.max(%I[%n, %c, %h, %w], 0.0)
  }}
  func.return %O : tensor<{n}x{c}x{h}x{w}xf32>
}}"
    )
}

fn fused_program(block: u64, thread: u64) -> RProgram {
    RProgram {
        device: "h100".into(),
        axes: vec!["n*c*h*w".into()],
        block: vec![block],
        thread: vec![thread],
        pad: vec![vec![0]],
        grid: vec![],
        threads: block / thread,
        tensor_core: false,
        mma: None,
        staged: false,
        epsilon: 0.0,
        est_us: 1.0,
        footprint: [0; 3],
        traffic: [0; 3],
        device_file: None,
    }
}

/// The memory-bound elementwise kernel (Table 1's e0 shape, a relu over four axes fused
/// into one): the fused index addresses `memref.collapse_shape` views of the tensors, so
/// no `divui`/`remui` delinearizes it; a thread's points are unrolled with every load
/// written before the first use; with a multiple-of-4 extent the thread moves 16-byte
/// vectors. On a grid padded past the extent (a guarded last block) and on an odd extent
/// (scalar points, a guard per point) both match the interpreter.
#[test]
fn elementwise_kernels_collapse_unroll_and_vectorize() {
    let check = |text: &str, p: &RProgram| -> String {
        let sc = parse_computes("t.mlir", text).unwrap_or_else(|e| panic!("{e}"));
        let mut ctx = context();
        let k = lower_compute(&mut ctx, &sc[0].compute, p, "k").expect("lowers");
        let t = kernel_text(&ctx, &k);
        let r = run_check_text("e.mlir", &module_text(&mut ctx, &[k]), 7).expect("runs clean");
        assert_eq!(r.max_rel_err(), 0.0, "{}", r.text());
        assert!(!t.contains("arith.divui"), "{t}");
        assert!(!t.contains("arith.remui"), "{t}");
        assert!(t.contains("\"memref.collapse_shape\""), "{t}");
        t
    };
    // 2·3·5·8 = 240 points, tiles of 64: four blocks, the last one padded.
    let t = check(&relu(2, 3, 5, 8), &fused_program(64, 16));
    assert_eq!(t.matches("\"vector.load\"").count(), 4, "{t}");
    assert_eq!(t.matches("\"vector.store\"").count(), 4, "{t}");
    assert!(!t.contains("\"memref.load\""), "{t}");
    // Each vector load guarded (the padded block), all four written before the first store.
    let first_store = t.find("\"vector.store\"").unwrap_or(0);
    assert_eq!(
        t[..first_store].matches("\"vector.load\"").count(),
        4,
        "{t}"
    );
    // 3·5·7 = 105 points (odd): scalar points, 16 per thread in two unrolled halves of 8.
    let t = check(&relu(1, 3, 5, 7), &fused_program(64, 16));
    assert!(!t.contains("\"vector.load\""), "{t}");
    assert_eq!(t.matches("\"memref.load\"").count(), 8, "{t}");
    let first_store = t.find("\"memref.store\"").unwrap_or(0);
    assert_eq!(
        t[..first_store].matches("\"memref.load\"").count(),
        8,
        "{t}"
    );
}

/// A head transpose (`T[b, h, s, d] = X[b, s, h, d]`, Table 1's transpose shape) whose
/// axes cannot fuse: with a thread tile of 2 along `d` and 4 along `s`, the unrolling goes
/// past the innermost axis, so the thread's 8 points of one (b, h) are all loaded before the
/// first store (8 loads in flight, not 2). The last block along `s` is padded (guards).
#[test]
fn elementwise_unrolling_spans_several_axes() {
    let text = "func.func @t(%X: tensor<2x12x3x4xf32>) -> tensor<2x3x12x4xf32> {
  %T = te.compute (%b, %h, %s, %d) in [2, 3, 12, 4]
         : (tensor<2x12x3x4xf32>) -> tensor<2x3x12x4xf32> {
    %X[%b, %s, %h, %d]
  }
  func.return %T : tensor<2x3x12x4xf32>
}";
    let sc = parse_computes("t.mlir", text).unwrap_or_else(|e| panic!("{e}"));
    let p = RProgram {
        axes: vec!["b".into(), "h".into(), "s".into(), "d".into()],
        block: vec![1, 3, 8, 4],
        thread: vec![1, 1, 4, 2],
        pad: vec![vec![0, 0, 0, 0]],
        threads: 3 * 2 * 2,
        ..fused_program(4, 1)
    };
    let mut ctx = context();
    let k = lower_compute(&mut ctx, &sc[0].compute, &p, "k").expect("lowers");
    let t = kernel_text(&ctx, &k);
    let r = run_check_text("t.mlir", &module_text(&mut ctx, &[k]), 3).expect("runs clean");
    assert_eq!(r.max_rel_err(), 0.0, "{}", r.text());
    assert_eq!(t.matches("\"memref.load\"").count(), 8, "{t}");
    let first_store = t.find("\"memref.store\"").unwrap_or(0);
    assert_eq!(
        t[..first_store].matches("\"memref.load\"").count(),
        8,
        "{t}"
    );
    // Both the s and d point loops are unrolled away: no loop is left.
    assert!(!t.contains("\"scf.for\""), "{t}");
}

/// The taps of a stencil (reads of one tensor at constant offsets) are one read group: the
/// construction counts one `(block + halo)` box per block (Roller §3.1's data tile), and the
/// lowering stages exactly that box once, each tap reading it at its own offset. So the
/// kernel's shared memory is the program's shared footprint, and the kernel matches the
/// interpreter on every top-10 program on V100 and H100. The taps have negative offsets
/// (read through a pad value) and a box of 3×4 at (y − 1, x − 1); the same tensor read
/// without the pad value, and a second tensor, are reads of their own.
#[test]
fn stencil_taps_are_staged_once_as_their_union_box() {
    let text = "func.func @st(%I: tensor<35x42xf32>, %W: tensor<35x42xf32>) -> tensor<35x42xf32> {
  %S = te.compute (%y, %x) in [35, 42] : (tensor<35x42xf32>, tensor<35x42xf32>) -> tensor<35x42xf32> {
    (%I[%y - 1, %x + 2] pad 0.0 - %I[%y, %x] pad 0.0 * 2.0 + %I[%y + 1, %x - 1] pad 0.0 + %I[%y, %x + 1] pad 0.0) * %W[%y, %x] + %I[%y, %x]
  }
  func.return %S : tensor<35x42xf32>
}";
    let sc = parse_computes("t.mlir", text).unwrap_or_else(|e| panic!("{e}"));
    let c = &sc[0].compute;
    let info = expr_info(c);
    assert_eq!(
        info.inputs.len(),
        3,
        "four taps of I are one read; W; I unpadded"
    );
    assert_eq!(
        rtile_dialects::rtile::verify::distinct_reads(c),
        vec![0, 4, 5]
    );
    let mut checked = 0;
    for dev_name in ["v100", "h100"] {
        let dev = Device::builtin(dev_name).expect("device");
        let res = construct(&info, &dev, &ConstructOptions::default()).expect("construct");
        assert!(!res.programs.is_empty());
        for (pi, p) in res.programs.iter().enumerate() {
            let tag = format!(
                "{dev_name} program {pi} {:?} {:?} pad {:?}",
                p.block, p.thread, p.pad
            );
            assert!(p.staged, "{tag}: a stencil has reuse");
            let mut ctx = context();
            let k = lower_compute(&mut ctx, c, p, "k").unwrap_or_else(|e| panic!("{tag}: {e}"));
            // One shared buffer per read group: I's box (block + halo 2 and 3), W's and
            // the unpadded I's tiles.
            let (by, bx) = (p.block[0], p.block[1]);
            let dims = |r: usize, hy: u64, hx: u64| (by + hy + p.pad[r][0], bx + hx + p.pad[r][1]);
            let tiles = [dims(0, 2, 3), dims(1, 0, 0), dims(2, 0, 0)];
            let bufs: Vec<String> = shared_buffers(&ctx, &k)
                .iter()
                .map(|&b| rtile::printer::type_to_string(ctx.value_type(b)))
                .collect();
            let want: Vec<String> = tiles
                .iter()
                .map(|(h, w)| format!("memref<{h}x{w}xf32, #gpu.address_space<workgroup>>"))
                .collect();
            assert_eq!(bufs, want, "{tag}");
            // The construction's shared footprint is what the kernel declares.
            let bytes: u64 = tiles.iter().map(|(h, w)| h * w * 4).sum();
            assert_eq!(p.footprint[1], bytes, "{tag}");
            assert_eq!(k.shared_bytes, bytes, "{tag}");
            let r = run_check_text("st.mlir", &module_text(&mut ctx, &[k]), 11 + pi as u64)
                .unwrap_or_else(|e| panic!("{tag}: {e}"));
            assert!(r.max_rel_err() < 1e-5, "{tag}: {}", r.text());
            checked += 1;
        }
    }
    // At least one program per device (the shape is small: 3 in all today).
    assert!(checked >= 2, "only {checked} programs");
}
