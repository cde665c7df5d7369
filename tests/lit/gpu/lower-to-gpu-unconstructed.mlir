// A compute whose reads Roller's rTile model cannot express (`mod` and nested `floordiv`:
// ONNX's Flatten of a 4-D tensor, its ConvTranspose) is left unchanged by --construct-rtile
// with a remark. --lower-to-gpu then gives it the tiles --connect gives the op alone on the
// device the module's other computes name (Welder-none's kernel for it), so the pipeline
// lowers every compute; the module runs whole in the simulator against the f64 oracle.
// A module none of whose computes has a program names no device: an error, unless
// lower-to-gpu's device option names one (which must then match any program's device).
// RUN: rtile-opt %s --construct-rtile=device=h100 --lower-to-gpu -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-run --sim %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --construct-rtile=device=v100 --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM
// RUN: not rtile-opt %s --construct-rtile=device=h100 --lower-to-gpu --split-input-file 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: rtile-opt %s --construct-rtile=device=h100 --lower-to-gpu=device=h100 --split-input-file | FileCheck %s --check-prefix=GIVEN
// RUN: not rtile-opt %s --construct-rtile=device=h100 --lower-to-gpu=device=a100 --split-input-file 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not rtile-opt %s --lower-to-gpu=device=z80 2>&1 | FileCheck %s --check-prefix=BADDEV

// REMARK: remark: construct-rtile: op left unchanged: index 0 of input read #0 is not of the form

// CHECK: gpu.module @kernels [#nvvm.target<chip = "sm_90">]
// CHECK: gpu.func @flatten_scale_0
// CHECK: gpu.func @flatten_scale_1
// CHECK: rtile.te = "{{.*}}floordiv 60 mod 2

// SIM: @flatten_scale output 0: tensor<1x120xf32>, max relative error
// SIM-NOT: error:
// SIM: max relative error

// NONE: error: 'te.compute' op has neither an 'rtile.program' nor 'rtile.programs' candidates
// GIVEN: gpu.func @flatten_scale_0
// GIVEN: gpu.func @flatten_alone_0
// MISMATCH: error: 'te.compute' op is lowered for device 'h100' but lower-to-gpu's device option names 'a100'
// BADDEV: error: 'builtin.module' op lower-to-gpu: unknown device 'z80'; built-in devices are: a100,

func.func @flatten_scale(%x: tensor<2x3x4x5xf32>) -> tensor<1x120xf32> {
  %s = te.compute (%a, %b, %c, %d) in [2, 3, 4, 5] : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
    %x[%a, %b, %c, %d] * 2.0
  }
  %f = te.compute (%d0, %d1) in [1, 120] : (tensor<2x3x4x5xf32>) -> tensor<1x120xf32> {
    %s[(%d0 * 120 + %d1) floordiv 60 mod 2, (%d0 * 120 + %d1) floordiv 20 mod 3, (%d0 * 120 + %d1) floordiv 5 mod 4, (%d0 * 120 + %d1) mod 5]
  }
  return %f : tensor<1x120xf32>
}

// -----

func.func @flatten_alone(%x: tensor<2x3x4x5xf32>) -> tensor<1x120xf32> {
  %f = te.compute (%d0, %d1) in [1, 120] : (tensor<2x3x4x5xf32>) -> tensor<1x120xf32> {
    %x[(%d0 * 120 + %d1) floordiv 60 mod 2, (%d0 * 120 + %d1) floordiv 20 mod 3, (%d0 * 120 + %d1) floordiv 5 mod 4, (%d0 * 120 + %d1) mod 5]
  }
  return %f : tensor<1x120xf32>
}
