//! Property test of `--lower-to-gpu` + the simulator: random operators (matmul, conv2d with
//! stride and zero padding, pooling windows, reductions, elementwise) on random shapes
//! (primes, 1, non-multiples of the tile) under random rPrograms (block and thread tiles,
//! storage padding, staged or direct) and under the construction's best program; every
//! kernel runs without a simulator error and matches the te interpreter's f64 oracle.

use proptest::prelude::*;
use rtile_dialects::te::module::parse_computes;
use rtile_passes::construct_rtile::{ConstructOptions, RProgram, construct};
use rtile_passes::device::Device;
use rtile_passes::lower_to_gpu::{CrossThread, LowerOptions, expr_info, lower_compute_opts};
use rtile_runtime::sim::run_check_text;

mod common;

/// Extents the shapes draw from: 1, primes, and non-multiples of the usual tiles.
fn extent() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(1i64),
        Just(2),
        Just(3),
        Just(5),
        Just(7),
        Just(11),
        Just(13),
        Just(17),
        4i64..24
    ]
}

#[derive(Clone, Debug)]
enum Op {
    MatMul(i64, i64, i64),
    Conv(i64, i64, i64, i64, i64, i64), // c, f, h(=w), k, stride, pad
    Pool(i64, i64, i64, i64),           // c, h, k, stride
    Reduce(i64, i64, i64),
    Elementwise(i64, i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (extent(), extent(), extent()).prop_map(|(m, n, k)| Op::MatMul(m, n, k * 3)),
        (1i64..4, 1i64..5, 3i64..10, 1i64..4, 1i64..3, 0i64..2)
            .prop_map(|(c, f, h, k, s, p)| Op::Conv(c, f, h.max(k), k, s, p)),
        (1i64..4, 3i64..12, 1i64..4, 1i64..3).prop_map(|(c, h, k, s)| Op::Pool(c, h.max(k), k, s)),
        (extent(), extent(), extent()).prop_map(|(a, b, c)| Op::Reduce(a, b, c * 2)),
        (extent(), extent()).prop_map(|(a, b)| Op::Elementwise(a, b * 3)),
    ]
}

fn text(op: &Op) -> String {
    match *op {
        Op::MatMul(m, n, k) => format!(
            "func.func @f(%A: tensor<{m}x{k}xf32>, %B: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %C = te.compute (%m, %n) reduce (%k) in [{m}, {n}, {k}] may_pad 0.0
         : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
    te.sum(%A[%m, %k] * %B[%k, %n])
  }}
  func.return %C : tensor<{m}x{n}xf32>
}}"
        ),
        Op::Conv(c, f, h, k, s, p) => {
            let o = (h + 2 * p - k) / s + 1;
            let (idx_y, idx_x, pad) = if p > 0 {
                (format!("%y * {s} + %ry - {p}"), format!("%x * {s} + %rx - {p}"), " pad 0.0")
            } else {
                (format!("%y * {s} + %ry"), format!("%x * {s} + %rx"), "")
            };
            format!(
                "func.func @f(%D: tensor<2x{c}x{h}x{h}xf32>, %K: tensor<{f}x{c}x{k}x{k}xf32>) -> tensor<2x{f}x{o}x{o}xf32> {{
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [2, {f}, {o}, {o}, {c}, {k}, {k}] may_pad 0.0
         : (tensor<2x{c}x{h}x{h}xf32>, tensor<{f}x{c}x{k}x{k}xf32>) -> tensor<2x{f}x{o}x{o}xf32> {{
    te.sum(%D[%n, %c, {idx_y}, {idx_x}]{pad} * %K[%f, %c, %ry, %rx])
  }}
  func.return %O : tensor<2x{f}x{o}x{o}xf32>
}}"
            )
        }
        Op::Pool(c, h, k, s) => {
            let o = (h - k) / s + 1;
            format!(
                "func.func @f(%D: tensor<{c}x{h}x{h}xf32>) -> tensor<{c}x{o}x{o}xf32> {{
  %O = te.compute (%c, %y, %x) reduce (%ry, %rx) in [{c}, {o}, {o}, {k}, {k}] may_pad -inf
         : (tensor<{c}x{h}x{h}xf32>) -> tensor<{c}x{o}x{o}xf32> {{
    te.max(%D[%c, %y * {s} + %ry, %x * {s} + %rx])
  }}
  func.return %O : tensor<{c}x{o}x{o}xf32>
}}"
            )
        }
        Op::Reduce(a, b, c) => format!(
            "func.func @f(%I: tensor<{a}x{b}x{c}xf32>) -> tensor<{a}x{b}xf32> {{
  %S = te.compute (%a, %b) reduce (%c) in [{a}, {b}, {c}] may_pad 0.0
         : (tensor<{a}x{b}x{c}xf32>) -> tensor<{a}x{b}xf32> {{
    te.sum(exp(%I[%a, %b, %c]) * %I[%a, %b, %c])
  }}
  func.return %S : tensor<{a}x{b}xf32>
}}"
        ),
        Op::Elementwise(a, b) => format!(
            "func.func @f(%I: tensor<{a}x{b}xf32>, %J: tensor<{b}xf32>) -> tensor<{a}x{b}xf32> {{
  %O = te.compute (%i, %j) in [{a}, {b}]
         : (tensor<{a}x{b}xf32>, tensor<{b}xf32>) -> tensor<{a}x{b}xf32> {{
    te.max(%I[%i, %j] * %J[%j] - 0.25, 0.0)
  }}
  func.return %O : tensor<{a}x{b}xf32>
}}"
        ),
    }
}

/// Random tiles: per axis a block size in [1, 2·extent] and a thread size dividing it.
fn program(extents: &[i64], red: &[bool], picks: &[(u32, u32)], staged: bool) -> RProgram {
    let mut block = Vec::new();
    let mut thread = Vec::new();
    let mut threads = 1u64;
    for (a, &e) in extents.iter().enumerate() {
        let (x, y) = picks[a % picks.len()];
        let b = 1 + (x as i64 % (2 * e)).max(0) as u64;
        let divs: Vec<u64> = (1..=b).filter(|d| b.is_multiple_of(*d)).collect();
        let mut t = divs[y as usize % divs.len()];
        if !red[a] {
            // Keep the block within 1024 threads.
            while threads * (b / t) > 1024 {
                t = b;
            }
            threads *= b / t;
        }
        block.push(b);
        thread.push(t);
    }
    RProgram {
        staged,
        // A test device whose blocks may hold any tile the generator draws.
        device_file: Some(
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/random-device.toml").into(),
        ),
        // Pads are set per access by the caller.
        ..RProgram::manual("random", &block, &thread, vec![], threads)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_shapes_and_programs(op in op(), picks in proptest::collection::vec((0u32..64, 0u32..16), 7), pad in 0u64..5, staged in any::<bool>(), split in 0u32..4, seed in 0u64..1000) {
        let t = text(&op);
        let sc = parse_computes("t.mlir", &t).unwrap_or_else(|e| panic!("{e}\n{t}"));
        let c = &sc[0].compute;
        let ext: Vec<i64> = c.axes.iter().map(|a| a.extent).collect();
        let red: Vec<bool> = c.axes.iter().map(|a| a.kind == rtile_dialects::te::model::AxisKind::Reduction).collect();
        let mut p = program(&ext, &red, &picks, staged);
        // Storage padding only on the leading (last) dimension of each access.
        p.pad = rtile_dialects::rtile::verify::distinct_reads(c).into_iter().map(|r| {
            let a = &c.accesses[r];
            let r = a.map.results.len();
            let mut v = vec![0; r];
            v[r - 1] = pad;
            v
        }).collect();
        let mut programs = vec![p];
        // And the construction's best program on V100.
        let info = expr_info(c);
        if let Ok(res) = construct(&info, &Device::builtin("v100").expect("v100"), &ConstructOptions { top_k: 1, ..ConstructOptions::default() }) {
            programs.extend(res.programs.into_iter().take(1));
        }
        // The random program with a forced cross-thread split (1, 2, 4 or 8 lanes; capped
        // at 1024 threads), the constructed one with the automatic choice.
        for (i, p) in programs.into_iter().enumerate() {
            let lanes = 1u32 << split;
            let cross = if i == 0 && p.threads * u64::from(lanes) <= 1024 {
                CrossThread::Split(lanes)
            } else {
                CrossThread::Auto
            };
            // Both k-step forms: register-prefetch double buffering (where it applies) and
            // load-barrier-compute-barrier.
            for prefetch in [true, false] {
                let opts = LowerOptions { cross: Some(cross), prefetch, ..LowerOptions::default() };
                let mut ctx = common::context();
                let k = lower_compute_opts(&mut ctx, c, &p, "k", opts).map_err(|e| TestCaseError::fail(format!("{e}: {p:?}")))?;
                let m = common::module_text(&mut ctx, &[k]);
                let r = run_check_text("k.mlir", &m, seed).map_err(|e| TestCaseError::fail(format!("{op:?} {p:?} prefetch={prefetch}: {e}\n{m}")))?;
                // 1e-5, or the output's rounding floor where f32 cannot reach it (a dot
                // product that cancels: MatMul(1, 1, 51) drew 7.9e-5 against the f64 oracle).
                prop_assert!(r.within(1e-5), "{:?} {:?} prefetch={}: max relative error {:e}", op, p, prefetch, r.max_rel_err());
            }
        }
    }
}
