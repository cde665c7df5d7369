// A rank-0 input (a scalar tensor: ONNX's scale constants, `Mul(x, 0.5)` imported as
// `%cst[]`) read by a compute whose program stages its inputs: the scalar has no tile to
// stage, so every thread reads its one word from global memory and the other inputs are
// staged as usual. (Staging it used to panic on its rank, 0 - 1.) Run whole in the
// simulator against the f64 oracle, under Roller's programs and `--connect`'s tiles.
// RUN: rtile-opt %s --construct-rtile=device=h100 --lower-to-gpu -o %t.h100.mlir
// RUN: FileCheck %s --input-file=%t.h100.mlir
// RUN: rtile-run --sim %t.h100.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --construct-rtile=device=mi250x --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --connect=device=v100 --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM

// The scalar is read straight from its global memref; the matrices through shared tiles.
// CHECK: gpu.func @scaled_matmul_0
// CHECK-SAME: memref<f32>
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}}[] : memref<f32>

// SIM: @scaled_matmul output 0: tensor<32x40xf32>, max relative error
// SIM-NOT: error
// SIM: max relative error

func.func @scaled_matmul(%a: tensor<32x24xf32>, %b: tensor<24x40xf32>, %s: tensor<f32>) -> tensor<32x40xf32> {
  %c = te.compute (%i, %j) reduce (%k) in [32, 40, 24] : (tensor<32x24xf32>, tensor<24x40xf32>, tensor<f32>) -> tensor<32x40xf32> {
    te.sum(%a[%i, %k] * %b[%k, %j] * %s[])
  }
  func.return %c : tensor<32x40xf32>
}
