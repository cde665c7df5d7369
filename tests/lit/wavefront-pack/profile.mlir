// time() from GPU profiles: `profile=` replaces the model's time of the rKernel variants a
// TOML file names (measured launch time / the variant's waves) and keeps the model for the
// rest. Two independent 256x256x256 matmuls on h100, the construction's top 4 as variants;
// Roller rates those of each (tiles 4x64x16, 4x64x8, 4x64x24: 256 one-warp blocks, one
// wave, bound by the loads two warps per SM keep in flight) at 47.74, 47.74 and 49.21 us.
// Their rTasks run split, 32 threads x 8 lanes, and are timed so (session 19): 16 warps
// per SM keep 8 times the loads in flight, plus the tree: 6.331 us for the first two (the
// third does not fit the vDevice shaped for the first).
// RUN: rtile-opt %s --wavefront-pack="device=h100 top-k=4" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: rtile-opt %s --wavefront-pack="device=h100 top-k=4 profile=%S/Inputs/profile-slow0.toml" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=SLOW0
// RUN: rtile-opt %s --wavefront-pack="device=h100 top-k=4 profile=%S/Inputs/profile-both.toml" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not rtile-opt %s --wavefront-pack="device=a100 profile=%S/Inputs/profile-both.toml" 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not rtile-opt %s --wavefront-pack="device=h100 top-k=4 profile=%t.missing.toml" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: sed 's/f_0/g_0/' %S/Inputs/profile-both.toml > %t.unknown.toml
// RUN: not rtile-opt %s --wavefront-pack="device=h100 top-k=4 profile=%t.unknown.toml" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: sed 's/us = 300.0/us = 0.0/' %S/Inputs/profile-both.toml > %t.zero.toml
// RUN: not rtile-opt %s --wavefront-pack="device=h100 top-k=4 profile=%t.zero.toml" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: sed 's/^us = 400.0/us = "fast"/' %S/Inputs/profile-both.toml > %t.type.toml
// RUN: not rtile-opt %s --wavefront-pack="device=h100 top-k=4 profile=%t.type.toml" 2>&1 | FileCheck %s --check-prefix=TYPE

// MODEL: vdevice.roperator @f_0 {kernel = 0 : i64
// MODEL: makespan_us = 1.133100e+01
// MODEL: rtile.program = #rtile.program<device = "h100", tiles = {{\[\[}}4, 64, 16], [1, 8, 1]]
// MODEL: 0 profiled-rkernels

// SLOW0: vdevice.roperator @f_0 {kernel = 1 : i64, kernels = [{{{.*}}us = 4.000000e+02 : f64}, {{{.*}}us = 6.331000e+00 : f64}]}
// SLOW0: vdevice.roperator @f_1 {kernel = 0 : i64
// SLOW0: makespan_us = 1.133100e+01
// SLOW0: rtile.program = #rtile.program<device = "h100", tiles = {{\[\[}}4, 64, 8], [1, 8, 1]]{{.*}}vdevice.rop = @f_0
// SLOW0: rtile.program = #rtile.program<device = "h100", tiles = {{\[\[}}4, 64, 16], [1, 8, 1]]{{.*}}vdevice.rop = @f_1
// SLOW0: 1 profile-unmatched
// SLOW0: 1 profiled-rkernels

// 300 us (one wave) + h100's 5 us launch.
// (The vDevice shaped for each op's best variant wins and drops the 4x64x24 one.)
// BOTH: vdevice.roperator @f_0 {kernel = 1 : i64, kernels = [{{{.*}}us = 4.000000e+02 : f64}, {{{.*}}us = 3.000000e+02 : f64}]}
// BOTH: makespan_us = 3.050000e+02
// BOTH: 0 profile-unmatched
// BOTH: 3 profiled-rkernels

// DEVICE: error: wavefront-pack: profile '{{.*}}profile-both.toml' was measured on 'h100', not on device 'a100'
// MISSING: error: wavefront-pack: {{.*}}.missing.toml: No such file
// UNKNOWN: error: wavefront-pack: profile '{{.*}}' times rOperator 'g_0', which the input does not have
// ZERO: rkernel #1 (f_0): 'us' must be a positive time, not 0
// TYPE: error: wavefront-pack: {{.*}}.type.toml: line 7, column 6: invalid type

func.func @f(%A: tensor<256x256xf32>, %B: tensor<256x256xf32>, %C: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>) {
  %X = te.compute (%m, %n) reduce (%k) in [256, 256, 256] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32> { te.sum(%A[%m, %k] * %B[%k, %n]) }
  %Y = te.compute (%m, %n) reduce (%k) in [256, 256, 256] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32> { te.sum(%A[%m, %k] * %C[%k, %n]) }
  func.return %X, %Y : tensor<256x256xf32>, tensor<256x256xf32>
}
