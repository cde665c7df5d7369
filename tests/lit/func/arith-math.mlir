// arith/math/tensor ops rtile registers: custom forms as mlir-opt-22 prints them, and
// generic forms identical to mlir-opt-22's (default properties included).
// RUN: rtile-opt %s | FileCheck %s
// RUN: mlir-opt-22 %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s -o %t.custom
// RUN: rtile-opt %t.custom | diff %t.custom -
// RUN: mlir-opt-22 %s | rtile-opt | diff %t.custom -
// RUN: mlir-opt-22 --mlir-print-op-generic %s -o %t.upstream
// RUN: rtile-opt --mlir-print-op-generic %s | mlir-opt-22 --mlir-print-op-generic | diff %t.upstream -
// RUN: rtile-opt --mlir-print-op-generic %t.upstream | mlir-opt-22 --mlir-print-op-generic | diff %t.upstream -

// CHECK-LABEL: func.func @arith
// CHECK: arith.mulf %arg0, %arg1 : f32
// CHECK: arith.addf %{{.*}}, %arg1 fastmath<nnan,ninf> : f32
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.subi %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK: arith.cmpi slt, %arg2, %{{.*}} : i32
// CHECK: arith.select %{{.*}}, %arg4, %arg4 : vector<4xi1>, vector<4xf32>
// CHECK: arith.constant {foo} true
func.func @arith(%a: f32, %b: f32, %i: i32, %c: i1, %v: vector<4xf32>) -> f32 {
  %0 = arith.mulf %a, %b : f32
  %1 = arith.addf %0, %b fastmath<nnan,ninf> : f32
  %cst = arith.constant 1.000000e+00 : f32
  %2 = arith.cmpf olt, %1, %cst : f32
  %3 = arith.select %2, %1, %cst : f32
  %4 = arith.truncf %3 : f32 to f16
  %5 = arith.extf %4 : f16 to f32
  %6 = math.erf %5 : f32
  %7 = arith.fptosi %6 : f32 to i32
  %c0 = arith.constant 0 : i32
  %8 = arith.subi %c0, %7 overflow<nsw> : i32
  %9 = arith.sitofp %8 : i32 to f32
  %10 = arith.cmpi slt, %i, %8 : i32
  %11 = arith.cmpf ogt, %v, %v : vector<4xf32>
  %12 = arith.select %11, %v, %v : vector<4xi1>, vector<4xf32>
  %13 = arith.constant {foo} true
  return %9 : f32
}

// CHECK-LABEL: func.func @math
// CHECK: math.isnan %arg0 : f32
// CHECK: arith.bitcast %arg0 : f32 to i32
// CHECK: math.tan %arg0 fastmath<fast> : f32
func.func @math(%a: f32, %b: f32, %i: i32, %x: index) {
  %0 = math.atan2 %a, %b : f32
  %1 = math.isnan %a : f32
  %2 = arith.bitcast %a : f32 to i32
  %3 = math.ctpop %i : i32
  %4 = math.tan %a fastmath<fast> : f32
  %5 = arith.index_castui %i : i32 to index
  %6 = math.ipowi %i, %i : i32
  %7 = math.copysign %a, %b : f32
  return
}

// CHECK-LABEL: func.func @reshapes
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<4x5x6xf32> into tensor<20x6xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [4, 5, 6] : tensor<20x6xf32> into tensor<4x5x6xf32>
func.func @reshapes(%a: tensor<4x5x6xf32>) -> tensor<4x5x6xf32> {
  %0 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<4x5x6xf32> into tensor<20x6xf32>
  %1 = tensor.expand_shape %0 [[0, 1], [2]] output_shape [4, 5, 6] : tensor<20x6xf32> into tensor<4x5x6xf32>
  return %1 : tensor<4x5x6xf32>
}
