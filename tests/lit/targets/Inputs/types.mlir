// Float arithmetic, rounding, comparisons and conversions on f16, f64 and bf16 (bf16
// without remf, which AMDGPU cannot lower): every back end must handle the types.
"builtin.module"() ({
  "gpu.module"() <{sym_name = "types"}> ({
    "gpu.func"() <{function_type = (memref<64xf16>, memref<64xf16>) -> ()}> ({
    ^bb0(%a: memref<64xf16>, %b: memref<64xf16>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = "memref.load"(%a, %t) : (memref<64xf16>, index) -> f16
      %y = "memref.load"(%b, %t) : (memref<64xf16>, index) -> f16
      %s = "arith.addf"(%x, %y) : (f16, f16) -> f16
      %m = "arith.mulf"(%s, %y) : (f16, f16) -> f16
      %d = "arith.divf"(%m, %x) : (f16, f16) -> f16
      %r = "arith.remf"(%d, %y) : (f16, f16) -> f16
      %mx = "arith.maximumf"(%r, %x) : (f16, f16) -> f16
      %mn = "arith.minnumf"(%mx, %y) : (f16, f16) -> f16
      %ng = "arith.negf"(%mn) : (f16) -> f16
      %sq = "math.sqrt"(%ng) : (f16) -> f16
      %fl = "math.floor"(%sq) : (f16) -> f16
      %re = "math.roundeven"(%fl) : (f16) -> f16
      %ab = "math.absf"(%re) : (f16) -> f16
      %c = "arith.cmpf"(%ab, %x) <{predicate = 4 : i64}> : (f16, f16) -> i1
      %sel = "arith.select"(%c, %ab, %x) : (i1, f16, f16) -> f16
      %i = "arith.fptosi"(%sel) : (f16) -> i32
      %f = "arith.sitofp"(%i) : (i32) -> f16
      "memref.store"(%f, %b, %t) : (f16, memref<64xf16>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "k_f16", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.func"() <{function_type = (memref<64xf64>, memref<64xf64>) -> ()}> ({
    ^bb0(%a: memref<64xf64>, %b: memref<64xf64>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = "memref.load"(%a, %t) : (memref<64xf64>, index) -> f64
      %y = "memref.load"(%b, %t) : (memref<64xf64>, index) -> f64
      %s = "arith.addf"(%x, %y) : (f64, f64) -> f64
      %m = "arith.mulf"(%s, %y) : (f64, f64) -> f64
      %d = "arith.divf"(%m, %x) : (f64, f64) -> f64
      %r = "arith.remf"(%d, %y) : (f64, f64) -> f64
      %mx = "arith.maximumf"(%r, %x) : (f64, f64) -> f64
      %mn = "arith.minnumf"(%mx, %y) : (f64, f64) -> f64
      %ng = "arith.negf"(%mn) : (f64) -> f64
      %sq = "math.sqrt"(%ng) : (f64) -> f64
      %fl = "math.floor"(%sq) : (f64) -> f64
      %re = "math.roundeven"(%fl) : (f64) -> f64
      %ab = "math.absf"(%re) : (f64) -> f64
      %c = "arith.cmpf"(%ab, %x) <{predicate = 4 : i64}> : (f64, f64) -> i1
      %sel = "arith.select"(%c, %ab, %x) : (i1, f64, f64) -> f64
      %i = "arith.fptosi"(%sel) : (f64) -> i32
      %f = "arith.sitofp"(%i) : (i32) -> f64
      "memref.store"(%f, %b, %t) : (f64, memref<64xf64>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "k_f64", workgroup_attributions = 0 : i64} : () -> ()
    "gpu.func"() <{function_type = (memref<64xbf16>, memref<64xbf16>) -> ()}> ({
    ^bb0(%a: memref<64xbf16>, %b: memref<64xbf16>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = "memref.load"(%a, %t) : (memref<64xbf16>, index) -> bf16
      %y = "memref.load"(%b, %t) : (memref<64xbf16>, index) -> bf16
      %s = "arith.addf"(%x, %y) : (bf16, bf16) -> bf16
      %m = "arith.mulf"(%s, %y) : (bf16, bf16) -> bf16
      %d = "arith.divf"(%m, %x) : (bf16, bf16) -> bf16
      %r = "arith.divf"(%d, %y) : (bf16, bf16) -> bf16
      %mx = "arith.maximumf"(%r, %x) : (bf16, bf16) -> bf16
      %mn = "arith.minnumf"(%mx, %y) : (bf16, bf16) -> bf16
      %ng = "arith.negf"(%mn) : (bf16) -> bf16
      %sq = "math.sqrt"(%ng) : (bf16) -> bf16
      %fl = "math.floor"(%sq) : (bf16) -> bf16
      %re = "math.roundeven"(%fl) : (bf16) -> bf16
      %ab = "math.absf"(%re) : (bf16) -> bf16
      %c = "arith.cmpf"(%ab, %x) <{predicate = 4 : i64}> : (bf16, bf16) -> i1
      %sel = "arith.select"(%c, %ab, %x) : (i1, bf16, bf16) -> bf16
      %i = "arith.fptosi"(%sel) : (bf16) -> i32
      %f = "arith.sitofp"(%i) : (i32) -> bf16
      "memref.store"(%f, %b, %t) : (bf16, memref<64xbf16>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "k_bf16", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) : () -> ()
