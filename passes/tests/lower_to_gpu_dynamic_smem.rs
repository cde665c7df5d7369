//! Kernels whose shared buffers exceed the 48 KiB a kernel may declare statically take them
//! from dynamic shared memory: one `gpu.dynamic_shared_memory` and one `memref.view` per
//! buffer (16-byte aligned, non-overlapping), the bytes in the launch; the simulator runs
//! them through the views and matches the interpreter; the device's per-block maximum bounds
//! the cross-thread split and refuses what does not fit.

use rtile_dialects::te::module::parse_computes;
use rtile_passes::construct_rtile::RProgram;
use rtile_passes::lower_to_gpu::kernel::{STATIC_SHARED_LIMIT, shared_layout};
use rtile_passes::lower_to_gpu::{CrossThread, lower_compute, lower_compute_with, module_text};
use rtile_runtime::sim::run_check_text;

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

/// `(name, byte offset, bytes)` of every `memref.view` in a kernel's text, with the offset
/// read from its `%shoff` constant and the size from the view's type (f32 elements).
fn views(text: &str) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        let Some((name, rest)) = line.split_once(" = \"memref.view\"(%shbase, ") else {
            continue;
        };
        let off_name = rest.split(')').next().unwrap_or_default();
        let off_line = text
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with(&format!("{off_name} = ")))
            .unwrap_or_else(|| panic!("no constant {off_name}"));
        let off: u64 = off_line
            .split("value = ")
            .nth(1)
            .and_then(|v| v.split(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("bad offset line {off_line}"));
        let ty = rest.rsplit("-> memref<").next().unwrap_or_default();
        let dims: u64 = ty
            .split('x')
            .take_while(|d| d.parse::<u64>().is_ok())
            .map(|d| d.parse::<u64>().unwrap_or(0))
            .product();
        assert!(ty.contains("f32, #gpu.address_space<workgroup>>"), "{line}");
        out.push((name.to_string(), off, dims * 4));
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
    let k = lower_compute(&c, &p, "k").expect("lowers");
    let t = &k.text;
    assert_eq!(t.matches("\"gpu.dynamic_shared_memory\"").count(), 1, "{t}");
    let v = views(t);
    assert_eq!(
        v,
        vec![
            ("%sh0".to_string(), 0, 32 * 260 * 4),
            ("%sh1".to_string(), 33280, 256 * 33 * 4)
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
    assert!(
        !t.contains(
            "^bb0(%in0: memref<32x256xf32>, %in1: memref<256x32xf32>, %out: memref<32x32xf32>, "
        ),
        "no attributions: {t}"
    );
    let r = run_check_text("k.mlir", &module_text("kernels", &[k]), 5).expect("runs clean");
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
    let k = lower_compute(&c, &p, "k").expect("lowers");
    assert!(!k.text.contains("gpu.dynamic_shared_memory"), "{}", k.text);
    assert!(
        k.text
            .contains("%sh0: memref<32x68xf32, #gpu.address_space<workgroup>>, %sh1: memref<64x33xf32, #gpu.address_space<workgroup>>"),
        "{}",
        k.text
    );
    assert_eq!(k.launch.dynamic_shared_memory, 0);
    assert!(k.text.contains("dynamic_shared_memory = 0 : i64"));
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
    let k = lower_compute(&c, &p, "k").expect("lowers");
    assert_eq!(k.rsplit, 4);
    assert_eq!(k.launch.block[0], 256);
    assert_eq!(k.shared_bytes, 50176);
    assert_eq!(k.launch.dynamic_shared_memory, 50176);
    let r = run_check_text("rs.mlir", &module_text("kernels", &[k]), 3).expect("runs clean");
    assert!(r.max_rel_err() < 1e-5, "{}", r.text());
    // On V100 no split fits the 48 KiB a block may use next to the tiles: halved away.
    let p = program("v100", &[64, 192], &[1, 192], vec![vec![0, 0]], 64);
    let k = lower_compute(&c, &p, "k").expect("lowers");
    assert_eq!(k.rsplit, 1);
    assert_eq!(k.shared_bytes, 49152);
    assert_eq!(k.launch.dynamic_shared_memory, 0);
    assert!(!k.text.contains("gpu.dynamic_shared_memory"));
    // Forced on V100 it does not fit: refused, with the numbers.
    let p = program("v100", &[64, 192], &[1, 192], vec![vec![0, 0]], 64);
    let e = lower_compute_with(&c, &p, "k", CrossThread::Split(4)).expect_err("over V100's limit");
    assert_eq!(
        e,
        "the kernel needs 50176 bytes of shared memory per block (with a 4-lane cross-thread reduction buffer), more than the 49152 a block of device 'v100' may use"
    );
    // Tiles of 50 KiB are dynamic anyway: on H100 the split stays, its buffer a view after
    // the tile, and the kernel matches the interpreter.
    let c = rowsum(200);
    let p = program("h100", &[64, 200], &[1, 200], vec![vec![0, 0]], 64);
    let k = lower_compute(&c, &p, "k").expect("lowers");
    assert_eq!(k.rsplit, 4);
    assert_eq!(
        views(&k.text),
        vec![
            ("%sh0".to_string(), 0, 51200),
            ("%shr".to_string(), 51200, 1024)
        ],
        "{}",
        k.text
    );
    assert_eq!(k.launch.dynamic_shared_memory, 52224);
    assert_eq!(k.launch.block, [256, 1, 1]);
    let r = run_check_text("k.mlir", &module_text("kernels", &[k]), 9).expect("runs clean");
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
    let e = lower_compute(&c, &p, "k").expect_err("over H100's limit");
    assert_eq!(
        e,
        "the kernel needs 262144 bytes of shared memory per block, more than the 232448 a block of device 'h100' may use"
    );
    // An unknown device has no known limit: refused too.
    let p = program("nosuch", &[64, 16], &[1, 16], vec![vec![0, 0]], 64);
    let e = lower_compute(&c, &p, "k").expect_err("unknown device");
    assert!(
        e.starts_with("cannot tell how much shared memory a block of device 'nosuch' may use"),
        "{e}"
    );
}
