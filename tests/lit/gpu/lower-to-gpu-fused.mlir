// Welder's fused kernels (issue 14 item 5): after --connect, --lower-to-gpu lowers each
// tilegraph.kernel as ONE gpu.func. conv -> bias -> relu: the bias and relu are the
// conv's epilogue stage (applied to each point of the register tile before the store);
// relu(X·s) -> GEMM -> bias+GELU: the scaled relu is inlined where the GEMM reads it
// (prologue) and bias+GELU is the epilogue; Matmul -> Softmax at connect-level=register:
// the matmul, then the softmax's four ops in one kernel (the row max and sum recomputed
// where the division reads them). Every fused kernel carries its members' unfused chain
// as rtile.te; rtile-run --sim checks each function whole and --check each kernel alone
// against the f64 oracle. The generic form verifies in mlir-opt-22.
// RUN: rtile-opt %s --connect="device=v100 connect-level=register" --lower-to-gpu --mlir-pass-statistics -o %t.mlir 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-opt %t.mlir --mlir-print-op-generic | mlir-opt --verify-each | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-run --sim --seed 3 %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-run --sim --check %t.mlir | FileCheck %s --check-prefix=KERNELS
// Welder-none output (one kernel per op) lowers and runs too.
// RUN: rtile-opt %s --connect="device=v100 connect-level=none" --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=NONE
// Full Welder (shared-connected edges) lowers too: the shared stage's kernel is checked in
// lower-to-gpu-fused-shared.mlir; here the whole module runs and matches.
// RUN: rtile-opt %s --connect="device=v100" --lower-to-gpu | rtile-run --sim --seed 3 | FileCheck %s --check-prefix=SHARED

// STATS: 4 kernels

// CHECK: gpu.func @cbr_0(%arg0: memref<1x8x10x10xf32>, %arg1: memref<16x8x3x3xf32>, %arg2: memref<16xf32>, %arg3: memref<1x16x8x8xf32>)
// CHECK-SAME: rtile.te = "func.func @ref(%in0: tensor<1x8x10x10xf32>, %in1: tensor<16x8x3x3xf32>, %in2: tensor<16xf32>) -> tensor<1x16x8x8xf32> { %m0 = te.compute {{.*}} %m1 = te.compute {{.*}} %m2 = te.compute
// The epilogue: bias loaded, added, relu, stored to the relu's output.
// CHECK: memref.load %arg2
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: memref.store {{.*}}, %arg3
// CHECK: gpu.func @pro_1(%arg0: memref<32x48xf32>, %arg1: memref<48xf32>, %arg2: memref<48x40xf32>, %arg3: memref<40xf32>, %arg4: memref<32x40xf32>)
// CHECK: math.erf
// CHECK: gpu.func @f_2(
// CHECK: gpu.func @f_3(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>)
// The row max recomputed in the divide's loop.
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK-NOT: gpu.func
// CHECK: func.func @cbr(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK: func.func @pro(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK: func.func @f(
// CHECK-COUNT-2: gpu.launch_func

// UPSTREAM: gpu.func @cbr_0
// UPSTREAM: gpu.func @pro_1
// UPSTREAM: gpu.func @f_3

// SIM: @cbr: 1 kernels, 0 constants, peak intermediate memory 0 bytes
// SIM: @cbr output 0: tensor<1x16x8x8xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @pro: 1 kernels
// SIM: @pro output 0: tensor<32x40xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @f: 2 kernels
// SIM: @f output 0: tensor<64x64xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}

// KERNELS: @cbr_0: 1024 elements, max relative error
// KERNELS: @pro_1: 1280 elements
// KERNELS: @f_3: 4096 elements

// NONE: @cbr: 3 kernels
// NONE: @pro: 3 kernels
// NONE: @f: 5 kernels

// SHARED: @cbr output 0: tensor<1x16x8x8xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SHARED: @pro output 0: tensor<32x40xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// Full Welder puts the matmul in the softmax's kernel too (the row reductions on its
// shared tile, §2's example); two kernels until each launch was costed (issue 14).
// SHARED: @f: 1 kernels
// SHARED: @f output 0: tensor<64x64xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}

func.func @cbr(%I: tensor<1x8x10x10xf32>, %W: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %r, %s) in [1, 16, 8, 8, 8, 3, 3] : (tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x8x8xf32> { te.sum(%I[%n, %c, %y + %r, %x + %s] * %W[%f, %c, %r, %s]) }
  %B = te.compute (%n, %f, %y, %x) in [1, 16, 8, 8] : (tensor<1x16x8x8xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32> { %C[%n, %f, %y, %x] + %b[%f] }
  %R = te.compute (%n, %f, %y, %x) in [1, 16, 8, 8] : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> { max(%B[%n, %f, %y, %x], 0.0) }
  func.return %R : tensor<1x16x8x8xf32>
}

func.func @pro(%X: tensor<32x48xf32>, %s: tensor<48xf32>, %W: tensor<48x40xf32>, %b: tensor<40xf32>) -> tensor<32x40xf32> {
  %A = te.compute (%m, %k) in [32, 48] : (tensor<32x48xf32>, tensor<48xf32>) -> tensor<32x48xf32> { max(%X[%m, %k] * %s[%k], 0.0) }
  %C = te.compute (%m, %n) reduce (%k) in [32, 40, 48] : (tensor<32x48xf32>, tensor<48x40xf32>) -> tensor<32x40xf32> { te.sum(%A[%m, %k] * %W[%k, %n]) }
  %G = te.compute (%m, %n) in [32, 40] : (tensor<32x40xf32>, tensor<40xf32>) -> tensor<32x40xf32> { (%C[%m, %n] + %b[%n]) * 0.5 * (erf((%C[%m, %n] + %b[%n]) * 0.70710678) + 1.0) }
  func.return %G : tensor<32x40xf32>
}

func.func @f(%A: tensor<64x64xf32>, %B: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [64, 64, 64] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32> { te.sum(%A[%m, %k] * %B[%k, %n]) }
  %M = te.compute (%i) reduce (%j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64xf32> { te.max(%C[%i, %j]) }
  %E = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32> { exp(%C[%i, %j] - %M[%i]) }
  %S = te.compute (%i) reduce (%j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64xf32> { te.sum(%E[%i, %j]) }
  %D = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32> { %E[%i, %j] / %S[%i] }
  func.return %D : tensor<64x64xf32>
}
