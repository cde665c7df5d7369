// Written for rtile (not copied from upstream). mlir-opt-22 prints this file in generic form;
// rtile must read that output and print it back byte for byte (trailing blank line included).
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.rtile
// RUN: diff %t.mlir %t.rtile

// Upstream ops of dialects rtile models only in part pass through opaquely.
func.func @tensor_ops(%t: tensor<?x4xf32>, %i: index, %f: f32) -> tensor<?x7xf32> {
  %0 = tensor.cast %t : tensor<?x4xf32> to tensor<2x4xf32>
  %1 = tensor.dim %t, %i : tensor<?x4xf32>
  %2 = tensor.extract_slice %t[0, 1] [%1, 2] [1, 1] : tensor<?x4xf32> to tensor<?x2xf32>
  %3 = tensor.empty(%1) : tensor<?x8xf32>
  %4 = tensor.pad %t low[0, 1] high[%i, 2] {
  ^bb0(%a: index, %b: index):
    tensor.yield %f : f32
  } : tensor<?x4xf32> to tensor<?x7xf32>
  return %4 : tensor<?x7xf32>
}
func.func @misc(%a: i32, %m: memref<4xf32>, %f: f32, %i: index, %s: memref<2xindex>, %fn: (i32) -> i32) {
  %0 = arith.ceildivui %a, %a : i32
  %1 = memref.atomic_rmw addf %f, %m[%i] : (f32, memref<4xf32>) -> f32
  %2 = memref.reshape %m(%s) : (memref<4xf32>, memref<2xindex>) -> memref<2x2xf32>
  %3 = func.call_indirect %fn(%a) : (i32) -> i32
  return
}
func.func @vec(%m: memref<8xf32>, %i: index, %f: f32) -> vector<4xf32> {
  %0 = vector.transfer_read %m[%i], %f : memref<8xf32>, vector<4xf32>
  return %0 : vector<4xf32>
}
func.func @launch(%n: index, %v: f32) {
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %n, %gz = %n)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %n, %sz = %n) {
    %r = gpu.all_reduce add %v uniform {} : (f32) -> f32
    gpu.terminator
  }
  return
}
