// A 64x64x32 matmul: 16x16 thread blocks, shared-memory tiles of A and B, the k loop
// carries the accumulator (scf.for iter_args), barriers around the tile use.
"builtin.module"() ({
  "gpu.module"() <{sym_name = "mm"}> ({
    "gpu.func"() <{function_type = (memref<64x32xf32>, memref<32x64xf32>, memref<64x64xf32>) -> (), known_block_size = array<i32: 16, 16, 1>}> ({
    ^bb0(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>, %sA: memref<16x16xf32, #gpu.address_space<workgroup>>, %sB: memref<16x16xf32, #gpu.address_space<workgroup>>):
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
      %c16 = "arith.constant"() <{value = 16 : index}> : () -> index
      %c32 = "arith.constant"() <{value = 32 : index}> : () -> index
      %zero = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
      %r0 = "arith.muli"(%by, %c16) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %row = "arith.addi"(%r0, %ty) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %q0 = "arith.muli"(%bx, %c16) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %col = "arith.addi"(%q0, %tx) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %acc = "scf.for"(%c0, %c32, %c16, %zero) ({
      ^bb0(%k: index, %a: f32):
        %ka = "arith.addi"(%k, %tx) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %va = "memref.load"(%A, %row, %ka) : (memref<64x32xf32>, index, index) -> f32
        "memref.store"(%va, %sA, %ty, %tx) : (f32, memref<16x16xf32, #gpu.address_space<workgroup>>, index, index) -> ()
        %kb = "arith.addi"(%k, %ty) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %vb = "memref.load"(%B, %kb, %col) : (memref<32x64xf32>, index, index) -> f32
        "memref.store"(%vb, %sB, %ty, %tx) : (f32, memref<16x16xf32, #gpu.address_space<workgroup>>, index, index) -> ()
        "gpu.barrier"() : () -> ()
        %s = "scf.for"(%c0, %c16, %c1, %a) ({
        ^bb0(%kk: index, %s0: f32):
          %x = "memref.load"(%sA, %ty, %kk) : (memref<16x16xf32, #gpu.address_space<workgroup>>, index, index) -> f32
          %y = "memref.load"(%sB, %kk, %tx) : (memref<16x16xf32, #gpu.address_space<workgroup>>, index, index) -> f32
          %m = "arith.mulf"(%x, %y) <{fastmath = #arith.fastmath<contract>}> : (f32, f32) -> f32
          %n = "arith.addf"(%s0, %m) <{fastmath = #arith.fastmath<contract>}> : (f32, f32) -> f32
          "scf.yield"(%n) : (f32) -> ()
        }) : (index, index, index, f32) -> f32
        "gpu.barrier"() : () -> ()
        "scf.yield"(%s) : (f32) -> ()
      }) : (index, index, index, f32) -> f32
      "memref.store"(%acc, %C, %row, %col) : (f32, memref<64x64xf32>, index, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, rtile.launch = {block = array<i32: 16, 16, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 4, 4, 1>}, sym_name = "matmul", workgroup_attributions = 2 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
