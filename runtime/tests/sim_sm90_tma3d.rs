//! 3-d TMA loads in the simulator (`nvgpu.tma.async.load` with three coordinates, PTX
//! `cp.async.bulk.tensor.3d`): a box `[slices, rows, cols]` of a `[d, h, w]` tensor lands
//! slice after slice, row-major and swizzled, and every element outside the tensor on any
//! dimension (the batch one included, below 0 and past the end) reads zero (PTX ISA §5.5
//! "Tensors": bounding box, out-of-bound fill). The expectation is computed here from the
//! PTX rules, independently of the simulator's code; a batched wgmma operand's box is
//! `[1, rows, cols]`.

use rtile_runtime::sim::ops::Num;
use rtile_runtime::sim::{self, compile_kernel, launch_of, run};

mod common;
use common::random;

/// Runs the one kernel of `text` on `args`; the error message on failure.
fn run_text(text: &str, args: &mut [Vec<f64>]) -> Result<(), String> {
    let mut ctx = sim::check::context();
    let m = rtile::parser::parse_str(&mut ctx, "k.mlir", text)
        .unwrap_or_else(|d| panic!("parses: {}", d.message));
    rtile::verifier::verify(&ctx, m.module).expect("verifies");
    let f = sim::kernels(&ctx, m.module)[0];
    let k = compile_kernel(&ctx, f).unwrap_or_else(|d| panic!("compiles: {}", d.message));
    let l = launch_of(&ctx, f).expect("launch");
    run(&k, &l, args).map_err(|e| sim::to_diagnostic(&ctx, &k, &e).message)
}

/// The 128-byte swizzle of byte address `a` (PTX: the 16-byte chunk index XOR the 128-byte
/// row index modulo 8).
fn swizzle128(a: usize) -> usize {
    a ^ (((a >> 7) & 7) << 4)
}

/// A box `[s, r, 64]` of f16 (128-byte rows, 128-byte swizzle) at `(x0, y0, z0)`
/// (innermost first) of a `[d, h, w]` tensor.
#[derive(Clone, Copy, Debug)]
struct Case {
    s: usize,
    r: usize,
    d: usize,
    h: usize,
    w: usize,
    origin: [i64; 3],
}

const COLS: usize = 64;

/// One warp: thread 0 loads the box into `%s` on an mbarrier expecting its bytes; every
/// thread waits, then the warp copies `%s` element by element (no unswizzling) to `out`.
fn kernel(c: &Case) -> String {
    let (s, r, d, h, w) = (c.s, c.r, c.d, c.h, c.w);
    let [x0, y0, z0] = c.origin;
    let bytes = s * r * COLS * 2;
    let smem = format!("memref<{s}x{r}x{COLS}xf16, #gpu.address_space<workgroup>>");
    format!(
        r#"!tm = !nvgpu.tensormap.descriptor<tensor = memref<{s}x{r}x{COLS}xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
module attributes {{gpu.container_module}} {{
gpu.module @m {{
  gpu.func @tma(%map: !tm, %src: memref<{d}x{h}x{w}xf16>, %out: memref<{s}x{r}x{COLS}xf16>) workgroup(%s: {smem}) kernel
      attributes {{rtile.launch = {{block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}}, rtile.tensor_map_of = array<i64: 1>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %slices = arith.constant {s} : index
    %rows = arith.constant {r} : index
    %cols = arith.constant {COLS} : index
    %x0 = arith.constant {x0} : index
    %y0 = arith.constant {y0} : index
    %z0 = arith.constant {z0} : index
    %bytes = arith.constant {bytes} : index
    %false = arith.constant false
    %ticks = arith.constant 10000000 : index
    %bar = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %is0 = arith.cmpi eq, %tid, %c0 : index
    scf.if %is0 {{
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
    }}
    gpu.barrier
    scf.if %is0 {{
      nvgpu.tma.async.load %map[%x0, %y0, %z0], %bar[%c0] to %s : !tm, !bar -> {smem}
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bar
    }}
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar
    scf.for %b = %c0 to %slices step %c1 {{
      scf.for %i = %c0 to %rows step %c1 {{
        scf.for %j = %tid to %cols step %c32 {{
          %v = memref.load %s[%b, %i, %j] : {smem}
          memref.store %v, %out[%b, %i, %j] : memref<{s}x{r}x{COLS}xf16>
        }}
      }}
    }}
    gpu.return
  }}
}}
}}
"#
    )
}

#[test]
fn tma_3d_boxes_land_swizzled_and_zero_fill_every_dimension() {
    let case = |s, r, (d, h, w), origin| Case {
        s,
        r,
        d,
        h,
        w,
        origin,
    };
    let cases = [
        // One slice inside the tensor (a batched wgmma operand's box).
        case(1, 16, (3, 40, 72), [8, 4, 2]),
        // Past the last slice: the box's second slice is all zero.
        case(2, 8, (3, 20, 64), [0, 0, 2]),
        // Before the first slice (a negative batch coordinate).
        case(2, 8, (3, 20, 64), [0, 8, -1]),
        // Past the bottom and right edges in a middle slice.
        case(1, 16, (3, 37, 72), [48, 30, 1]),
        // Past the left and top edges.
        case(1, 8, (2, 21, 64), [-8, -3, 0]),
    ];
    for (n, c) in cases.iter().enumerate() {
        let src = random(c.d * c.h * c.w, 90 + n as u64, Num::F16);
        let len = c.s * c.r * COLS;
        let mut args = vec![src.clone(), vec![f64::NAN; len]];
        run_text(&kernel(c), &mut args).unwrap_or_else(|e| panic!("case {n} {c:?}: {e}"));
        let out = &args[1];
        let mut zeros = 0;
        for i in 0..len {
            let (b, r, col) = (i / (c.r * COLS), i / COLS % c.r, i % COLS);
            let [x0, y0, z0] = c.origin;
            let (z, y, x) = (z0 + b as i64, y0 + r as i64, x0 + col as i64);
            let inside = (0..c.d as i64).contains(&z)
                && (0..c.h as i64).contains(&y)
                && (0..c.w as i64).contains(&x);
            let want = if inside {
                src[(z as usize * c.h + y as usize) * c.w + x as usize]
            } else {
                zeros += 1;
                0.0
            };
            let at = swizzle128(i * 2) / 2;
            assert_eq!(out[at], want, "case {n} {c:?}: box ({b}, {r}, {col})");
        }
        assert_eq!(zeros > 0, n != 0, "case {n}: which boxes cross an edge");
    }
}

/// The batch coordinate moves the box by whole slices: loading slice 1 of a tensor whose
/// slices differ gives slice 1's values, not slice 0's (a dropped outer coordinate would).
#[test]
fn tma_3d_batch_coordinate_selects_the_slice() {
    let c = Case {
        s: 1,
        r: 8,
        d: 2,
        h: 8,
        w: 64,
        origin: [0, 0, 1],
    };
    let src: Vec<f64> = (0..c.d * c.h * c.w)
        .map(|i| if i < c.h * c.w { 1.0 } else { 2.0 })
        .collect();
    let mut args = vec![src, vec![f64::NAN; c.r * COLS]];
    run_text(&kernel(&c), &mut args).expect("runs");
    assert!(args[1].iter().all(|&v| v == 2.0), "{:?}", &args[1][..8]);
}
