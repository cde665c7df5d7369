//! In-process tests of the upstream dialects (func, arith, math, tensor reshapes):
//! print/parse fixed points and verifier messages. The lit tests under
//! `tests/lit/func/` check the same against `mlir-opt-22`.

use rtile::printer::{PrintOptions, print_op};

use crate::te::module::{new_context, parse_and_verify};

/// Parses and verifies `text`, prints it (custom or generic), and checks that the output
/// parses, verifies and prints identically.
fn fixed_point(text: &str, generic: bool) -> String {
    let opts = PrintOptions {
        generic,
        ..PrintOptions::default()
    };
    let mut ctx = new_context();
    let m = parse_and_verify(&mut ctx, "a.mlir", text).unwrap_or_else(|e| panic!("{e}"));
    let once = print_op(&ctx, m, &opts);
    let mut ctx2 = new_context();
    let m2 = parse_and_verify(&mut ctx2, "b.mlir", &once).unwrap_or_else(|e| panic!("{e}\n{once}"));
    assert_eq!(print_op(&ctx2, m2, &opts), once);
    once
}

fn error_of(text: &str) -> String {
    let mut ctx = new_context();
    parse_and_verify(&mut ctx, "e.mlir", text).expect_err("rejected")
}

const FUNCS: &str = "func.func private @decl(f32) -> f32
func.func @two(%a: f32 {test.x = 1 : i32}, %b: tensor<2xf32>) -> (f32, i32) attributes {foo = 1 : i64} {
  %0 = arith.addf %a, %a : f32
  %c = arith.constant 3 : i32
  %1 = call @decl(%0) : (f32) -> f32
  return %1, %c : f32, i32
}
";

#[test]
fn func_custom_and_generic_forms() {
    let custom = fixed_point(FUNCS, false);
    assert!(
        custom.contains("func.func private @decl(f32) -> f32\n"),
        "{custom}"
    );
    assert!(
        custom.contains("func.func @two(%arg0: f32 {test.x = 1 : i32}, %arg1: tensor<2xf32>) -> (f32, i32) attributes {foo = 1 : i64} {"),
        "{custom}"
    );
    assert!(
        custom.contains("    %c3_i32 = arith.constant 3 : i32\n    %1 = call @decl(%0) : (f32) -> f32\n    return %1, %c3_i32 : f32, i32\n"),
        "{custom}"
    );
    let generic = fixed_point(FUNCS, true);
    assert!(
        generic.contains("\"func.func\"() <{function_type = (f32) -> f32, sym_name = \"decl\", sym_visibility = \"private\"}>"),
        "{generic}"
    );
    assert!(
        generic.contains("<{fastmath = #arith.fastmath<none>}>"),
        "{generic}"
    );
    assert!(
        generic.contains("\"func.call\"(%0) <{callee = @decl}> : (f32) -> f32"),
        "{generic}"
    );
}

#[test]
fn func_verifier_messages() {
    let e = error_of("func.func @f(%a: f32) -> i32 {\n  return %a : f32\n}\n");
    assert!(e.contains("type of return operand 0 ('f32') doesn't match function result type ('i32') in function @f"), "{e}");
    let e = error_of(
        "func.func @f(%a: f32) -> f32 {\n  %0 = call @g(%a) : (f32) -> f32\n  return %0 : f32\n}\n",
    );
    assert!(
        e.contains("'func.call' op 'g' does not reference a valid function"),
        "{e}"
    );
    let e = error_of(
        "func.func @f(%a: f32) -> f32 {\n  %0 = call @f(%a) : (f32) -> i32\n  return %a : f32\n}\n",
    );
    assert!(e.contains("result type mismatch at index 0"), "{e}");
    assert!(e.contains("function result types: 'f32'"), "{e}");
}

#[test]
fn arith_math_custom_forms() {
    let text = "func.func @f(%a: f32, %b: f32, %i: i32) -> f32 {
  %0 = arith.cmpf ogt, %a, %b : f32
  %1 = arith.select %0, %a, %b : f32
  %2 = math.exp %1 fastmath<fast> : f32
  %3 = arith.sitofp %i : i32 to f32
  %4 = arith.muli %i, %i overflow<nsw,nuw> : i32
  %5 = arith.constant -2.500000e+00 : f32
  %6 = math.fma %2, %3, %5 : f32
  return %6 : f32
}
";
    let custom = fixed_point(text, false);
    for line in [
        "arith.cmpf ogt, %arg0, %arg1 : f32",
        "math.exp %1 fastmath<fast> : f32",
        "arith.sitofp %arg2 : i32 to f32",
        "arith.muli %arg2, %arg2 overflow<nsw,nuw> : i32",
        "%cst = arith.constant -2.500000e+00 : f32",
        "%5 = math.fma %2, %3, %cst : f32",
    ] {
        assert!(custom.contains(line), "{line}\n{custom}");
    }
    let generic = fixed_point(text, true);
    assert!(
        generic.contains("<{fastmath = #arith.fastmath<none>, predicate = 2 : i64}>"),
        "{generic}"
    );
    let e = error_of("func.func @f(%a: f32) {\n  %0 = arith.extf %a : f32 to f16\n  return\n}\n");
    assert!(e.contains("cast incompatible"), "{e}");
    let e =
        error_of("func.func @f(%a: f32) {\n  %0 = arith.cmpf bogus, %a, %a : f32\n  return\n}\n");
    assert!(e.contains("unknown comparison predicate \"bogus\""), "{e}");
}

#[test]
fn tensor_reshapes() {
    let text = "func.func @f(%a: tensor<4x5x6xf32>) -> tensor<4x5x6xf32> {
  %0 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<4x5x6xf32> into tensor<20x6xf32>
  %1 = tensor.expand_shape %0 [[0, 1], [2]] output_shape [4, 5, 6] : tensor<20x6xf32> into tensor<4x5x6xf32>
  return %1 : tensor<4x5x6xf32>
}
";
    fixed_point(text, false);
    let generic = fixed_point(text, true);
    assert!(
        generic.contains(
            "<{reassociation = [[0, 1], [2]], static_output_shape = array<i64: 4, 5, 6>}>"
        ),
        "{generic}"
    );
    let e = error_of(
        "func.func @f(%a: tensor<4x5xf32>) {\n  %0 = tensor.collapse_shape %a [[0], [1]] : tensor<4x5xf32> into tensor<20xf32>\n  return\n}\n",
    );
    assert!(
        e.contains(
            "expected rank of the collapsed type(1) to be the number of reassociation maps(2)"
        ),
        "{e}"
    );
}
