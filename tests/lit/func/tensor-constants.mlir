// Tensor-valued arith.constant: dense elements (lists, splats, i1, f16/bf16/f64, ints)
// and dense_resource blobs from the file's resource section, printed byte for byte as
// mlir-opt-22 prints them: `%cst` / `%c1_i32` / `%true` result names, the elements, and
// the builtin blobs a printed dense_resource names (unused ones dropped).
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s -o %t.rtile
// RUN: mlir-opt-22 %s -o %t.mlir
// RUN: diff %t.mlir %t.rtile
// RUN: rtile-opt %t.rtile | diff %t.rtile -
// RUN: mlir-opt-22 %t.rtile | diff %t.rtile -
// Generic form both ways.
// RUN: mlir-opt-22 --mlir-print-op-generic %s -o %t.ugeneric
// RUN: rtile-opt --mlir-print-op-generic %s | diff %t.ugeneric -
// RUN: rtile-opt --mlir-print-op-generic %t.ugeneric | diff %t.ugeneric -
// RUN: rtile-opt %t.ugeneric | diff %t.rtile -

// CHECK-LABEL: func.func @consts()
// CHECK-NEXT: %cst = arith.constant dense_resource<w0> : tensor<2xf32>
// CHECK-NEXT: %cst_0 = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %cst_1 = arith.constant dense<7> : tensor<2x3xi32>
// CHECK-NEXT: %cst_2 = arith.constant dense<[true, false, true, true]> : tensor<4xi1>
// CHECK-NEXT: %cst_3 = arith.constant dense<5.000000e-01> : tensor<2xf16>
// CHECK-NEXT: %cst_4 = arith.constant dense<[1.500000e+00, -2.000000e+00]> : tensor<2xbf16>
// CHECK-NEXT: %cst_5 = arith.constant dense_resource<"weights.conv 1"> : tensor<2x2xf64>
// CHECK-NEXT: %cst_6 = arith.constant dense_resource<w0> : tensor<2xf32>
// CHECK-NEXT: %cst_7 = arith.constant dense_resource<i8s> : tensor<3xi8>
// CHECK-NEXT: %cst_8 = arith.constant dense_resource<bools> : tensor<3xi1>
// CHECK-NEXT: %cst_9 = arith.constant dense<[-1, 2]> : tensor<2xi64>
// CHECK-NEXT: %cst_10 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %c-1_i32 = arith.constant -1 : i32
// CHECK-NEXT: %c1_i32 = arith.constant 1 : i32
// CHECK-NEXT: %c1_i32_11 = arith.constant 1 : i32
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %true = arith.constant true
// CHECK-NEXT: %cst_12 = arith.constant dense<1> : vector<4xi32>
// CHECK-NEXT: %0 = arith.addf %cst_10, %cst_10 : f32
// CHECK-NEXT: return %cst, %cst_0, %cst_5, %0 : tensor<2xf32>, tensor<2xf32>, tensor<2x2xf64>, f32
// A name is unique within its region and the regions around it; sibling functions reuse
// names.
// CHECK-LABEL: func.func @again()
// CHECK-NEXT: %cst = arith.constant dense_resource<w0> : tensor<2xf32>
// CHECK-NEXT: %c1_i32 = arith.constant 1 : i32
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       w0: "0x040000000000803F00000040",
// CHECK-NEXT:       "weights.conv 1": "0x08000000000000000000F03F000000000000F0BF00000000000000000000000000000840",
// CHECK-NEXT:       i8s: "0x01000000FF0102",
// CHECK-NEXT:       bools: "0x01000000010001"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
// CHECK-NOT: unused
func.func @consts() -> (tensor<2xf32>, tensor<2xf32>, tensor<2x2xf64>, f32) {
  %0 = arith.constant dense_resource<w0> : tensor<2xf32>
  %1 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = arith.constant dense<7> : tensor<2x3xi32>
  %3 = arith.constant dense<[true, false, true, true]> : tensor<4xi1>
  %4 = arith.constant dense<0.5> : tensor<2xf16>
  %5 = arith.constant dense<[1.5, -2.0]> : tensor<2xbf16>
  %6 = arith.constant dense_resource<"weights.conv 1"> : tensor<2x2xf64>
  %7 = arith.constant dense_resource<w0> : tensor<2xf32>
  %8 = arith.constant dense_resource<i8s> : tensor<3xi8>
  %9 = arith.constant dense_resource<bools> : tensor<3xi1>
  %10 = arith.constant dense<[-1, 2]> : tensor<2xi64>
  %11 = arith.constant 1.0 : f32
  %12 = arith.constant -1 : i32
  %13 = arith.constant 1 : i32
  %14 = arith.constant 1 : i32
  %15 = arith.constant 0 : index
  %16 = arith.constant true
  %17 = arith.constant dense<1> : vector<4xi32>
  %18 = arith.addf %11, %11 : f32
  return %0, %1, %6, %18 : tensor<2xf32>, tensor<2xf32>, tensor<2x2xf64>, f32
}
func.func @again() -> (tensor<2xf32>, i32) {
  %0 = arith.constant dense_resource<w0> : tensor<2xf32>
  %1 = arith.constant 1 : i32
  return %0, %1 : tensor<2xf32>, i32
}
{-#
  dialect_resources: {
    builtin: {
      unused: "0x0400000000000000",
      w0: "0x040000000000803f00000040",
      "weights.conv 1": "0x08000000000000000000F03F000000000000F0BF00000000000000000000000000000840",
      i8s: "0x01000000FF0102",
      bools: "0x01000000010001"
    }
  }
#-}
