// Welder (rtile-connect), Rammer (rtile-wavefront-pack) and the Halide autoscheduler
// (rtile-autoschedule-beam) as MLIR external passes in one pass manager with upstream
// passes, on linalg input (a matmul, a bias broadcast and a relu): the bridge imports the
// linalg ops first, the scheduler and rtile-lower-to-gpu run, then upstream canonicalize
// and cse. mlir-opt-22 verifies each result, and the simulator runs it against the f64
// oracle of the imported te function.
// REQUIRES: mlir-opt-22
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(rtile-connect{device=h100},rtile-lower-to-gpu,canonicalize,cse)" --mlir-print-op-generic -o %t.connect.mlir
// RUN: mlir-opt-22 --verify-each %t.connect.mlir -o /dev/null
// RUN: rtile-run --sim %t.connect.mlir | FileCheck %s --check-prefixes=SIM,FUSED
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(rtile-wavefront-pack{device=v100},rtile-lower-to-gpu,canonicalize,cse)" --mlir-print-op-generic -o %t.pack.mlir
// RUN: mlir-opt-22 --verify-each %t.pack.mlir -o /dev/null
// RUN: rtile-run --sim %t.pack.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(rtile-autoschedule-beam{device=h100},rtile-lower-to-gpu,canonicalize,cse)" --mlir-print-op-generic -o %t.beam.mlir
// RUN: mlir-opt-22 --verify-each %t.beam.mlir -o /dev/null
// RUN: rtile-run --sim %t.beam.mlir | FileCheck %s --check-prefix=SIM

// FUSED: @mm_bias_relu: 1 kernels
// SIM: @mm_bias_relu output 0: tensor<48x40xf32>, max relative error
// SIM-NOT: error:

func.func @mm_bias_relu(%A: tensor<48x64xf32>, %B: tensor<64x40xf32>, %b: tensor<40xf32>) -> tensor<48x40xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x40xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<48x40xf32>) -> tensor<48x40xf32>
  %r = linalg.matmul ins(%A, %B : tensor<48x64xf32>, tensor<64x40xf32>) outs(%f : tensor<48x40xf32>) -> tensor<48x40xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} ins(%r, %b : tensor<48x40xf32>, tensor<40xf32>) outs(%e : tensor<48x40xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %s = arith.addf %x, %y : f32
      %m = arith.maximumf %s, %z : f32
      linalg.yield %m : f32
  } -> tensor<48x40xf32>
  return %o : tensor<48x40xf32>
}
