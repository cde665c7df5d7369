// Micro-benchmark (rtile-run --profile-device): f32 FMA throughput. 4096 x 256 threads,
// 8 independent FMA chains of 4096 steps each (2 flops per FMA).
"builtin.module"() ({
  "gpu.module"() <{sym_name = "bench_fma"}> ({
    "gpu.func"() <{function_type = (memref<1048576xf32>) -> (), known_block_size = array<i32: 256, 1, 1>}> ({
    ^bb0(%out: memref<1048576xf32>):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bid = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
      %c256 = "arith.constant"() <{value = 256 : index}> : () -> index
      %c4096 = "arith.constant"() <{value = 4096 : index}> : () -> index
      %mul = "arith.constant"() <{value = 0.999899983 : f32}> : () -> f32
      %add = "arith.constant"() <{value = 9.99999997E-7 : f32}> : () -> f32
      %ti = "arith.index_cast"(%tid) : (index) -> i32
      %tf = "arith.sitofp"(%ti) : (i32) -> f32
      %k0 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
      %x0 = "arith.addf"(%tf, %k0) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %k1 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
      %x1 = "arith.addf"(%tf, %k1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %k2 = "arith.constant"() <{value = 2.000000e+00 : f32}> : () -> f32
      %x2 = "arith.addf"(%tf, %k2) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %k3 = "arith.constant"() <{value = 3.000000e+00 : f32}> : () -> f32
      %x3 = "arith.addf"(%tf, %k3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %k4 = "arith.constant"() <{value = 4.000000e+00 : f32}> : () -> f32
      %x4 = "arith.addf"(%tf, %k4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %k5 = "arith.constant"() <{value = 5.000000e+00 : f32}> : () -> f32
      %x5 = "arith.addf"(%tf, %k5) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %k6 = "arith.constant"() <{value = 6.000000e+00 : f32}> : () -> f32
      %x6 = "arith.addf"(%tf, %k6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %k7 = "arith.constant"() <{value = 7.000000e+00 : f32}> : () -> f32
      %x7 = "arith.addf"(%tf, %k7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %r:8 = "scf.for"(%c0, %c4096, %c1, %x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7) ({
      ^bb0(%i: index, %a0: f32, %a1: f32, %a2: f32, %a3: f32, %a4: f32, %a5: f32, %a6: f32, %a7: f32):
        %n0 = "math.fma"(%a0, %mul, %add) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
        %n1 = "math.fma"(%a1, %mul, %add) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
        %n2 = "math.fma"(%a2, %mul, %add) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
        %n3 = "math.fma"(%a3, %mul, %add) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
        %n4 = "math.fma"(%a4, %mul, %add) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
        %n5 = "math.fma"(%a5, %mul, %add) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
        %n6 = "math.fma"(%a6, %mul, %add) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
        %n7 = "math.fma"(%a7, %mul, %add) <{fastmath = #arith.fastmath<none>}> : (f32, f32, f32) -> f32
        "scf.yield"(%n0, %n1, %n2, %n3, %n4, %n5, %n6, %n7) : (f32, f32, f32, f32, f32, f32, f32, f32) -> ()
      }) : (index, index, index, f32, f32, f32, f32, f32, f32, f32, f32) -> (f32, f32, f32, f32, f32, f32, f32, f32)
      %s1 = "arith.addf"(%r#0, %r#1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %s2 = "arith.addf"(%s1, %r#2) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %s3 = "arith.addf"(%s2, %r#3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %s4 = "arith.addf"(%s3, %r#4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %s5 = "arith.addf"(%s4, %r#5) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %s6 = "arith.addf"(%s5, %r#6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %s7 = "arith.addf"(%s6, %r#7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %b = "arith.muli"(%bid, %c256) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %g = "arith.addi"(%b, %tid) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      "memref.store"(%s7, %out, %g) : (f32, memref<1048576xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, rtile.launch = {block = array<i32: 256, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 4096, 1, 1>}, sym_name = "fma", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
