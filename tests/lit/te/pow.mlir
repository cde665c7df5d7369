// te's binary `pow(a, b)` (math.powf in the generic form; floats only): custom and
// generic forms, upstream mlir-opt-22 reads it back, the interpreter computes it.
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: rtile-opt %s --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s
// RUN: rtile-run --interpret %s --f64 | FileCheck %s --check-prefix=INTERP

// CHECK-LABEL: func.func @pow
// CHECK: pow(%{{.*}}[%i], 2.0)
// GENERIC: "math.powf"(%{{.*}}, %{{.*}}) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
// Squares of the seeded inputs: every term is non-negative, so sum equals abs.
// INTERP: @pow result 0: tensor<8xf64> sum=[[S:[-0-9.e]+]] abs=[[S]] weighted
func.func @pow(%X: tensor<8xf32>) -> tensor<8xf32> {
  %0 = te.compute (%i) in [8] : (tensor<8xf32>) -> tensor<8xf32> {
    pow(%X[%i], 2.0)
  }
  func.return %0 : tensor<8xf32>
}
