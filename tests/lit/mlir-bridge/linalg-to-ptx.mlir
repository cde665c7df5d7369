// From linalg to PTX: upstream generalisation, rtile import/construct/select/lower-to-gpu
// and upstream canonicalize+cse in one MLIR pass manager, then rtile-translate (the worked
// example of docs/mlir-interop.md).
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(linalg-generalize-named-ops,rtile-import-linalg,rtile-construct{device=v100},rtile-select,rtile-lower-to-gpu,canonicalize,cse)" --mlir-print-op-generic -o %t.gpu.mlir
// RUN: rtile-translate --to-ptx=sm_70 %t.gpu.mlir -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// CHECK: .target sm_70
// CHECK: .visible .entry mm_relu_0(
// CHECK: bar.sync
// CHECK: fma.rn.f32
// CHECK: .visible .entry mm_relu_1(
// CHECK: max.f32

func.func @mm_relu(%A: tensor<256x512xf32>, %B: tensor<512x1024xf32>) -> tensor<256x1024xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %r = linalg.matmul ins(%A, %B : tensor<256x512xf32>, tensor<512x1024xf32>) outs(%f : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} ins(%r : tensor<256x1024xf32>) outs(%e : tensor<256x1024xf32>) {
    ^bb0(%x: f32, %out: f32):
      %m = arith.maximumf %x, %z : f32
      linalg.yield %m : f32
  } -> tensor<256x1024xf32>
  return %o : tensor<256x1024xf32>
}
