// Written for rtile (not copied from upstream). mlir-opt-22 prints this file in generic form;
// rtile must read that output and print it back byte for byte (trailing blank line included).
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.rtile
// RUN: diff %t.mlir %t.rtile
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %s > %t.dbg.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %t.dbg.mlir > %t.dbg.rtile
// RUN: diff %t.dbg.mlir %t.dbg.rtile

// dense_resource attributes and the resource section: only the builtin blobs still named
// are printed, in the order they are printed; external entries are kept as read. Dialect
// attributes followed by `: type`.
"t.a"() {b = dense_resource<zeta> : tensor<1xi8>, a = dense_resource<"a b"> : tensor<2xi8>} : () -> ()
"t.b"() {c = dense_resource<alpha> : tensor<1xi8>, e = #foo.bar : i32, f = #foo<"x"> : i64, g = #foo.baz<1> : tensor<2xf32>} : () -> ()
{-#
  external_resources: {
    zz: { k: "v\"q", b: false, h: "0x04000000ab" },
    odd: { "x y": true }
  },
  dialect_resources: {
    builtin: {
      alpha: "0x0400000007",
      unused: "0x0400000009",
      zeta: "0x0100000005",
      "a b": "0x020000000102"
    }
  }
#-}
