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
"builtin.module"() ({
  "func.func"() <{function_type = () -> (tensor<2x2xf32>, tensor<4xi32>, tensor<3xf64>, tensor<2xi1>), sym_name = "consts"}> ({
    %0 = "arith.constant"() <{value = dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %1 = "arith.constant"() <{value = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
    %2 = "arith.constant"() <{value = dense<[1.000000e-01, 2.500000e+00, -3.000000e-10]> : tensor<3xf64>}> : () -> tensor<3xf64>
    %3 = "arith.constant"() <{value = dense<[true, false]> : tensor<2xi1>}> : () -> tensor<2xi1>
    "func.return"(%0, %1, %2, %3) : (tensor<2x2xf32>, tensor<4xi32>, tensor<3xf64>, tensor<2xi1>) -> ()
  }) : () -> ()
}) : () -> ()

