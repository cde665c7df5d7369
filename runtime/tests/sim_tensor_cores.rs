//! Tensor cores in the simulator (sm_80): `nvgpu.mma.sync` over a warp equals a naive
//! f32-accumulated matmul on random f16 and bf16 data, exactly; `nvgpu.ldmatrix` x4 and
//! x4.trans put the right elements in the right lanes; the cp.async GEMM of the lit tests
//! equals its naive reference; planted bugs are caught (a wrong fragment index gives a wrong
//! product, a missing or too-weak cp.async wait is an error, half a warp cannot run a
//! warp-collective op). The fragment layouts below are written from the PTX ISA's tables
//! (§9.7.14.5.8, "Matrix Fragments for mma.m16n8k16 with floating point type", and
//! §9.7.14.5.15, ldmatrix), independently of the simulator's code.

use rtile_runtime::sim::ops::Num;
use rtile_runtime::sim::{self, SimErrorKind, compile_kernel, launch_of, run};

mod common;
use common::random;

/// Runs the one kernel of `text` on `args`; the error kind and message on failure.
fn run_text(text: &str, args: &mut [Vec<f64>]) -> Result<(), (SimErrorKind, String)> {
    let mut ctx = sim::check::context();
    let m = rtile::parser::parse_str(&mut ctx, "k.mlir", text).expect("parses");
    rtile::verifier::verify(&ctx, m.module).expect("verifies");
    let f = sim::kernels(&ctx, m.module)[0];
    let k = compile_kernel(&ctx, f).expect("compiles");
    let l = launch_of(&ctx, f).expect("launch");
    run(&k, &l, args).map_err(|e| {
        let d = sim::to_diagnostic(&ctx, &k, &e);
        (e.kind, d.message)
    })
}

/// An index `g·gm + q·qm + c` of a fragment element, with `g = lane / 4`, `q = lane % 4`.
#[derive(Clone, Copy)]
struct Ix {
    gm: i64,
    qm: i64,
    c: i64,
}

fn ix(gm: i64, qm: i64, c: i64) -> Ix {
    Ix { gm, qm, c }
}

/// PTX ISA m16n8k16 .f16/.bf16 A fragment: `a_i` for `i = 2r + h`: row `groupID` for
/// `i < 2 || 4 <= i < 6`, `groupID + 8` otherwise; column `2·threadID_in_group + (i & 1)`
/// for `i < 4`, `+ 8` for `i >= 4`.
fn a_layout(i: i64) -> (Ix, Ix) {
    let row8 = if i < 2 || (4..6).contains(&i) { 0 } else { 8 };
    let col8 = if i < 4 { 0 } else { 8 };
    (ix(1, 0, row8), ix(0, 2, (i & 1) + col8))
}

/// B fragment `b_i`: row (k) `2·threadID_in_group + (i & 1)` for `i < 2`, `+ 8` for
/// `i >= 2`; column (n) `groupID`.
fn b_layout(i: i64) -> (Ix, Ix) {
    (ix(0, 2, (i & 1) + if i < 2 { 0 } else { 8 }), ix(1, 0, 0))
}

/// C/D fragment `c_i`: row `groupID` for `i < 2`, `groupID + 8` for `i >= 2`; column
/// `2·threadID_in_group + (i & 1)`.
fn c_layout(i: i64) -> (Ix, Ix) {
    (ix(1, 0, if i < 2 { 0 } else { 8 }), ix(0, 2, i & 1))
}

/// m16n8k8 .f16 A fragment (PTX ISA §9.7.14.5.7): `a_i` row `groupID` for `i < 2`,
/// `groupID + 8` otherwise; column `2·threadID_in_group + (i & 1)`.
fn a_layout_k8(i: i64) -> (Ix, Ix) {
    (ix(1, 0, if i < 2 { 0 } else { 8 }), ix(0, 2, i & 1))
}

/// m16n8k8 B fragment: `b_i` row (k) `2·threadID_in_group + (i & 1)`, column `groupID`.
fn b_layout_k8(i: i64) -> (Ix, Ix) {
    (ix(0, 2, i & 1), ix(1, 0, 0))
}

/// An mma shape's per-lane fragments: k, A's and B's layouts and element counts.
#[derive(Clone, Copy)]
struct Shape {
    k: usize,
    la: Layout,
    na: usize,
    lb: Layout,
    nb: usize,
}

const K16: Shape = Shape {
    k: 16,
    la: a_layout,
    na: 8,
    lb: b_layout,
    nb: 4,
};

const K8: Shape = Shape {
    k: 8,
    la: a_layout_k8,
    na: 4,
    lb: b_layout_k8,
    nb: 2,
};

/// Emits `%name = g·gm + q·qm + c` (index arithmetic on `%g`, `%q`).
fn emit_ix(out: &mut String, name: &str, x: Ix) {
    out.push_str(&format!(
        "    %{name}_g = arith.muli %g, %c{gm} : index\n    %{name}_q = arith.muli %q, %c{qm} : index\n    %{name}_s = arith.addi %{name}_g, %{name}_q : index\n    %{name} = arith.addi %{name}_s, %c{c} : index\n",
        gm = x.gm,
        qm = x.qm,
        c = x.c
    ));
}

/// One fragment to load: value prefix, memref, elements per lane, layout, types.
type Frag = (&'static str, &'static str, usize, Layout, String, String);

/// A fragment layout: element `i` of a lane's fragment → (row, column) index expressions.
type Layout = fn(i64) -> (Ix, Ix);

/// A kernel in which each lane loads its A, B and C fragments straight from global memory
/// with the layouts of `sh` (and C's), runs one `nvgpu.mma.sync` m16n8k`{sh.k}` and stores
/// its D fragment with C's layout.
fn mma_kernel(elem: &str, sh: Shape) -> String {
    let (k, ar, br) = (sh.k, sh.na / 2, sh.nb / 2);
    let mut b = String::new();
    for c in 0..=16 {
        b.push_str(&format!("    %c{c} = arith.constant {c} : index\n"));
    }
    b.push_str("    %lane = gpu.thread_id x\n    %g = arith.divui %lane, %c4 : index\n    %q = arith.remui %lane, %c4 : index\n");
    b.push_str(&format!(
        "    %z = arith.constant 0.0 : {elem}\n    %zf = arith.constant 0.0 : f32\n    %a_0 = \"vector.broadcast\"(%z) : ({elem}) -> vector<{ar}x2x{elem}>\n    %b_0 = \"vector.broadcast\"(%z) : ({elem}) -> vector<{br}x2x{elem}>\n    %c_0 = \"vector.broadcast\"(%zf) : (f32) -> vector<2x2xf32>\n"
    ));
    let frags: [Frag; 3] = [
        (
            "a",
            "A",
            sh.na,
            sh.la,
            format!("memref<16x{k}x{elem}>"),
            format!("vector<{ar}x2x{elem}>"),
        ),
        (
            "b",
            "B",
            sh.nb,
            sh.lb,
            format!("memref<{k}x8x{elem}>"),
            format!("vector<{br}x2x{elem}>"),
        ),
        (
            "c",
            "C",
            4,
            c_layout,
            "memref<16x8xf32>".into(),
            "vector<2x2xf32>".into(),
        ),
    ];
    for (v, mem, n, layout, mty, vty) in frags.iter() {
        let ety = if *v == "c" { "f32" } else { elem };
        for i in 0..*n as i64 {
            let (r, c) = layout(i);
            emit_ix(&mut b, &format!("{v}r{i}"), r);
            emit_ix(&mut b, &format!("{v}c{i}"), c);
            b.push_str(&format!(
                "    %{v}x{i} = memref.load %{mem}[%{v}r{i}, %{v}c{i}] : {mty}\n    %{v}_{n1} = \"vector.insert\"(%{v}x{i}, %{v}_{i}) <{{static_position = array<i64: {p0}, {p1}>}}> : ({ety}, {vty}) -> {vty}\n",
                n1 = i + 1,
                p0 = i / 2,
                p1 = i % 2
            ));
        }
    }
    b.push_str(&format!(
        "    %d = nvgpu.mma.sync (%a_{na}, %b_{nb}, %c_4) {{mmaShape = [16, 8, {k}]}} : (vector<{ar}x2x{elem}>, vector<{br}x2x{elem}>, vector<2x2xf32>) -> vector<2x2xf32>\n",
        na = sh.na,
        nb = sh.nb
    ));
    for i in 0..4 {
        b.push_str(&format!(
            "    %dx{i} = \"vector.extract\"(%d) <{{static_position = array<i64: {p0}, {p1}>}}> : (vector<2x2xf32>) -> f32\n    memref.store %dx{i}, %D[%cr{i}, %cc{i}] : memref<16x8xf32>\n",
            p0 = i / 2,
            p1 = i % 2
        ));
    }
    format!(
        "gpu.module @m {{\n  gpu.func @mma(%A: memref<16x{k}x{elem}>, %B: memref<{k}x8x{elem}>, %C: memref<16x8xf32>, %D: memref<16x8xf32>) kernel attributes {{rtile.launch = {{block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}}}} {{\n{b}    gpu.return\n  }}\n}}\n"
    )
}

/// `C + A·B` in f32, the products and every partial sum rounded to f32, k in order.
fn naive_mma(a: &[f64], b: &[f64], c: &[f64], (m, n, k): (usize, usize, usize)) -> Vec<f64> {
    let mut d = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = c[i * n + j] as f32;
            for kk in 0..k {
                let p = (a[i * k + kk] as f32) * (b[kk * n + j] as f32);
                s += p;
            }
            d[i * n + j] = f64::from(s);
        }
    }
    d
}

fn mma_case(elem: &str, num: Num, sh: Shape, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let a = random(16 * sh.k, seed, num);
    let b = random(sh.k * 8, seed + 1, num);
    let c = random(16 * 8, seed + 2, Num::F32);
    let want = naive_mma(&a, &b, &c, (16, 8, sh.k));
    let mut args = vec![a, b, c, vec![f64::NAN; 16 * 8]];
    run_text(&mma_kernel(elem, sh), &mut args).expect("runs clean");
    (args.pop().unwrap_or_default(), want)
}

#[test]
fn mma_f16_equals_naive_f32_matmul() {
    for seed in [1, 7, 42] {
        let (got, want) = mma_case("f16", Num::F16, K16, seed);
        assert_eq!(got, want, "seed {seed}");
    }
}

#[test]
fn mma_m16n8k8_f16_equals_naive_f32_matmul() {
    for seed in [2, 13] {
        let (got, want) = mma_case("f16", Num::F16, K8, seed);
        assert_eq!(got, want, "seed {seed}");
    }
}

#[test]
fn mma_bf16_equals_naive_f32_matmul() {
    for seed in [3, 11] {
        let (got, want) = mma_case("bf16", Num::BF16, K16, seed);
        assert_eq!(got, want, "seed {seed}");
    }
}

/// A planted bug: A's registers 1 and 2 swapped (rows +8 and columns +8 exchanged), as a
/// kernel written for the wrong layout would load them; the product is wrong.
#[test]
fn wrong_fragment_index_gives_a_wrong_product() {
    fn swapped(i: i64) -> (Ix, Ix) {
        let r = i / 2;
        let swapped = match r {
            1 => 2,
            2 => 1,
            x => x,
        };
        a_layout(2 * swapped + (i & 1))
    }
    let (got, want) = mma_case("f16", Num::F16, Shape { la: swapped, ..K16 }, 5);
    let wrong = got.iter().zip(&want).filter(|(g, w)| g != w).count();
    assert!(wrong > 64, "only {wrong} of 128 elements differ");
}

/// Each lane copies 8 elements of the 16x16 `M` into shared memory, then one ldmatrix x4
/// (transposed or not) with lane `l` addressing row `l % 8` of matrix `l / 8` (the 8x8
/// quadrants, rows +8 for odd matrices, columns +8 for matrices 2 and 3); lane `l` writes
/// its four registers to `out[l, 0..8]`.
fn ldmatrix_kernel(trans: bool) -> String {
    format!(
        r#"gpu.module @m {{
  gpu.func @ld(%M: memref<16x16xf16>, %out: memref<32x8xf16>) workgroup(%sm: memref<16x16xf16, #gpu.address_space<workgroup>>) kernel attributes {{rtile.launch = {{block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}}}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %lane = gpu.thread_id x
    %row = arith.divui %lane, %c2 : index
    %half = arith.remui %lane, %c2 : index
    %col0 = arith.muli %half, %c8 : index
    scf.for %j = %c0 to %c8 step %c1 {{
      %col = arith.addi %col0, %j : index
      %v = memref.load %M[%row, %col] : memref<16x16xf16>
      memref.store %v, %sm[%row, %col] : memref<16x16xf16, #gpu.address_space<workgroup>>
    }}
    gpu.barrier
    %r8 = arith.remui %lane, %c8 : index
    %mat = arith.divui %lane, %c8 : index
    %mlo = arith.remui %mat, %c2 : index
    %mhi = arith.divui %mat, %c2 : index
    %roff = arith.muli %mlo, %c8 : index
    %lrow = arith.addi %r8, %roff : index
    %lcol = arith.muli %mhi, %c8 : index
    %f = nvgpu.ldmatrix %sm[%lrow, %lcol] {{numTiles = 4 : i32, transpose = {trans}}} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %e0 = "vector.extract"(%f) <{{static_position = array<i64: 0>}}> : (vector<4x2xf16>) -> vector<2xf16>
    %e1 = "vector.extract"(%f) <{{static_position = array<i64: 1>}}> : (vector<4x2xf16>) -> vector<2xf16>
    %e2 = "vector.extract"(%f) <{{static_position = array<i64: 2>}}> : (vector<4x2xf16>) -> vector<2xf16>
    %e3 = "vector.extract"(%f) <{{static_position = array<i64: 3>}}> : (vector<4x2xf16>) -> vector<2xf16>
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    vector.store %e0, %out[%lane, %c0] : memref<32x8xf16>, vector<2xf16>
    vector.store %e1, %out[%lane, %c2] : memref<32x8xf16>, vector<2xf16>
    vector.store %e2, %out[%lane, %c4] : memref<32x8xf16>, vector<2xf16>
    vector.store %e3, %out[%lane, %c6] : memref<32x8xf16>, vector<2xf16>
    gpu.return
  }}
}}
"#
    )
}

fn ldmatrix_case(trans: bool) {
    let m = random(16 * 16, 9, Num::F16);
    let mut args = vec![m.clone(), vec![f64::NAN; 32 * 8]];
    run_text(&ldmatrix_kernel(trans), &mut args).expect("runs clean");
    let out = &args[1];
    for l in 0..32 {
        for i in 0..4 {
            for h in 0..2 {
                // PTX ISA ldmatrix: lane l holds row l/4, elements 2(l%4) + h of each 8x8
                // matrix; .trans delivers the transposed matrix.
                let (r, c) = if trans {
                    (2 * (l % 4) + h, l / 4)
                } else {
                    (l / 4, 2 * (l % 4) + h)
                };
                let want = m[(8 * (i % 2) + r) * 16 + 8 * (i / 2) + c];
                assert_eq!(
                    out[l * 8 + 2 * i + h],
                    want,
                    "trans {trans} lane {l} reg {i} half {h}"
                );
            }
        }
    }
}

#[test]
fn ldmatrix_x4_places_rows_in_lanes() {
    ldmatrix_case(false);
}

#[test]
fn ldmatrix_x4_trans_places_columns_in_lanes() {
    ldmatrix_case(true);
}

const GEMM: &str = include_str!("../../tests/lit/targets/Inputs/mma-gemm.mlir");

fn gemm_args(seed: u64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let a = random(16 * 32, seed, Num::F16);
    let b = random(32 * 8, seed + 1, Num::F16);
    let want = naive_mma(&a, &b, &vec![0.0; 16 * 8], (16, 8, 32))
        .into_iter()
        .map(|x| Num::F16.round(x))
        .collect();
    (vec![a, b, vec![f64::NAN; 16 * 8]], want)
}

#[test]
fn cp_async_pipeline_gemm_equals_naive() {
    let (mut args, want) = gemm_args(21);
    run_text(GEMM, &mut args).expect("runs clean");
    assert_eq!(args[2], want);
}

#[test]
fn gemm_with_an_scf_for_carrying_the_accumulator_equals_naive() {
    let loop_text = include_str!("../../tests/lit/targets/Inputs/mma-gemm-loop.mlir");
    let (mut args, want) = gemm_args(33);
    run_text(loop_text, &mut args).expect("runs clean");
    assert_eq!(args[2], want);
}

#[test]
fn missing_cp_async_wait_is_an_error() {
    let text = GEMM.replace("nvgpu.device_async_wait %g1 {numGroups = 1 : i32}", "");
    assert_ne!(text, GEMM);
    let (mut args, _) = gemm_args(1);
    let (kind, msg) = run_text(&text, &mut args).expect_err("caught");
    assert_eq!(kind, SimErrorKind::AsyncCopyPending, "{msg}");
    assert!(
        msg.contains("'nvgpu.ldmatrix'") && msg.contains("in flight"),
        "{msg}"
    );
}

#[test]
fn wait_leaving_the_read_group_in_flight_is_an_error() {
    let text = GEMM.replace("numGroups = 0 : i32", "numGroups = 1 : i32");
    assert_ne!(text, GEMM);
    let (mut args, _) = gemm_args(1);
    let (kind, msg) = run_text(&text, &mut args).expect_err("caught");
    assert_eq!(kind, SimErrorKind::AsyncCopyPending, "{msg}");
    assert!(
        msg.contains("at [1, "),
        "stage 1 is the one in flight: {msg}"
    );
}

#[test]
fn half_a_warp_cannot_run_a_collective() {
    let text = GEMM.replace(
        "block = array<i32: 32, 1, 1>",
        "block = array<i32: 16, 1, 1>",
    );
    let (mut args, _) = gemm_args(1);
    let (kind, msg) = run_text(&text, &mut args).expect_err("caught");
    assert_eq!(kind, SimErrorKind::WarpDivergence, "{msg}");
}

/// 2-D vectors: a non-splat dense constant, a row insert and element extracts land in the
/// right registers (row-major).
#[test]
fn two_d_vector_constant_insert_extract() {
    let text = r#"gpu.module @m {
  gpu.func @v(%out: memref<4xf32>) kernel attributes {rtile.launch = {block = array<i32: 1, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %k = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : vector<2x2xf32>
    %row = arith.constant dense<[7.0, 8.0]> : vector<2xf32>
    %k2 = "vector.insert"(%row, %k) <{static_position = array<i64: 0>}> : (vector<2xf32>, vector<2x2xf32>) -> vector<2x2xf32>
    %a = "vector.extract"(%k2) <{static_position = array<i64: 0, 1>}> : (vector<2x2xf32>) -> f32
    %b = "vector.extract"(%k2) <{static_position = array<i64: 1, 0>}> : (vector<2x2xf32>) -> f32
    %r = "vector.extract"(%k) <{static_position = array<i64: 1>}> : (vector<2x2xf32>) -> vector<2xf32>
    memref.store %a, %out[%c0] : memref<4xf32>
    memref.store %b, %out[%c1] : memref<4xf32>
    vector.store %r, %out[%c2] : memref<4xf32>, vector<2xf32>
    gpu.return
  }
}
"#;
    let mut args = vec![vec![f64::NAN; 4]];
    run_text(text, &mut args).expect("runs clean");
    assert_eq!(args[0], vec![8.0, 3.0, 3.0, 4.0]);
}

/// `gpu.shuffle` runs as a warp-collective op with PTX `shfl.sync` semantics (the CUDA
/// `__shfl_*_sync(mask, v, d, width)` formulas, written here): `xor 5` over 32 lanes,
/// `down 3` in segments of 16, `up 3` in segments of 8, `idx 7` in segments of 16; an invalid
/// source reads the lane's own value.
#[test]
fn shuffle_modes_match_the_cuda_formulas() {
    let shuffles = [
        ("xor", 5, 32),
        ("down", 3, 16),
        ("up", 3, 8),
        ("idx", 7, 16),
    ];
    let mut body = String::new();
    for (i, (mode, off, width)) in shuffles.iter().enumerate() {
        body.push_str(&format!(
            r#"    %o{i} = arith.constant {off} : i32
    %w{i} = arith.constant {width} : i32
    %s{i}, %ok{i} = "gpu.shuffle"(%v, %o{i}, %w{i}) <{{mode = #gpu<shuffle_mode {mode}>}}> : (f32, i32, i32) -> (f32, i1)
    %k{i} = arith.constant {i} : index
    memref.store %s{i}, %out[%k{i}, %lane] : memref<4x32xf32>
    %b{i} = arith.extui %ok{i} : i1 to i32
    memref.store %b{i}, %valid[%k{i}, %lane] : memref<4x32xi32>
"#
        ));
    }
    let text = format!(
        r#"gpu.module @m {{
  gpu.func @shfl(%in: memref<32xf32>, %out: memref<4x32xf32>, %valid: memref<4x32xi32>) kernel attributes {{rtile.launch = {{block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}}}} {{
    %lane = gpu.thread_id x
    %v = memref.load %in[%lane] : memref<32xf32>
{body}    gpu.return
  }}
}}
"#
    );
    let input: Vec<f64> = (0..32).map(|i| 100.0 + i as f64).collect();
    let mut args = vec![input.clone(), vec![f64::NAN; 128], vec![-1.0; 128]];
    run_text(&text, &mut args).expect("runs clean");
    for (i, (mode, d, w)) in shuffles.iter().enumerate() {
        for lane in 0..32usize {
            let (d, w) = (*d as usize, *w as usize);
            let seg = lane / w * w;
            let (src, ok) = match *mode {
                "xor" => (lane ^ d, true),
                "down" if lane % w + d < w => (lane + d, true),
                "up" if lane % w >= d => (lane - d, true),
                "idx" => (seg + d % w, true),
                _ => (lane, false),
            };
            assert_eq!(args[1][i * 32 + lane], input[src], "{mode} lane {lane}");
            assert_eq!(
                args[2][i * 32 + lane],
                f64::from(u8::from(ok)),
                "{mode} lane {lane}"
            );
        }
    }
}
