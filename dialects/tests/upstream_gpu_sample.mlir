"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4x8xf32>, memref<4x8xf32>) -> (), known_block_size = array<i32: 32, 1, 1>}> ({
    ^bb0(%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>, %arg2: memref<4x9xf32, #gpu.address_space<workgroup>>, %arg3: memref<4xf32, #gpu.address_space<private>>):
      %0 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %2 = "arith.constant"() <{value = 0 : index}> : () -> index
      %3 = "arith.constant"() <{value = 4 : index}> : () -> index
      %4 = "arith.constant"() <{value = 1 : index}> : () -> index
      %5 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
      %6 = "scf.for"(%2, %3, %4, %5) ({
      ^bb0(%arg4: index, %arg5: f32):
        %9 = "memref.load"(%arg0, %arg4, %2) : (memref<4x8xf32>, index, index) -> f32
        "memref.store"(%9, %arg2, %arg4, %2) : (f32, memref<4x9xf32, #gpu.address_space<workgroup>>, index, index) -> ()
        %10 = "vector.load"(%arg0, %arg4, %2) : (memref<4x8xf32>, index, index) -> vector<4xf32>
        "vector.store"(%10, %arg2, %arg4, %2) : (vector<4xf32>, memref<4x9xf32, #gpu.address_space<workgroup>>, index, index) -> ()
        %11 = "arith.addf"(%arg5, %9) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        "scf.yield"(%11) : (f32) -> ()
      }) : (index, index, index, f32) -> f32
      "gpu.barrier"() : () -> ()
      %7 = "arith.cmpi"(%0, %3) <{predicate = 2 : i64}> : (index, index) -> i1
      "scf.if"(%7) ({
        "memref.store"(%6, %arg1, %2, %2) : (f32, memref<4x8xf32>, index, index) -> ()
        "scf.yield"() : () -> ()
      }, {
      }) : (i1) -> ()
      %8 = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32>
      "gpu.return"() : () -> ()
    }) {gpu.kernel, rtile.launch = {block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}, sym_name = "k", workgroup_attributions = 1 : i64} : () -> ()
  }) : () -> ()
}) : () -> ()

