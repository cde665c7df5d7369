// Written for rtile (not copied from upstream). mlir-opt-22 prints this file in generic form;
// rtile must read that output and print it back byte for byte (trailing blank line included).
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.rtile
// RUN: diff %t.mlir %t.rtile

// Valid IR that rtile's verifier once refused: a dynamic collapse group, a private
// attribution in a numeric memory space, i32/i64 launch sizes, a launch after async
// dependencies (its sizes located through operandSegmentSizes), memref collapses of
// strided layouts.
module attributes {gpu.container_module} {
  func.func @collapse(%arg0: tensor<?x?x?x4x?xf32>) -> tensor<?x?x?xf32> {
    %0 = tensor.collapse_shape %arg0 [[0], [1], [2, 3, 4]] : tensor<?x?x?x4x?xf32> into tensor<?x?x?xf32>
    return %0 : tensor<?x?x?xf32>
  }
  func.func @collapse_strided(%a: memref<3x4x5xf32, strided<[240, 60, 10]>>, %b: memref<1x2049xi64, strided<[?, ?], offset: ?>>) {
    %0 = memref.collapse_shape %a [[0, 1], [2]] : memref<3x4x5xf32, strided<[240, 60, 10]>> into memref<12x5xf32, strided<[60, 10]>>
    %1 = memref.collapse_shape %b [[0, 1]] : memref<1x2049xi64, strided<[?, ?], offset: ?>> into memref<2049xi64, strided<[?], offset: ?>>
    return
  }
  gpu.module @kernels {
    gpu.func @k(%arg0: f32) private(%p: memref<4xf32, 5>) kernel {
      gpu.return
    }
  }
  func.func @launch(%a: i32, %b: i64, %x: f32) {
    gpu.launch_func @kernels::@k blocks in (%a, %a, %a) threads in (%a, %a, %a) : i32 args(%x : f32)
    gpu.launch_func @kernels::@k blocks in (%b, %b, %b) threads in (%b, %b, %b) : i64 args(%x : f32)
    %t = gpu.wait async
    %t1 = gpu.launch_func async [%t] @kernels::@k blocks in (%a, %a, %a) threads in (%a, %a, %a) : i32 args(%x : f32)
    return
  }
}
