// Upstream-dialect corpus file (func/arith/math/scf/cf/memref/vector/affine/gpu), stored in the
// generic form mlir-opt-22 prints for it. rtile parses it without knowing these dialects, prints it,
// mlir-opt-22 parses and verifies that, and rtile must print mlir-opt's output byte-identically.
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.rtile
// RUN: mlir-opt --mlir-print-op-generic %t.rtile > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.back
// RUN: diff %t.rtile %t.back
// And rtile reproduces mlir-opt's own generic printing of this file byte for byte.
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.ref
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.ref > %t.out
// RUN: diff %t.ref %t.out
#map = affine_map<(d0, d1) -> (d1, d0)>
#map1 = affine_map<(d0)[s0] -> (d0 * 2 + s0)>
#map2 = affine_map<(d0, d1) -> (d0 * 4 + d1 floordiv 2 - 1)>
#map3 = affine_map<(d0)[s0] -> ((d0 + s0) mod 8)>
#map4 = affine_map<(d0) -> (d0 ceildiv 3)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<4x8xf32, #map>, memref<16xf32, #map1>) -> (), sym_name = "layouts"}> ({
  ^bb0(%arg2: memref<4x8xf32, #map>, %arg3: memref<16xf32, #map1>):
    "func.return"() : () -> ()
  }) : () -> ()
  "func.func"() <{function_type = (index, index) -> index, sym_name = "apply"}> ({
  ^bb0(%arg0: index, %arg1: index):
    %0 = "affine.apply"(%arg0, %arg1) <{map = #map2}> : (index, index) -> index
    %1 = "affine.apply"(%0, %arg1) <{map = #map3}> : (index, index) -> index
    %2 = "affine.apply"(%1) <{map = #map4}> : (index) -> index
    "func.return"(%2) : (index) -> ()
  }) : () -> ()
}) : () -> ()

