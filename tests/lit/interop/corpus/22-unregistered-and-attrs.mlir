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
  "func.func"() <{function_type = () -> (), sym_name = "attrs"}> ({
    "func.return"() : () -> ()
  }) {a.arr = [1, 2.500000e+00, "x"], a.dense = array<i64: 1, 2, 3>, a.dict = {k = @sym, t = tensor<?x4xbf16>}, a.empty = array<f32>, a.f16 = 9.997550e-02 : f16, a.flag, a.idx = 3 : index, a.int = 42 : i32, a.nested = @outer::@inner, a.si = -7 : si8, a.str = "hi\0Athere", a.ui = 255 : ui8} : () -> ()
}) : () -> ()

