// --connect's options and errors.
// RUN: not rtile-opt %s --connect 2>&1 | FileCheck %s --check-prefix=NODEV
// RUN: not rtile-opt %s --connect="device=z80" 2>&1 | FileCheck %s --check-prefix=BADDEV
// RUN: not rtile-opt %s --connect="device=h100 connect-level=l2" 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: not rtile-opt %s --connect="device=h100 top-k=0" 2>&1 | FileCheck %s --check-prefix=TOPK
// RUN: rtile-opt %s --connect="device=h100 top-k=1" | FileCheck %s
// RUN: rtile-opt %s --connect="device=h100 top-k=1" --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s

// NODEV: connect needs device=<name>; built-in devices are:
// BADDEV: unknown device 'z80'
// LEVEL: connect-level must be none, register or shared, not 'l2'
// TOPK: top-k must be at least 1

// An op between two connected ops that uses the first (a reshape, left a plain op: a
// view, not a kernel): it moves after the kernel, which now defines the value it reads.
// CHECK-LABEL: func.func @moved
// CHECK: %[[K:.*]]:2 = tilegraph.kernel -> (tensor<256xf32>, tensor<256xf32>)
// CHECK: tilegraph.yield
// CHECK: tensor.expand_shape %[[K]]#0
// CHECK: return
func.func @moved(%X: tensor<256xf32>) -> (tensor<256xf32>, tensor<16x16xf32>) {
  %a = te.compute (%i) in [256] : (tensor<256xf32>) -> tensor<256xf32> { exp(%X[%i]) }
  %v = tensor.expand_shape %a [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %b = te.compute (%i) in [256] : (tensor<256xf32>) -> tensor<256xf32> { te.max(%a[%i], 0.0) }
  func.return %b, %v : tensor<256xf32>, tensor<16x16xf32>
}

// A result nothing uses is still a sink: its op gets a kernel, with no result.
// CHECK-LABEL: func.func @dead
// CHECK: tilegraph.kernel -> () {
// CHECK: tilegraph.yield{{$}}
// CHECK: tilegraph.kernel -> (tensor<8xf32>)
func.func @dead(%X: tensor<8xf32>) -> tensor<8xf32> {
  %a = te.compute (%i) in [8] : (tensor<8xf32>) -> tensor<8xf32> { exp(%X[%i]) }
  %b = te.compute (%i) in [8] : (tensor<8xf32>) -> tensor<8xf32> { te.max(%X[%i], 0.0) }
  func.return %b : tensor<8xf32>
}
