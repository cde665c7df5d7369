// One kernel touching the rest of the gpu-level op set: 128-bit vector loads and
// stores, math functions, scf.if with results, a private register array
// (memref.alloca) filled by a loop marked `rtile.unroll` (fully unrolled, so the array
// lives in registers), dynamic shared memory carved with memref.view, integer ops, casts.
"builtin.module"() ({
  "gpu.module"() <{sym_name = "ops"}> ({
    "gpu.func"() <{function_type = (memref<1024xf32>, memref<1024xf32>, memref<1024xf32>) -> (), known_block_size = array<i32: 64, 1, 1>}> ({
    ^bb0(%in: memref<1024xf32>, %aux: memref<1024xf32>, %out: memref<1024xf32>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdim = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
      %c4 = "arith.constant"() <{value = 4 : index}> : () -> index
      %b0 = "arith.muli"(%bid, %bdim) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %g = "arith.addi"(%b0, %tid) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %base = "arith.muli"(%g, %c4) <{overflowFlags = #arith.overflow<nsw>}> : (index, index) -> index
      %v = "vector.load"(%in, %base) : (memref<1024xf32>, index) -> vector<4xf32>
      %w = "vector.load"(%aux, %base) : (memref<1024xf32>, index) -> vector<4xf32>
      %vw = "arith.mulf"(%v, %w) <{fastmath = #arith.fastmath<none>}> : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
      %regs = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32, #gpu.address_space<private>>
      %dyn = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %sh = "memref.view"(%dyn, %c0) : (memref<?xi8, #gpu.address_space<workgroup>>, index) -> memref<64xf32, #gpu.address_space<workgroup>>
      "scf.for"(%c0, %c4, %c1) ({
      ^bb0(%i: index):
        %e = "vector.extract"(%vw, %i) <{static_position = array<i64: -9223372036854775808>}> : (vector<4xf32>, index) -> f32
        %ex = "math.exp"(%e) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        %th = "math.tanh"(%e) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        %er = "math.erf"(%e) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        %ab = "math.absf"(%e) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        %sq = "math.sqrt"(%ab) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        %one = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
        %ab1 = "arith.addf"(%ab, %one) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %lg = "math.log"(%ab1) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        %rs = "math.rsqrt"(%ab1) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        %s1 = "arith.addf"(%ex, %th) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %s2 = "arith.addf"(%s1, %er) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %s3 = "arith.addf"(%s2, %sq) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %s4 = "arith.subf"(%s3, %lg) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %s5 = "arith.divf"(%s4, %ab1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %s6 = "arith.maximumf"(%s5, %rs) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %zero = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
        %neg = "arith.cmpf"(%e, %zero) <{fastmath = #arith.fastmath<none>, predicate = 4 : i64}> : (f32, f32) -> i1
        %r = "scf.if"(%neg) ({
          %n = "arith.negf"(%s6) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "scf.yield"(%n) : (f32) -> ()
        }, {
          "scf.yield"(%s6) : (f32) -> ()
        }) : (i1) -> f32
        "memref.store"(%r, %regs, %i) : (f32, memref<4xf32, #gpu.address_space<private>>, index) -> ()
        "scf.yield"() : () -> ()
      }) {rtile.unroll} : (index, index, index) -> ()
      %r0 = "memref.load"(%regs, %c0) : (memref<4xf32, #gpu.address_space<private>>, index) -> f32
      "memref.store"(%r0, %sh, %tid) : (f32, memref<64xf32, #gpu.address_space<workgroup>>, index) -> ()
      "gpu.barrier"() : () -> ()
      %c63 = "arith.constant"() <{value = 63 : index}> : () -> index
      %mirror = "arith.subi"(%c63, %tid) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %other = "memref.load"(%sh, %mirror) : (memref<64xf32, #gpu.address_space<workgroup>>, index) -> f32
      %i32 = "arith.index_cast"(%tid) : (index) -> i32
      %c3 = "arith.constant"() <{value = 3 : i32}> : () -> i32
      %rem = "arith.remsi"(%i32, %c3) : (i32, i32) -> i32
      %fl = "arith.floordivsi"(%i32, %c3) : (i32, i32) -> i32
      %mix = "arith.addi"(%rem, %fl) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
      %f = "arith.sitofp"(%mix) : (i32) -> f32
      %o = "arith.addf"(%other, %f) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %r1 = "memref.load"(%regs, %c1) : (memref<4xf32, #gpu.address_space<private>>, index) -> f32
      %c2 = "arith.constant"() <{value = 2 : index}> : () -> index
      %r2 = "memref.load"(%regs, %c2) : (memref<4xf32, #gpu.address_space<private>>, index) -> f32
      %c3i = "arith.constant"() <{value = 3 : index}> : () -> index
      %r3 = "memref.load"(%regs, %c3i) : (memref<4xf32, #gpu.address_space<private>>, index) -> f32
      %u = "arith.constant"() <{value = dense<0.000000e+00> : vector<4xf32>}> : () -> vector<4xf32>
      %u0 = "vector.insert"(%o, %u) <{static_position = array<i64: 0>}> : (f32, vector<4xf32>) -> vector<4xf32>
      %u1 = "vector.insert"(%r1, %u0) <{static_position = array<i64: 1>}> : (f32, vector<4xf32>) -> vector<4xf32>
      %u2 = "vector.insert"(%r2, %u1) <{static_position = array<i64: 2>}> : (f32, vector<4xf32>) -> vector<4xf32>
      %u3 = "vector.insert"(%r3, %u2) <{static_position = array<i64: 3>}> : (f32, vector<4xf32>) -> vector<4xf32>
      "vector.store"(%u3, %out, %base) : (vector<4xf32>, memref<1024xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, rtile.launch = {block = array<i32: 64, 1, 1>, dynamic_shared_memory = 256 : i64, grid = array<i32: 4, 1, 1>}, sym_name = "ops", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
