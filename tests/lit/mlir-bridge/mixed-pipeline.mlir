// A mixed pipeline in ONE MLIR pass manager: upstream passes before and after, rtile passes
// (MLIR external passes) in between, on a module of linalg ops (matmul + relu).
// REQUIRES: mlir-opt-22

// upstream -> rtile (import, construct) -> upstream: te.compute carries #rtile.program
// candidates; mlir-opt-22 verifies the result (te is unregistered upstream).
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(linalg-generalize-named-ops,rtile-import-linalg,rtile-construct{device=h100},canonicalize)" -o %t.te.mlir
// RUN: mlir-opt-22 --allow-unregistered-dialect --verify-each %t.te.mlir | FileCheck %s --check-prefix=TE
// TE-LABEL: func.func @mm_relu
// TE-NOT: linalg.
// TE: "te.compute"
// TE: combiner = "sum"
// TE-SAME: rtile.programs = [#rtile.program<device = "h100", tiles =
// TE: "te.compute"
// TE: arith.maximumf

// rtile-construct straight on the linalg module: the bridge generalises and imports first.
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(rtile-construct{device=h100})" | mlir-opt-22 --allow-unregistered-dialect --verify-each | FileCheck %s --check-prefix=DIRECT
// DIRECT: "te.compute"
// DIRECT: rtile.programs = [#rtile.program<device = "h100"

// All the way to upstream gpu/scf/memref/arith: no unregistered op is left, and
// mlir-opt-22 verifies it as it is.
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(linalg-generalize-named-ops,rtile-import-linalg,rtile-construct{device=h100},rtile-select,rtile-lower-to-gpu,canonicalize,cse)" -o %t.gpu.mlir
// RUN: mlir-opt-22 --verify-each %t.gpu.mlir | FileCheck %s --check-prefix=GPU
// GPU: module attributes {gpu.container_module}
// GPU: gpu.module @kernels
// The matmul's 32-thread block gets an 8-lane cross-thread split (4 times the resident
// threads); its buffer takes the kernel past 48 KiB, so the tiles are views of dynamic
// shared memory, and upstream canonicalize/cse keep them valid.
// GPU: gpu.func @mm_relu_0(%{{.*}}: memref<256x512xf32>, %{{.*}}: memref<512x1024xf32>, %{{.*}}: memref<256x1024xf32>) kernel
// GPU-SAME: dynamic_shared_memory = {{[1-9][0-9]*}} : i64
// GPU: gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// GPU: memref.view
// GPU: gpu.barrier
// GPU: gpu.func @mm_relu_1(%{{.*}}: memref<256x1024xf32>, %{{.*}}: memref<256x1024xf32>)
// GPU: arith.maximumf

// Export: the chosen programs go back to linalg.generic as an IREE-style `lowering_config`
// (builtin attributes only): mlir-opt-22 verifies it with no unregistered dialect.
// RUN: rtile-mlir-opt %s --mlir-pipeline="builtin.module(linalg-generalize-named-ops,rtile-import-linalg,rtile-construct{device=h100},rtile-select,rtile-export-linalg,canonicalize)" -o %t.export.mlir
// RUN: mlir-opt-22 --verify-each %t.export.mlir | FileCheck %s --check-prefix=EXPORT
// EXPORT-NOT: te.compute
// EXPORT: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// EXPORT-SAME: lowering_config = {device = "h100", grid = [{{[0-9]+}}, {{[0-9]+}}], staged = true, tensor_core = false, threads = {{[0-9]+}} : i64, tile_sizes = {{\[\[[0-9]+, [0-9]+, [0-9]+\], \[[0-9]+, [0-9]+, [0-9]+\]\]}}}
// EXPORT: arith.addf %out,
// EXPORT: linalg.generic {{.*}}lowering_config = {device = "h100"
// EXPORT: arith.maximumf

// Errors are reported, never a crash.
// RUN: not rtile-mlir-opt %s --mlir-pipeline="builtin.module(rtile-bogus)" 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: error: unknown rtile pass `rtile-bogus` (known: rtile-import-linalg, rtile-export-linalg, rtile-construct, rtile-select, rtile-axis-fusion, rtile-tensor-padding, rtile-fold-reshapes, rtile-connect, rtile-wavefront-pack, rtile-autoschedule-beam, rtile-lower-to-gpu)
// RUN: not rtile-mlir-opt %s --mlir-pipeline="builtin.module(bogus-upstream-pass)" 2>&1 | FileCheck %s --check-prefix=ERR2
// ERR2: error: in `bogus-upstream-pass`

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
