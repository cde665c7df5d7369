//! Unit tests of the lowering-fit rule (`fit.rs`) and of the padded candidate tiles
//! (`tiling::candidate_tiles`).

use rtile_dialects::tilegraph::Level;

use super::fit::{check_lowering_fits, lowering_plans};
use super::propagate::SubGraph;
use super::tests::{MATMUL_RELU, graph_of};
use super::tiling::{MAX_CANDIDATES, best_plan, candidate_tiles};
use crate::device::Device;

/// MATMUL_RELU with the relu connected in registers: one fused kernel (the relu the
/// GEMM's epilogue), its members, levels and the device.
pub(super) fn matmul_relu_register() -> (super::graph::Graph, Vec<usize>, Vec<Vec<Level>>) {
    let (_ctx, g) = graph_of(MATMUL_RELU);
    let levels: Vec<Vec<Level>> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(n, node)| {
            let l = if n == 1 {
                Level::Register
            } else {
                Level::Global
            };
            vec![l; node.inputs.len()]
        })
        .collect();
    (g, vec![0, 1], levels)
}

#[test]
fn the_lowerings_plan_is_the_capacity_test() {
    let (g, members, levels) = matmul_relu_register();
    let dev = Device::builtin("v100").unwrap();
    let p = best_plan(&g, &members, &levels, &dev, 8).unwrap();
    assert_eq!(p.refused, None, "nothing is over V100's 48 KiB here");
    let conn = |n: usize, i: usize| levels[n][i] != Level::Global;
    let sg = SubGraph {
        graph: &g,
        members: members.clone(),
        connected: &conn,
    };
    // One kernel (one result), whose staged GEMM tiles take shared memory: the plan the
    // lowering builds, with the block the tiles give.
    let plans = lowering_plans(&sg, &levels, &p.tiles, &dev);
    assert_eq!(plans.len(), 1, "{plans:?}");
    let b = plans[0].bytes;
    assert!(b > 0, "{plans:?}");
    let shared = p.tiles[0].shared.as_ref().unwrap();
    assert_eq!(plans[0].points, shared[0] * shared[1]);
    // A device whose block may use one byte less refuses exactly this configuration.
    let mut small = dev.clone();
    small.layers[Device::SHARED].capacity_bytes = b - 1;
    let e = check_lowering_fits(&sg, &levels, &p.tiles, &small).unwrap_err();
    assert!(e.contains(&format!("needs {b} B per block")), "{e}");
    let mut exact = dev.clone();
    exact.layers[Device::SHARED].capacity_bytes = b;
    assert_eq!(
        check_lowering_fits(&sg, &levels, &p.tiles, &exact),
        Ok(plans.clone())
    );
    // The search then keeps a configuration the lowering fits (here the model's own
    // footprint may already rule the first one out; a refusal, if any, names the lowering).
    match best_plan(&g, &members, &levels, &small, 8) {
        Ok(q) => {
            let qb = lowering_plans(&sg, &levels, &q.tiles, &small)[0].bytes;
            assert!(qb < b, "{qb} B kept, {b} B refused");
            if let Some((n, why)) = q.refused {
                assert!(
                    n >= 1 && why.contains("the lowering's shared-memory plan"),
                    "{why}"
                );
            }
        }
        Err(e) => panic!("a smaller tile fits {} B: {e}", b - 1),
    }
}

/// Whether tiling `n` by `s` pads within Roller's bound (20% of the extent).
fn pads_within(n: u64, s: u64) -> bool {
    (n.div_ceil(s) * s - n) * 5 <= n
}

#[test]
fn tiles_of_a_shape_without_warp_divisors_are_padded() {
    let dev = Device::builtin("h100").unwrap();
    // harris at full size: 1534 x 2558 = (2·13·59) x (2·1279) points, 4 = 2·2 of them a
    // power of two: no divisor tile holds a multiple of a warp's points.
    let tiles = candidate_tiles(&[1534, 2558], "f32", &dev, MAX_CANDIDATES);
    assert!(tiles.len() <= MAX_CANDIDATES);
    assert!(
        tiles.iter().all(|t| t[1] != 1279),
        "a 1279-wide tile is left"
    );
    let mut whole_warps = 0;
    for t in &tiles {
        for (d, (&s, n)) in t.iter().zip([1534u64, 2558]).enumerate() {
            assert!(
                n.is_multiple_of(s) || (s.is_power_of_two() && pads_within(n, s)),
                "dim {d}: {s} of {n}"
            );
        }
        // The innermost dim: whole 32-byte transactions of f32 unless the whole row.
        assert!(t[1] == 2558 || t[1] < 8 || t[1].is_multiple_of(8), "{t:?}");
        whole_warps += usize::from((t[0] * t[1]).is_multiple_of(32));
    }
    assert!(
        whole_warps > 0,
        "no tile of a whole number of warps' points"
    );
    // A shape whose divisors allow whole warps keeps exact divisors only (BERT's 128x768).
    for t in candidate_tiles(&[128, 768], "f32", &dev, MAX_CANDIDATES) {
        assert!(128 % t[0] == 0 && 768 % t[1] == 0, "{t:?}");
    }
}

/// BERT-base attention at sequence 512 (Q·K, softmax, ·V: nodes 3–8 of the layer), every
/// edge inside at the shared level, h100: the model's footprint admits configurations
/// whose shared stages the lowering computes with whole 512-long reductions, over the
/// 232448 B a block may use (PERF.md, "On a GPU": 1574400 B). The search passes over them.
#[test]
fn attention_at_512_passes_over_what_the_lowering_cannot_fit() {
    let (_ctx, g) = graph_of(include_str!(
        "../../../bench/models/welder/bert-layer-512.mlir"
    ));
    let members: Vec<usize> = (3..=8).collect();
    let levels: Vec<Vec<Level>> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(n, node)| {
            node.inputs
                .iter()
                .map(|i| match i.producer {
                    Some(p) if members.contains(&n) && members.contains(&p) => Level::Shared,
                    _ => Level::Global,
                })
                .collect()
        })
        .collect();
    let dev = Device::builtin("h100").unwrap();
    let cap = dev.layers[Device::SHARED].capacity_bytes;
    let p = best_plan(&g, &members, &levels, &dev, 8).unwrap();
    let (n, why) = p.refused.clone().expect("a configuration was passed over");
    assert!(
        n >= 1 && why.contains("the lowering's shared-memory plan needs"),
        "{why}"
    );
    assert!(p.shared_footprint <= cap, "the model's own footprint fits");
    let conn = |n: usize, i: usize| levels[n][i] != Level::Global;
    let sg = SubGraph {
        graph: &g,
        members: members.clone(),
        connected: &conn,
    };
    let plans = lowering_plans(&sg, &levels, &p.tiles, &dev);
    assert!(!plans.is_empty());
    assert!(
        plans.iter().all(|l| l.bytes <= cap),
        "{plans:?} over {cap} B"
    );
}
