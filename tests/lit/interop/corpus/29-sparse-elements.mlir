// Written for rtile (not copied from upstream). mlir-opt-22 prints this file in generic form;
// rtile must read that output and print it back byte for byte (trailing blank line included).
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.rtile
// RUN: diff %t.mlir %t.rtile
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %s > %t.dbg.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %t.dbg.mlir > %t.dbg.rtile
// RUN: diff %t.dbg.mlir %t.dbg.rtile

// sparse elements: coordinates and values printed as dense attributes (splats folded),
// no coordinates as sparse<>.
"t.a"() {a = sparse<[[0, 0], [1, 2]], [1, 5]> : tensor<3x4xi32>, b = sparse<[], []> : tensor<0xf32>, c = sparse<[[1]], [0x7F800001]> : tensor<4xf32>, d = sparse<0, -2.0> : vector<1x1xf32>, e = sparse<[[0, 1], [1, 1]], [1.5, 1.5]> : tensor<2x2xf16>, f = sparse<[[1, 1]], [true]> : tensor<2x2xi1>, g = sparse<[[1]], [-3]> : tensor<4xi8>} : () -> ()
