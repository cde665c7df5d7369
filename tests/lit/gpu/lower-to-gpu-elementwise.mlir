// --lower-to-gpu on Table 1's e0 relu (four axes that the program fuses into one): the
// fused index addresses memref.collapse_shape views of both tensors (no divui/remui
// delinearizes it), and each thread moves 16-byte vectors, eight loads written before the
// first use so they are in flight together. The generic form verifies in upstream MLIR.
// RUN: rtile-opt --construct-rtile=device=h100 --rtile-select --lower-to-gpu --mlir-print-op-generic %s > %t.generic
// RUN: mlir-opt --verify-each %t.generic | FileCheck %s --implicit-check-not=arith.divui --implicit-check-not=arith.remui --implicit-check-not=memref.load
// RUN: rtile-translate --to-ptx=sm_90 %t.generic | FileCheck %s --check-prefix=PTX

// CHECK: gpu.func @e0_0(%[[I:arg[0-9]+]]: memref<128x1008x42x42xf32>, %[[O:arg[0-9]+]]: memref<128x1008x42x42xf32>)
// CHECK: %[[CI:.*]] = memref.collapse_shape %[[I]] {{\[\[}}0, 1, 2, 3]] : memref<128x1008x42x42xf32> into memref<227598336xf32>
// CHECK: %[[CO:.*]] = memref.collapse_shape %[[O]] {{\[\[}}0, 1, 2, 3]] : memref<128x1008x42x42xf32> into memref<227598336xf32>
// CHECK: scf.for
// CHECK-COUNT-8: vector.load %[[CI]][%{{.*}}] : memref<227598336xf32>, vector<4xf32>
// CHECK: arith.maximumf
// CHECK: vector.store %{{.*}}, %[[CO]][%{{.*}}] : memref<227598336xf32>, vector<4xf32>
// PTX-COUNT-8: ld.global.nc.v4.b32
// PTX: st.global.v4.b32
// PTX-NOT: mul.hi
// PTX: ret;
func.func @e0(%I: tensor<128x1008x42x42xf32>) -> tensor<128x1008x42x42xf32> {
  %O = te.compute (%n, %c, %h, %w) in [128, 1008, 42, 42] may_pad 0.0
         : (tensor<128x1008x42x42xf32>) -> tensor<128x1008x42x42xf32> {
    te.max(%I[%n, %c, %h, %w], 0.0)
  }
  func.return %O : tensor<128x1008x42x42xf32>
}
