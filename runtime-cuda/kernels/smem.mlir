// Micro-benchmark (rtile-run --profile-device): shared-memory read bandwidth. Each of
// 4096 x 256 threads reads 2048 conflict-free 16-byte vectors from a 16 KiB tile.
"builtin.module"() ({
  "gpu.module"() <{sym_name = "bench_smem"}> ({
    "gpu.func"() <{function_type = (memref<1048576xf32>) -> (), known_block_size = array<i32: 256, 1, 1>}> ({
    ^bb0(%out: memref<1048576xf32>, %sh: memref<4096xf32, #gpu.address_space<workgroup>>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
      %c4 = "arith.constant"() <{value = 4 : index}> : () -> index
      %c255 = "arith.constant"() <{value = 255 : index}> : () -> index
      %c256 = "arith.constant"() <{value = 256 : index}> : () -> index
      %c1023 = "arith.constant"() <{value = 1023 : index}> : () -> index
      %c2048 = "arith.constant"() <{value = 2048 : index}> : () -> index
      %ti = "arith.index_cast"(%tid) : (index) -> i32
      %tf = "arith.sitofp"(%ti) : (i32) -> f32
      %tv = "vector.broadcast"(%tf) : (f32) -> vector<4xf32>
      "scf.for"(%c0, %c4, %c1) ({
      ^bb0(%q: index):
        %q0 = "arith.muli"(%q, %c256) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %slot = "arith.addi"(%q0, %tid) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %si = "arith.muli"(%slot, %c4) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "vector.store"(%tv, %sh, %si) : (vector<4xf32>, memref<4096xf32, #gpu.address_space<workgroup>>, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "gpu.barrier"() : () -> ()
      %zero = "arith.constant"() <{value = dense<0.000000e+00> : vector<4xf32>}> : () -> vector<4xf32>
      %acc = "scf.for"(%c0, %c2048, %c1, %zero) ({
      ^bb0(%i: index, %a: vector<4xf32>):
        %s = "arith.addi"(%tid, %i) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %m = "arith.andi"(%s, %c1023) : (index, index) -> index
        %j = "arith.muli"(%m, %c4) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        %v = "vector.load"(%sh, %j) : (memref<4096xf32, #gpu.address_space<workgroup>>, index) -> vector<4xf32>
        %n = "arith.addf"(%a, %v) <{fastmath = #arith.fastmath<none>}> : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
        "scf.yield"(%n) : (vector<4xf32>) -> ()
      }) : (index, index, index, vector<4xf32>) -> vector<4xf32>
      %e0 = "vector.extract"(%acc) <{static_position = array<i64: 0>}> : (vector<4xf32>) -> f32
      %e1 = "vector.extract"(%acc) <{static_position = array<i64: 1>}> : (vector<4xf32>) -> f32
      %e2 = "vector.extract"(%acc) <{static_position = array<i64: 2>}> : (vector<4xf32>) -> f32
      %e3 = "vector.extract"(%acc) <{static_position = array<i64: 3>}> : (vector<4xf32>) -> f32
      %s01 = "arith.addf"(%e0, %e1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %s23 = "arith.addf"(%e2, %e3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %sum = "arith.addf"(%s01, %s23) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %b = "arith.muli"(%bid, %c256) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %g = "arith.addi"(%b, %tid) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      "memref.store"(%sum, %out, %g) : (f32, memref<1048576xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, rtile.launch = {block = array<i32: 256, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 4096, 1, 1>}, sym_name = "smem", workgroup_attributions = 1 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
