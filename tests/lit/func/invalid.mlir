// func dialect verifier and parser errors (messages as mlir-opt-22 words them).
// RUN: rtile-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @f(%a: f32) -> i32 {
  // expected-error @+1 {{type of return operand 0 ('f32') doesn't match function result type ('i32') in function @f}}
  return %a : f32
}

// -----

func.func @g(%a: f32) {
  // expected-error @+1 {{'func.return' op has 1 operands, but enclosing function (@g) returns 0}}
  return %a : f32
}

// -----

func.func @f(%a: f32) -> f32 {
  // expected-error @+1 {{'func.call' op 'nope' does not reference a valid function}}
  %0 = call @nope(%a) : (f32) -> f32
  return %0 : f32
}

// -----

func.func @f(%a: f32) -> f32 {
  // expected-error @+1 {{'func.call' op incorrect number of operands for callee}}
  %0 = call @f(%a, %a) : (f32, f32) -> f32
  return %0 : f32
}

// -----

func.func @f(%a: f32) -> f32 {
  // expected-error @+3 {{'func.call' op result type mismatch at index 0}}
  // expected-note @+2 {{op result types: 'i32'}}
  // expected-note @+1 {{function result types: 'f32'}}
  %0 = call @f(%a) : (f32) -> i32
  return %a : f32
}

// -----

func.func @f(%a: f32) -> f32 {
  // expected-error @+1 {{'func.call' op incorrect number of results for callee}}
  %0:2 = "func.call"(%a) <{callee = @f}> : (f32) -> (f32, f32)
  return %a : f32
}

// -----

func.func private @g(f32) -> f32
func.func @f(%a: f32, %i: i32) -> f32 {
  // expected-error @+1 {{'func.call' op operand type mismatch: expected operand type 'f32', but provided 'i32' for operand number 0}}
  %0 = "func.call"(%i) <{callee = @g}> : (i32) -> f32
  return %a : f32
}

// -----

// expected-error @+1 {{'func.func' op requires attribute 'function_type'}}
"func.func"() <{sym_name = "h"}> ({
}) : () -> ()

// -----

// expected-error @+1 {{'func.func' op entry block must have 1 arguments to match function signature}}
"func.func"() <{function_type = (f32) -> (), sym_name = "h"}> ({
^bb0:
  "func.return"() : () -> ()
}) : () -> ()

// -----

// expected-error @+1 {{'func.func' op symbol declaration cannot have public visibility}}
func.func @decl(f32) -> f32

// -----

// expected-error @+1 {{expected SSA identifier}}
func.func @mixed(%a: f32, i32) {
  return
}

// -----

func.func @outside() {
  "test.region"() ({
    // expected-error @+1 {{'func.return' op expects parent op 'func.func'}}
    "func.return"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @f(%a: f32) {
  // expected-error @+1 {{'arith.addf' op requires the same type for all operands and results}}
  %0 = "arith.addf"(%a, %a) : (f32, f32) -> f16
  return
}

// -----

func.func @f(%i: i32) {
  // expected-error @+1 {{'math.exp' op operand #0 must be floating-point-like, but got 'i32'}}
  %0 = math.exp %i : i32
  return
}

// -----

func.func @f(%a: f32) {
  // expected-error @+1 {{'arith.extf' op operand type 'f32' and result type 'f16' are cast incompatible}}
  %0 = arith.extf %a : f32 to f16
  return
}

// -----

func.func @f(%a: f32) {
  // expected-error @+1 {{'arith.cmpf' op requires attribute 'predicate'}}
  %0 = "arith.cmpf"(%a, %a) : (f32, f32) -> i1
  return
}

// -----

func.func @f(%a: f32) {
  // expected-error @+1 {{unknown comparison predicate "sgt"}}
  %0 = arith.cmpf sgt, %a, %a : f32
  return
}

// -----

func.func @f(%a: f32) {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = 1 : i32}> : () -> f32
  return
}

// -----

func.func @f(%a: tensor<4x5xf32>) {
  // expected-error @+1 {{'tensor.collapse_shape' op expected dimension 0 of collapsed type to be static value of 20}}
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<4x5xf32> into tensor<21xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'func.call' op attribute 'callee' failed to satisfy constraint: flat symbol reference attribute}}
  "func.call"() {callee = 1} : () -> ()
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'func.call' op requires attribute 'callee'}}
  "func.call"() : () -> ()
  return
}
