// What --autoschedule-beam refuses, with a diagnostic: no device, a bad option, a
// function already scheduled. (Reshapes between te computes are scheduled around:
// reshape.mlir.)
// RUN: not rtile-opt %s --autoschedule-beam 2>&1 | FileCheck %s --check-prefix=NODEV
// RUN: not rtile-opt %s --autoschedule-beam="device=v100 beam-size=0" 2>&1 | FileCheck %s --check-prefix=BEAM
// RUN: not rtile-opt %s --autoschedule-beam="device=v100 fusion-level=global" 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: rtile-opt %s --autoschedule-beam="device=v100" | not rtile-opt --autoschedule-beam="device=v100" 2>&1 | FileCheck %s --check-prefix=TWICE

// NODEV: error: autoschedule-beam needs device=<name>; built-in devices are: a100, h100
// BEAM: beam-size must be at least 1
// LEVEL: fusion-level must be none, register or shared, not 'global'
// TWICE: error: autoschedule-beam: the function is already scheduled (it holds a tilegraph.kernel)

func.func @f(%A: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %C = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { %A[%i, %j] * 2.0 }
  func.return %C : tensor<64x64xf32>
}
