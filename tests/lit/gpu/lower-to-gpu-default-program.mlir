// --lower-to-gpu lowers the best-ranked rtile.programs candidate when no rtile.program was
// selected, so `--construct-rtile --lower-to-gpu` works as one pipeline; --rtile-select
// still picks another rank, and a compute with no program at all is an error.
// RUN: rtile-opt %s --construct-rtile="device=h100 top-k=4" --lower-to-gpu > %t.default
// RUN: rtile-opt %s --construct-rtile="device=h100 top-k=4" --rtile-select --lower-to-gpu > %t.rank0
// RUN: diff %t.default %t.rank0
// RUN: FileCheck %s --input-file=%t.default
// RUN: rtile-opt %s --construct-rtile="device=h100 top-k=4" --rtile-select=rank=3 --lower-to-gpu > %t.rank3
// RUN: FileCheck %s --input-file=%t.rank3
// RUN: not diff -q %t.default %t.rank3
// RUN: rtile-opt %s --construct-rtile="device=h100 top-k=4" --lower-to-gpu --mlir-print-op-generic | mlir-opt --verify-each > /dev/null
// RUN: not rtile-opt %s --lower-to-gpu 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: gpu.module @kernels
// CHECK: gpu.func @mm_0
// CHECK: kernel = @kernels::@mm_0
// NONE: error: 'te.compute' op has neither an 'rtile.program' nor 'rtile.programs' candidates (run --construct-rtile first)
func.func @mm(%A: tensor<256x128xf32>, %B: tensor<128x192xf32>) -> tensor<256x192xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [256, 192, 128]
         : (tensor<256x128xf32>, tensor<128x192xf32>) -> tensor<256x192xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  return %C : tensor<256x192xf32>
}
