// The bundled example of `make demo`: upstream MLIR ops (func, arith, scf, memref) in
// MLIR's generic form, as `mlir-opt-22 --mlir-print-op-generic` prints them. rtile does
// not register these dialects (yet), so it reads them with --allow-unregistered-dialect.
"builtin.module"() ({
  "func.func"() <{function_type = (i32, i32, i32) -> i32, sym_name = "axpy"}> ({
  ^bb0(%a: i32, %x: i32, %y: i32):
    %0 = "arith.muli"(%a, %x) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %1 = "arith.addi"(%0, %y) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    "func.return"(%1) : (i32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (f32) -> f32, sym_name = "unused", sym_visibility = "private"}> ({
  ^bb0(%x: f32):
    %c = "arith.constant"() <{value = 2.000000e+00 : f32}> : () -> f32
    %0 = "arith.mulf"(%x, %c) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    "func.return"(%0) : (f32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (memref<16xf32>) -> f32, sym_name = "sum"}> ({
  ^bb0(%m: memref<16xf32>):
    %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %c16 = "arith.constant"() <{value = 16 : index}> : () -> index
    %zero = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %r = "scf.for"(%c0, %c16, %c1, %zero) ({
    ^bb0(%i: index, %acc: f32):
      %v = "memref.load"(%m, %i) : (memref<16xf32>, index) -> f32
      %s = "arith.addf"(%acc, %v) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "scf.yield"(%s) : (f32) -> ()
    }) : (index, index, index, f32) -> f32
    "func.return"(%r) : (f32) -> ()
  }) : () -> ()
}) : () -> ()
