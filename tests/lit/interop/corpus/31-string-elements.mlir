// Written for rtile (not copied from upstream). mlir-opt-22 prints this file in generic form;
// rtile must read that output and print it back byte for byte (trailing blank line included).
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.rtile
// RUN: diff %t.mlir %t.rtile
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.direct
// RUN: diff %t.mlir %t.direct

// String elements (DenseStringElementsAttr): lists nested by shape, splats folded (a
// one-element list too), escapes kept byte for byte, no elements as dense<>.
"t.a"() {a = dense<["a", "bc"]> : tensor<2x!foo.str>, b = dense<"x"> : tensor<3x!foo.str>, c = dense<[["a", "b"], ["c", "d"]]> : tensor<2x2x!foo.str>, e = dense<["x\0Ay"]> : tensor<1x!foo.str>, f = dense<["q\22", "q\22"]> : tensor<2x!foo.str>, g = dense<[]> : tensor<0x!foo.s>, h = dense<["\FF\00", "é"]> : tensor<2x!foo.str>} : () -> ()
