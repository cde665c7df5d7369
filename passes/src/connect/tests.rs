//! Unit tests of propagation (§3.1) and of the traffic/footprint model (§2, §3.1, §4.1),
//! on te functions parsed by the real parser.

use rtile::ir::{Context, OpId};
use rtile_dialects::te::module::{new_context, parse_and_verify};
use rtile_dialects::tilegraph::Level;

use super::graph::{Graph, build_graph};
use super::model::{BestFit, BoundaryTile, dram_utilization, footprint, traffic, utilization};
use super::propagate::{PropagateError, SubGraph, propagate};
use super::schedule::schedule;
use super::tiling::best_plan;
use crate::device::Device;

/// The graph of the first function of `text`.
pub(super) fn graph_of(text: &str) -> (Context, Graph) {
    let mut ctx = new_context();
    let m = parse_and_verify(&mut ctx, "connect-test.mlir", text).unwrap_or_else(|e| panic!("{e}"));
    let f = ctx
        .collect_ops(m)
        .into_iter()
        .find(|&o| ctx.op_name(o) == "func.func")
        .expect("a function");
    let b = ctx.region_blocks(ctx.regions(f)[0])[0];
    let ops: Vec<OpId> = ctx.block_ops(b).collect();
    let g = build_graph(&ctx, &ops).unwrap_or_else(|e| panic!("{e}"));
    (ctx, g)
}

fn all_connected(_: usize, _: usize) -> bool {
    true
}

fn whole(g: &Graph) -> SubGraph<'_> {
    SubGraph {
        graph: g,
        members: (0..g.nodes.len()).collect(),
        connected: &all_connected,
    }
}

/// Welder §2: A[98304x64] · B[64x128] → C → Softmax → D, FP32, softmax as te's four
/// computes (row max, exp, row sum, divide).
const MATMUL_SOFTMAX: &str = r#"
func.func @f(%A: tensor<98304x64xf32>, %B: tensor<64x128xf32>) -> tensor<98304x128xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [98304, 128, 64]
         : (tensor<98304x64xf32>, tensor<64x128xf32>) -> tensor<98304x128xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  %M = te.compute (%i) reduce (%j) in [98304, 128] : (tensor<98304x128xf32>) -> tensor<98304xf32> {
    te.max(%C[%i, %j])
  }
  %E = te.compute (%i, %j) in [98304, 128] : (tensor<98304x128xf32>, tensor<98304xf32>) -> tensor<98304x128xf32> {
    exp(%C[%i, %j] - %M[%i])
  }
  %S = te.compute (%i) reduce (%j) in [98304, 128] : (tensor<98304x128xf32>) -> tensor<98304xf32> {
    te.sum(%E[%i, %j])
  }
  %D = te.compute (%i, %j) in [98304, 128] : (tensor<98304x128xf32>, tensor<98304xf32>) -> tensor<98304x128xf32> {
    %E[%i, %j] / %S[%i]
  }
  func.return %D : tensor<98304x128xf32>
}
"#;

const MIB: u64 = 1024 * 1024;

#[test]
fn paper_matmul_softmax_traffic_at_4x128() {
    let (_ctx, g) = graph_of(MATMUL_SOFTMAX);
    let sg = whole(&g);
    let dom = propagate(&sg, &[4, 128], None).unwrap();
    // Softmax's [4x128] output needs a [4x128] Matmul tile: A [4x64], B [64x128] (§2).
    assert_eq!(dom[0], vec![4, 128, 64]);
    assert_eq!(dom[1], vec![4, 128]);
    let t = traffic(&sg, &dom);
    let mut ins: Vec<Vec<u64>> = t.inputs.iter().map(|b| b.tile.clone()).collect();
    ins.sort();
    assert_eq!(ins, vec![vec![4, 64], vec![64, 128]]);
    // (4·64 + 64·128 + 4·128) · 4 B = 35 KB per tile, 24,576 tiles, 840 MB.
    assert_eq!(t.per_instance(), 35 * 1024);
    assert_eq!(t.instances, 24_576);
    assert_eq!(t.total(), 840 * MIB);
    // Every tile is whole rows of 128-byte runs and there are plenty of tiles of 128
    // threads for V100's 80 cores × 128 lanes: no penalty.
    let v100 = Device::builtin("v100").unwrap();
    let util = utilization(t.instances, 128, &v100);
    assert_eq!(util, 1.0);
    assert_eq!(t.coalesced(128), 840 * MIB);
    assert_eq!(t.penalized(128, util), (840 * MIB) as f64);
}

#[test]
fn paper_matmul_softmax_traffic_at_16x128() {
    let (_ctx, g) = graph_of(MATMUL_SOFTMAX);
    let sg = whole(&g);
    let dom = propagate(&sg, &[16, 128], None).unwrap();
    let t = traffic(&sg, &dom);
    assert_eq!(t.per_instance(), 44 * 1024);
    assert_eq!(t.instances, 6_144);
    assert_eq!(t.total(), 264 * MIB);
}

#[test]
fn reduction_steps_lower_the_footprint_not_the_traffic() {
    let (_ctx, g) = graph_of(MATMUL_SOFTMAX);
    let sg = whole(&g);
    let stored = |n: usize| n != 0; // C in registers, the rest in the layer
    let full = propagate(&sg, &[16, 128], None).unwrap();
    let split = propagate(&sg, &[16, 128], Some(16)).unwrap();
    assert_eq!(split[0], vec![16, 128, 16]);
    // The softmax reductions read the connected C/E tiles: they stay whole.
    assert_eq!(split[1], vec![16, 128]);
    assert_eq!(traffic(&sg, &full).total(), traffic(&sg, &split).total());
    let (f_full, f_split) = (
        footprint(&sg, &full, &stored),
        footprint(&sg, &split, &stored),
    );
    assert!(f_split < f_full, "{f_split} < {f_full}");
    // Full k: A [16x64] and B [64x128] staged, 4 KiB + 32 KiB, then M, E, S, D:
    // A and B die after C (C stays in registers); M, E, S and D then fit in their space
    // (64 + 8192 + 8192 B at most at once), so the peak is A + B.
    assert_eq!(f_full, 4096 + 32768);
    // With k split by 16: A [16x16] + B [16x128] = 1 KiB + 8 KiB, then E and D on top of
    // M or S (64 B each) in the freed space: 64 + 8192 + 8192 B.
    assert_eq!(f_split, 64 + 8192 + 8192);
}

#[test]
fn strided_conv_halo() {
    // 3x3 conv, stride 2, zero padding 1: an output tile of 2x2 reads a 5x5 window.
    let (_ctx, g) = graph_of(
        r#"
func.func @f(%D: tensor<1x3x16x16xf32>, %K: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 8, 8, 8, 3, 3, 3]
         : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
    te.sum(%D[%n, %c, %y * 2 + %ry - 1, %x * 2 + %rx - 1] pad 0.0 * %K[%f, %c, %ry, %rx])
  }
  func.return %O : tensor<1x8x8x8xf32>
}
"#,
    );
    let sg = whole(&g);
    for (ty, tx) in [(1u64, 1u64), (2, 2), (4, 2), (8, 8)] {
        let dom = propagate(&sg, &[1, 4, ty, tx], None).unwrap();
        let t = traffic(&sg, &dom);
        // Independent reference: (t - 1) · stride + kernel, capped by the tensor.
        let halo = |t: u64| ((t - 1) * 2 + 3).min(16);
        assert_eq!(
            t.inputs[0].tile,
            vec![1, 3, halo(ty), halo(tx)],
            "tile {ty}x{tx}"
        );
        assert_eq!(t.inputs[1].tile, vec![4, 3, 3, 3]);
    }
}

#[test]
fn conv_then_maxpool_reuse_tile() {
    // Welder Fig. 4/5: MaxPool 2x2 stride 2 output [1,1] per channel needs a [2,2] reuse
    // tile, which a 3x3 stride-1 conv computes from a [4,4] input window.
    let (_ctx, g) = graph_of(
        r#"
func.func @f(%D: tensor<1x4x10x10xf32>, %K: tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32> {
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 8, 8, 8, 4, 3, 3]
         : (tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32> {
    te.sum(%D[%n, %c, %y + %ry, %x + %rx] * %K[%f, %c, %ry, %rx])
  }
  %P = te.compute (%n, %f, %y, %x) reduce (%ry, %rx) in [1, 8, 4, 4, 2, 2]
         : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32> {
    te.max(%C[%n, %f, %y * 2 + %ry, %x * 2 + %rx])
  }
  func.return %P : tensor<1x8x4x4xf32>
}
"#,
    );
    let sg = whole(&g);
    let dom = propagate(&sg, &[1, 8, 1, 1], None).unwrap();
    assert_eq!(dom[1], vec![1, 8, 1, 1, 2, 2]);
    assert_eq!(dom[0][..4], [1, 8, 2, 2]);
    let t = traffic(&sg, &dom);
    assert_eq!(t.inputs[0].tile, vec![1, 4, 4, 4]);
}

#[test]
fn reduction_axis_whole_or_split() {
    let (_ctx, g) = graph_of(
        r#"
func.func @f(%X: tensor<64x256xf32>) -> tensor<64xf32> {
  %S = te.compute (%i) reduce (%j) in [64, 256] : (tensor<64x256xf32>) -> tensor<64xf32> {
    te.sum(%X[%i, %j])
  }
  func.return %S : tensor<64xf32>
}
"#,
    );
    let sg = whole(&g);
    assert_eq!(propagate(&sg, &[4], None).unwrap()[0], vec![4, 256]);
    let split = propagate(&sg, &[4], Some(32)).unwrap();
    assert_eq!(split[0], vec![4, 32]);
    // Traffic counts the whole row whatever the step (§2).
    assert_eq!(traffic(&sg, &split).inputs[0].tile, vec![4, 256]);
}

#[test]
fn broadcasts_and_transposes() {
    let (_ctx, g) = graph_of(
        r#"
func.func @f(%X: tensor<32x64xf32>, %b: tensor<64xf32>, %m: tensor<32xf32>) -> tensor<64x32xf32> {
  %Y = te.compute (%i, %j) in [32, 64] : (tensor<32x64xf32>, tensor<64xf32>, tensor<32xf32>) -> tensor<32x64xf32> {
    %X[%i, %j] + %b[%j] - %m[%i]
  }
  %T = te.compute (%j, %i) in [64, 32] : (tensor<32x64xf32>) -> tensor<64x32xf32> {
    %Y[%i, %j]
  }
  func.return %T : tensor<64x32xf32>
}
"#,
    );
    let sg = whole(&g);
    let dom = propagate(&sg, &[16, 4], None).unwrap();
    // The transpose reads Y[4 x 16]; the bias [16] and the row vector [4].
    assert_eq!(dom[0], vec![4, 16]);
    let mut ins: Vec<Vec<u64>> = traffic(&sg, &dom)
        .inputs
        .iter()
        .map(|b| b.tile.clone())
        .collect();
    ins.sort();
    assert_eq!(ins, vec![vec![4], vec![4, 16], vec![16]]);
}

/// P feeds two consumers; `transposed` makes the second read P transposed.
fn two_consumers(transposed: bool) -> String {
    let read = if transposed {
        "%P[%j, %i]"
    } else {
        "%P[%i, %j]"
    };
    format!(
        r#"
func.func @f(%X: tensor<64x64xf32>) -> tensor<64x64xf32> {{
  %P = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> {{ exp(%X[%i, %j]) }}
  %A = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> {{ %P[%i, %j] * 2.0 }}
  %B = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> {{ {read} }}
  %R = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> {{ %A[%i, %j] + %B[%i, %j] }}
  func.return %R : tensor<64x64xf32>
}}
"#
    )
}

#[test]
fn multi_consumer_consistent_and_not() {
    let (_ctx, g) = graph_of(&two_consumers(false));
    let dom = propagate(&whole(&g), &[4, 64], None).unwrap();
    assert_eq!(dom[0], vec![4, 64]);
    let (_ctx, g) = graph_of(&two_consumers(true));
    // §3.1: the two consumers ask P for [4x64] and [64x4]: not connected.
    let e = propagate(&whole(&g), &[4, 64], None).unwrap_err();
    assert_eq!(
        e,
        PropagateError::Inconsistent {
            node: 0,
            first: vec![64, 4],
            second: vec![4, 64],
        }
    );
}

#[test]
fn multi_output_aligned_with_the_first() {
    // Two outputs of the same shape from one producer: the second takes the first's tile.
    let (_ctx, g) = graph_of(
        r#"
func.func @f(%X: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %P = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { exp(%X[%i, %j]) }
  %A = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { %P[%i, %j] * 2.0 }
  %B = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { %P[%i, %j] + 1.0 }
  func.return %A, %B : tensor<64x64xf32>, tensor<64x64xf32>
}
"#,
    );
    let sg = whole(&g);
    assert_eq!(sg.outputs(), vec![2, 1]);
    let dom = propagate(&sg, &[8, 64], None).unwrap();
    assert_eq!(dom, vec![vec![8, 64]; 3]);
    let t = traffic(&sg, &dom);
    assert_eq!(t.outputs.len(), 2);
    assert_eq!(t.per_instance(), 3 * 8 * 64 * 4);
}

#[test]
fn reshapes_between_te_ops() {
    let (_ctx, g) = graph_of(
        r#"
func.func @f(%X: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = te.compute (%i, %j) in [8, 16] : (tensor<8x16xf32>) -> tensor<8x16xf32> { exp(%X[%i, %j]) }
  %f = tensor.collapse_shape %a [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  %r = te.compute (%i) in [128] : (tensor<128xf32>) -> tensor<128xf32> { te.max(%f[%i], 0.0) }
  %e = tensor.expand_shape %r [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  func.return %e : tensor<8x16xf32>
}
"#,
    );
    let sg = whole(&g);
    let dom = propagate(&sg, &[2, 16], None).unwrap();
    // expand: [2x16] of the result is 32 consecutive elements; collapse: 32 = 2 rows of 16.
    assert_eq!(dom[2], vec![32]);
    assert_eq!(dom[1], vec![32]);
    assert_eq!(dom[0], vec![2, 16]);
    // A tile that is not whole rows: [2x8] spans 16 + 7 + 1 = 24 elements (bounding box).
    let dom = propagate(&sg, &[2, 8], None).unwrap();
    assert_eq!(dom[2], vec![24]);
    // 24 elements not aligned to 16 may straddle 3 rows: the conservative bound (§3.1);
    // the tile really touches 2.
    assert_eq!(dom[0], vec![3, 16]);
    // 8 elements of the flat tensor sit in one row.
    let sub = SubGraph {
        graph: &g,
        members: vec![0, 1, 2],
        connected: &all_connected,
    };
    assert_eq!(propagate(&sub, &[8], None).unwrap()[0], vec![1, 8]);
}

#[test]
fn irregular_accesses_are_bounded() {
    let (_ctx, g) = graph_of(
        r#"
func.func @f(%X: tensor<4xf32>, %Y: tensor<33xf32>) -> tensor<64xf32> {
  %r = te.compute (%i) in [64] : (tensor<4xf32>, tensor<33xf32>) -> tensor<64xf32> { %X[%i mod 4] + %Y[%i ceildiv 2] }
  func.return %r : tensor<64xf32>
}
"#,
    );
    let sg = whole(&g);
    let t = traffic(&sg, &propagate(&sg, &[8], None).unwrap());
    // mod 4: at most 4 values; ceildiv: not analysed, the whole tensor (§3.1 upper bound).
    assert_eq!(t.inputs[0].tile, vec![4]);
    assert_eq!(t.inputs[1].tile, vec![33]);
}

#[test]
fn penalties() {
    // [4x8] f32 out of 128-wide rows: 4 rows of 32 B, each a whole 128 B transaction.
    let b = BoundaryTile {
        tile: vec![4, 8],
        shape: vec![64, 128],
        elem_bytes: 4,
    };
    assert_eq!(b.bytes(), 128);
    assert_eq!(b.coalesced_bytes(128), 512);
    // Whole rows merge into one run: [4x128] is 2 KiB contiguous.
    let w = BoundaryTile {
        tile: vec![4, 128],
        shape: vec![64, 128],
        elem_bytes: 4,
    };
    assert_eq!(w.coalesced_bytes(128), 2048);
    // 40 tiles on 80 cores: half the cores idle, the traffic counts double.
    let t = super::model::Traffic {
        inputs: vec![w.clone()],
        outputs: vec![],
        instances: 40,
    };
    let v100 = Device::builtin("v100").unwrap();
    assert_eq!(utilization(40, 128, &v100), 0.5);
    assert_eq!(t.penalized(128, 0.5), 2.0 * 2048.0 * 40.0);
    assert_eq!(t.penalized(128, 1.0), 2048.0 * 40.0);
    // §4.1's hardware parallelism is 4 warp schedulers × 32 lanes a core: 160 blocks cover
    // the 80 cores, but at 32 threads each they fill half of the 10,240 lanes; at one
    // thread each, 1/64. Blocks alone would call both fully used.
    assert_eq!(utilization(160, 32, &v100), 0.5);
    assert_eq!(utilization(160, 1, &v100), 1.0 / 64.0);
    assert_eq!(utilization(160, 256, &v100), 1.0);
    // Few blocks stay the limit however many threads they have.
    assert_eq!(utilization(8, 1024, &v100), 0.1);
    // A core runs at most 32 blocks at once, and each of its 4 schedulers issues one warp
    // a cycle: 98,304 one-thread blocks do 4 of an H100 core's 128 lanes of work (the grid
    // alone would count them all), 4-thread blocks 16.
    let h100 = Device::builtin("h100").unwrap();
    assert_eq!(utilization(98_304, 1, &h100), 1.0 / 32.0);
    assert_eq!(utilization(24_576, 4, &h100), 1.0 / 8.0);
    assert_eq!(utilization(98_304, 128, &h100), 1.0);
    // 48 threads are two warps of 24 on average.
    assert_eq!(utilization(98_304, 48, &h100), 0.75);
    assert_eq!(utilization(1_536, 1, &h100), 1.0 / 32.0);
}

#[test]
fn best_fit_reuses_the_tightest_hole() {
    let mut a = BestFit::default();
    let x = a.alloc(100); // 128 B at 0
    let y = a.alloc(32); // at 128
    let z = a.alloc(200); // 224 B at 160
    let _w = a.alloc(40); // 64 B at 384
    assert_eq!((x, y, z), (0, 128, 160));
    a.free(x, 100);
    a.free(z, 200);
    // Holes of 128 (at 0) and 224 (at 160): 96 B goes to the tighter one.
    assert_eq!(a.alloc(96), 0);
    assert_eq!(a.alloc(224), 160);
    assert_eq!(a.peak(), 448);
}

#[test]
fn over_capacity_is_refused() {
    let (_ctx, g) = graph_of(MATMUL_SOFTMAX);
    let mut dev = Device::builtin("v100").unwrap();
    let levels: Vec<Vec<Level>> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(n, node)| {
            let l = if n == 0 { Level::Global } else { Level::Shared };
            vec![l; node.inputs.len()]
        })
        .collect();
    let members: Vec<usize> = (0..g.nodes.len()).collect();
    let p = best_plan(&g, &members, &levels, &dev, 4).unwrap();
    assert!(p.shared_footprint <= dev.layers[Device::SHARED].capacity_bytes);
    // With a 1 KiB shared layer no [rows x 128] softmax tile fits.
    dev.layers[Device::SHARED].capacity_bytes = 1024;
    let e = best_plan(&g, &members, &levels, &dev, 4).unwrap_err();
    assert!(e.contains("over the 1024 B shared layer"), "{e}");
}

#[test]
fn welder_none_makes_one_kernel_per_op() {
    let (_ctx, g) = graph_of(MATMUL_SOFTMAX);
    let dev = Device::builtin("v100").unwrap();
    let s = schedule(&g, &dev, 4, None).unwrap();
    assert_eq!(s.kernels.len(), 5);
    let s = schedule(&g, &dev, 4, Some(Level::Shared)).unwrap();
    assert!(s.kernels.len() < 5, "{}", s.kernels.len());
}

#[test]
fn inconsistent_consumers_are_not_both_connected() {
    // P is read as [i, j] by A and as [j, i] by B: both can join P's kernel only with a
    // square block tile (§3.1: the two consumers must ask P the same tile), and every
    // kernel the schedule returns propagates consistently.
    let (_ctx, g) = graph_of(&two_consumers(true));
    let dev = Device::builtin("v100").unwrap();
    let s = schedule(&g, &dev, 4, Some(Level::Shared)).unwrap();
    let both = s.levels[1][0] != Level::Global && s.levels[2][0] != Level::Global;
    let pk = s.kernels.iter().find(|k| k.members.contains(&0)).unwrap();
    let pt = pk.tiles[0].shared.clone().unwrap();
    assert!(
        !both || pt[0] == pt[1],
        "P's tile {pt:?} with both consumers connected"
    );
    for k in &s.kernels {
        let conn = |c: usize, i: usize| s.levels[c][i] != Level::Global;
        let sg = SubGraph {
            graph: &g,
            members: k.members.clone(),
            connected: &conn,
        };
        let out = sg.outputs()[0];
        let pos = k.members.binary_search(&out).unwrap();
        let np = g.nodes[out].num_parallel;
        let t = k.tiles[pos].shared.clone().unwrap();
        assert!(propagate(&sg, &t[..np], None).is_ok());
    }
    // Read the same way by both, P joins one kernel with both consumers.
    let (_ctx, g) = graph_of(&two_consumers(false));
    let s = schedule(&g, &dev, 4, Some(Level::Shared)).unwrap();
    assert_eq!(s.kernels.len(), 1);
}

/// A chain of `stages` 3×3 box filters over a 64×96 image: each stage reads its producer
/// nine times (one operand per access, as te writes a stencil).
fn stencil_chain(stages: usize) -> String {
    let (mut h, mut w) = (64usize, 96usize);
    let mut text = format!("func.func @f(%I: tensor<{h}x{w}xf32>) -> tensor<");
    let (fh, fw) = (h - 2 * stages, w - 2 * stages);
    text += &format!("{fh}x{fw}xf32> {{\n");
    let mut src = "%I".to_string();
    for s in 0..stages {
        let (oh, ow) = (h - 2, w - 2);
        let reads: Vec<String> = (0..3)
            .flat_map(|dy| (0..3).map(move |dx| (dy, dx)))
            .map(|(dy, dx)| format!("{src}[%y + {dy}, %x + {dx}]"))
            .collect();
        text += &format!(
            "  %S{s} = te.compute (%y, %x) in [{oh}, {ow}] : (tensor<{h}x{w}xf32>) -> tensor<{oh}x{ow}xf32> {{ ({}) * 0.111 }}\n",
            reads.join(" + ")
        );
        src = format!("%S{s}");
        (h, w) = (oh, ow);
    }
    text += &format!("  func.return {src} : tensor<{fh}x{fw}xf32>\n}}\n");
    text
}

#[test]
fn stencil_chain_decides_one_edge_per_tensor() {
    // The 32-stage stencil chain of the pipelines bench did not finish: every one of a
    // stencil's reads was decided as its own edge, each re-tiling the whole growing
    // kernel. One decision per producer→consumer pair keeps the number of sub-graphs
    // tiled linear in the chain's length.
    let stages = 16;
    let (_ctx, g) = graph_of(&stencil_chain(stages));
    assert_eq!(g.nodes.len(), stages);
    assert!(g.consumers[0].len() == 9, "{:?}", g.consumers[0]);
    let dev = Device::builtin("v100").unwrap();
    let s = schedule(&g, &dev, 8, Some(Level::Shared)).unwrap();
    // Per edge: the producer's kernel, the consumer's, and the merge at register and at
    // shared: at most four new sub-graphs per edge.
    assert!(
        s.tilings <= 4 * stages,
        "{} sub-graphs tiled for {stages} stages",
        s.tilings
    );
    // The nine reads of one tensor share one level and one decision.
    for c in 1..stages {
        let lv = s.levels[c][0];
        assert!(s.levels[c].iter().all(|&l| l == lv), "{:?}", s.levels[c]);
        let d = &s.decisions[&(c, 0)];
        assert!((1..9).all(|i| &s.decisions[&(c, i)] == d));
    }
    // Every kernel propagates consistently and fits the shared layer.
    let cap = dev.layers[Device::SHARED].capacity_bytes;
    for k in &s.kernels {
        assert!(k.shared_footprint <= cap, "{}", k.shared_footprint);
    }
}

#[test]
fn stencil_reads_propagate_their_halo() {
    // §3.1: a 3×3 stencil's nine shifted reads of a [1x32] tile touch [3x34] of its
    // input together; two stages touch [5x36] of the image. Each read alone is [1x32].
    let (_ctx, g) = graph_of(&stencil_chain(2));
    let sg = whole(&g);
    let dom = propagate(&sg, &[1, 32], None).unwrap();
    assert_eq!(dom[1], vec![1, 32]);
    assert_eq!(dom[0], vec![3, 34]);
    let t = traffic(&sg, &dom);
    assert_eq!(t.inputs.len(), 1);
    assert_eq!(t.inputs[0].tile, vec![5, 36]);
}

#[test]
fn an_inlined_stencil_counts_its_recomputation() {
    // Connected in registers, the producer is computed at each of the consumer's nine
    // reads (compute_inline, as --lower-to-gpu fuses it); connected in shared memory,
    // once per point of its halo tile.
    let (_ctx, g) = graph_of(&stencil_chain(2));
    for (lv, want) in [(Level::Register, 9.0 * 32.0), (Level::Shared, 3.0 * 34.0)] {
        let levels = vec![vec![Level::Global; 9], vec![lv; 9]];
        let conn = |c: usize, i: usize| levels[c][i] != Level::Global;
        let sg = SubGraph {
            graph: &g,
            members: vec![0, 1],
            connected: &conn,
        };
        let dom = propagate(&sg, &[1, 32], None).unwrap();
        let ev = super::tiling::evaluations(&g, &sg, &dom, &levels);
        assert_eq!(ev, vec![want, 32.0], "{lv:?}");
    }
}

/// A GEMM and its ReLU epilogue.
pub(super) const MATMUL_RELU: &str = r#"
func.func @f(%A: tensor<64x64xf32>, %B: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [64, 128, 64]
         : (tensor<64x64xf32>, tensor<64x128xf32>) -> tensor<64x128xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  %R = te.compute (%i, %j) in [64, 128] : (tensor<64x128xf32>) -> tensor<64x128xf32> {
    max(%C[%i, %j], 0.0 : f32)
  }
  return %R : tensor<64x128xf32>
}
"#;

#[test]
fn register_thread_tiles_are_whole_warps() {
    // Roller §3.1 (reused by Welder's SubGraphTiling): a block runs whole warps unless it has
    // fewer points than a warp. By least traffic alone the GEMM's thread tile grows to the
    // whole block tile: one thread per block.
    let (g, members, levels) = super::fit_tests::matmul_relu_register();
    let dev = Device::builtin("v100").unwrap();
    let p = best_plan(&g, &members, &levels, &dev, 8).unwrap();
    let mut checked = 0;
    for t in &p.tiles {
        let (Some(shared), Some(reg)) = (&t.shared, &t.register) else {
            continue;
        };
        let threads: u64 = shared
            .iter()
            .zip(reg)
            .map(|(s, r)| s.div_ceil(*r))
            .product();
        let points: u64 = shared.iter().take(reg.len()).product();
        assert!(
            threads.is_multiple_of(dev.teu_width) || threads == points,
            "{threads} threads for shared {shared:?} / register {reg:?}"
        );
        checked += 1;
    }
    assert!(checked > 0, "no register tiles in {:?}", p.tiles);
}

/// `P` (over `[40, 8]`) read by `S` (over `[20, 8]`) at `reads`.
fn resampled(reads: &str) -> String {
    format!(
        r#"func.func @f(%X: tensor<40x8xf32>) -> tensor<20x8xf32> {{
  %P = te.compute (%y, %x) in [40, 8] : (tensor<40x8xf32>) -> tensor<40x8xf32> {{ %X[%y, %x] * 2.0 }}
  %S = te.compute (%y, %x) in [20, 8] : (tensor<40x8xf32>) -> tensor<20x8xf32> {{ {reads} }}
  func.return %S : tensor<20x8xf32>
}}"#
    )
}

#[test]
fn reads_moving_differently_get_the_span_covering_every_block() {
    // [2y] and [y] of a 4-row tile: block b reads rows 8b .. 8b + 6 and 4b .. 4b + 3. A
    // span starting at 4b covers both over the 5 blocks up to 22 rows past its start
    // (b = 4: rows 16 .. 38): 23 rows; one starting at 8b from −16 to 6: 23 too. The
    // bounding box of block 0 alone (7 rows) is what the lowering would overrun.
    let (_ctx, g) = graph_of(&resampled("%P[%y * 2, %x] + %P[%y, %x]"));
    let dom = propagate(&whole(&g), &[4, 8], None).unwrap();
    assert_eq!(dom[0], vec![23, 8]);
    // Reads that move alike keep their bounding box: [2y] and [2y + 1], 8 rows.
    let (_ctx, g) = graph_of(&resampled("%P[%y * 2, %x] + %P[%y * 2 + 1, %x]"));
    assert_eq!(propagate(&whole(&g), &[4, 8], None).unwrap()[0], vec![8, 8]);
    // One block covers S: no motion, the bounding box (rows 0 .. 38).
    let (_ctx, g) = graph_of(&resampled("%P[%y * 2, %x] + %P[%y, %x]"));
    assert_eq!(
        propagate(&whole(&g), &[20, 8], None).unwrap()[0],
        vec![39, 8]
    );
}

#[test]
fn a_floordiv_read_moves_exactly_when_the_divisor_divides_its_step() {
    // [y floordiv 2] beside [y] of a 4-row tile: steps of 2 and 4 rows a block. Moving
    // by 4: rows from 0 − (4 − 2)·4 = −8 .. 3: 12; moving by 2: 0 .. 3 + (4 − 2)·4 = 11:
    // 12 rows.
    let (_ctx, g) = graph_of(&resampled("%P[%y floordiv 2, %x] + %P[%y, %x]"));
    assert_eq!(
        propagate(&whole(&g), &[4, 8], None).unwrap()[0],
        vec![12, 8]
    );
    // Alone, an even tile's floordiv is half the tile (§3.1's exact aligned case).
    let (_ctx, g) = graph_of(&resampled("%P[%y floordiv 2, %x] * 3.0"));
    assert_eq!(propagate(&whole(&g), &[4, 8], None).unwrap()[0], vec![2, 8]);
    // A 3-row tile's step is not a multiple of 2: the single reads' bound (3 rows from [y]).
    let (_ctx, g) = graph_of(&resampled("%P[%y floordiv 2, %x] + %P[%y, %x]"));
    assert_eq!(propagate(&whole(&g), &[3, 8], None).unwrap()[0], vec![3, 8]);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

#[test]
fn dram_term_counts_the_loads_few_warps_keep_in_flight() {
    let h100 = Device::builtin("h100").unwrap();
    // A core's share of the DRAM bandwidth, GB/s; one warp sustains 1.48 of it.
    let share = 3350.0 / 132.0;
    // 66 one-warp blocks: half the cores, each a quarter busy by lanes, 1.48 / 25.4 by loads.
    assert_eq!(utilization(66, 32, &h100), 0.5 * 0.25);
    assert!(close(dram_utilization(66, 32, &h100), 0.5 * 1.48 / share));
    // 264 blocks of 64 threads: two blocks of two warps a core.
    assert_eq!(utilization(264, 64, &h100), 1.0);
    assert!(close(dram_utilization(264, 64, &h100), 4.0 * 1.48 / share));
    // 18 warps a core cover the share: the DRAM term is the §4.1 one.
    assert_eq!(dram_utilization(132 * 18, 32, &h100), 1.0);
    // One-thread warps: the lanes bind before the loads (32 resident warps a core).
    assert_eq!(
        dram_utilization(98_304, 1, &h100),
        utilization(98_304, 1, &h100)
    );
    // Without `warp_load_gbps` (V100, or H100 with the line removed) nothing changes.
    let v100 = Device::builtin("v100").unwrap();
    let mut bare = h100.clone();
    bare.warp_load_gbps = None;
    for (b, t) in [
        (40, 128),
        (160, 32),
        (160, 1),
        (8, 1024),
        (66, 32),
        (264, 64),
    ] {
        assert_eq!(dram_utilization(b, t, &v100), utilization(b, t, &v100));
        assert_eq!(dram_utilization(b, t, &bare), utilization(b, t, &bare));
    }
}

/// Rammer's LSTM gate's shape: a 1×256 row times a 256×256 matrix, then a tanh.
const GATE: &str = r#"
func.func @f(%X: tensor<1x256xf32>, %W: tensor<256x256xf32>) -> tensor<1x256xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [1, 256, 256]
         : (tensor<1x256xf32>, tensor<256x256xf32>) -> tensor<1x256xf32> {
    te.sum(%X[%m, %k] * %W[%k, %n])
  }
  %T = te.compute (%i, %j) in [1, 256] : (tensor<1x256xf32>) -> tensor<1x256xf32> {
    tanh(%C[%i, %j])
  }
  func.return %T : tensor<1x256xf32>
}
"#;

#[test]
fn a_plan_of_one_warp_blocks_pays_for_its_dram_latency() {
    let (_ctx, g) = graph_of(GATE);
    let h100 = Device::builtin("h100").unwrap();
    let mut bare = h100.clone();
    bare.warp_load_gbps = None;
    let levels: Vec<Vec<Level>> = g
        .nodes
        .iter()
        .map(|node| vec![Level::Global; node.inputs.len()])
        .collect();
    // The tanh alone: 8 blocks of [1×32], one warp each, 2,048 B from and to DRAM.
    let p = best_plan(&g, &[1], &levels, &h100, 4).unwrap();
    let q = best_plan(&g, &[1], &levels, &bare, 4).unwrap();
    assert_eq!((p.blocks, p.threads, p.global_traffic), (8, 32, 2048));
    assert_eq!(
        (q.blocks, q.threads, q.tiles.clone()),
        (8, 32, p.tiles.clone())
    );
    assert_eq!(p.utilization, q.utilization);
    assert_eq!(q.dram_utilization, q.utilization);
    // At the busy cores' share the DRAM term is 2,048 B / (8/132 × 3,350 GB/s); one warp
    // a core loads at 1.48 GB/s of the 25.4 GB/s share, so the term is share / 1.48 times
    // that.
    let share = 3350.0 / 132.0;
    let at_share_us = 2048.0 / (8.0 / 132.0 * 3350e9) * 1e6;
    let dram_us = at_share_us * share / 1.48;
    assert!(close(2048.0 / 3350e9 / p.dram_utilization * 1e6, dram_us));
    // Without the load term the DRAM term was divided by §4.1's utilisation, which counts
    // the warp's lanes (a quarter of a core) and not its loads in flight.
    let before_us = 2048.0 / 3350e9 / p.utilization * 1e6;
    assert!(close(before_us, at_share_us * 4.0));
    // Only the DRAM term moves: shared-memory, arithmetic and launch terms are unchanged.
    assert!(
        (p.est_us - q.est_us - (dram_us - before_us)).abs() < 1e-9,
        "{} - {} != {} - {}",
        p.est_us,
        q.est_us,
        dram_us,
        before_us
    );
}
