// func dialect: custom and generic forms, as mlir-opt-22 prints them.
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: rtile-opt %s --mlir-print-op-generic | rtile-opt | FileCheck %s
// Upstream agrees: its custom output reads back to ours, its generic output too.
// RUN: mlir-opt-22 %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic -o %t.generic
// RUN: mlir-opt-22 --mlir-print-op-generic %t.generic | rtile-opt --mlir-print-op-generic | diff %t.generic -

// CHECK-LABEL: func.func private @decl(f32) -> f32
// GENERIC: "func.func"() <{function_type = (f32) -> f32, sym_name = "decl", sym_visibility = "private"}> ({
// GENERIC-NEXT: }) : () -> ()
func.func private @decl(f32) -> f32

// CHECK-LABEL: func.func @two(%arg0: f32 {test.x = 1 : i32}, %arg1: tensor<2xf32>) -> (f32, i32) attributes {foo = 1 : i64} {
// CHECK-NEXT: %0 = arith.addf %arg0, %arg0 : f32
// CHECK-NEXT: %c3_i32 = arith.constant 3 : i32
// CHECK-NEXT: %1 = call @decl(%0) : (f32) -> f32
// CHECK-NEXT: return %1, %c3_i32 : f32, i32
// GENERIC: "func.func"() <{arg_attrs = [{test.x = 1 : i32}, {}], function_type = (f32, tensor<2xf32>) -> (f32, i32), sym_name = "two"}> ({
// GENERIC: "func.call"(%{{.*}}) <{callee = @decl}> : (f32) -> f32
// GENERIC: "func.return"(%{{.*}}, %{{.*}}) : (f32, i32) -> ()
// GENERIC: }) {foo = 1 : i64} : () -> ()
func.func @two(%a: f32 {test.x = 1 : i32}, %b: tensor<2xf32>) -> (f32, i32) attributes {foo = 1 : i64} {
  %0 = arith.addf %a, %a : f32
  %c = arith.constant 3 : i32
  %1 = func.call @decl(%0) : (f32) -> f32
  func.return %1, %c : f32, i32
}

// CHECK-LABEL: func.func @empty() {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @empty() {
  return
}

// Result attributes need the parenthesized result list.
// CHECK-LABEL: func.func @res_attr(%arg0: i32) -> (i32 {test.r}) {
// GENERIC: res_attrs = [{test.r}]
func.func @res_attr(%x: i32) -> (i32 {test.r}) {
  return %x : i32
}

// CHECK-LABEL: func.func nested @nested_vis
func.func nested @nested_vis() {
  return
}

// Recursion and calls to later functions resolve through the module's symbol table.
// CHECK-LABEL: func.func @rec(%arg0: i32) -> i32 {
// CHECK-NEXT: %0 = call @rec(%arg0) : (i32) -> i32
// CHECK-NEXT: %1 = call @later(%0) : (i32) -> i32
func.func @rec(%x: i32) -> i32 {
  %0 = call @rec(%x) : (i32) -> i32
  %1 = call @later(%0) : (i32) -> i32
  return %1 : i32
}
func.func @later(%x: i32) -> i32 {
  return %x : i32
}
