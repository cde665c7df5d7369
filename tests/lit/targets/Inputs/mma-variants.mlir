// The other nvgpu forms rtile translates: mma.sync m16n8k8 (f16), m16n8k16 with bf16
// operands and with an f16 accumulator; ldmatrix x1 and x4.trans; cp.async of 4 bytes and
// with srcElements (zero fill); 2-D vectors from a broadcast and a non-splat constant. One
// warp; each result is stored so nothing is dead.
gpu.module @variants {
  gpu.func @variants(%g: memref<64x64xf16>, %gb: memref<64x64xbf16>, %gf: memref<64xf32>, %out: memref<32x8xf32>, %outh: memref<32x4xf16>)
      workgroup(%sm: memref<64x64xf16, #gpu.address_space<workgroup>>, %sb: memref<64x64xbf16, #gpu.address_space<workgroup>>, %sf: memref<64xf32, #gpu.address_space<workgroup>>)
      kernel attributes {rtile.launch = {block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %lane = gpu.thread_id x
    %row0 = arith.remui %lane, %c8 : index
    %t0 = nvgpu.device_async_copy %gf[%lane], %sf[%lane], 1 : memref<64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
    %t1 = nvgpu.device_async_copy %g[%lane, %c0], %sm[%lane, %c0], 8, %row0 : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %t2 = nvgpu.device_async_copy %gb[%lane, %c0], %sb[%lane, %c0], 8 : memref<64x64xbf16> to memref<64x64xbf16, #gpu.address_space<workgroup>>
    %grp = nvgpu.device_async_create_group %t0, %t1, %t2
    nvgpu.device_async_wait %grp
    gpu.barrier
    %row = arith.remui %lane, %c8 : index
    %a1 = nvgpu.ldmatrix %sm[%row, %c0] {numTiles = 1 : i32, transpose = false} : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<1x2xf16>
    %a2 = nvgpu.ldmatrix %sm[%lane, %c0] {numTiles = 2 : i32, transpose = false} : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %a4 = nvgpu.ldmatrix %sm[%lane, %c8] {numTiles = 4 : i32, transpose = true} : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %b2 = nvgpu.ldmatrix %sm[%lane, %c8] {numTiles = 2 : i32, transpose = true} : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %ab = nvgpu.ldmatrix %sb[%lane, %c0] {numTiles = 4 : i32, transpose = false} : memref<64x64xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    %bb = nvgpu.ldmatrix %sb[%lane, %c8] {numTiles = 2 : i32, transpose = true} : memref<64x64xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
    %x = memref.load %sf[%lane] : memref<64xf32, #gpu.address_space<workgroup>>
    %acc = "vector.broadcast"(%x) : (f32) -> vector<2x2xf32>
    %d8 = nvgpu.mma.sync (%a2, %a1, %acc) {mmaShape = [16, 8, 8]} : (vector<2x2xf16>, vector<1x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %dbf = nvgpu.mma.sync (%ab, %bb, %d8) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %acch = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : vector<2x2xf16>
    %dh = nvgpu.mma.sync (%a4, %b2, %acch) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
    %r0 = "vector.extract"(%dbf) <{static_position = array<i64: 0>}> : (vector<2x2xf32>) -> vector<2xf32>
    %r1 = "vector.extract"(%dbf) <{static_position = array<i64: 1>}> : (vector<2x2xf32>) -> vector<2xf32>
    %c4 = arith.constant 4 : index
    vector.store %r0, %out[%lane, %c0] : memref<32x8xf32>, vector<2xf32>
    vector.store %r1, %out[%lane, %c4] : memref<32x8xf32>, vector<2xf32>
    %h0 = "vector.extract"(%dh) <{static_position = array<i64: 0>}> : (vector<2x2xf16>) -> vector<2xf16>
    %h1 = "vector.extract"(%dh) <{static_position = array<i64: 1>}> : (vector<2x2xf16>) -> vector<2xf16>
    vector.store %h0, %outh[%lane, %c0] : memref<32x4xf16>, vector<2xf16>
    vector.store %h1, %outh[%lane, %c2] : memref<32x4xf16>, vector<2xf16>
    gpu.return
  }
}
