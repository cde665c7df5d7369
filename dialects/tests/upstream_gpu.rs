//! The gpu/scf/memref/vector subset: generic text printed by mlir-opt-22 parses and verifies,
//! and upstream's verification rules reject broken ops.

use std::sync::Arc;

use rtile::ir::Context;

fn ctx() -> Context {
    let mut c = Context::new(Arc::new(rtile_dialects::dialect_registry()));
    // arith is defined elsewhere; this test is about the four dialects of this folder.
    c.allow_unregistered = true;
    c
}

fn check(text: &str) -> Result<(), String> {
    let mut c = ctx();
    let m = rtile::parser::parse_str(&mut c, "t.mlir", text).map_err(|d| d.message)?;
    rtile::verifier::verify(&c, m.module).map_err(|ds| {
        ds.into_iter()
            .map(|d| d.message)
            .collect::<Vec<_>>()
            .join("; ")
    })
}

#[test]
fn mlir_opt_generic_output_verifies() {
    let text = include_str!("upstream_gpu_sample.mlir");
    check(text).unwrap();
}

#[test]
fn registered_names() {
    let reg = rtile_dialects::dialect_registry();
    for n in [
        "gpu.module",
        "gpu.func",
        "gpu.thread_id",
        "gpu.block_id",
        "gpu.block_dim",
        "gpu.grid_dim",
        "gpu.barrier",
        "gpu.return",
        "gpu.launch_func",
        "gpu.memcpy",
        "scf.for",
        "scf.if",
        "scf.yield",
        "memref.alloc",
        "memref.alloca",
        "memref.load",
        "memref.store",
        "memref.subview",
        "vector.load",
        "vector.store",
    ] {
        assert!(reg.op(n).is_some(), "{n}");
    }
}

fn kernel(body: &str, wg: &str) -> String {
    format!(
        r#""gpu.module"() <{{sym_name = "m"}}> ({{
  "gpu.func"() <{{function_type = (memref<4xf32>) -> ()}}> ({{
  ^bb0(%a: memref<4xf32>{wg}):
{body}
    "gpu.return"() : () -> ()
  }}) {{gpu.kernel, sym_name = "k", workgroup_attributions = 1 : i64}} : () -> ()
}}) : () -> ()
"#
    )
}

const SH: &str = ", %s: memref<4xf32, #gpu.address_space<workgroup>>";

#[test]
fn rejects_bad_ops() {
    let ok = r#"    %i = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %v = "memref.load"(%a, %i) : (memref<4xf32>, index) -> f32"#;
    check(&kernel(ok, SH)).unwrap();
    // A memref without a memory space (or a numeric one) is accepted, as upstream does;
    // a `#gpu.address_space` other than workgroup is not.
    check(&kernel(ok, ", %s: memref<4xf32>")).unwrap();
    let wrong_space = ", %s: memref<4xf32, #gpu.address_space<private>>";
    assert!(
        check(&kernel(ok, wrong_space))
            .unwrap_err()
            .contains("memory space workgroup")
    );
    let bad_dim = r#"    %i = "gpu.thread_id"() <{dimension = #gpu<dim w>}> : () -> index"#;
    assert!(
        check(&kernel(bad_dim, SH))
            .unwrap_err()
            .contains("dimension")
    );
    let bad_rank = r#"    %i = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %v = "memref.load"(%a, %i, %i) : (memref<4xf32>, index, index) -> f32"#;
    assert!(
        check(&kernel(bad_rank, SH))
            .unwrap_err()
            .contains("number of indices")
    );
    let bad_for = r#"    %i = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %f = "test.f"() : () -> f32
    %r = "scf.for"(%i, %i, %i, %f) ({
    ^bb0(%iv: index, %acc: f32):
      "scf.yield"() : () -> ()
    }) : (index, index, index, f32) -> f32"#;
    assert!(
        check(&kernel(bad_for, SH))
            .unwrap_err()
            .contains("scf.yield")
    );
    let bad_vec = r#"    %i = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %v = "vector.load"(%a, %i) : (memref<4xf32>, index) -> vector<4xf16>"#;
    assert!(
        check(&kernel(bad_vec, SH))
            .unwrap_err()
            .contains("element type")
    );
}

/// Upstream's `gpu.memcpy` rules (`MemcpyOp::verify`): the destination and the source share
/// the element type and their static sizes; async dependencies are tokens.
#[test]
fn memcpy_verifies_as_upstream() {
    let host = |body: &str, types: &str| {
        format!(
            r#""func.func"() <{{function_type = ({types}) -> (), sym_name = "h"}}> ({{
^bb0(%d: memref<2x2xf32>, %s: {types_src}):
{body}
  "func.return"() : () -> ()
}}) : () -> ()
"#,
            types_src = types.rsplit(", ").next().unwrap_or(types)
        )
    };
    let copy = r#"  "gpu.memcpy"(%d, %s) : (memref<2x2xf32>, memref<2x2xf32>) -> ()"#;
    check(&host(copy, "memref<2x2xf32>, memref<2x2xf32>")).unwrap();
    let dynamic = r#"  "gpu.memcpy"(%d, %s) : (memref<2x2xf32>, memref<?x2xf32>) -> ()"#;
    check(&host(dynamic, "memref<2x2xf32>, memref<?x2xf32>")).unwrap();
    let elem = r#"  "gpu.memcpy"(%d, %s) : (memref<2x2xf32>, memref<2x2xi32>) -> ()"#;
    let e = check(&host(elem, "memref<2x2xf32>, memref<2x2xi32>")).unwrap_err();
    assert!(e.contains("incompatible element type"), "{e}");
    let shape = r#"  "gpu.memcpy"(%d, %s) : (memref<2x2xf32>, memref<4xf32>) -> ()"#;
    let e = check(&host(shape, "memref<2x2xf32>, memref<4xf32>")).unwrap_err();
    assert!(e.contains("incompatible shape"), "{e}");
    let dep = r#"  %i = "test.i"() : () -> index
  "gpu.memcpy"(%i, %d, %s) : (index, memref<2x2xf32>, memref<2x2xf32>) -> ()"#;
    let e = check(&host(dep, "memref<2x2xf32>, memref<2x2xf32>")).unwrap_err();
    assert!(e.contains("!gpu.async.token"), "{e}");
}

fn print(c: &rtile::ir::Context, m: rtile::ir::OpId, generic: bool) -> String {
    let opts = rtile::printer::PrintOptions {
        generic,
        ..Default::default()
    };
    rtile::printer::print_op(c, m, &opts)
}

/// The custom forms (gpu.module, the id ops, barrier, return, scf.for/if/yield, memref and
/// vector loads and stores) print as upstream does and parse back to the same IR.
#[test]
fn custom_forms_round_trip() {
    let mut c = ctx();
    let m = rtile::parser::parse_str(&mut c, "t.mlir", include_str!("upstream_gpu_sample.mlir"))
        .unwrap()
        .module;
    let custom = print(&c, m, false);
    for s in [
        "gpu.module @m {",
        "gpu.func @k(%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>) workgroup(%arg2 : memref<4x9xf32, #gpu.address_space<workgroup>>) private(%arg3 : memref<4xf32, #gpu.address_space<private>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>",
        "= gpu.thread_id  x",
        "= gpu.block_id  x",
        "%c0 = arith.constant 0 : index",
        "= scf.for %arg4 = %c0 to %c4 step %c1 iter_args(%arg5 = %cst) -> (f32) {",
        "%5 = memref.load %arg0[%arg4, %c0] : memref<4x8xf32>",
        "memref.store %5, %arg2[%arg4, %c0] : memref<4x9xf32, #gpu.address_space<workgroup>>",
        "= vector.load %arg0[%arg4, %c0] : memref<4x8xf32>, vector<4xf32>",
        "vector.store %6, %arg2[%arg4, %c0] : memref<4x9xf32, #gpu.address_space<workgroup>>, vector<4xf32>",
        "scf.yield %7 : f32",
        "gpu.barrier",
        "scf.if %3 {",
        "gpu.return",
        "= memref.alloca() : memref<4xf32>",
    ] {
        assert!(custom.contains(s), "missing `{s}` in\n{custom}");
    }
    let mut c2 = ctx();
    let m2 = rtile::parser::parse_str(&mut c2, "c.mlir", &custom)
        .unwrap()
        .module;
    rtile::verifier::verify(&c2, m2).unwrap();
    assert_eq!(print(&c, m, true), print(&c2, m2, true));
}
