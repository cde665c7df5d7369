//! Stencils: reads of one tensor at constant offsets are one data tile with a halo (Roller
//! §3.1: the data tile is what an rTile touches), so the footprint (MemFootprint) is the
//! tile plus its halo and the traffic (MemTraffic) counts the box once, not once per tap.

use super::rtile::{input_data_tiles, mem_traffic, num_tiles, shared_bytes};
use super::te_adapter::expr_from_compute;
use super::*;
use crate::device::Device;
use rtile_dialects::te::model::TeCompute;
use rtile_dialects::te::module::parse_computes;

/// The 5×5 box filter of `bench/pipelines/stencil_chain.mlir` over an `h×w` input: 25 taps
/// `I[y + i, x + j]`, written out as the generator writes them.
fn box5(h: i64, w: i64) -> TeCompute {
    let (oh, ow) = (h - 4, w - 4);
    let taps: Vec<String> = (0..5)
        .flat_map(|i| (0..5).map(move |j| format!("%I[%y + {i}, %x + {j}]")))
        .collect();
    let text = format!(
        "func.func @s(%I: tensor<{h}x{w}xf32>) -> tensor<{oh}x{ow}xf32> {{
  %R = te.compute (%y, %x) in [{oh}, {ow}] : (tensor<{h}x{w}xf32>) -> tensor<{oh}x{ow}xf32> {{ ({}) * 0.04 }}
  return %R : tensor<{oh}x{ow}xf32>
}}",
        taps.join(" + ")
    );
    parse_computes("box5.mlir", &text)
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
        .compute
}

#[test]
fn a_5x5_stencil_is_one_input_with_a_halo_of_4() {
    let c = box5(68, 132);
    assert_eq!(c.accesses.len(), 25);
    let e = expr_from_compute(&c).unwrap();
    assert_eq!(e.inputs.len(), 1, "25 taps, one data tile");
    let ix = &e.inputs[0].indices;
    assert_eq!(ix[0], AffineIndex::axis(0).with_halo(4));
    assert_eq!(ix[1], AffineIndex::axis(1).with_halo(4));
    // 24 adds and one multiply per point.
    assert_eq!(e.flops_per_point, 25.0);
    for t in [1u64, 4, 16, 32] {
        let tile = [t, t];
        assert_eq!(input_data_tiles(&e, &tile), vec![vec![t + 4, t + 4]]);
        // Footprint: (t + 4)² floats, once.
        assert_eq!(shared_bytes(&e, &tile, &[]), (t + 4) * (t + 4) * 4);
        // Traffic: every tile loads its box once and stores its t² outputs.
        let tiles = num_tiles(&e, &tile);
        assert_eq!(tiles, 64u64.div_ceil(t) * 128u64.div_ceil(t));
        assert_eq!(
            mem_traffic(&e, &tile),
            tiles * (t + 4) * (t + 4) * 4 + tiles * t * t * 4
        );
    }
}

#[test]
fn offsets_are_taken_from_the_lowest_tap() {
    // Taps at y .. y + 2 and x + 2 .. x + 3: the box starts at (y, x + 2), the first tap's
    // constants are not the box's.
    let text = "func.func @s(%I: tensor<10x10xf32>) -> tensor<8x6xf32> {
  %R = te.compute (%y, %x) in [8, 6] : (tensor<10x10xf32>) -> tensor<8x6xf32> {
    %I[%y + 2, %x + 3] - %I[%y, %x + 2] }
  return %R : tensor<8x6xf32>
}";
    let c = parse_computes("t.mlir", text).unwrap().remove(0).compute;
    let e = expr_from_compute(&c).unwrap();
    assert_eq!(e.inputs.len(), 1);
    assert_eq!(
        e.inputs[0].indices,
        vec![
            AffineIndex::affine(&[(0, 1)], 0).with_halo(2),
            AffineIndex::affine(&[(1, 1)], 2).with_halo(1),
        ]
    );
    assert_eq!(input_data_tiles(&e, &[4, 2]), vec![vec![6, 3]]);
}

#[test]
fn reads_with_different_coefficients_stay_two() {
    // softmax's `x - max`: x[i, j] and max[i] (another tensor), and x read transposed.
    let text = "func.func @s(%X: tensor<9x9xf32>, %M: tensor<8xf32>) -> tensor<8x8xf32> {
  %R = te.compute (%i, %j) in [8, 8] : (tensor<9x9xf32>, tensor<8xf32>) -> tensor<8x8xf32> {
    %X[%i, %j] - %M[%i] + %X[%j, %i] + %X[%i, %j + 1] }
  return %R : tensor<8x8xf32>
}";
    let c = parse_computes("t.mlir", text).unwrap().remove(0).compute;
    let e = expr_from_compute(&c).unwrap();
    // X[i, j] and X[i, j + 1] merge; M[i] and X[j, i] are reads of their own.
    assert_eq!(e.inputs.len(), 3);
    assert_eq!(
        e.inputs[0].indices,
        vec![
            AffineIndex::axis(0),
            AffineIndex::affine(&[(1, 1)], 0).with_halo(1)
        ]
    );
    assert_eq!(e.inputs[1].indices, vec![AffineIndex::axis(0)]);
    assert_eq!(
        e.inputs[2].indices,
        vec![AffineIndex::axis(1), AffineIndex::axis(0)]
    );
    // The transposed read's footprint is its own tile: 4x2 + 2x4 + 4x3 and M's 4.
    assert_eq!(shared_bytes(&e, &[4, 2], &[]), (4 * 3 + 4 + 2 * 4) * 4);
}

/// The read limit counts merged reads: 25 taps of one tensor are one read (the chain's
/// stages were refused with "25 input reads" before), 17 different tensors are still 17.
#[test]
fn the_read_limit_counts_merged_reads() {
    assert!(expr_from_compute(&box5(20, 20)).is_ok());
    let args: Vec<String> = (0..17).map(|i| format!("%A{i}: tensor<4xf32>")).collect();
    let tys = vec!["tensor<4xf32>"; 17].join(", ");
    let sum: Vec<String> = (0..17).map(|i| format!("%A{i}[%i]")).collect();
    let text = format!(
        "func.func @s({}) -> tensor<4xf32> {{
  %R = te.compute (%i) in [4] : ({tys}) -> tensor<4xf32> {{ {} }}
  return %R : tensor<4xf32>
}}",
        args.join(", "),
        sum.join(" + ")
    );
    let c = parse_computes("t.mlir", &text).unwrap().remove(0).compute;
    let m = expr_from_compute(&c).unwrap_err();
    assert!(m.contains("17 input reads"), "{m}");
}

/// Constructed programs of the box filter stage the box (the stencil has reuse, so it is
/// not reuse-free, §3.2) and record a shared footprint of `(block + 4)` per dim with the
/// storage padding, and a traffic of one box per block.
#[test]
fn constructed_stencil_programs_count_the_box_once() {
    let c = box5(1536, 2560);
    let e = expr_from_compute(&c).unwrap();
    for dev in ["h100", "v100"] {
        let d = Device::builtin(dev).unwrap();
        let r = construct(&e, &d, &ConstructOptions::default()).unwrap();
        assert!(!r.programs.is_empty(), "{dev}: no programs");
        for p in &r.programs {
            assert!(p.staged, "{dev}: {p:?}");
            assert_eq!(p.pad.len(), 1);
            let (by, bx) = (p.block[0], p.block[1]);
            let padded = (by + 4 + p.pad[0][0]) * (bx + 4 + p.pad[0][1]);
            assert_eq!(p.footprint[1], padded * 4, "{dev}: {p:?}");
            let blocks = 1532u64.div_ceil(by) * 2556u64.div_ceil(bx);
            let want = blocks * (by + 4) * (bx + 4) * 4 + blocks * by * bx * 4;
            assert_eq!(p.traffic[1], want, "{dev}: {p:?}");
            check_program(&e, &d, p).unwrap();
        }
    }
}
