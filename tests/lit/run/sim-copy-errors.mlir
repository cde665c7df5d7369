// Host copies rtile-run --sim refuses, at the op: a gpu.memcpy into an input (the manifest's
// check: a copy writes an output or the arena only).
// RUN: not rtile-run --sim %s 2>&1 | FileCheck %s

// CHECK: error: 'gpu.memcpy' op step 0 (copy): writes an input or a constant
// CHECK: "gpu.memcpy"(%a, %o)

func.func @h(%a: memref<4xf32>, %o: memref<4xf32>) attributes {rtile.te = "func.func @h(%arg0: tensor<4xf32>) -> tensor<4xf32> {\0A  return %arg0 : tensor<4xf32>\0A}\0A"} {
  "gpu.memcpy"(%a, %o) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
