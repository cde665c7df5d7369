// te's mixed-precision reductions: `acc(f32)` names the accumulator type (the body
// yields it, the combiner folds in it, the result is rounded once at the end). Custom
// and generic forms round-trip; upstream mlir-opt-22 accepts the generic form (the
// accumulator is the `accumulator` type attribute, the body's extf is upstream arith).
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: rtile-opt %s --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s
// RUN: rtile-run --interpret %s | FileCheck %s --check-prefix=INTERP

// CHECK-LABEL: func.func @matmul_f16
// CHECK: te.compute (%m, %n) reduce (%k) in [8, 4, 16] acc(f32) : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf16> {
// CHECK-NEXT: te.sum(f32(%{{.*}}[%m, %k]) * f32(%{{.*}}[%k, %n]))
// GENERIC-LABEL: "func.func"
// GENERIC: ^bb0(%{{.*}}: f16, %{{.*}}: f16):
// GENERIC-NEXT: "arith.extf"(%{{.*}}) : (f16) -> f32
// GENERIC-NEXT: "arith.extf"(%{{.*}}) : (f16) -> f32
// GENERIC-NEXT: "arith.mulf"
// GENERIC-NEXT: "te.yield"(%{{.*}}) : (f32) -> ()
// GENERIC: accumulator = f32
// GENERIC-SAME: combiner = "sum"
// GENERIC: (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf16>
// INTERP: @matmul_f16 result 0: tensor<8x4xf16>
func.func @matmul_f16(%A: tensor<8x16xf16>, %B: tensor<16x4xf16>) -> tensor<8x4xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [8, 4, 16] acc(f32)
         : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf16> {
    te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n]))
  }
  func.return %C : tensor<8x4xf16>
}

// A bf16 batch matmul into an f32 result; a literal in the body takes the
// accumulator's type.
// CHECK-LABEL: func.func @bmm_bf16
// CHECK: te.compute (%b, %m, %n) reduce (%k) in [2, 3, 5, 7] acc(f32) : (tensor<2x3x7xbf16>, tensor<2x7x5xbf16>) -> tensor<2x3x5xf32> {
// CHECK-NEXT: te.sum(f32(%{{.*}}[%b, %m, %k]) * f32(%{{.*}}[%b, %k, %n]) * 0.5)
func.func @bmm_bf16(%A: tensor<2x3x7xbf16>, %B: tensor<2x7x5xbf16>) -> tensor<2x3x5xf32> {
  %C = te.compute (%b, %m, %n) reduce (%k) in [2, 3, 5, 7] acc(f32)
         : (tensor<2x3x7xbf16>, tensor<2x7x5xbf16>) -> tensor<2x3x5xf32> {
    te.sum(f32(%A[%b, %m, %k]) * f32(%B[%b, %k, %n]) * 0.5)
  }
  func.return %C : tensor<2x3x5xf32>
}

// A padded f16 convolution (implicit GEMM on tensor cores) accumulating in f32.
// CHECK-LABEL: func.func @conv_f16
// CHECK: te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 4, 6, 6, 3, 3, 3] may_pad 0.0 acc(f32)
// CHECK-NEXT: te.sum(f32(%{{.*}}[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0) * f32(%{{.*}}[%f, %c, %ry, %rx]))
func.func @conv_f16(%D: tensor<1x3x6x6xf16>, %K: tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 4, 6, 6, 3, 3, 3] may_pad 0.0 acc(f32)
         : (tensor<1x3x6x6xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf16> {
    te.sum(f32(%D[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0) * f32(%K[%f, %c, %ry, %rx]))
  }
  func.return %O : tensor<1x4x6x6xf16>
}

// A hand-written generic form reads into the custom form.
// CHECK-LABEL: func.func @generic_in
// CHECK: te.compute (%d0) reduce (%d1) in [3, 4] acc(f32) : (tensor<3x4xf16>) -> tensor<3xf16> {
// CHECK-NEXT: te.max(f32(%{{.*}}[%d0, %d1]))
func.func @generic_in(%X: tensor<3x4xf16>) -> tensor<3xf16> {
  %0 = "te.compute"(%X) ({
  ^bb0(%a: f16):
    %1 = "arith.extf"(%a) : (f16) -> f32
    "te.yield"(%1) : (f32) -> ()
  }) {accumulator = f32, combiner = "max", domain = array<i64: 3, 4>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} : (tensor<3x4xf16>) -> tensor<3xf16>
  func.return %0 : tensor<3xf16>
}
