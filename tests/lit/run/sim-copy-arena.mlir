// Hand-written host copies through the arena: the input into a view at byte 256 of the
// arena, and from there, seen through a reshape, into the output. The manifest's copy
// steps name the view's base buffer and offset; the output matches the oracle exactly.
// RUN: rtile-run --sim --seed 4 %s --model-manifest %t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json

// CHECK: @h: 0 kernels, 2 copies, 0 constants, peak intermediate memory 512 bytes
// CHECK-NEXT: @h output 0: tensor<2x2xf32>, max relative error 0.000e0

// JSON: "copy": {
// JSON: "dst": {
// JSON-NEXT: "buffer": "arena",
// JSON-NEXT: "offset": 256
// JSON: "copy": {
// JSON-NEXT: "src": {
// JSON-NEXT: "buffer": "arena",
// JSON-NEXT: "offset": 256
// JSON: "output": 0

func.func @h(%a: memref<4xf32>, %o: memref<2x2xf32>) attributes {rtile.te = "func.func @h(%arg0: tensor<4xf32>) -> tensor<2x2xf32> {\0A  %0 = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>\0A  return %0 : tensor<2x2xf32>\0A}\0A"} {
  %arena = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<512xi8>
  %c256 = arith.constant 256 : index
  %v = "memref.view"(%arena, %c256) : (memref<512xi8>, index) -> memref<4xf32>
  "gpu.memcpy"(%v, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  %e = "memref.expand_shape"(%v) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 2>}> : (memref<4xf32>) -> memref<2x2xf32>
  "gpu.memcpy"(%o, %e) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
  "memref.dealloc"(%arena) : (memref<512xi8>) -> ()
  return
}
