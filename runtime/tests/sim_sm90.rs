//! sm_90a in the simulator: TMA loads (`nvgpu.tma.async.load`) land the box swizzled, with
//! zero fill past the tensor's edges; an mbarrier (`init`, `arrive.expect_tx`,
//! `try_wait.parity`) orders them; `nvgpu.warpgroup.mma` computes a 128x128x64 GEMM tile from
//! TMA-loaded operands equal to a naive reference; planted bugs are caught (a missing wait, B's
//! 64-column atoms where the descriptor's LBO does not put them, a warpgroup MMA without its
//! whole warpgroup, an mbarrier phase that never completes).
//!
//! The swizzle below is written from the PTX ISA (§5.5 "Tensors", swizzling modes: the
//! 16-byte chunk index XOR the 128-byte row index within the pattern), independently of the
//! simulator's and `rtile-gpu-vocab`'s code; the GEMM is checked against a naive product, so a
//! wrong operand or accumulator layout shows as a wrong result.

use rtile_runtime::sim::ops::Num;
use rtile_runtime::sim::{self, SimErrorKind, compile_kernel, launch_of, run};

mod common;
use common::random;

/// Runs the one kernel of `text` on `args`; the error kind and message on failure.
fn run_text(text: &str, args: &mut [Vec<f64>]) -> Result<(), (SimErrorKind, String)> {
    run_nth(text, 0, args)
}

/// Runs kernel `nth` of `text` on `args`.
fn run_nth(text: &str, nth: usize, args: &mut [Vec<f64>]) -> Result<(), (SimErrorKind, String)> {
    let mut ctx = sim::check::context();
    let m = rtile::parser::parse_str(&mut ctx, "k.mlir", text)
        .unwrap_or_else(|d| panic!("parses: {}", d.message));
    rtile::verifier::verify(&ctx, m.module).expect("verifies");
    let f = sim::kernels(&ctx, m.module)[nth];
    let k = compile_kernel(&ctx, f).unwrap_or_else(|d| panic!("compiles: {}", d.message));
    let l = launch_of(&ctx, f).expect("launch");
    run(&k, &l, args).map_err(|e| {
        let d = sim::to_diagnostic(&ctx, &k, &e);
        (e.kind, d.message)
    })
}

/// The PTX swizzle of byte address `a` for a swizzle span of `span` bytes (0: none): bits
/// 4-6 (the 16-byte chunk) XOR bits 7-9 (the 128-byte row), masked to the span's chunks.
fn swizzle(a: usize, span: usize) -> usize {
    if span == 0 {
        return a;
    }
    let mask = span / 16 - 1;
    a ^ (((a >> 7) & mask) << 4)
}

/// A kernel of one warp: thread 0 initialises an mbarrier and TMA-loads the `rows × cols`
/// box at `(x0, y0)` (innermost first) of `src` (`h × w`) into the workgroup buffer `%s`,
/// expecting its bytes; every thread waits, then the warp copies `%s` element by element
/// (no unswizzling) to `out`. `wait` false leaves out the wait.
struct TmaCase {
    elem: &'static str,
    swizzle: &'static str,
    span: usize,
    rows: usize,
    cols: usize,
    h: usize,
    w: usize,
    x0: i64,
    y0: i64,
}

fn tma_kernel(c: &TmaCase, wait: bool) -> String {
    let (e, r, cl) = (c.elem, c.rows, c.cols);
    let eb = if e == "f32" { 4 } else { 2 };
    let bytes = r * cl * eb;
    let wait = if wait {
        "    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar\n"
    } else {
        ""
    };
    format!(
        r#"!tm = !nvgpu.tensormap.descriptor<tensor = memref<{r}x{cl}x{e}, 3>, swizzle = {sw}, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
module attributes {{gpu.container_module}} {{
gpu.module @m {{
  gpu.func @tma(%map: !tm, %src: memref<{h}x{w}x{e}>, %out: memref<{r}x{cl}x{e}>) workgroup(%s: memref<{r}x{cl}x{e}, #gpu.address_space<workgroup>>) kernel
      attributes {{rtile.launch = {{block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}}, rtile.tensor_map_of = array<i64: 1>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %rows = arith.constant {r} : index
    %cols = arith.constant {cl} : index
    %x0 = arith.constant {x0} : index
    %y0 = arith.constant {y0} : index
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
      nvgpu.tma.async.load %map[%x0, %y0], %bar[%c0] to %s : !tm, !bar -> memref<{r}x{cl}x{e}, #gpu.address_space<workgroup>>
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bar
    }}
{wait}    scf.for %i = %c0 to %rows step %c1 {{
      scf.for %j = %tid to %cols step %c32 {{
        %v = memref.load %s[%i, %j] : memref<{r}x{cl}x{e}, #gpu.address_space<workgroup>>
        memref.store %v, %out[%i, %j] : memref<{r}x{cl}x{e}>
      }}
    }}
    gpu.return
  }}
}}
}}
"#,
        sw = c.swizzle,
        h = c.h,
        w = c.w,
        x0 = c.x0,
        y0 = c.y0,
    )
}

/// Each swizzle mode: the shared bytes, read back through the inverse swizzle, are the box
/// of the source, zero outside it; odd tensor sizes and boxes crossing the edges.
#[test]
fn tma_load_swizzles_and_zero_fills() {
    let cases = [
        // 128B: a box of 16 rows of 64 f16 (128 bytes), crossing the right and bottom edges.
        TmaCase {
            elem: "f16",
            swizzle: "swizzle_128b",
            span: 128,
            rows: 16,
            cols: 64,
            h: 37,
            w: 72,
            x0: 48,
            y0: 30,
        },
        // 128B of f32 (32 per row), inside the tensor.
        TmaCase {
            elem: "f32",
            swizzle: "swizzle_128b",
            span: 128,
            rows: 24,
            cols: 32,
            h: 37,
            w: 68,
            x0: 4,
            y0: 5,
        },
        // 64B: 32 f16 per row, crossing the left edge (a negative coordinate).
        TmaCase {
            elem: "f16",
            swizzle: "swizzle_64b",
            span: 64,
            rows: 8,
            cols: 32,
            h: 9,
            w: 40,
            x0: -8,
            y0: 3,
        },
        // 32B: 16 bf16 per row, crossing the top edge.
        TmaCase {
            elem: "bf16",
            swizzle: "swizzle_32b",
            span: 32,
            rows: 12,
            cols: 16,
            h: 21,
            w: 24,
            x0: 8,
            y0: -5,
        },
        // No swizzle: 24 f32 (96 bytes) per row.
        TmaCase {
            elem: "f32",
            swizzle: "none",
            span: 0,
            rows: 5,
            cols: 24,
            h: 7,
            w: 28,
            x0: 12,
            y0: 4,
        },
    ];
    for (n, c) in cases.iter().enumerate() {
        let num = match c.elem {
            "f32" => Num::F32,
            "bf16" => Num::BF16,
            _ => Num::F16,
        };
        let eb = num.bytes() as usize;
        let src = random(c.h * c.w, 70 + n as u64, num);
        let mut args = vec![src.clone(), vec![f64::NAN; c.rows * c.cols]];
        run_text(&tma_kernel(c, true), &mut args).unwrap_or_else(|e| panic!("case {n}: {e:?}"));
        let out = &args[1];
        let mut zeros = 0;
        for r in 0..c.rows {
            for col in 0..c.cols {
                let (y, x) = (c.y0 + r as i64, c.x0 + col as i64);
                let want = if (0..c.h as i64).contains(&y) && (0..c.w as i64).contains(&x) {
                    src[y as usize * c.w + x as usize]
                } else {
                    zeros += 1;
                    0.0
                };
                let at = swizzle((r * c.cols + col) * eb, c.span) / eb;
                assert_eq!(
                    out[at], want,
                    "case {n} ({}): box ({r}, {col}) at element {at}",
                    c.swizzle
                );
            }
        }
        assert_eq!(zeros > 0, n != 1, "case {n}: which boxes cross an edge");
        // Swizzling moves elements: the raw shared layout differs from the plain box.
        if c.span > 0 {
            let plain = (0..c.rows * c.cols).all(|i| {
                let (r, col) = (i / c.cols, i % c.cols);
                let (y, x) = (c.y0 + r as i64, c.x0 + col as i64);
                let v = if (0..c.h as i64).contains(&y) && (0..c.w as i64).contains(&x) {
                    src[y as usize * c.w + x as usize]
                } else {
                    0.0
                };
                out[i] == v
            });
            assert!(!plain, "case {n}: {} left the box unswizzled", c.swizzle);
        }
    }
}

/// Reading a TMA destination without waiting for the mbarrier phase is an error.
#[test]
fn tma_read_before_wait_is_an_error() {
    let c = TmaCase {
        elem: "f16",
        swizzle: "swizzle_128b",
        span: 128,
        rows: 8,
        cols: 64,
        h: 8,
        w: 64,
        x0: 0,
        y0: 0,
    };
    let mut args = vec![random(8 * 64, 3, Num::F16), vec![0.0; 8 * 64]];
    let (kind, msg) = run_text(&tma_kernel(&c, false), &mut args).expect_err("must fail");
    assert_eq!(kind, SimErrorKind::TmaPending, "{msg}");
    assert!(
        msg.contains("'memref.load' op access to memref<8x64xf16")
            && msg.contains("try_wait.parity"),
        "{msg}"
    );
}

/// The hand-written GEMM tile of the lit tests (f16).
const GEMM: &str = include_str!("../../tests/lit/sim/Inputs/sm90a-gemm.mlir");

/// The GEMM kernel with operands of type `elem`.
fn gemm_text(elem: &str) -> String {
    GEMM.replace("xf16", &format!("x{elem}"))
}

/// `text` with `from` (which must occur) replaced by `to`.
fn plant(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from}");
    text.replace(from, to)
}

/// Random A (128x64) and B (64x128) of `elem`, and the kernel's arguments.
fn gemm_args(elem: Num, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<Vec<f64>>) {
    let a = random(128 * 64, seed, elem);
    let b = random(64 * 128, seed + 1, elem);
    let args = vec![a.clone(), b.clone(), vec![f64::NAN; 128 * 128]];
    (a, b, args)
}

/// The largest `|got - want| / bound` over C, with `want` the f64 product and `bound` the
/// f32 rounding error bound of a 64-term sum, `64 · 2^-24 · Σ|a·b|` (each product is exact in
/// f32); also whether `got` equals the f32 sum taken in k order bit for bit.
fn gemm_error(a: &[f64], b: &[f64], got: &[f64]) -> (f64, bool) {
    let (mut worst, mut exact) = (0.0f64, true);
    for i in 0..128 {
        for j in 0..128 {
            let (mut want, mut mag, mut s) = (0.0f64, 0.0f64, 0.0f32);
            for k in 0..64 {
                let p = a[i * 64 + k] * b[k * 128 + j];
                want += p;
                mag += p.abs();
                s += (a[i * 64 + k] as f32) * (b[k * 128 + j] as f32);
            }
            let bound = 64.0 * f64::from(f32::EPSILON) / 2.0 * mag;
            worst = worst.max((got[i * 128 + j] - want).abs() / bound.max(f64::MIN_POSITIVE));
            exact &= got[i * 128 + j] == f64::from(s);
        }
    }
    (worst, exact)
}

/// The f16 and bf16 GEMM tiles equal the naive product within f32 rounding (and the
/// k-ordered f32 sum exactly).
#[test]
fn wgmma_gemm_matches_naive_reference() {
    for (elem, num) in [("f16", Num::F16), ("bf16", Num::BF16)] {
        let (a, b, mut args) = gemm_args(num, 11);
        run_text(&gemm_text(elem), &mut args).unwrap_or_else(|e| panic!("{elem}: {e:?}"));
        let (worst, exact) = gemm_error(&a, &b, &args[2]);
        assert!(worst <= 1.0, "{elem}: error {worst} x the f32 bound");
        assert!(exact, "{elem}: not the k-ordered f32 sum");
    }
}

/// B's two 64-column atoms swapped in shared memory (where the descriptor's LBO does not
/// put them): the simulator runs it and the product is wrong.
#[test]
fn wgmma_wrong_b_atom_offset_is_a_wrong_product() {
    let text = plant(
        &plant(
            &gemm_text("f16"),
            "%b[%c0, %c0], %bar[%c0] to %sb0",
            "%b[%c0, %c0], %bar[%c0] to %sbX",
        ),
        "%b[%c64, %c0], %bar[%c0] to %sb1",
        "%b[%c64, %c0], %bar[%c0] to %sb0",
    )
    .replace("to %sbX", "to %sb1");
    let (a, b, mut args) = gemm_args(Num::F16, 12);
    run_text(&text, &mut args).expect("runs");
    let (worst, _) = gemm_error(&a, &b, &args[2]);
    assert!(
        worst > 1e3,
        "swapped atoms must give a wrong product ({worst})"
    );
}

/// Without the mbarrier wait, the warpgroup MMA reads the TMA destinations too early.
#[test]
fn wgmma_without_wait_is_an_error() {
    let text = plant(
        &gemm_text("f16"),
        "    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar\n",
        "",
    );
    let (_, _, mut args) = gemm_args(Num::F16, 13);
    let (kind, msg) = run_text(&text, &mut args).expect_err("must fail");
    assert_eq!(kind, SimErrorKind::TmaPending, "{msg}");
    assert!(msg.contains("'nvgpu.warpgroup.mma' op"), "{msg}");
}

/// A warpgroup MMA needs all 128 threads of its warpgroup: a block of 64 threads, or 64 of
/// 128 threads reaching it, is refused.
#[test]
fn wgmma_needs_a_whole_warpgroup() {
    let (_, _, mut args) = gemm_args(Num::F16, 14);
    let small = plant(
        &gemm_text("f16"),
        "block = array<i32: 128, 1, 1>",
        "block = array<i32: 64, 1, 1>",
    );
    let (kind, msg) = run_text(&small, &mut args).expect_err("64 threads");
    assert_eq!(kind, SimErrorKind::WarpDivergence, "{msg}");
    assert!(
        msg.contains("needs a full warpgroup of 128 threads; this warpgroup has 64"),
        "{msg}"
    );
    let half = plant(
        &gemm_text("f16"),
        "    %r = nvgpu.warpgroup.mma",
        "    %c64i = arith.constant 64 : index\n    %lo = arith.cmpi ult, %tid, %c64i : index\n    scf.if %lo {\n    %r = nvgpu.warpgroup.mma",
    );
    let half = plant(
        &half,
        "to memref<128x128xf32>\n",
        "to memref<128x128xf32>\n    }\n",
    );
    let (kind, msg) = run_text(&half, &mut args).expect_err("64 of 128 threads");
    assert_eq!(kind, SimErrorKind::WarpDivergence, "{msg}");
    assert!(msg.contains("warpgroup divergence"), "{msg}");
}

/// A 128B-swizzled operand tile must start 1024-byte aligned (its descriptor's base offset
/// is 0): A moved to byte 128 is refused at the warpgroup MMA.
#[test]
fn wgmma_operand_must_start_on_the_swizzle_pattern() {
    let mut text = gemm_text("f16");
    for (from, to) in [
        (
            "%sa = \"memref.view\"(%dsm, %c0)",
            "%c128 = arith.constant 128 : index\n    %sa = \"memref.view\"(%dsm, %c128)",
        ),
        (
            "%offB = arith.constant 16384",
            "%offB = arith.constant 17408",
        ),
        (
            "%offB1 = arith.constant 24576",
            "%offB1 = arith.constant 25600",
        ),
        (
            "dynamic_shared_memory = 32768",
            "dynamic_shared_memory = 33792",
        ),
    ] {
        text = plant(&text, from, to);
    }
    let (_, _, mut args) = gemm_args(Num::F16, 18);
    let (kind, msg) = run_text(&text, &mut args).expect_err("must fail");
    assert_eq!(kind, SimErrorKind::Other, "{msg}");
    assert!(
        msg.contains("starts at byte 128 of shared memory, not 1024-byte aligned"),
        "{msg}"
    );
}

/// An expected transaction count the loads never reach: the phase never completes, and the
/// waiting threads are a deadlock, not a hang.
#[test]
fn mbarrier_phase_that_never_completes_is_a_deadlock() {
    let text = plant(
        &gemm_text("f16"),
        "%tx = arith.constant 32768 : index",
        "%tx = arith.constant 40960 : index",
    );
    let (_, _, mut args) = gemm_args(Num::F16, 15);
    let (kind, msg) = run_text(&text, &mut args).expect_err("must fail");
    assert_eq!(kind, SimErrorKind::Deadlock, "{msg}");
    assert!(
        msg.contains("'nvgpu.mbarrier.try_wait.parity' op deadlock")
            && msg.contains("tx-count of 8192 bytes"),
        "{msg}"
    );
}

/// An expected transaction count below the loads' bytes: the phase completes when A's box
/// lands, and the warpgroup MMA reads B's boxes still in flight.
#[test]
fn mbarrier_expecting_too_few_bytes_reads_a_copy_in_flight() {
    let text = plant(
        &gemm_text("f16"),
        "%tx = arith.constant 32768 : index",
        "%tx = arith.constant 16384 : index",
    );
    let (_, _, mut args) = gemm_args(Num::F16, 19);
    let (kind, msg) = run_text(&text, &mut args).expect_err("must fail");
    assert_eq!(kind, SimErrorKind::TmaPending, "{msg}");
    assert!(
        msg.contains("'nvgpu.warpgroup.mma' op") && msg.contains("still in flight"),
        "{msg}"
    );
}

/// Every thread initialising the mbarrier (no `scf.if`): the second initialisation is an
/// error.
#[test]
fn mbarrier_initialised_twice_is_an_error() {
    let text = plant(
        &gemm_text("f16"),
        "    scf.if %is0 {\n      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar\n",
        "    nvgpu.mbarrier.init %bar[%c0], %c1 : !bar\n    scf.if %is0 {\n",
    );
    let (_, _, mut args) = gemm_args(Num::F16, 16);
    let (kind, msg) = run_text(&text, &mut args).expect_err("must fail");
    assert_eq!(kind, SimErrorKind::Mbarrier, "{msg}");
    assert!(msg.contains("already initialised"), "{msg}");
}

/// `--profile` counts the TMA bytes and the wgmma instructions, and the fragment stores as
/// the scalar stores upstream's lowering emits; the run is checked against `rtile.te`.
#[test]
fn profile_counts_tma_bytes_and_wgmma() {
    let report = sim::profile::profile_text("k.mlir", GEMM, 1, None).expect("profiles");
    let k = &report.kernels[0];
    assert!(
        k.max_rel_err().is_some_and(|e| e < 1e-6),
        "{:?}",
        k.max_rel_err()
    );
    let ops = |name: &'static str| k.ops.iter().filter(move |o| o.op == name);
    let tma: Vec<_> = ops("nvgpu.tma.async.load").map(|o| o.counters).collect();
    assert_eq!(tma.len(), 3);
    assert_eq!(
        tma.iter().map(|c| c.tma_bytes).collect::<Vec<_>>(),
        [16384, 8192, 8192]
    );
    assert!(
        tma.iter()
            .all(|c| c.tma_global_bytes == c.tma_bytes && c.warp == 1)
    );
    let mma = ops("nvgpu.warpgroup.mma").next().expect("mma").counters;
    // 2 slabs of 64 rows x 4 k-steps of 16; executed by 4 warps.
    assert_eq!((mma.wgmma, mma.warp), (8, 4));
    let st = ops("nvgpu.warpgroup.mma.store")
        .next()
        .expect("store")
        .counters;
    // 128 scalar stores per thread: 4 warps x 128 warp-level requests, each 8 rows of
    // 16 used bytes in one 32-byte sector.
    assert_eq!(
        (st.requests, st.sectors, st.ideal_sectors),
        (512, 4096, 2048)
    );
    let json = report.json();
    assert!(
        json.contains("\"rtile__tma_load_bytes.sum\": 32768"),
        "{json}"
    );
    assert!(
        json.contains("\"rtile__wgmma_mma_async_executed.sum\": 8"),
        "{json}"
    );
    assert!(
        report.text().contains("wgmma.mma_async 8"),
        "{}",
        report.text()
    );
}

/// The GEMM with its operands written by the threads' plain stores (no TMA, no mbarrier)
/// from `%img`, a copy of the whole 32 KiB of shared memory that the test lays out itself
/// with the PTX ISA's canonical 128B-swizzled layouts (§9.7.15.5.1): A (m, k) K-major at
/// `(m/8)·1024 + (m%8)·128 + 2k`, B (k, n) MN-major at `16384 + (n/64)·LBO + (k/8)·1024 +
/// (k%8)·128 + 2(n%64)` with LBO = 64·K·2 = 8192, each address then swizzled.
fn image_kernel() -> String {
    let start = GEMM
        .find("    %bar = nvgpu.mbarrier.create")
        .expect("mbarrier");
    let end = GEMM
        .find("    %da = nvgpu.warpgroup.generate.descriptor")
        .expect("descriptor");
    let copy = r#"    %all = "memref.view"(%dsm, %c0) : (!smem, index) -> memref<16384xf16, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %n = arith.constant 16384 : index
    scf.for %i = %tid to %n step %c128 {
      %v = memref.load %img[%i] : memref<16384xf16>
      memref.store %v, %all[%i] : memref<16384xf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
"#;
    let text = format!("{}{copy}{}", &GEMM[..start], &GEMM[end..]);
    plant(
        &text,
        "%C: memref<128x128xf32>) kernel",
        "%img: memref<16384xf16>, %C: memref<128x128xf32>) kernel",
    )
}

/// The warpgroup MMA reads A and B where the PTX ISA's canonical layouts put them.
#[test]
fn wgmma_reads_the_canonical_swizzled_layouts() {
    let (a, b, _) = gemm_args(Num::F16, 17);
    let mut img = vec![f64::NAN; 16384];
    for m in 0..128 {
        for k in 0..64 {
            img[swizzle((m / 8) * 1024 + (m % 8) * 128 + 2 * k, 128) / 2] = a[m * 64 + k];
        }
    }
    for k in 0..64 {
        for n in 0..128 {
            let byte = 16384 + (n / 64) * 8192 + (k / 8) * 1024 + (k % 8) * 128 + 2 * (n % 64);
            img[swizzle(byte, 128) / 2] = b[k * 128 + n];
        }
    }
    assert!(
        img.iter().all(|v| !v.is_nan()),
        "the image covers shared memory"
    );
    let text = image_kernel();
    let mut args = vec![a.clone(), b.clone(), img, vec![f64::NAN; 128 * 128]];
    run_text(&text, &mut args).expect("runs");
    let (worst, exact) = gemm_error(&a, &b, &args[3]);
    assert!(worst <= 1.0 && exact, "error {worst} x the f32 bound");
}

/// A 1-d tensor map: the box is one row; past the tensor's end it is zero.
#[test]
fn tma_load_of_a_1d_box() {
    let text = r#"!tm = !nvgpu.tensormap.descriptor<tensor = memref<64xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @tma1(%map: !tm, %src: memref<100xf32>, %out: memref<64xf32>) workgroup(%s: memref<64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {rtile.launch = {block = array<i32: 64, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}, rtile.tensor_map_of = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x0 = arith.constant 50 : index
    %bytes = arith.constant 256 : index
    %ticks = arith.constant 1000 : index
    %bar = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %is0 = arith.cmpi eq, %tid, %c0 : index
    scf.if %is0 {
      nvgpu.mbarrier.init %bar[%c1], %c1 : !bar
    }
    gpu.barrier
    scf.if %is0 {
      nvgpu.mbarrier.arrive.expect_tx %bar[%c1], %bytes : !bar
      nvgpu.tma.async.load %map[%x0], %bar[%c1] to %s : !tm, !bar -> memref<64xf32, #gpu.address_space<workgroup>>
    }
    // The expect_tx comes first here: phase 0 completes when the load's bytes land.
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bar[%c1], %false, %ticks : !bar
    %v = memref.load %s[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tid] : memref<64xf32>
    gpu.return
  }
}
}
"#;
    let src = random(100, 9, Num::F32);
    let mut args = vec![src.clone(), vec![f64::NAN; 64]];
    run_text(text, &mut args).expect("runs");
    let want: Vec<f64> = (50..114)
        .map(|i| src.get(i).copied().unwrap_or(0.0))
        .collect();
    assert_eq!(args[1], want);
}

/// A K = 128 GEMM as a two-iteration `scf.for` over k-tiles of 64 that reuses one mbarrier
/// and one set of buffers: the wait's parity flips each iteration (`flip`; else it waits
/// for parity 0 twice), the accumulator is loop-carried, and a `gpu.barrier` ends each
/// iteration before thread 0 overwrites the tiles.
fn pipelined_kernel(flip: bool) -> String {
    let parity = if flip {
        "%rem = arith.remui %kk, %c2 : index\n      %par = arith.cmpi ne, %rem, %c0 : index"
    } else {
        "%par = arith.constant false"
    };
    format!(
        r#"!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!dA = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>>
!dB = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>
module attributes {{gpu.container_module}} {{
gpu.module @k {{
  gpu.func @gemm2(%a: !tmA, %b: !tmB, %A: memref<128x128xf16>, %B: memref<128x128xf16>, %C: memref<128x128xf32>) kernel
      attributes {{rtile.launch = {{block = array<i32: 128, 1, 1>, dynamic_shared_memory = 32768 : i64, grid = array<i32: 1, 1, 1>}}, rtile.tensor_map_of = array<i64: 2, 3>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %offB = arith.constant 16384 : index
    %offB1 = arith.constant 24576 : index
    %tx = arith.constant 32768 : index
    %ticks = arith.constant 10000000 : index
    %dsm = "gpu.dynamic_shared_memory"() : () -> !smem
    %sa = "memref.view"(%dsm, %c0) : (!smem, index) -> memref<128x64xf16, #gpu.address_space<workgroup>>
    %sb = "memref.view"(%dsm, %offB) : (!smem, index) -> memref<64x128xf16, #gpu.address_space<workgroup>>
    %sb0 = "memref.view"(%dsm, %offB) : (!smem, index) -> memref<64x64xf16, #gpu.address_space<workgroup>>
    %sb1 = "memref.view"(%dsm, %offB1) : (!smem, index) -> memref<64x64xf16, #gpu.address_space<workgroup>>
    %bar = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %is0 = arith.cmpi eq, %tid, %c0 : index
    scf.if %is0 {{
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
    }}
    gpu.barrier
    %da = nvgpu.warpgroup.generate.descriptor %sa, %a : memref<128x64xf16, #gpu.address_space<workgroup>>, !tmA -> !dA
    %db = nvgpu.warpgroup.generate.descriptor %sb, %b : memref<64x128xf16, #gpu.address_space<workgroup>>, !tmB -> !dB
    %acc0 = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %acc = scf.for %kk = %c0 to %c2 step %c1 iter_args(%acc1 = %acc0) -> (!acc) {{
      %k0 = arith.muli %kk, %c64 : index
      scf.if %is0 {{
        nvgpu.tma.async.load %a[%k0, %c0], %bar[%c0] to %sa : !tmA, !bar -> memref<128x64xf16, #gpu.address_space<workgroup>>
        nvgpu.tma.async.load %b[%c0, %k0], %bar[%c0] to %sb0 : !tmB, !bar -> memref<64x64xf16, #gpu.address_space<workgroup>>
        nvgpu.tma.async.load %b[%c64, %k0], %bar[%c0] to %sb1 : !tmB, !bar -> memref<64x64xf16, #gpu.address_space<workgroup>>
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %tx : !bar
      }}
      {parity}
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %par, %ticks : !bar
      %acc2 = nvgpu.warpgroup.mma %da, %db, %acc1 {{transposeB}} : !dA, !dB, !acc -> !acc
      gpu.barrier
      scf.yield %acc2 : !acc
    }}
    nvgpu.warpgroup.mma.store %acc, %C : !acc to memref<128x128xf32>
    gpu.return
  }}
}}
}}
"#
    )
}

/// The two-stage k loop equals the naive K = 128 product; waiting for parity 0 in both
/// iterations (the second phase has parity 1) is caught: the second wait returns at once
/// (phase 0 is complete), and the MMA reads the second tiles while they are in flight.
#[test]
fn pipelined_k_loop_flips_the_wait_parity() {
    let a = random(128 * 128, 21, Num::F16);
    let b = random(128 * 128, 22, Num::F16);
    let mut args = vec![a.clone(), b.clone(), vec![f64::NAN; 128 * 128]];
    run_text(&pipelined_kernel(true), &mut args).expect("runs");
    for i in 0..128 {
        for j in 0..128 {
            let mut s = 0.0f32;
            for k in 0..128 {
                s += (a[i * 128 + k] as f32) * (b[k * 128 + j] as f32);
            }
            assert_eq!(args[2][i * 128 + j], f64::from(s), "C[{i}][{j}]");
        }
    }
    let mut args = vec![a, b, vec![f64::NAN; 128 * 128]];
    let (kind, msg) = run_text(&pipelined_kernel(false), &mut args).expect_err("must fail");
    assert_eq!(kind, SimErrorKind::TmaPending, "{msg}");
    assert!(msg.contains("still in flight"), "{msg}");
}

/// [`pipelined_kernel`] with B stored [n, k] (k contiguous): one TMA box of 128 n × 64 k per
/// k-step over the [128, 128] memref (coordinates (k, n)), and the MMA takes that tile
/// K-major (no `transposeB`; PTX ISA §9.7.15.5.1: the same canonical layout as A).
fn k_major_b_kernel() -> String {
    let text = pipelined_kernel(true);
    let edits = [
        (
            "!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>",
            "!tmB = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>",
        ),
        (
            "        nvgpu.tma.async.load %b[%c0, %k0], %bar[%c0] to %sb0 : !tmB, !bar -> memref<64x64xf16, #gpu.address_space<workgroup>>\n        nvgpu.tma.async.load %b[%c64, %k0], %bar[%c0] to %sb1 : !tmB, !bar -> memref<64x64xf16, #gpu.address_space<workgroup>>\n",
            "        nvgpu.tma.async.load %b[%k0, %c0], %bar[%c0] to %sbk : !tmB, !bar -> memref<128x64xf16, #gpu.address_space<workgroup>>\n",
        ),
        (
            "    %bar = nvgpu.mbarrier.create",
            "    %sbk = \"memref.view\"(%dsm, %offB) : (!smem, index) -> memref<128x64xf16, #gpu.address_space<workgroup>>\n    %bar = nvgpu.mbarrier.create",
        ),
        (" {transposeB} :", " :"),
    ];
    edits.iter().fold(text, |t, (from, to)| {
        assert_eq!(t.matches(from).count(), 1, "{from}");
        t.replace(from, to)
    })
}

/// The K-major B kernel equals the naive `A·Bᵀ` exactly (the same products in the same k
/// order as the MN-major kernel); with `transposeB` planted back the tile (boxes of 128 n
/// rows) does not fit the MN-major layout (rows of k) and the MMA is refused.
#[test]
fn k_major_b_wgmma_computes_a_times_b_transposed() {
    let a = random(128 * 128, 25, Num::F16);
    let b = random(128 * 128, 26, Num::F16);
    let want: Vec<f64> = (0..128 * 128)
        .map(|ij| {
            let (i, j) = (ij / 128, ij % 128);
            let mut s = 0.0f32;
            for k in 0..128 {
                s += (a[i * 128 + k] as f32) * (b[j * 128 + k] as f32);
            }
            f64::from(s)
        })
        .collect();
    let text = k_major_b_kernel();
    let mut args = vec![a.clone(), b.clone(), vec![f64::NAN; 128 * 128]];
    run_text(&text, &mut args).expect("runs");
    assert_eq!(args[2], want);
    let planted = text.replace("%acc1 :", "%acc1 {transposeB} :");
    assert_ne!(planted, text);
    let mut ctx = sim::check::context();
    let m = rtile::parser::parse_str(&mut ctx, "k.mlir", &planted).expect("parses");
    let f = sim::kernels(&ctx, m.module)[0];
    let e = compile_kernel(&ctx, f).expect_err("an MN-major read of K-major boxes");
    assert!(e.message.contains("must have 64 rows"), "{}", e.message);
}

/// [`pipelined_kernel`] on `threads` threads (two warpgroups: both run the MMAs, the first
/// stores), with or without the block barrier that ends each k-step (the only thing ordering
/// the other warpgroups' MMA reads of the stage before thread 0 refills it).
fn shared_stage_kernel(threads: u32, barrier: bool) -> String {
    let mut text = pipelined_kernel(true).replace(
        "block = array<i32: 128, 1, 1>",
        &format!("block = array<i32: {threads}, 1, 1>"),
    );
    text = text.replace(
        "    nvgpu.warpgroup.mma.store %acc, %C : !acc to memref<128x128xf32>\n",
        "    %c128 = arith.constant 128 : index\n    %wg0 = arith.cmpi ult, %tid, %c128 : index\n    scf.if %wg0 {\n      nvgpu.warpgroup.mma.store %acc, %C : !acc to memref<128x128xf32>\n    }\n",
    );
    if !barrier {
        text = text.replace("      gpu.barrier\n      scf.yield", "      scf.yield");
    }
    text
}

/// A TMA refilling a stage that another warpgroup's MMA read, with nothing ordering that read
/// before the refill (no barrier, no mbarrier release), is reported; with the block barrier
/// the two-warpgroup kernel is exact. One warpgroup needs no barrier: its own thread issues
/// the refill after the MMA completed (the planted barrier removal stays exact).
#[test]
fn tma_refill_before_another_warpgroup_released_the_stage_is_caught() {
    let a = random(128 * 128, 23, Num::F16);
    let b = random(128 * 128, 24, Num::F16);
    let exact = |c: &[f64]| {
        (0..128).all(|i| {
            (0..128).all(|j| {
                let mut s = 0.0f32;
                for k in 0..128 {
                    s += (a[i * 128 + k] as f32) * (b[k * 128 + j] as f32);
                }
                c[i * 128 + j] == f64::from(s)
            })
        })
    };
    for (threads, barrier) in [(256, true), (128, false)] {
        let text = shared_stage_kernel(threads, barrier);
        assert_eq!(text.contains("      gpu.barrier\n      scf.yield"), barrier);
        let mut args = vec![a.clone(), b.clone(), vec![f64::NAN; 128 * 128]];
        run_text(&text, &mut args).unwrap_or_else(|e| panic!("{threads} threads: {e:?}"));
        assert!(exact(&args[2]), "{threads} threads, barrier {barrier}");
    }
    let mut args = vec![a, b, vec![f64::NAN; 128 * 128]];
    let (kind, msg) = run_text(&shared_stage_kernel(256, false), &mut args).expect_err("must fail");
    assert_eq!(kind, SimErrorKind::TmaPending, "{msg}");
    assert!(
        msg.contains("overwrites what warpgroup 1's nvgpu.warpgroup.mma read"),
        "{msg}"
    );
}

/// The LLVM emitter's hand-written GEMM tiles (`tests/lit/targets/Inputs/wgmma-gemm.mlir`):
/// B's boxes in an i8 workgroup attribution sliced by `memref.view`, the tensor maps after
/// the memrefs. Both (f16, bf16) equal the naive product; a view past the byte buffer is an
/// error at the view.
#[test]
fn gemm_with_an_i8_workgroup_buffer_runs() {
    let text = include_str!("../../tests/lit/targets/Inputs/wgmma-gemm.mlir");
    for (nth, num) in [(0, Num::F16), (1, Num::BF16)] {
        let (a, b, mut args) = gemm_args(num, 30 + nth as u64);
        run_nth(text, nth, &mut args).unwrap_or_else(|e| panic!("{num:?}: {e:?}"));
        let (worst, exact) = gemm_error(&a, &b, &args[2]);
        assert!(
            worst <= 1.0 && exact,
            "{num:?}: error {worst} x the f32 bound"
        );
    }
    let past = plant(
        text,
        "%c8192 = arith.constant 8192 : index",
        "%c8192 = arith.constant 12288 : index",
    );
    let (_, _, mut args) = gemm_args(Num::F16, 32);
    let (kind, msg) = run_nth(&past, 0, &mut args).expect_err("must fail");
    assert_eq!(kind, SimErrorKind::OutOfBounds, "{msg}");
    assert!(
        msg.contains("'memref.view' op view of 8192 bytes at byte offset 12288 lies outside its 16384-byte workgroup buffer"),
        "{msg}"
    );
}
