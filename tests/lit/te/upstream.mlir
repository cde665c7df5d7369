// The generic form (every body op te uses) is valid upstream MLIR.
// REQUIRES: mlir-opt-22
// RUN: rtile-opt %s --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each | FileCheck %s
// RUN: mlir-opt-22 --allow-unregistered-dialect %s | FileCheck %s
// CHECK: "te.compute"
// CHECK: "te.yield"
func.func @m(%A: tensor<4x6xf32>, %B: tensor<6x5xf32>) -> tensor<4x5xf32> {
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %0 = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    %c = "arith.constant"() <{value = 1.0 : f32}> : () -> f32
    %p = "arith.cmpf"(%0, %c) <{predicate = 4 : i64}> : (f32, f32) -> i1
    %s = "arith.select"(%p, %0, %c) : (i1, f32, f32) -> f32
    %h = "arith.truncf"(%s) : (f32) -> f16
    %e = "arith.extf"(%h) : (f16) -> f32
    %x = "math.erf"(%e) : (f32) -> f32
    %i = "arith.fptosi"(%x) : (f32) -> i32
    %k = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %n = "arith.subi"(%k, %i) : (i32, i32) -> i32
    %f = "arith.sitofp"(%n) : (i32) -> f32
    "te.yield"(%f) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 4, 5, 6>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], may_pad = 0.0 : f32, pad_values = [unit, 0.0 : f32]} : (tensor<4x6xf32>, tensor<6x5xf32>) -> tensor<4x5xf32>
  func.return %C : tensor<4x5xf32>
}
