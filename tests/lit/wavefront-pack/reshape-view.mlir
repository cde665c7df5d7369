// A reshape between two packed computes is a view: the host passes the buffer and its
// reshaped view to the one persistent kernel, where one rTask writes through the first and
// another reads through the second. The simulator gave each kernel argument its own copy,
// so the reader saw the buffer as it was before the launch (NaN: max relative error inf;
// found on ONNX's rotary-embedding node test). Arguments viewing the same bytes now share
// their memory, as on the device.
// RUN: rtile-opt %s --wavefront-pack=device=h100 --lower-to-gpu -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-run --sim %t.mlir | FileCheck %s --check-prefix=SIM

// CHECK: %[[BUF:[0-9]+]] = "memref.view"({{.*}}) -> memref<4x6xf32>
// CHECK: %[[VIEW:[0-9]+]] = "memref.expand_shape"(%[[BUF]])
// CHECK: "gpu.launch_func"({{.*}}%[[BUF]], %[[VIEW]], {{.*}}kernel = @kernels::@f_p0

// SIM: @f output 0: tensor<4x6x2xf32>, max relative error
// SIM-NOT: error:

func.func @f(%x: tensor<4x6xf32>) -> tensor<4x6x2xf32> {
  %a = te.compute (%i, %j) in [4, 6] : (tensor<4x6xf32>) -> tensor<4x6xf32> { %x[%i, %j] * 2.0 }
  %b = tensor.expand_shape %a [[0], [1, 2]] output_shape [4, 6, 1] : tensor<4x6xf32> into tensor<4x6x1xf32>
  %c = te.compute (%i, %j, %k) in [4, 6, 2] : (tensor<4x6x1xf32>) -> tensor<4x6x2xf32> { %b[%i, %j, %k - 1] pad 0.0 + 1.0 }
  func.return %c : tensor<4x6x2xf32>
}
