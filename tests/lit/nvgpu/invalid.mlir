// nvgpu verifier errors (upstream's rules and messages where upstream has one).
// RUN: rtile-opt %s --split-input-file --verify-diagnostics

func.func @mma_a_shape(%a: vector<2x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) {
  // expected-error @+1 {{expected 256 warp-wide matrix A elements}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return
}

// -----

func.func @mma_b_shape(%a: vector<4x2xf16>, %b: vector<1x2xf16>, %c: vector<2x2xf32>) {
  // expected-error @+1 {{expected 128 warp-wide matrix B elements}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<1x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return
}

// -----

func.func @mma_c_shape(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x1xf32>) {
  // expected-error @+1 {{expected 128 warp-wide matrix C elements}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x1xf32>) -> vector<2x1xf32>
  return
}

// -----

func.func @mma_mixed(%a: vector<4x2xbf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) {
  // expected-error @+1 {{failed to verify that matrixA and matrixB have same element type}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return
}

// -----

func.func @mma_no_shape(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) {
  // expected-error @+1 {{requires 'mmaShape' = [m, n, k] of 3 integers}}
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return
}

// -----

func.func @ldmatrix_global(%g: memref<16x16xf16>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{srcMemref must have a memory space attribute of IntegerAttr(3) or gpu::AddressSpaceAttr(Workgroup)}}
  %r = nvgpu.ldmatrix %g[%c0, %c0] {numTiles = 4 : i32, transpose = false} : memref<16x16xf16> -> vector<4x2xf16>
  return
}

// -----

func.func @ldmatrix_tiles(%sm: memref<16x16xf16, 3>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected vector register shape[0] and numTiles to match}}
  %r = nvgpu.ldmatrix %sm[%c0, %c0] {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, 3> -> vector<2x2xf16>
  return
}

// -----

func.func @ldmatrix_row(%sm: memref<16x16xf16, 3>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected vector register shape[1] = 2}}
  %r = nvgpu.ldmatrix %sm[%c0, %c0] {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, 3> -> vector<4x4xf16>
  return
}

// -----

func.func @ldmatrix_three(%sm: memref<16x16xf16, 3>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected numTiles to be 1, 2 or 4}}
  %r = nvgpu.ldmatrix %sm[%c0, %c0] {numTiles = 3 : i32, transpose = false} : memref<16x16xf16, 3> -> vector<3x2xf16>
  return
}

// -----

func.func @ldmatrix_trans32(%sm: memref<16x16xf32, 3>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{nvgpu.ldmatrix transpose works only at 16b granularity}}
  %r = nvgpu.ldmatrix %sm[%c0, %c0] {numTiles = 1 : i32, transpose = true} : memref<16x16xf32, 3> -> vector<1x1xf32>
  return
}

// -----

func.func @copy_size(%g: memref<16x16xf16>, %sm: memref<16x16xf16, 3>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{Requested copy elements is 3 with width 16. But copy elements could be one of 2, 4, 8.}}
  %t = nvgpu.device_async_copy %g[%c0, %c0], %sm[%c0, %c0], 3 : memref<16x16xf16> to memref<16x16xf16, 3>
  return
}

// -----

func.func @copy_to_global(%g: memref<16x16xf16>, %h: memref<16x16xf16>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{destination memref must have a memory space attribute of IntegerAttr(3) or gpu::AddressSpaceAttr(Workgroup)}}
  %t = nvgpu.device_async_copy %g[%c0, %c0], %h[%c0, %c0], 8 : memref<16x16xf16> to memref<16x16xf16>
  return
}

// -----

func.func @copy_indices(%g: memref<16x16xf16>, %sm: memref<16x16xf16, 3>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected 2 source indices, got 1}}
  %t = nvgpu.device_async_copy %g[%c0], %sm[%c0, %c0], 8 : memref<16x16xf16> to memref<16x16xf16, 3>
  return
}

// -----

func.func @copy_types(%g: memref<16x16xf32>, %sm: memref<16x16xf16, 3>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{source and destination must have the same element type}}
  %t = nvgpu.device_async_copy %g[%c0, %c0], %sm[%c0, %c0], 8 : memref<16x16xf32> to memref<16x16xf16, 3>
  return
}

// -----

func.func @copy_bypass(%g: memref<16x16xf16>, %sm: memref<16x16xf16, 3>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{bypassL1 does not satify alignment for memref<16x16xf16, 3> with destination element 4. Unset bypassL1, or set destination element to 8}}
  %t = nvgpu.device_async_copy %g[%c0, %c0], %sm[%c0, %c0], 4 {bypassL1} : memref<16x16xf16> to memref<16x16xf16, 3>
  return
}

// -----

func.func @wait_negative(%t: !nvgpu.device.async.token) {
  // expected-error @+1 {{'numGroups' must be a non-negative i32}}
  nvgpu.device_async_wait %t {numGroups = -1 : i32}
  return
}

// -----

func.func @mbarrier_init_count(%c: i32) {
  %c0 = arith.constant 0 : index
  %b = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
  // expected-error @+1 {{operand #1 (count) must be index}}
  "nvgpu.mbarrier.init"(%b, %c, %c0) : (!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>, i32, index) -> ()
  return
}

// -----

func.func @mbarrier_arrive_result() {
  %c0 = arith.constant 0 : index
  %b = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
  // expected-error @+1 {{result #0 must be !nvgpu.mbarrier.token}}
  %t = nvgpu.mbarrier.arrive %b[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> i64
  return
}

// -----

func.func @mbarrier_not_a_group(%m: memref<2xi64, 3>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 1 : index
  // expected-error @+1 {{operand #0 must be mbarrier barrier type}}
  "nvgpu.mbarrier.init"(%m, %n, %c0) : (memref<2xi64, 3>, index, index) -> ()
  return
}

// -----

func.func @mbarrier_create_type() {
  // expected-error @+1 {{result #0 must be mbarrier barrier type}}
  %b = nvgpu.mbarrier.create -> i64
  return
}

// -----

!tm = !nvgpu.tensormap.descriptor<tensor = memref<64x128xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
func.func @tma_swizzle_span(%tm: !tm, %d: memref<64x128xf16, 3>) {
  %c0 = arith.constant 0 : index
  %b = nvgpu.mbarrier.create -> !bar
  // expected-error @+1 {{the tensormap descriptor must have last dimension of 128 bytes but it is 256 bytes}}
  nvgpu.tma.async.load %tm[%c0, %c0], %b[%c0] to %d : !tm, !bar -> memref<64x128xf16, 3>
  return
}

// -----

!tm = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
func.func @tma_box_shape(%tm: !tm, %d: memref<32x64xf16, 3>) {
  %c0 = arith.constant 0 : index
  %b = nvgpu.mbarrier.create -> !bar
  // expected-error @+1 {{is not the tensor map's box [64, 64]}}
  nvgpu.tma.async.load %tm[%c0, %c0], %b[%c0] to %d : !tm, !bar -> memref<32x64xf16, 3>
  return
}

// -----

!tm = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
func.func @tma_coordinates(%tm: !tm, %d: memref<64x64xf16, 3>) {
  %c0 = arith.constant 0 : index
  %b = nvgpu.mbarrier.create -> !bar
  // expected-error @+1 {{has 1 coordinates; the tensor map's box has rank 2}}
  nvgpu.tma.async.load %tm[%c0], %b[%c0] to %d : !tm, !bar -> memref<64x64xf16, 3>
  return
}

// -----

!tm = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
func.func @tma_global_destination(%tm: !tm, %d: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %b = nvgpu.mbarrier.create -> !bar
  // expected-error @+1 {{the destination memref must be in shared memory}}
  nvgpu.tma.async.load %tm[%c0, %c0], %b[%c0] to %d : !tm, !bar -> memref<64x64xf16>
  return
}

// -----

func.func @accumulator_rows() {
  // expected-error @+1 {{It does not fit into warp-group level (wgmma) matrix multiplication instruction}}
  %z = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<96x128xf32>>
  return
}

// -----

!tm = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @descriptor_shape(%tm: !tm, %s: memref<128x32xf16, 3>) {
  // expected-error @+1 {{memref and tensor map shapes mismatch 'memref<128x64xf16, 3>' != 'memref<128x32xf16, 3>'}}
  %d = nvgpu.warpgroup.generate.descriptor %s, %tm : memref<128x32xf16, 3>, !tm -> !nvgpu.warpgroup.descriptor<tensor = memref<128x32xf16, 3>>
  return
}

// -----

// A batched operand's box is one slice: a box of two slices is no matrix.
!tm = !nvgpu.tensormap.descriptor<tensor = memref<2x64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @descriptor_two_slices(%tm: !tm, %s: memref<64x64xf16, 3>) {
  // expected-error @+1 {{the tensor map's box must be 2-d, or have extents of 1 but on its rows and last dimension (one batch slice)}}
  %d = nvgpu.warpgroup.generate.descriptor %s, %tm : memref<64x64xf16, 3>, !tm -> !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>
  return
}

// -----

// One slice of a 3-d box: its matrix (64x64) must still match the tile.
!tm = !nvgpu.tensormap.descriptor<tensor = memref<1x64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @descriptor_slice_shape(%tm: !tm, %s: memref<128x32xf16, 3>) {
  // expected-error @+1 {{memref and tensor map shapes mismatch 'memref<1x64x64xf16, 3>' != 'memref<128x32xf16, 3>'}}
  %d = nvgpu.warpgroup.generate.descriptor %s, %tm : memref<128x32xf16, 3>, !tm -> !nvgpu.warpgroup.descriptor<tensor = memref<128x32xf16, 3>>
  return
}

// -----

!da = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>
!db = !nvgpu.warpgroup.descriptor<tensor = memref<32x128xf16, 3>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
func.func @mma_k(%a: !da, %b: !db, %c: !acc) {
  // expected-error @+1 {{shapes do not compose: A 128x64, B 32x128, accumulator 128x128}}
  %d = nvgpu.warpgroup.mma %a, %b, %c {transposeB} : !da, !db, !acc -> !acc
  return
}

// -----

!da = !nvgpu.warpgroup.descriptor<tensor = memref<64x16xf32, 3>>
!db = !nvgpu.warpgroup.descriptor<tensor = memref<16x64xf32, 3>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
func.func @mma_transpose_a_f32(%a: !da, %b: !db, %c: !acc) {
  // expected-error @+1 {{transposeA (an MN-major A) needs f16 or bf16 operands}}
  %d = nvgpu.warpgroup.mma %a, %b, %c {transposeA, transposeB} : !da, !db, !acc -> !acc
  return
}

// -----

!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
func.func @store_shape(%c: !acc, %m: memref<128x64xf32>) {
  // expected-error @+1 {{results [128][128] values. However, destination memref[128, 64] of f32 does not have same size as results}}
  nvgpu.warpgroup.mma.store %c, %m : !acc to memref<128x64xf32>
  return
}
