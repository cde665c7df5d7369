// An element-wise producer read through a pad value in a fused kernel (issue 14;
// docs/passes/lower-to-gpu.md, fused kernels item 1): MobileNetV2's expand conv `P`, its
// bias + ReLU6 `A`, and the zero-padded 3x3 depthwise conv `D` reading `A`, connected in
// registers. Inlining `A` into `D`'s padded read would evaluate ReLU6(0 + b1) on the
// padding, so `A` is a shared stage over `D`'s halo (after the copies of `I` and `W1` and
// `P`'s stage), and `D` reads it under the bounds check with 0 outside. One kernel (two
// before: the edge was refused); the simulator checks it against the unfused chain.
// RUN: rtile-opt %s --connect="device=v100 connect-level=register" --lower-to-gpu -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-run --sim --check %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %t.mlir --mlir-print-op-generic | mlir-opt --verify-each | FileCheck %s --check-prefix=UPSTREAM

// CHECK-LABEL: gpu.func @pad_0(
// CHECK-SAME: rtile.shared_stages = 4
// A's stage: ReLU6(P + b1) inside A's domain, 0 past it, stored to its tile.
// CHECK: arith.maximumf
// CHECK-NEXT: arith.minimumf
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ZERO:cst[_0-9]*]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %{{[0-9]+}}, %[[ACT:[0-9]+]][{{.*}}] : memref<1x3x6x6xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// D's 3x3 loop reads A's tile inside A's bounds and the pad value 0 outside.
// CHECK: scf.for {{.*}} iter_args
// CHECK-NEXT: scf.for {{.*}} iter_args
// CHECK: arith.subi
// CHECK-NEXT: scf.if %{{[0-9]+}} -> (f32) {
// CHECK-NEXT: memref.load %[[ACT]][{{.*}}] : memref<1x3x6x6xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ZERO]] : f32
// CHECK: memref.store %{{[0-9]+}}, %arg4[{{.*}}] : memref<1x12x6x6xf32>
// CHECK-NOT: gpu.func @pad_1

// A 3-tap zero-padded stencil over bias + ReLU (element-wise all through, no reduction to
// stage): the ReLU is recomputed at each tap as inlining would (the register level), the
// padded taps under the bounds check, so ReLU(0 + b) is never taken for the padding.
// CHECK-LABEL: gpu.func @blur_1(
// CHECK-SAME: rtile.launch = {block
// CHECK-NOT: rtile.shared_stages
// CHECK: scf.if %{{[0-9]+}} -> (f32) {
// CHECK-NEXT: memref.load %arg0[{{.*}}] : memref<8x32xf32>
// CHECK-NEXT: memref.load %arg1[{{.*}}] : memref<32xf32>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[BZERO:cst[_0-9]*]] : f32
// CHECK: memref.store %{{[0-9]+}}, %arg2[{{.*}}] : memref<8x32xf32>
// CHECK-NOT: gpu.func

// SIM: @pad_0: 432 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @blur_1: 256 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @pad: 1 kernels, 0 constants
// SIM: @pad output 0: tensor<1x12x6x6xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @blur: 1 kernels, 0 constants
// SIM: @blur output 0: tensor<8x32xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// UPSTREAM: gpu.func @pad_0
// UPSTREAM: gpu.func @blur_1

func.func @pad(%I: tensor<1x4x6x6xf32>, %W1: tensor<12x4xf32>, %b1: tensor<12xf32>, %K: tensor<12x3x3xf32>) -> tensor<1x12x6x6xf32> {
  %P = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 12, 6, 6, 4] : (tensor<1x4x6x6xf32>, tensor<12x4xf32>) -> tensor<1x12x6x6xf32> { te.sum(%I[%n, %c, %y, %x] * %W1[%f, %c]) }
  %A = te.compute (%n, %c, %y, %x) in [1, 12, 6, 6] : (tensor<1x12x6x6xf32>, tensor<12xf32>) -> tensor<1x12x6x6xf32> { min(max(%P[%n, %c, %y, %x] + %b1[%c], 0.0), 6.0) }
  %D = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [1, 12, 6, 6, 3, 3] : (tensor<1x12x6x6xf32>, tensor<12x3x3xf32>) -> tensor<1x12x6x6xf32> { te.sum(%A[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %K[%c, %ry, %rx]) }
  func.return %D : tensor<1x12x6x6xf32>
}

func.func @blur(%X: tensor<8x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %A = te.compute (%i, %j) in [8, 32] : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32> { max(%X[%i, %j] + %b[%j], 0.0) }
  %Y = te.compute (%i, %j) in [8, 32] : (tensor<8x32xf32>) -> tensor<8x32xf32> { %A[%i, %j - 1] pad 0.0 + %A[%i, %j] + %A[%i, %j + 1] pad 0.0 }
  func.return %Y : tensor<8x32xf32>
}
