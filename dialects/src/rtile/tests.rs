//! Unit tests of the rtile dialect: typed accessors and the device-independent verifier, through
//! the IR verifier's attribute hook.

use std::sync::Arc;

use rtile::ir::{Context, OpId};
use rtile::parser::parse_str;
use rtile::verifier::verify;

use super::*;

const MM: &str = r#""func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"] ATTRS} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()"#;

const OK: &str = r#"#rtile.program<device = "any", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.1, epsilon = 0.4>"#;

fn setup(attrs: &str) -> (Context, OpId, OpId) {
    let mut ctx = Context::new(Arc::new(crate::dialect_registry()));
    ctx.allow_unregistered = true;
    let text = MM.replace("ATTRS", attrs);
    let m = parse_str(&mut ctx, "t.mlir", &text).unwrap().module;
    let te = *crate::te::walk::compute_ops(&ctx, m).last().unwrap();
    (ctx, m, te)
}

fn errors(attrs: &str) -> Vec<String> {
    let (ctx, m, _) = setup(attrs);
    match verify(&ctx, m) {
        Ok(()) => Vec::new(),
        Err(ds) => ds.into_iter().map(|d| d.message).collect(),
    }
}

#[test]
fn accessors_read_and_write() {
    let (mut ctx, m, op) = setup(&format!(", rtile.programs = [{OK}, {OK}]"));
    assert!(verify(&ctx, m).is_ok());
    let ps = programs(&ctx, op).unwrap();
    assert_eq!(ps.len(), 2);
    assert_eq!(ps[0].block, vec![24, 16, 16]);
    assert_eq!(program(&ctx, op).unwrap(), None);
    let own: Vec<String> = ["m", "n", "k"].iter().map(|s| s.to_string()).collect();
    set_program(&mut ctx, op, &ps[1], &own);
    assert_eq!(program(&ctx, op).unwrap().as_ref(), Some(&ps[1]));
    // Own axes are not printed; a program read back equals the one written.
    let mut p = ps[0].clone();
    p.axes = own.clone();
    set_programs(&mut ctx, op, std::slice::from_ref(&p), &own);
    assert_eq!(programs(&ctx, op).unwrap(), vec![ps[0].clone()]);
}

#[test]
fn tile_attr_round_trip() {
    let t = TileAttr {
        shape: vec![4, 4, 2],
        pad: vec![vec![0, 1], vec![0, 1]],
    };
    assert_eq!(TileAttr::from_attr(&t.to_attr()).unwrap(), t);
    assert!(TileAttr::from_attr(&rtile::ir::attributes::Attribute::string("x")).is_err());
}

#[test]
fn structural_rules() {
    assert!(errors(&format!(", rtile.program = {OK}")).is_empty());
    let bad = |from: &str, to: &str| errors(&format!(", rtile.program = {}", OK.replace(from, to)));
    let e = bad("[3, 4, 1]", "[5, 4, 1]");
    assert!(
        e[0].contains("register tile 5 does not divide block tile 24"),
        "{e:?}"
    );
    let e = bad("grid = [11, 8]", "grid = [11, 9]");
    assert!(e[0].contains("grid [11, 9] does not match"), "{e:?}");
    let e = bad("pad = [[0, 0], [0, 0]]", "pad = [[0, 0]]");
    assert!(
        e[0].contains("pad needs one list per input read (2), got 1"),
        "{e:?}"
    );
    let e = bad("epsilon = 0.4", "epsilon = 0.0");
    assert!(
        e[0].contains("pads extent 256 by more than epsilon = 0"),
        "{e:?}"
    );
    let e = bad("est_us = 2.1", "est_us = 0");
    assert!(e[0].contains("est_us must be a positive number"), "{e:?}");
    // Messages name the op and the attribute.
    assert!(
        e[0].starts_with("'te.compute' op attribute 'rtile.program': "),
        "{e:?}"
    );
}

#[test]
fn fused_axes() {
    let (ctx, _, op) = setup("");
    let (c, _) = crate::te::ir::compute_from_op(&ctx, op).unwrap();
    let mut p = RProgram::from_attr(&Attribute::new(rtile::ir::attributes::AttrKind::Dialect {
        dialect: "rtile".into(),
        body: OK.trim_start_matches("#rtile.").to_string(),
    }))
    .unwrap();
    p.axes = vec!["m*n".into(), "k".into()];
    let ax = verify::program_axes(&c, &p).unwrap();
    assert_eq!(ax[0], ("m*n".to_string(), 256 * 128, false));
    p.axes = vec!["m*k".into(), "n".into()];
    assert!(verify::program_axes(&c, &p).is_err());
    p.axes = vec!["m".into(), "n*k".into()];
    assert!(
        verify::program_axes(&c, &p).is_err(),
        "mixed kinds do not fuse"
    );
    // A merge need not be of adjacent axes (a convolution's implicit GEMM view), but it
    // takes every axis once.
    p.axes = vec!["n*m".into(), "k".into()];
    assert_eq!(
        verify::program_axes(&c, &p).unwrap()[0],
        ("n*m".to_string(), 256 * 128, false)
    );
    p.axes = vec!["m*m".into(), "n".into(), "k".into()];
    assert!(verify::program_axes(&c, &p).is_err(), "an axis twice");
    p.axes = vec!["m".into(), "k".into()];
    assert!(verify::program_axes(&c, &p).is_err(), "n left out");
}

#[test]
fn other_dialects_are_not_checked_here() {
    assert!(errors(", other.thing = 1, rtilex = 2").is_empty());
    let e = errors(", rtile.bogus = 1");
    assert!(e[0].contains("unknown rtile attribute"), "{e:?}");
}
