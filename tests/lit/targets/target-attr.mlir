// The gpu.module's upstream target attribute decides the architecture rtile-translate
// compiles for: taken as the default, and a contradicting flag is refused.
// RUN: rtile-opt %s | FileCheck %s --check-prefix=ROUND
// RUN: rtile-opt %s --mlir-print-op-generic | mlir-opt --mlir-print-op-generic | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-translate --to-ptx %s --gpu-module=nv | FileCheck %s --check-prefix=PTX
// RUN: rtile-translate --to-ptx=sm_90a %s --gpu-module=nv | FileCheck %s --check-prefix=PTXA
// RUN: not rtile-translate --to-ptx=sm_70 %s --gpu-module=nv 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not rtile-translate --to-ptx %s --gpu-module=amd 2>&1 | FileCheck %s --check-prefix=OTHERKIND
// RUN: not rtile-translate --to-ptx=sm_90 %s --gpu-module=amd 2>&1 | FileCheck %s --check-prefix=OTHERKIND
// RUN: rtile-translate --to-amdgpu %s --gpu-module=amd | FileCheck %s --check-prefix=GFX
// RUN: not rtile-translate --to-ptx %s --gpu-module=none 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: rtile-translate --to-ptx=sm_80 %s --gpu-module=none | FileCheck %s --check-prefix=HANDWRITTEN

// ROUND: gpu.module @nv [#nvvm.target<chip = "sm_90">] attributes {rtile.device = "h100"} {
// ROUND: gpu.module @amd [#rocdl.target<chip = "gfx90a">] {
// UPSTREAM: "gpu.module"() <{sym_name = "nv", targets = [#nvvm.target<chip = "sm_90">]}>
// UPSTREAM: {rtile.device = "h100"}
// PTX: .target sm_90
// PTXA: .target sm_90a
// MISMATCH: error: 'gpu.module' op gpu.module @nv targets sm_90 (nvvm), lowered for device 'h100', not sm_70: translate it with --to-ptx=sm_90, or lower it again for a device of sm_70
// OTHERKIND: error: 'gpu.module' op gpu.module @amd targets gfx90a (rocdl): it cannot be translated with --to-ptx
// GFX: .amdgcn_target "amdgcn-amd-amdhsa--gfx90a
// NONE: error: 'gpu.module' op gpu.module @none names no target: give the architecture (--to-ptx=ARCH)
// HANDWRITTEN: .target sm_80
module attributes {gpu.container_module} {
  gpu.module @nv [#nvvm.target<chip = "sm_90">] attributes {rtile.device = "h100"} {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @amd [#rocdl.target<chip = "gfx90a">] {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @none {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
