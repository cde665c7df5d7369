//! Kernels whose shared buffers exceed the 48 KiB a kernel may declare statically take them
//! from dynamic shared memory: one `gpu.dynamic_shared_memory` and one `memref.view` per
//! buffer (16-byte aligned, non-overlapping), the bytes in the launch; the simulator runs
//! them through the views and matches the interpreter; the device's per-block maximum bounds
//! the cross-thread split and refuses what does not fit.

use rtile::ir::{AttrKind, Context, Type, TypeKind};
use rtile_dialects::te::module::parse_computes;
use rtile_passes::construct_rtile::RProgram;
use rtile_passes::lower_to_gpu::kernel::{STATIC_SHARED_LIMIT, shared_layout};
use rtile_passes::lower_to_gpu::{CrossThread, LoweredKernel, lower_compute, lower_compute_with};
use rtile_runtime::sim::run_check_text;

mod common;
use common::{attributions, context, count_ops, entry_args, kernel_text, module_text, ops};

fn compute(text: &str) -> rtile_dialects::te::model::TeCompute {
    parse_computes("t.mlir", text)
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
        .compute
}

fn program(
    device: &str,
    block: &[u64],
    thread: &[u64],
    pad: Vec<Vec<u64>>,
    threads: u64,
) -> RProgram {
    RProgram::manual(device, block, thread, pad, threads)
}

/// A 32x32x256 matmul under one block tile [32, 32, 256]: A's tile 32x260 (pad 4, 33280
/// bytes) and B's 256x33 (pad 1, 33792 bytes) make 67072 bytes.
fn matmul() -> rtile_dialects::te::model::TeCompute {
    compute(
        "func.func @mm(%A: tensor<32x256xf32>, %B: tensor<256x32xf32>) -> tensor<32x32xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [32, 32, 256] may_pad 0.0
         : (tensor<32x256xf32>, tensor<256x32xf32>) -> tensor<32x32xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<32x32xf32>
}",
    )
}

/// `(shape, byte offset, bytes)` of every `memref.view` of the kernel's dynamic shared
/// memory, in order, with the offset read from its constant operand and the size from the
/// view's type (f32 elements, workgroup memory space).
fn views(ctx: &Context, k: &LoweredKernel) -> Vec<(Vec<i64>, u64, u64)> {
    let mut out = Vec::new();
    for op in ops(ctx, k.func) {
        if ctx.op_name(op) != "memref.view" {
            continue;
        }
        let [base, off] = ctx.operands(op) else {
            panic!("memref.view takes the base and an offset");
        };
        let base_op = ctx.defining_op(*base).expect("a base op");
        assert_eq!(ctx.op_name(base_op), "gpu.dynamic_shared_memory");
        let off_op = ctx.defining_op(*off).expect("an offset constant");
        let Some(AttrKind::Integer { value, .. }) =
            ctx.inherent_attr(off_op, "value").map(|x| x.kind())
        else {
            panic!("bad offset constant");
        };
        let TypeKind::MemRef {
            shape,
            elem,
            memory_space,
            ..
        } = (ctx.value_type(ctx.result(op, 0))).kind()
        else {
            panic!("a view is a memref");
        };
        assert_eq!(*elem, Type::f32());
        assert_eq!(
            memory_space.as_deref(),
            Some(&AttrKind::Dialect {
                dialect: "gpu".into(),
                body: "address_space<workgroup>".into()
            })
        );
        let n: i64 = shape.iter().product();
        out.push((shape.clone(), *value as u64, n as u64 * 4));
    }
    out
}

#[test]
fn layout_is_aligned_in_order_and_disjoint() {
    let (offs, total) = shared_layout(&[33280, 33792, 4, 100]);
    assert_eq!(offs, vec![0, 33280, 67072, 67088]);
    assert_eq!(total, 67200);
    assert_eq!(shared_layout(&[]), (vec![], 0));
    let (offs, total) = shared_layout(&[6, 6]);
    assert_eq!((offs, total), (vec![0, 16], 32));
}

#[test]
fn big_tiles_become_views_of_dynamic_shared_memory_and_match() {
    let c = matmul();
    let p = program(
        "h100",
        &[32, 32, 256],
        &[2, 2, 1],
        vec![vec![0, 4], vec![0, 1]],
        256,
    );
    let mut ctx = context();
    let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
    let t = &kernel_text(&ctx, &k);
    assert_eq!(count_ops(&ctx, &k, "gpu.dynamic_shared_memory"), 1, "{t}");
    // A's tile, then B's.
    let v = views(&ctx, &k);
    assert_eq!(
        v,
        vec![
            (vec![32, 260], 0, 32 * 260 * 4),
            (vec![256, 33], 33280, 256 * 33 * 4)
        ],
        "{t}"
    );
    for (i, (_, off, n)) in v.iter().enumerate() {
        assert_eq!(off % 16, 0, "offset {off} is not 16-byte aligned");
        if let Some((_, next, _)) = v.get(i + 1) {
            assert!(off + n <= *next, "views overlap");
        }
    }
    assert!(k.shared_bytes > STATIC_SHARED_LIMIT);
    assert_eq!(k.launch.dynamic_shared_memory, 67072);
    assert_eq!(k.shared_bytes, 67072);
    assert!(t.contains("dynamic_shared_memory = 67072 : i64"), "{t}");
    assert!(t.contains("workgroup_attributions = 0 : i64"), "{t}");
    assert_eq!(attributions(&ctx, &k), 0);
    assert_eq!(entry_args(&ctx, &k).len(), 3, "no attributions: {t}");
    let r = run_check_text("k.mlir", &module_text(&mut ctx, &[k]), 5).expect("runs clean");
    assert!(r.max_rel_err() < 1e-5, "{}", r.text());
}

#[test]
fn small_tiles_stay_static_attributions() {
    let c = matmul();
    let p = program(
        "h100",
        &[32, 32, 64],
        &[2, 2, 1],
        vec![vec![0, 4], vec![0, 1]],
        256,
    );
    let mut ctx = context();
    let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
    let t = kernel_text(&ctx, &k);
    assert!(!t.contains("gpu.dynamic_shared_memory"), "{t}");
    // The entry block's arguments end with A's and B's tiles as workgroup attributions.
    let args: Vec<String> = entry_args(&ctx, &k)
        .iter()
        .map(|&a| rtile::printer::type_to_string(ctx.value_type(a)))
        .collect();
    assert_eq!(attributions(&ctx, &k), 2, "{t}");
    assert_eq!(
        args[3..],
        [
            "memref<32x68xf32, #gpu.address_space<workgroup>>",
            "memref<64x33xf32, #gpu.address_space<workgroup>>"
        ],
        "{t}"
    );
    assert_eq!(k.launch.dynamic_shared_memory, 0);
    assert!(t.contains("dynamic_shared_memory = 0 : i64"));
}

/// The static limit is the device's: 50,432 bytes of tiles (A 32x196, B 192x33) exceed
/// NVIDIA's 48 KiB, so on H100 they are views of dynamic shared memory, but fit the 64 KiB
/// of LDS an AMD kernel declares statically, so on MI250X they stay attributions.
#[test]
fn the_static_shared_limit_is_the_devices() {
    let c = matmul();
    let tiles = |device: &str| {
        let p = program(
            device,
            &[32, 32, 192],
            &[2, 2, 1],
            vec![vec![0, 4], vec![0, 1]],
            256,
        );
        let mut ctx = context();
        let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
        assert_eq!(k.shared_bytes, 50432);
        (
            attributions(&ctx, &k),
            views(&ctx, &k).len(),
            k.launch.dynamic_shared_memory,
        )
    };
    assert_eq!(tiles("h100"), (0, 2, 50432));
    assert_eq!(tiles("mi250x"), (2, 0, 0));
}

/// A 64x`n` row sum; under one block tile [64, n] (64 threads) its tile is 256·n bytes,
/// and the automatic 4-lane cross-thread split adds a 1 KiB reduction buffer.
fn rowsum(n: u64) -> rtile_dialects::te::model::TeCompute {
    compute(&format!(
        "func.func @rs(%I: tensor<64x{n}xf32>) -> tensor<64xf32> {{
  %S = te.compute (%r) reduce (%c) in [64, {n}] may_pad 0.0
         : (tensor<64x{n}xf32>) -> tensor<64xf32> {{
    te.sum(%I[%r, %c])
  }}
  func.return %S : tensor<64xf32>
}}"
    ))
}

#[test]
fn the_split_maximises_resident_threads_within_the_device_limit() {
    // Tiles of exactly 48 KiB, 64 threads. On H100 the 4-lane split's 1 KiB buffer moves the
    // kernel to dynamic shared memory (50176 B): 4 blocks of 256 threads fit a core's 228 KiB,
    // 1024 threads against 256 without the split, so it stays.
    let c = rowsum(192);
    let p = program("h100", &[64, 192], &[1, 192], vec![vec![0, 0]], 64);
    let mut ctx = context();
    let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
    assert_eq!(k.rsplit, 4);
    assert_eq!(k.launch.block.map(|b| b[0]), Some(256));
    assert_eq!(k.shared_bytes, 50176);
    assert_eq!(k.launch.dynamic_shared_memory, 50176);
    let r = run_check_text("rs.mlir", &module_text(&mut ctx, &[k]), 3).expect("runs clean");
    assert!(r.max_rel_err() < 1e-5, "{}", r.text());
    // On V100 no split fits the 48 KiB a block may use next to the tiles: halved away.
    let p = program("v100", &[64, 192], &[1, 192], vec![vec![0, 0]], 64);
    let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
    assert_eq!(k.rsplit, 1);
    assert_eq!(k.shared_bytes, 49152);
    assert_eq!(k.launch.dynamic_shared_memory, 0);
    assert_eq!(count_ops(&ctx, &k, "gpu.dynamic_shared_memory"), 0);
    // Forced on V100 it does not fit: refused, with the numbers.
    let p = program("v100", &[64, 192], &[1, 192], vec![vec![0, 0]], 64);
    let e = lower_compute_with(&mut ctx, &c, &p, "k", CrossThread::Split(4))
        .expect_err("over V100's limit");
    assert_eq!(
        e,
        "the kernel needs 50176 bytes of shared memory per block (with a 4-lane cross-thread reduction buffer), more than the 49152 a block of device 'v100' may use"
    );
    // Tiles of 50 KiB are dynamic anyway: on H100 the split stays, its buffer a view after
    // the tile, and the kernel matches the interpreter.
    let c = rowsum(200);
    let p = program("h100", &[64, 200], &[1, 200], vec![vec![0, 0]], 64);
    let k = lower_compute(&mut ctx, &c, &p, "k").expect("lowers");
    assert_eq!(k.rsplit, 4);
    // The tile, then the reduction buffer: [1 point, 4 lanes, 64 threads].
    assert_eq!(
        views(&ctx, &k),
        vec![(vec![64, 200], 0, 51200), (vec![1, 4, 64], 51200, 1024)],
        "{}",
        kernel_text(&ctx, &k)
    );
    assert_eq!(k.launch.dynamic_shared_memory, 52224);
    assert_eq!(k.launch.block, Some([256, 1, 1]));
    let r = run_check_text("k.mlir", &module_text(&mut ctx, &[k]), 9).expect("runs clean");
    assert!(r.max_rel_err() < 1e-5, "{}", r.text());
}

#[test]
fn kernels_over_the_device_maximum_are_refused() {
    // A 64x1024 tile of f32 is 256 KiB: more than H100's 227 KiB per block.
    let c = compute(
        "func.func @rs(%I: tensor<64x1024xf32>) -> tensor<64xf32> {
  %S = te.compute (%r) reduce (%c) in [64, 1024] may_pad 0.0
         : (tensor<64x1024xf32>) -> tensor<64xf32> {
    te.sum(%I[%r, %c])
  }
  func.return %S : tensor<64xf32>
}",
    );
    let p = program("h100", &[64, 1024], &[1, 1024], vec![vec![0, 0]], 64);
    let mut ctx = context();
    let e = lower_compute(&mut ctx, &c, &p, "k").expect_err("over H100's limit");
    assert_eq!(
        e,
        "the kernel needs 262144 bytes of shared memory per block, more than the 232448 a block of device 'h100' may use"
    );
    // An unknown device has no known limit: refused too.
    let p = program("nosuch", &[64, 16], &[1, 16], vec![vec![0, 0]], 64);
    let e = lower_compute(&mut ctx, &c, &p, "k").expect_err("unknown device");
    assert!(
        e.starts_with("cannot tell how much shared memory a block of device 'nosuch' may use"),
        "{e}"
    );
}
