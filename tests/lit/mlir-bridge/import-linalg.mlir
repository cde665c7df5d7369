// linalg named and generic ops on tensors -> te.compute, through upstream
// linalg-generalize-named-ops and the rtile-import-linalg external pass (one MLIR pass manager).
// RUN: rtile-mlir-opt %s --import-linalg --rtile-print 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK --input-file=%t.err
// The generic output goes back to upstream MLIR: mlir-opt-22 parses and verifies it.
// RUN: rtile-mlir-opt %s --import-linalg --mlir-print-op-generic 2>/dev/null | mlir-opt-22 --allow-unregistered-dialect --verify-each -o /dev/null
// REQUIRES: mlir-opt-22

// Dynamic shapes are not imported: the op stays as it is, with a remark, and nothing fails.
// REMARK: import-linalg.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: linalg.generic #{{[0-9]+}} in @unsupported not imported to te: the iteration domain is not static

// CHECK-LABEL: func.func @matmul(
// CHECK: te.compute (%d0, %d1) reduce (%d2) in [4, 16, 8]
// CHECK-NEXT: te.sum(%arg0[%d0, %d2] * %arg1[%d2, %d1])
func.func @matmul(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.matmul ins(%A, %B : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @bmm(
// CHECK: te.compute (%d0, %d1, %d2) reduce (%d3) in [2, 4, 16, 8]
// CHECK-NEXT: te.sum(%arg0[%d0, %d1, %d3] * %arg1[%d0, %d3, %d2])
func.func @bmm(%A: tensor<2x4x8xf32>, %B: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %r = linalg.batch_matmul ins(%A, %B : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%f : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// CHECK-LABEL: func.func @conv(
// CHECK: te.compute (%d0, %d1, %d2, %d3) reduce (%d4, %d5, %d6) in [1, 8, 7, 7, 3, 3, 3]
// CHECK-NEXT: te.sum(%arg0[%d0, %d4, %d2 * 2 + %d5, %d3 * 2 + %d6] * %arg1[%d1, %d4, %d5, %d6])
func.func @conv(%I: tensor<1x3x16x16xf32>, %W: tensor<8x3x3x3xf32>) -> tensor<1x8x7x7xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x7x7xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%I, %W : tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  return %r : tensor<1x8x7x7xf32>
}

// CHECK-LABEL: func.func @conv_pad(
// CHECK-NOT: tensor.pad
// CHECK: te.compute (%d0, %d1, %d2, %d3) reduce (%d4, %d5, %d6) in [1, 8, 8, 8, 3, 3, 3] : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>)
// CHECK-NEXT: te.sum(%arg0[%d0, %d4, %d2 + %d5 - 1, %d3 + %d6 - 1] pad 0.0 * %arg1[%d1, %d4, %d5, %d6])
func.func @conv_pad(%I: tensor<1x3x8x8xf32>, %W: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %I low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%p, %W : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// CHECK-LABEL: func.func @depthwise(
// CHECK: te.compute (%d0, %d3, %d1, %d2) reduce (%d4, %d5) in [1, 4, 4, 4, 3, 3]
// CHECK-NEXT: te.sum(%arg0[%d0, %d3, %d1 * 2 + %d4 * 2, %d2 * 2 + %d5 * 2] * %arg1[%d3, %d4, %d5])
func.func @depthwise(%I: tensor<1x4x11x11xf32>, %W: tensor<4x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {strides = dense<2> : tensor<2xi64>, dilations = dense<2> : tensor<2xi64>}
    ins(%I, %W : tensor<1x4x11x11xf32>, tensor<4x3x3xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @pool_sum(
// CHECK: te.compute (%d0, %d1, %d2, %d3) reduce (%d4, %d5) in [1, 4, 4, 4, 2, 2] : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: te.sum(%arg0[%d0, %d1, %d2 * 2 + %d4, %d3 * 2 + %d5])
func.func @pool_sum(%I: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = linalg.pooling_nchw_sum {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%I, %k : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @pool_max(
// CHECK: te.compute (%d0, %d1, %d2, %d3) reduce (%d4, %d5) in [1, 4, 4, 4, 2, 2]
// CHECK-NEXT: te.max(%arg0[%d0, %d1, %d2 * 2 + %d4, %d3 * 2 + %d5])
func.func @pool_max(%I: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0xFF800000 : f32
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %r = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%I, %k : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @reduce(
// CHECK: te.compute (%d0, %d2) reduce (%d1) in [4, 8, 16]
// CHECK-NEXT: te.sum(%arg0[%d0, %d1, %d2])
func.func @reduce(%I: tensor<4x16x8xf32>) -> tensor<4x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.reduce ins(%I : tensor<4x16x8xf32>) outs(%f : tensor<4x8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @map(
// CHECK: te.compute (%d0, %d1) in [4, 8]
// CHECK-NEXT: exp(%arg0[%d0, %d1] - %arg1[%d0, %d1])
func.func @map(%A: tensor<4x8xf32>, %B: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.map ins(%A, %B : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
    (%a: f32, %b: f32, %o: f32) {
      %s = arith.subf %a, %b : f32
      %x = math.exp %s : f32
      linalg.yield %x : f32
    }
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @transpose(
// CHECK: te.compute (%d0, %d1) in [8, 4] : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %arg0[%d1, %d0]
func.func @transpose(%A: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %r = linalg.transpose ins(%A : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  return %r : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @elementwise(
// CHECK: %[[ADD:.*]] = te.compute (%d0, %d1) in [4, 8]
// CHECK-NEXT: %arg0[%d0, %d1] + %arg1[%d0, %d1]
// CHECK: te.compute (%d0, %d1) in [4, 8]
// CHECK-NEXT: exp(%[[ADD]][%d0, %d1])
func.func @elementwise(%A: tensor<4x8xf32>, %B: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.add ins(%A, %B : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %r2 = linalg.exp ins(%r : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r2 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @unsupported(
// CHECK: "linalg.generic"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
func.func @unsupported(%A: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %A, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%d) : tensor<?x8xf32>
  %r = linalg.exp ins(%A : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// Accumulating into a given tensor (not the combiner's identity) has no te form: remark.
// REMARK: import-linalg.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: linalg.generic #{{[0-9]+}} in @accumulate not imported to te: the accumulator is not initialised to the sum identity
// CHECK-LABEL: func.func @accumulate(
// CHECK: "linalg.generic"
func.func @accumulate(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>, %C: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<4x8xf32>, tensor<8x16xf32>) outs(%C : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// linalg.index in the body: remark.
// REMARK: import-linalg.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: linalg.generic #{{[0-9]+}} in @iota not imported to te: `linalg.index` in the body has no te form
// CHECK-LABEL: func.func @iota(
// CHECK: "linalg.generic"
func.func @iota() -> tensor<8xi32> {
  %e = tensor.empty() : tensor<8xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<8xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    linalg.yield %c : i32
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}

// Two outputs: remark.
// REMARK: import-linalg.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: linalg.generic #{{[0-9]+}} in @two_outputs not imported to te: only single-output linalg.generic ops are imported
// CHECK-LABEL: func.func @two_outputs(
// CHECK: "linalg.generic"
func.func @two_outputs(%A: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]} ins(%A : tensor<8xf32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %o1: f32, %o2: f32):
    %n = arith.negf %a : f32
    linalg.yield %a, %n : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}
