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
// The device travels on the gpu.module as its target: rtile-translate compiles for it by
// default and refuses another architecture.
// RUN: rtile-translate --to-ptx %t.default | FileCheck %s --check-prefix=PTX
// RUN: not rtile-translate --to-ptx=sm_70 %t.default 2>&1 | FileCheck %s --check-prefix=SM70
// RUN: rtile-opt %s --construct-rtile="device=mi250x top-k=4" --lower-to-gpu | FileCheck %s --check-prefix=AMD
// Computes of one module lowered for two devices cannot share its gpu.module.
// RUN: rtile-opt %s --construct-rtile="device=h100" --mlir-print-op-generic > %t.h100
// RUN: sed -e '0,/device = "h100"/s//device = "a100"/' %t.h100 | not rtile-opt --lower-to-gpu 2>&1 | FileCheck %s --check-prefix=MIXED

// CHECK: gpu.module @kernels [#nvvm.target<chip = "sm_90">] attributes {rtile.device = "h100"}
// CHECK: gpu.func @mm_0
// CHECK: kernel = @kernels::@mm_0
// PTX: .target sm_90
// SM70: error: 'gpu.module' op gpu.module @kernels targets sm_90 (nvvm), lowered for device 'h100', not sm_70
// AMD: gpu.module @kernels [#rocdl.target<chip = "gfx90a">] attributes {rtile.device = "mi250x"}
// MIXED: is lowered for device 'h100' but an earlier compute of the module for 'a100'
// NONE: error: 'te.compute' op has neither an 'rtile.program' nor 'rtile.programs' candidates (run --construct-rtile first;
func.func @mm(%A: tensor<256x128xf32>, %B: tensor<128x192xf32>) -> tensor<256x192xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [256, 192, 128]
         : (tensor<256x128xf32>, tensor<128x192xf32>) -> tensor<256x192xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  return %C : tensor<256x192xf32>
}

func.func @relu(%X: tensor<256x192xf32>) -> tensor<256x192xf32> {
  %Y = te.compute (%i, %j) in [256, 192] : (tensor<256x192xf32>) -> tensor<256x192xf32> {
    te.max(%X[%i, %j], 0.0)
  }
  return %Y : tensor<256x192xf32>
}
