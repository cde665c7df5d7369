// --fold-reshapes: a te.compute reading a reshape of another compute's result reads that
// result through the reshape's index map, simplified over its domain; unused reshapes go.
// RUN: rtile-opt %s --fold-reshapes --mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS --input-file=%t.stats
// RUN: rtile-opt %s --fold-reshapes --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each -o %t
// Folding changes no value: every function runs the same in the te interpreter.
// RUN: rtile-run --interpret --seed 3 %s > %t.before
// RUN: rtile-opt %s --fold-reshapes | rtile-run --interpret --seed 3 > %t.after
// RUN: diff %t.before %t.after

// STATS: (S) 5 num-erased-reshapes
// STATS: (S) 4 num-folded-reads

// Attention heads as ONNX imports them (MatMul, Reshape to [s, heads, d]): the expand
// folds into an affine read of the projection.
// CHECK-LABEL: func.func @heads
// CHECK-NOT: tensor.expand_shape
// CHECK: te.sum(%0[%i, %h * 32 + %d] * %0[%j, %h * 32 + %d])
func.func @heads(%X: tensor<16x64xf32>, %W: tensor<64x64xf32>) -> tensor<2x16x16xf32> {
  %Q = te.compute (%m, %n) reduce (%k) in [16, 64, 64] : (tensor<16x64xf32>, tensor<64x64xf32>) -> tensor<16x64xf32> { te.sum(%X[%m, %k] * %W[%k, %n]) }
  %Qh = tensor.expand_shape %Q [[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xf32> into tensor<16x2x32xf32>
  %S = te.compute (%h, %i, %j) reduce (%d) in [2, 16, 16, 32] : (tensor<16x2x32xf32>) -> tensor<2x16x16xf32> { te.sum(%Qh[%i, %h, %d] * %Qh[%j, %h, %d]) }
  func.return %S : tensor<2x16x16xf32>
}

// The heads merged back (Transpose, Reshape to [s, heads·d]): the collapse folds into
// floordiv/mod of the reduction index, which no domain bound removes.
// CHECK-LABEL: func.func @merge_heads
// CHECK-NOT: tensor.collapse_shape
// CHECK: te.sum(%0[%m, %k floordiv 16, %k mod 16] * %arg1[%k, %n])
func.func @merge_heads(%E: tensor<2x16x16xf32>, %W: tensor<32x64xf32>) -> tensor<16x64xf32> {
  %C = te.compute (%i, %h, %j) in [16, 2, 16] : (tensor<2x16x16xf32>) -> tensor<16x2x16xf32> { %E[%h, %i, %j] }
  %Cf = tensor.collapse_shape %C [[0], [1, 2]] : tensor<16x2x16xf32> into tensor<16x32xf32>
  %O = te.compute (%m, %n) reduce (%k) in [16, 64, 32] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32> { te.sum(%Cf[%m, %k] * %W[%k, %n]) }
  func.return %O : tensor<16x64xf32>
}

// What --axis-fusion leaves between two computes (an expand back, a collapse for the
// consumer's fused axes): the chain folds away and the index is the plain axis again.
// CHECK-LABEL: func.func @axis_fusion_round_trip
// CHECK-NOT: tensor.
// CHECK: exp(%0[%i_j])
// CHECK: return
func.func @axis_fusion_round_trip(%Xf: tensor<128xf32>) -> tensor<128xf32> {
  %a = te.compute (%i_j) in [128] : (tensor<128xf32>) -> tensor<128xf32> { %Xf[%i_j] * 2.0 }
  %e = tensor.expand_shape %a [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  %b = te.compute (%i_j) in [128] : (tensor<128xf32>) -> tensor<128xf32> { exp(%c[%i_j]) }
  func.return %b : tensor<128xf32>
}

// A row of a collapsed [8, 16] read at [i·16 + j] (whole rows): the bounds give i and j
// back.
// CHECK-LABEL: func.func @whole_rows
// CHECK: %0[%i, %j] + 1.0
func.func @whole_rows(%X: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = te.compute (%i, %j) in [8, 16] : (tensor<8x16xf32>) -> tensor<8x16xf32> { %X[%i, %j] * %X[%i, %j] }
  %f = tensor.collapse_shape %a [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  %b = te.compute (%i, %j) in [8, 16] : (tensor<128xf32>) -> tensor<8x16xf32> { %f[%i * 16 + %j] + 1.0 }
  func.return %b : tensor<8x16xf32>
}

// Left alone: a reshape of an argument (a free view; the construction prefers the affine
// read), a read with a pad value (its bounds are the reshaped tensor's), and a reshape
// the function returns.
// CHECK-LABEL: func.func @kept
// CHECK: %[[A:.*]] = tensor.collapse_shape %arg0
// CHECK: te.compute
// CHECK: %[[A]][%i]
// CHECK: %[[E:.*]] = tensor.expand_shape
// CHECK: te.compute
// CHECK: %[[E]][%y + %r - 1, %x] pad 0.0
// CHECK: %[[R:.*]] = tensor.collapse_shape
// CHECK: return %{{.*}}, %[[R]]
func.func @kept(%X: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<128xf32>) {
  %f = tensor.collapse_shape %X [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  %a = te.compute (%i) in [128] : (tensor<128xf32>) -> tensor<128xf32> { %f[%i] * 3.0 }
  %e = tensor.expand_shape %a [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %b = te.compute (%y, %x) reduce (%r) in [8, 16, 3] : (tensor<8x16xf32>) -> tensor<8x16xf32> { te.sum(%e[%y + %r - 1, %x] pad 0.0) }
  %g = tensor.collapse_shape %b [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  func.return %b, %g : tensor<8x16xf32>, tensor<128xf32>
}
