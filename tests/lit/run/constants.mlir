// rtile-run --interpret on tensor arith.constants: a dense_resource blob (f32 [1, 2, 3]),
// a splat (0.5), a dense list of i32 and a dense f16 list, used by a te.compute and
// returned. The checksums are exact: y[i, j] = 0 * x[i, j] + w[j] + b[i, j] is
// [[1.5, 2.5, 3.5], [1.5, 2.5, 3.5]] (sum 15, position-weighted sum 56.5).
// The same after a trip through rtile-opt (constants print as %cst) and mlir-opt-22.
// RUN: rm -rf %t && split-file %s %t
// RUN: rtile-run --interpret %t/consts.mlir | FileCheck %s
// RUN: rtile-run --interpret --f64 %t/consts.mlir | FileCheck %s --check-prefix=F64
// RUN: rtile-opt %t/consts.mlir | rtile-run --interpret | FileCheck %s
// RUN: rtile-opt %t/consts.mlir --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each | rtile-run --interpret | FileCheck %s
// RUN: mkdir %t/dump && rtile-run --interpret %t/consts.mlir --func consts --dump %t/dump
// RUN: rtile-run --interpret %t/consts.mlir --func ints --inputs %t/dump/consts.2.npy | FileCheck %s --check-prefix=READBACK
// A constant whose blob is missing is a verifier error before anything runs.
// RUN: not rtile-run --interpret %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK: @consts result 0: tensor<2x3xf32> sum=1.50000000000000000e1 abs=1.50000000000000000e1 weighted=5.65000000000000000e1
// CHECK-NEXT: @consts result 1: tensor<3xf32> sum=6.00000000000000000e0 abs=6.00000000000000000e0 weighted=1.40000000000000000e1
// CHECK-NEXT: @consts result 2: tensor<2xi32> sum=-3.00000000000000000e0 abs=1.10000000000000000e1 weighted=-1.00000000000000000e1
// CHECK-NEXT: @consts result 3: tensor<3xf16> sum=6.55020999755859375e4 abs=6.55060999755859375e4
// F64: @consts result 0: tensor<2x3xf64> sum=1.50000000000000000e1
// F64: @consts result 3: tensor<3xf16> sum=
// READBACK: @ints result 0: tensor<2xi32> sum=-3.00000000000000000e0 abs=1.10000000000000000e1
// MISSING: error: 'arith.constant' op no blob 'gone' in the file's dialect_resources (builtin)

//--- consts.mlir
func.func @consts(%X: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<3xf16>) {
  %w = arith.constant dense_resource<w> : tensor<3xf32>
  %b = arith.constant dense<0.5> : tensor<2x3xf32>
  %n = arith.constant dense<[4, -7]> : tensor<2xi32>
  %h = arith.constant dense<[0.1, 65504.0, -2.0]> : tensor<3xf16>
  %y = te.compute (%i, %j) in [2, 3] : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
    %X[%i, %j] * 0.0 + %w[%j] + %b[%i, %j]
  }
  return %y, %w, %n, %h : tensor<2x3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<3xf16>
}

func.func @ints(%N: tensor<2xi32>) -> tensor<2xi32> {
  return %N : tensor<2xi32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000004000004040"
    }
  }
#-}

//--- missing.mlir
func.func @f() -> tensor<2xf32> {
  %0 = arith.constant dense_resource<gone> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
