//! The host side of `--lower-to-gpu`, built with the IR builder: a function of two
//! computes becomes allocations, launches and deallocations whose use lists are exact
//! and which verify; a function that cannot be lowered leaves the module as it was.

use rtile::ir::{Context, OpId, Use};
use rtile::pass::PassStatistics;
use rtile::printer::{PrintOptions, print_op};
use rtile::verifier::verify;
use rtile_dialects::te::module::{new_context, parse_and_verify};
use rtile_passes::lower_to_gpu::{LowerOptions, lower_module, lower_module_dedup};

const PROGRAM: &str = "rtile.program = #rtile.program<device = \"v100\", tiles = [[32, 64, 16], [4, 4, 1]], pad = [[0, 1], [0, 4]], grid = [2, 1], threads = 128, est_us = 1.0, epsilon = 0.2, footprint = [0, 0, 0], traffic = [0, 0, 0]>";

/// `mm(A, B) = (A·B)·B'`: the first product is an intermediate, the second the result.
/// `program2` goes on the second function's second compute's attributes.
fn module_text(program2: &str) -> String {
    let compute = |a: &str, b: &str, attrs: &str| {
        format!(
            "\"te.compute\"({a}, {b}) ({{\n  ^bb0(%a: f32, %b: f32):\n    %p = \"arith.mulf\"(%a, %b) : (f32, f32) -> f32\n    \"te.yield\"(%p) : (f32) -> ()\n  }}) {{axis_names = [\"m\", \"n\", \"k\"], combiner = \"sum\", domain = array<i64: 60, 64, 48>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", \"reduction\"], may_pad = 0.0 : f32{attrs}}} : (tensor<60x48xf32>, tensor<48x64xf32>) -> tensor<60x64xf32>"
        )
    };
    let first = compute("%A", "%B", &format!(", {PROGRAM}"));
    let second = compute("%A", "%B", program2);
    format!(
        "\"func.func\"() <{{function_type = (tensor<60x48xf32>, tensor<48x64xf32>) -> tensor<60x64xf32>, sym_name = \"one\"}}> ({{\n^bb0(%A: tensor<60x48xf32>, %B: tensor<48x64xf32>):\n  %C = {first}\n  \"func.return\"(%C) : (tensor<60x64xf32>) -> ()\n}}) : () -> ()\n\
         \"func.func\"() <{{function_type = (tensor<60x48xf32>, tensor<48x64xf32>) -> tensor<60x64xf32>, sym_name = \"two\"}}> ({{\n^bb0(%A: tensor<60x48xf32>, %B: tensor<48x64xf32>):\n  %T = {first}\n  %D = {second}\n  \"func.return\"(%D) : (tensor<60x64xf32>) -> ()\n}}) : () -> ()\n"
    )
}

fn check_uses(ctx: &Context, root: OpId) {
    for o in ctx.collect_ops(root) {
        for (i, &v) in ctx.operands(o).iter().enumerate() {
            let u = Use {
                op: o,
                index: i as u32,
            };
            assert_eq!(ctx.uses(v).iter().filter(|x| **x == u).count(), 1);
        }
        for &r in ctx.results(o) {
            for u in ctx.uses(r) {
                assert_eq!(ctx.operands(u.op)[u.index as usize], r);
            }
        }
    }
}

fn host(ctx: &Context, m: OpId, name: &str) -> Vec<String> {
    let body = ctx.region_blocks(ctx.regions(m)[0])[0];
    let f = ctx
        .block_ops(body)
        .find(|&f| {
            ctx.inherent_attr(f, "sym_name").and_then(|a| a.as_str()) == Some(name)
                && ctx.op_name(f) == "func.func"
        })
        .expect("host function");
    ctx.collect_ops(f)
        .iter()
        .skip(1)
        .map(|&o| ctx.op_name(o).to_string())
        .collect()
}

#[test]
fn host_functions_are_built_and_verify() {
    let mut ctx = new_context();
    let m = parse_and_verify(&mut ctx, "t.mlir", &module_text(&format!(", {PROGRAM}")))
        .expect("parses");
    let mut stats = PassStatistics::default();
    lower_module(&mut ctx, m, &mut stats).expect("lowers");
    check_uses(&ctx, m);
    verify(&ctx, m).unwrap_or_else(|e| panic!("{:?}", e[0].message));
    assert_eq!(
        host(&ctx, m, "one"),
        [
            "arith.constant",
            "arith.constant",
            "arith.constant",
            "gpu.launch_func",
            "func.return"
        ]
    );
    // The first compute's result is an intermediate: the arena is allocated, the
    // intermediate is a view of it at offset 0 (launched into), the arena freed.
    assert_eq!(
        host(&ctx, m, "two"),
        [
            "memref.alloc",
            "arith.constant",
            "arith.constant",
            "arith.constant",
            "arith.constant",
            "memref.view",
            "gpu.launch_func",
            "gpu.launch_func",
            "memref.dealloc",
            "func.return"
        ]
    );
    let text = print_op(&ctx, m, &PrintOptions::default());
    // The three computes are one compute under one program: one kernel, launched three
    // times (grid (2, 1, 1) and block (128, 1, 1): three constants, shared by a function's
    // launches).
    assert_eq!(text.matches("@kernels::@one_0").count(), 3, "{text}");
    assert_eq!(text.matches("gpu.func @").count(), 1, "{text}");
    assert!(!text.contains("@two_"), "{text}");
    // The arena holds the 60x64 f32 intermediate (15360 bytes, a multiple of 256).
    assert!(text.contains("memref.alloc() : memref<15360xi8>"), "{text}");
    assert!(text.contains("rtile.peak_bytes = 15360 : i64"), "{text}");
    assert!(text.contains("rtile.peak_bytes = 0 : i64"), "{text}");
    assert!(
        ctx.collect_ops(m)
            .iter()
            .all(|&o| ctx.op_name(o) != "te.compute")
    );
}

/// A program for blocks of 2048 threads, more than a v100 block may have: it verifies
/// (its tiles are consistent) and fails only when the lowering checks the device.
const OVERSIZED: &str = "rtile.program = #rtile.program<device = \"v100\", tiles = [[32, 64, 16], [1, 1, 1]], pad = [[0, 1], [0, 4]], grid = [2, 1], threads = 2048, est_us = 1.0, epsilon = 0.2, footprint = [0, 0, 0], traffic = [0, 0, 0]>";

#[test]
fn a_function_that_cannot_lower_leaves_the_module_unchanged() {
    let mut ctx = new_context();
    // The second function's second compute has a program the lowering refuses (a compute
    // with no program at all now takes `--connect`'s tiles for it alone).
    let m = parse_and_verify(&mut ctx, "t.mlir", &module_text(&format!(", {OVERSIZED}")))
        .expect("parses");
    let before = print_op(&ctx, m, &PrintOptions::default());
    let ops_before = ctx.num_ops();
    let mut stats = PassStatistics::default();
    let e = lower_module(&mut ctx, m, &mut stats).expect_err("an oversized block");
    assert!(e.message.contains("2048"), "{}", e.message);
    assert_eq!(print_op(&ctx, m, &PrintOptions::default()), before);
    assert_eq!(
        ctx.num_ops(),
        ops_before,
        "the first host function was removed again"
    );
    check_uses(&ctx, m);
}

#[test]
fn without_dedup_every_compute_has_its_kernel() {
    let mut ctx = new_context();
    let m = parse_and_verify(&mut ctx, "t.mlir", &module_text(&format!(", {PROGRAM}")))
        .expect("parses");
    let mut stats = PassStatistics::default();
    lower_module_dedup(&mut ctx, m, &mut stats, LowerOptions::default(), false).expect("lowers");
    verify(&ctx, m).unwrap_or_else(|e| panic!("{:?}", e[0].message));
    let text = print_op(&ctx, m, &PrintOptions::default());
    assert_eq!(text.matches("gpu.func @").count(), 3, "{text}");
    for k in ["one_0", "two_1", "two_2"] {
        assert_eq!(
            text.matches(&format!("@kernels::@{k}")).count(),
            1,
            "{k}: {text}"
        );
    }
}
