// Micro-benchmark (rtile-run --profile-device): DRAM copy bandwidth, one 16-byte load and
// store per thread over 2 x 128 MiB. Regenerate copy.ptx/json with `make cuda-kernels`.
"builtin.module"() ({
  "gpu.module"() <{sym_name = "bench_copy"}> ({
    "gpu.func"() <{function_type = (memref<33554432xf32>, memref<33554432xf32>) -> (), known_block_size = array<i32: 256, 1, 1>}> ({
    ^bb0(%in: memref<33554432xf32>, %out: memref<33554432xf32>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c256 = "arith.constant"() <{value = 256 : index}> : () -> index
      %c4 = "arith.constant"() <{value = 4 : index}> : () -> index
      %b = "arith.muli"(%bid, %c256) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %g = "arith.addi"(%b, %tid) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %i = "arith.muli"(%g, %c4) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %v = "vector.load"(%in, %i) : (memref<33554432xf32>, index) -> vector<4xf32>
      "vector.store"(%v, %out, %i) : (vector<4xf32>, memref<33554432xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, rtile.launch = {block = array<i32: 256, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 32768, 1, 1>}, sym_name = "copy", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
