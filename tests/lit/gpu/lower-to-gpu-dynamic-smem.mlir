// --lower-to-gpu on a kernel whose shared tiles exceed the 48 KiB a kernel may declare
// statically: a 64x64x128 matmul under one block tile [64, 64, 128] (256 threads) on H100.
// A's tile is 64x132 f32 (storage pad 4: 33792 bytes), B's 128x68 (34816 bytes): 68608
// bytes, so both are memref.views of gpu.dynamic_shared_memory, B's at the 16-byte aligned
// offset right after A's, and the launch carries the 68608 bytes. No workgroup attributions.
//
// RUN: rtile-opt --allow-unregistered-dialect --lower-to-gpu --mlir-print-op-generic %s > %t.generic
// RUN: mlir-opt --verify-each %t.generic | FileCheck %s --implicit-check-not=workgroup(
// RUN: rtile-opt --allow-unregistered-dialect --lower-to-gpu %s > %t.custom
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.custom > %t.back
// RUN: diff %t.generic %t.back
// The simulator runs it through the views and matches the te reference.
// RUN: rtile-run --sim --check %t.generic | FileCheck %s --check-prefix=SIM
// The back ends take the views: PTX (an extern .shared array), HIP (extern __shared__), AMDGPU.
// RUN: rtile-translate --to-ptx=sm_90 %t.generic -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: rtile-translate --to-hip %t.generic | FileCheck %s --check-prefix=HIP
// The module is lowered for H100 (its target is sm_90): AMDGPU code is asked for by
// retargeting it, as upstream's rocdl-attach-target would.
// RUN: sed 's/#nvvm.target<chip = "sm_90">/#rocdl.target<chip = "gfx90a">/' %t.generic | rtile-translate --to-amdgpu | FileCheck %s --check-prefix=AMDGPU
// The same tiles on V100 (48 KiB per block) are refused before lowering.
// RUN: sed 's/device = "h100"/device = "v100"/' %s | not rtile-opt --allow-unregistered-dialect --lower-to-gpu 2>&1 | FileCheck %s --check-prefix=V100

// CHECK: gpu.func @mm_0(%{{.*}}: memref<64x128xf32>, %{{.*}}: memref<128x64xf32>, %{{.*}}: memref<64x64xf32>) kernel attributes {{{.*}}rtile.launch = {block = array<i32: 256, 1, 1>, dynamic_shared_memory = 68608 : i64, grid = array<i32: 1, 1, 1>}
// CHECK: %[[BASE:[0-9]+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[SHA:[a-z_0-9]+]] = memref.view %[[BASE]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x132xf32, #gpu.address_space<workgroup>>
// CHECK: %[[SHB:[a-z_0-9]+]] = memref.view %[[BASE]][%c33792][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x68xf32, #gpu.address_space<workgroup>>
// CHECK: vector.store %{{.*}}, %[[SHA]][
// CHECK: vector.store %{{.*}}, %[[SHB]][
// CHECK: gpu.barrier
// The compute reads A's tile by scalar loads and B's by 16-byte vector loads from the view
// (the blocked thread mapping along n: its row of 68 floats keeps the runs aligned).
// CHECK: memref.load %[[SHA]][
// CHECK: vector.load %[[SHB]][{{.*}}] : memref<128x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.return

// SIM: @mm_0: 4096 elements, max relative error

// PTX: .extern .shared .align 16 .b8 __rtile_dynamic_shmem[];
// PTX: .entry mm_0(
// PTX-NOT: .shared .align
// PTX: __rtile_dynamic_shmem
// PTX: bar.sync

// HIP: extern __shared__ __attribute__((aligned(16))) char rt_dynamic_shmem[];
// HIP: dynamic shared memory = 68608 bytes
// HIP: reinterpret_cast<float*>(rt_dynamic_shmem + (int64_t)0)
// HIP: reinterpret_cast<float*>(rt_dynamic_shmem + (int64_t)33792)

// AMDGPU: .amdhsa_group_segment_fixed_size 0
// AMDGPU: .group_segment_fixed_size: 0

// V100: error: 'te.compute' op attribute 'rtile.program': block tile needs 68608 bytes of shared memory, the device has 49152 per block

"func.func"() <{function_type = (tensor<64x128xf32>, tensor<128x64xf32>) -> tensor<64x64xf32>, sym_name = "mm"}> ({
^bb0(%A: tensor<64x128xf32>, %B: tensor<128x64xf32>):
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 64, 64, 128>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], may_pad = 0.0 : f32, rtile.program = #rtile.program<device = "h100", tiles = [[64, 64, 128], [4, 4, 1]], pad = [[0, 4], [0, 4]], grid = [1, 1], threads = 256, est_us = 1.0, epsilon = 0.2, footprint = [0, 0, 0], traffic = [0, 0, 0]>} : (tensor<64x128xf32>, tensor<128x64xf32>) -> tensor<64x64xf32>
  "func.return"(%C) : (tensor<64x64xf32>) -> ()
}) : () -> ()
