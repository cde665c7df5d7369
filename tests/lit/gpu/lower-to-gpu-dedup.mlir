// Computes that lower to the same code share one kernel: the two relus of @twice are the
// same te compute under the same program, so the host function launches @twice_0 twice
// (on different buffers) and the add gets @twice_1. With dedup-kernels=false every compute
// has its own kernel. The shared kernel runs whole in the simulator against the oracle.
// RUN: rtile-opt %s --construct-rtile=device=h100 --lower-to-gpu --mlir-pass-statistics -o %t.mlir 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-opt %s --construct-rtile=device=h100 --lower-to-gpu=dedup-kernels=false | FileCheck %s --check-prefix=OFF
// RUN: rtile-run --sim --seed 5 %t.mlir | FileCheck %s --check-prefix=SIM

// STATS: 2 kernels - Number of kernels generated
// STATS: 1 reused-kernels - Launches of a kernel already generated for an identical compute

// CHECK: gpu.module @kernels
// CHECK-COUNT-2: gpu.func @twice_{{[01]}}(
// CHECK-NOT: gpu.func
// CHECK: func.func @twice(%[[X:arg0]]: memref<16x32xf32>, %[[Y:arg1]]: memref<16x32xf32>, %[[OUT:arg2]]: memref<16x32xf32>)
// CHECK: "gpu.launch_func"({{.*}}, %[[X]], %[[RX:[0-9]+]]) <{kernel = @kernels::@twice_0,
// CHECK: "gpu.launch_func"({{.*}}, %[[Y]], %[[RY:[0-9]+]]) <{kernel = @kernels::@twice_0,
// CHECK: "gpu.launch_func"({{.*}}, %[[RX]], %[[RY]], %[[OUT]]) <{kernel = @kernels::@twice_1,

// OFF-COUNT-3: gpu.func @twice_{{[012]}}(
// OFF-NOT: gpu.func
// OFF: kernel = @kernels::@twice_0,
// OFF: kernel = @kernels::@twice_1,
// OFF: kernel = @kernels::@twice_2,

// SIM: @twice: 3 kernels, 0 constants, peak intermediate memory 4096 bytes
// SIM-NEXT: @twice output 0: tensor<16x32xf32>, max relative error {{[0-9.]+e-?[0-9]+}}

func.func @twice(%X: tensor<16x32xf32>, %Y: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %RX = te.compute (%i, %j) in [16, 32] : (tensor<16x32xf32>) -> tensor<16x32xf32> {
    max(%X[%i, %j], 0.0)
  }
  %RY = te.compute (%i, %j) in [16, 32] : (tensor<16x32xf32>) -> tensor<16x32xf32> {
    max(%Y[%i, %j], 0.0)
  }
  %S = te.compute (%i, %j) in [16, 32] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32> {
    %RX[%i, %j] + %RY[%i, %j]
  }
  return %S : tensor<16x32xf32>
}
