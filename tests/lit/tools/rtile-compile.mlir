// rtile-compile: a te module through construction, lowering and codegen to one bundle.
// REQUIRES: ptxas
// RUN: rm -rf %t && rtile-compile %s --device h100 -o %t --ptxas %ptxas --quiet | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/kernels.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: rm -rf %t.hip && rtile-compile %s --device mi250x -o %t.hip --quiet | FileCheck %s --check-prefix=HIP
// RUN: FileCheck %s --check-prefix=HIPSRC < %t.hip/kernels.hip
// RUN: not rtile-compile %s --device nosuch -o %t.bad --quiet 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not rtile-compile %t.missing.mlir -o %t.bad --quiet 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK:      kernel  grid  block  shared B  launches  est us
// CHECK-NEXT: mm_0  {{[0-9]+}}x{{[0-9]+}}x1  {{[0-9]+}}x1x1  {{[0-9]+}}  1  {{[0-9.]+}}
// CHECK-NEXT: 1 kernels for sm_90, estimated {{[0-9.]+}} us in all
// CHECK-NEXT: @mm: 1 launches, peak intermediate memory 0 bytes, constants 0 bytes
// CHECK-NEXT: stages: import {{.*}}, axis-fusion {{.*}}, construct-rtile {{.*}}, lower-to-gpu {{.*}}, codegen {{.*}}, ptxas
// CHECK: wrote {{.*}}kernels.ptx
// CHECK: wrote {{.*}}manifest.json
// PTX: .target sm_90
// PTX: .entry mm_0
// MANIFEST: "target": "sm_90"
// MANIFEST: "name": "mm_0"
// HIP: 1 kernels for gfx90a
// HIPSRC: __global__ {{.*}}mm_0
// BAD: error: {{.*}}nosuch
// MISSING: cannot read {{.*}}missing.mlir

func.func @mm(%A: tensor<64x48xf32>, %B: tensor<48x64xf32>) -> tensor<64x64xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [64, 64, 48]
         : (tensor<64x48xf32>, tensor<48x64xf32>) -> tensor<64x64xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<64x64xf32>
}
