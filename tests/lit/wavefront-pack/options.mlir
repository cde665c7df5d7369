// --wavefront-pack's errors and its switches on a small te chain.
// RUN: not rtile-opt %s --wavefront-pack 2>&1 | FileCheck %s --check-prefix=NODEV
// RUN: not rtile-opt %s --wavefront-pack="device=v100 kernels=slow" 2>&1 | FileCheck %s --check-prefix=KERNELS
// RUN: not rtile-opt %s --wavefront-pack="device=v100 barriers=none" 2>&1 | FileCheck %s --check-prefix=BARRIERS
// RUN: not rtile-opt %s --wavefront-pack="device=v100 launch-us=nan" 2>&1 | FileCheck %s --check-prefix=LAUNCH
// RUN: rtile-opt %s --wavefront-pack="device=v100" --mlir-pass-statistics 2>&1 | FileCheck %s
// RUN: rtile-opt %s --wavefront-pack="device=v100 launch-us=0 merge=false" --mlir-pass-statistics 2>&1 | FileCheck %s --check-prefix=BASE
// RUN: rtile-opt %s --wavefront-pack="device=v100" | not rtile-opt --wavefront-pack="device=v100" 2>&1 | FileCheck %s --check-prefix=TWICE

// NODEV: te input needs device=<name>; built-in devices are: a100, h100, h200, k80, mi250x, mi50, v100
// KERNELS: kernels must be fast or select, not 'slow'
// LAUNCH: error: invalid value for option 'launch-us' of pass 'wavefront-pack': launch-us must be a finite number of µs (negative: the device's), not NaN
// BARRIERS: barriers must be fine or global, not 'none'
// TWICE: the input already holds vdevice.program ops

// A relu -> exp -> add chain of small element-wise ops: one wave each, one launch.
// CHECK: vdevice.program @chain_p0 on @chain_vdevice [
// CHECK-NOT: vdevice.program
// CHECK: 1 launches
// CHECK: 3 roperators
// BASE: 3 launches
func.func @chain(%X: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %a = te.compute (%i, %j) in [64, 256] : (tensor<64x256xf32>) -> tensor<64x256xf32> { max(%X[%i, %j], 0.0) }
  %b = te.compute (%i, %j) in [64, 256] : (tensor<64x256xf32>) -> tensor<64x256xf32> { exp(%a[%i, %j]) }
  %c = te.compute (%i, %j) in [64, 256] : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32> { %a[%i, %j] + %b[%i, %j] }
  func.return %c : tensor<64x256xf32>
}
