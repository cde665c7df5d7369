//! AMD matrix cores in the simulator: the single-wavefront MFMA GEMMs of the lit tests
//! (`tests/lit/targets/Inputs/mfma-gemm.mlir`, `v_mfma_f32_32x32x8f16` and
//! `v_mfma_f32_16x16x16bf16_1k`, two k-steps each) equal a naive matmul that accumulates in
//! f32 in k order and rounds once to the output type, exactly; a kernel whose fragments use
//! a wrong lane layout does not; a block of 32 threads cannot run a 64-lane MFMA; and the
//! 32-lane NVIDIA warp ops are refused in a wave-64 kernel.

use rtile_runtime::sim::ops::Num;
use rtile_runtime::sim::{self, SimErrorKind, compile_kernel, launch_of, run};

const GEMM: &str = include_str!("../../tests/lit/targets/Inputs/mfma-gemm.mlir");

mod common;
use common::random;

/// Runs kernel `index` of `text` on `args`; the error kind and message on failure.
fn run_kernel(
    text: &str,
    index: usize,
    args: &mut [Vec<f64>],
) -> Result<(), (SimErrorKind, String)> {
    let mut ctx = sim::check::context();
    let m = rtile::parser::parse_str(&mut ctx, "k.mlir", text).expect("parses");
    rtile::verifier::verify(&ctx, m.module).expect("verifies");
    let f = sim::kernels(&ctx, m.module)[index];
    let k = compile_kernel(&ctx, f).map_err(|d| (SimErrorKind::Other, d.message))?;
    let l = launch_of(&ctx, f).expect("launch");
    run(&k, &l, args).map_err(|e| {
        let d = sim::to_diagnostic(&ctx, &k, &e);
        (e.kind, d.message)
    })
}

/// `C[m×n] = A[m×kk] · Bt[n×kk]ᵀ`, f32 accumulation in k order, rounded to `out`.
fn reference(a: &[f64], bt: &[f64], (m, n, kk): (usize, usize, usize), out: Num) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f32;
            for k in 0..kk {
                s += (a[i * kk + k] as f32) * (bt[j * kk + k] as f32);
            }
            c[i * n + j] = out.round(f64::from(s));
        }
    }
    c
}

/// Runs GEMM kernel `index` (`m×n`, depth `kk`, element `elem`) on random data.
fn gemm(
    text: &str,
    index: usize,
    (m, n, kk): (usize, usize, usize),
    elem: Num,
) -> (Vec<f64>, Vec<f64>) {
    let a = random(m * kk, 7 + index as u64, elem);
    let bt = random(n * kk, 11 + index as u64, elem);
    let want = reference(&a, &bt, (m, n, kk), elem);
    let mut args = vec![a, bt, vec![0.0; m * n]];
    run_kernel(text, index, &mut args).expect("runs");
    (args.pop().unwrap(), want)
}

#[test]
fn mfma_gemms_equal_the_naive_reference_exactly() {
    let (got, want) = gemm(GEMM, 0, (32, 32, 16), Num::F16);
    assert_eq!(got, want, "32x32x8 f16");
    let (got, want) = gemm(GEMM, 1, (16, 16, 32), Num::BF16);
    assert_eq!(got, want, "16x16x16 bf16");
    assert!(want.iter().any(|&v| v != 0.0));
}

#[test]
fn a_wrong_lane_layout_gives_a_wrong_product() {
    // Lanes 32..63 take A's and B's k columns 1..4 instead of 4..7 (k offset `lane / 32`).
    let bad = GEMM.replace("%kq = arith.muli %grp, %c4", "%kq = arith.muli %grp, %c1");
    let (got, want) = gemm(&bad, 0, (32, 32, 16), Num::F16);
    assert_ne!(got, want);
    // The D fragment's second half-wave rows (+4) written at +1.
    let bad = GEMM.replace(
        "%hrow = arith.muli %half, %c4",
        "%hrow = arith.muli %half, %c1",
    );
    let (got, want) = gemm(&bad, 0, (32, 32, 16), Num::F16);
    assert_ne!(got, want);
}

#[test]
fn half_a_wavefront_cannot_run_an_mfma() {
    let half = GEMM.replace(
        "block = array<i32: 64, 1, 1>",
        "block = array<i32: 32, 1, 1>",
    );
    let mut args = vec![vec![0.0; 32 * 16], vec![0.0; 32 * 16], vec![0.0; 32 * 32]];
    let (kind, msg) = run_kernel(&half, 0, &mut args).unwrap_err();
    assert_eq!(kind, SimErrorKind::WarpDivergence);
    assert!(msg.contains("full wavefront of 64 threads"), "{msg}");
}

#[test]
fn nvidia_warp_ops_are_refused_in_a_wave64_kernel() {
    let mixed = GEMM.replacen(
        "    %lane = gpu.thread_id x\n",
        "    %lane = gpu.thread_id x\n    %w = arith.constant 32 : i32\n    %v = arith.constant 1.0 : f32\n    %o = arith.constant 1 : i32\n    %s:2 = \"gpu.shuffle\"(%v, %o, %w) <{mode = #gpu<shuffle_mode xor>}> : (f32, i32, i32) -> (f32, i1)\n",
        1,
    );
    let mut args = vec![vec![0.0; 32 * 16], vec![0.0; 32 * 16], vec![0.0; 32 * 32]];
    let (_, msg) = run_kernel(&mixed, 0, &mut args).unwrap_err();
    assert!(msg.contains("64-lane wavefronts"), "{msg}");
}
