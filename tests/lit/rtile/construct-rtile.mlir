// --construct-rtile on one operator of each Roller Table-1 class (bench/ops/roller-table1.mlir,
// te generic form, paper sizes), on V100 and H100, then --rtile-select keeps the model's best.
// The CHECK lines pin the top-1 tiles; the comments say which rule of Roller §3.1-3.2 each
// number comes from (device numbers: passes/devices/{v100,h100}.toml). Axes are in the
// compute's order, block tile first, register tile second.
//
// RUN: rtile-opt %s --allow-unregistered-dialect --mlir-print-op-generic \
// RUN:   --construct-rtile="device=v100" --rtile-select | FileCheck %s --check-prefixes=CHECK,V100
// RUN: rtile-opt %s --allow-unregistered-dialect --mlir-print-op-generic \
// RUN:   --construct-rtile="device=h100" --rtile-select | FileCheck %s --check-prefixes=CHECK,H100
// RUN: rtile-opt %s --allow-unregistered-dialect --mlir-print-op-generic \
// RUN:   --construct-rtile="device=h100" | FileCheck %s --check-prefix=H100ALL
//
// The candidates are rPrograms of the device, sorted: every one verifies on the device.
// RUN: rtile-opt %s --allow-unregistered-dialect --construct-rtile="device=v100 top-k=10" \
// RUN:   | FileCheck %s --check-prefix=LIST
// LIST-COUNT-7: rtile.programs = [#rtile.program<device = "v100"
// LIST-NOT: rtile.program =
//
// Options. A device file (same schema as passes/devices/*.toml) instead of a built-in device;
// programs name the file, so that the verifier checks them against it. With 8 SMs instead of
// V100's 80, the best 256x128x64 MatMul block is 64x64x8: 4 x 2 = 8 blocks fill the 8 SMs.
// RUN: rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect \
// RUN:   --construct-rtile="device-file=%S/Inputs/small-gpu.toml top-k=2" | FileCheck %s --check-prefix=FILE
// FILE: rtile.programs = [#rtile.program<device = "small-gpu", device_file = "{{.*}}small-gpu.toml", tiles = {{\[\[}}64, 64, 8], [4, 4, 1]], pad = {{\[\[}}0, 0], [0, 4]], grid = [4, 2], threads = 256,
//
// Errors: an unknown device lists the built-in ones; a device file that cannot be read; no
// device at all.
// RUN: not rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect --construct-rtile="device=tpu" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown device 'tpu'; built-in devices are: a100, h100, h200, k80, mi250x, mi50, v100
// RUN: not rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect --construct-rtile="device-file=%S/Inputs/none.toml" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: cannot read device file '{{.*}}none.toml'
// RUN: not rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect --construct-rtile 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODEVICE
// NODEVICE: error: construct-rtile needs device=<name> or device-file=<path>; built-in devices are: a100, h100, h200, k80, mi250x, mi50, v100
// RUN: not rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect --construct-rtile="device=v100 top-k=0" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TOPK
// TOPK: top-k must be at least 1
//
// Output is deterministic: two runs print the same text.
// RUN: rtile-opt %s --allow-unregistered-dialect --construct-rtile="device=h100" > %t.1
// RUN: rtile-opt %s --allow-unregistered-dialect --construct-rtile="device=h100" > %t.2
// RUN: diff %t.1 %t.2


// ----- MatMul M2: C[m, n] += A[m, k] * B[k, n], 65536 x 4096 x 1024, f32.
// Register tile: Figure 8 grows it, best reuse score first, until its arithmetic intensity
// exceeds the register layer's machine balance (MemPerf > MaxComputePerf, line 17):
//   On V100, 15700 GFLOP/s / 15667 GB/s = 1.002 flop/B; [4, 4, 1] gives 32 flop / 32 B = 1.0 (not
//   yet), [5, 4, 1] 40 flop / 36 B = 1.11: recorded. 5 + 4 + 20 accumulators = 29 registers
//   (116 B of the 96-register limit).
//   On H100, 66900 / 33454 = 1.9998 flop/B; [8, 8, 1] gives 128 flop / 64 B = 2.0.
// Block tile: n = 128 / 256 and k = 32 are the leading dimensions of C and B, and of A:
// 512 / 1024 B and 128 B, whole 32-byte transactions (rule 4); m is no tensor's leading
// dimension, so it only has to be a multiple of the thread tile (rule 3). The block stops
// growing where every neighbour breaks a limit:
//   On V100, (160/5) * (128/4) = 1024 threads, the block maximum, so m and n cannot grow; k = 64
//   would need (160*64 + 64*128) * 4 = 73728 B of shared memory > 49152.
//   On H100, an 8x8 tile needs 80 + 24 registers (THREAD_REGISTER_OVERHEAD: addresses and
//   counters), so a block has at most 65536 / 104 = 630 threads: (192/8) * (128/8) = 384 threads
//   = 12 warps (a multiple of the 4-warp group, rule 5). At k = 8 the block already does
//   2*192*128*8 flop per (192*8 + 8*128) * 4 B = 38 flop/B, past H100's global balance
//   66900 / 3350 = 20: compute-bound, recorded. Shared memory (192*8 + 8*136) * 4 = 10496 B.
// Storage padding (bank rule): on V100 A's row is 32 floats = 128 B = one sweep of 32 4-byte
// banks, read 1 float per thread: (128 - 0 + 4) mod 128 = 4 B = 1 float; on H100 it is 8
// floats, narrower than a sweep: none. B's row is read 4 (V100) / 8 (H100) floats per thread:
// 16 B / 32 B = 4 / 8 floats.
// m = 65536 is tiled by 160 (V100) / 192 (H100): 410 / 342 blocks, padding 0.1% / 0.2% (< epsilon).
// Ranking (H100) - that 384-thread block is one block per SM (registers), 12 warps, 3 per warp
// scheduler; the model's latency term (latency_warps = 4 in h100.toml) runs it at 3/4 of the
// FMA peak (est 10990 us), so the top-1 is a 256x128 block of 512 threads (16 warps, 4 per
// scheduler: the full peak; k = 32 the largest of the equal estimates). Its est, 8732 us, is
// shared-memory bound: the 8x8 tile reads 64 B per 64 multiply-adds, at the machine balance,
// and the block writes 4 * (1/256 + 1/128) = 0.047 B per multiply-add more into shared memory
// (k-step tiles, perf_model::estimate; 8342 us on the reads alone). The 384-thread program
// is still constructed (H100ALL below).
// CHECK-LABEL: te.compute
// V100: rtile.program = #rtile.program<device = "v100", tiles = {{\[\[}}160, 128, 32], [5, 4, 1]], pad = {{\[\[}}0, 1], [0, 4]], grid = [410, 32], threads = 1024, est_us = {{[0-9.e+]+}}, epsilon = 0.2, footprint = [116, 38016,
// H100: rtile.program = #rtile.program<device = "h100", tiles = {{\[\[}}256, 128, 32], [8, 8, 1]], pad = {{\[\[}}0, 1], [0, 8]], grid = [256, 32], threads = 512, est_us = 8732, epsilon = 0.2, footprint = [320, 51200,
// H100ALL: tiles = {{\[\[}}192, 128, 8], [8, 8, 1]], pad = {{\[\[}}0, 0], [0, 8]], grid = [342, 32], threads = 384, est_us = 10990, epsilon = 0.2, footprint = [320, 10496,
// CHECK-NOT: rtile.programs
// CHECK: sym_name = "m2"
"func.func"() ({
^bb0(%arg90: tensor<65536x1024xf32>, %arg91: tensor<1024x4096xf32>):
  %73 = "te.compute"(%arg90, %arg91) ({
  ^bb0(%arg92: f32, %arg93: f32):
    %74 = "arith.mulf"(%arg92, %arg93) : (f32, f32) -> f32
    "te.yield"(%74) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 65536, 4096, 1024>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], may_pad = 0.000000e+00 : f32} : (tensor<65536x1024xf32>, tensor<1024x4096xf32>) -> tensor<65536x4096xf32>
  "func.return"(%73) : (tensor<65536x4096xf32>) -> ()
}) {function_type = (tensor<65536x1024xf32>, tensor<1024x4096xf32>) -> tensor<65536x4096xf32>, sym_name = "m2"} : () -> ()

// ----- Conv2D C0: 128x128x28x28 input, 128x128x3x3 filter, stride 1, zero padding 1; axes
// (n, f, y, x) parallel, (c, ry, rx) reduction.
// x is the output's leading dimension; 28 floats is not a whole number of 32-byte
// transactions, so the block covers it whole: x = 32 pads 28 by 4 (14% <= epsilon 0.2; the
// transaction rule is waived for a block that spans the dimension). The input's leading index
// x + rx - 1 is a halo (rule 4 does not apply), its data tile is 32 + 3 - 1 = 34 wide.
//   On V100, threads (20/5) * (4/2) * (32/2) = 128 = 4 warps; register tile [1, 5, 2, 2, 1, 1, 1]:
//   input 2x2 + filter 5 + 20 accumulators = 29 registers, 40 flop / 36 B = 1.11 flop/B, above
//   the 1.002 balance (as M2). f = 20 pads 128 to 140 (9%, <= 0.2): grid [128, 7, 7, 1].
//   On H100, register tile: input 2x2x4 + filter 6x3 + 48 accumulators = 82 registers (328 B
//   of 512), 288 flop / 136 B = 2.1 flop/B, above H100's 2.0; with 24 of overhead a thread is
//   allocated 106 -> 112, so a block has at most 585 threads: (72/6) * (4/2) * (32/2) = 384 = 12
//   warps; f = 72 pads 128 to 144 (12.5%), two blocks along f.
// Bank rule on the input tile's row, 34 floats = 136 B (wider than one 128-byte sweep of the
// banks), read 2 + rx - 1 floats per thread: on V100 (rx = 1) (128 - 8 + 8) mod 128 = 0, no
// padding; on H100 (rx = 3) (128 - 8 + 16) mod 128 = 8 B = 2 floats.
// CHECK-LABEL: te.compute
// V100: tiles = {{\[\[}}1, 20, 4, 32, 1, 3, 3], [1, 5, 2, 2, 1, 1, 1]], pad = {{\[\[}}0, 0, 0, 0], [0, 0, 0, 0]], grid = [128, 7, 7, 1], threads = 128,
// H100ALL: tiles = {{\[\[}}2, 72, 4, 32, 4, 3, 3], [2, 6, 2, 2, 1, 1, 3]], pad = {{\[\[}}0, 0, 0, 2], [0, 0, 0, 0]], grid = [64, 2, 7, 1], threads = 384, est_us = 782.1,
// Ranking (H100) - as for M2, that 384-thread block holds an SM alone (12 warps, 3/4 of the
// FMA peak by the latency term). 64-thread blocks of 24 filters x 4 rows x 16 columns are 8
// per SM by registers: 112 a thread is 3584 a warp, 4 warps in each of the SM's four
// 16,384-register sub-partitions (the driver's rule, passes/src/device/occupancy.rs; the
// register file over 112 x 64 said 9, and 628.4 us). 16 warps, the full peak, and so are
// 256-thread blocks of 48 filters x 4 x 32 (2 per SM): both model at 670.3 us (as printed),
// and the 256-thread block ranks first: top-1.
// H100: tiles = {{\[\[}}2, 48, 4, 32, 1, 1, 3], [2, 6, 2, 2, 1, 1, 3]], pad = {{\[\[}}0, 0, 0, 2], [0, 0, 0, 0]], grid = [64, 3, 7, 1], threads = 256, est_us = 670.3,
// CHECK: sym_name = "c0"
"func.func"() ({
^bb0(%arg86: tensor<128x128x28x28xf32>, %arg87: tensor<128x128x3x3xf32>):
  %71 = "te.compute"(%arg86, %arg87) ({
  ^bb0(%arg88: f32, %arg89: f32):
    %72 = "arith.mulf"(%arg88, %arg89) : (f32, f32) -> f32
    "te.yield"(%72) : (f32) -> ()
  }) {axis_names = ["n", "f", "y", "x", "c", "ry", "rx"], combiner = "sum", domain = array<i64: 128, 128, 28, 28, 128, 3, 3>, indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5 - 1, d3 + d6 - 1)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"], may_pad = 0.000000e+00 : f32, pad_values = [0.000000e+00 : f32, unit]} : (tensor<128x128x28x28xf32>, tensor<128x128x3x3xf32>) -> tensor<128x128x28x28xf32>
  "func.return"(%71) : (tensor<128x128x28x28xf32>) -> ()
}) {function_type = (tensor<128x128x28x28xf32>, tensor<128x128x3x3xf32>) -> tensor<128x128x28x28xf32>, sym_name = "c0"} : () -> ()

// ----- DepthwiseConv D1: 128x42x83x83, 5x5 filter per channel, SAME padding; axes (n, c, y, x)
// parallel, (ry, rx) reduction.
// x is the output's leading dimension: 16 (V100) / 32 (H100) floats = 64 / 128 B, whole
// transactions. 83 is prime, so every tiling pads: y by 24 -> 96 (15.7%), x by 16 -> 96 or 32
// -> 96 (15.7%), all within epsilon = 0.2.
// Register tile [5, 1, 1, 4, 1, 5]: input 5x1x1x8 (x halo 4 + 5 - 1) + filter 5 + 20
// accumulators = 65 registers (260 B).
//   On V100, threads 2 * 2 * 24 * 4 = 384 = 12 warps (a multiple of 4); shared memory: input
//   10x2x28x20 + filter 2x5x5 floats = 45000 B of 49152 (the 20-float rows, 80 B, are
//   narrower than one bank sweep: no padding).
//   On H100, a thread is allocated 65 + 24 -> 96 registers, so a block has at most 682
//   threads and a core holds one: 2 * 2 * 16 * 8 = 512 = 16 warps, whose loads in flight
//   reach 93% of an SM's share of the bandwidth (the load term: 16 x 1.48 GB/s of 25.4;
//   12 warps reach 70%); y = 16 pads 83 to 96; input rows 36 floats get 4 floats of bank
//   padding: 10x2x20x40 + 50 floats = 64200 B of 232448.
// CHECK-LABEL: te.compute
// V100: tiles = {{\[\[}}10, 2, 24, 16, 5, 5], [5, 1, 1, 4, 1, 5]], pad = {{\[\[}}0, 0, 0, 0], [0, 0, 0]], grid = [13, 21, 4, 6], threads = 384,
// H100: tiles = {{\[\[}}10, 2, 16, 32, 5, 5], [5, 1, 1, 4, 1, 5]], pad = {{\[\[}}0, 0, 0, 4], [0, 0, 0]], grid = [13, 21, 6, 3], threads = 512,
// CHECK: sym_name = "d1"
"func.func"() ({
^bb0(%arg70: tensor<128x42x83x83xf32>, %arg71: tensor<42x5x5xf32>):
  %63 = "te.compute"(%arg70, %arg71) ({
  ^bb0(%arg72: f32, %arg73: f32):
    %64 = "arith.mulf"(%arg72, %arg73) : (f32, f32) -> f32
    "te.yield"(%64) : (f32) -> ()
  }) {axis_names = ["n", "o", "y", "x", "ry", "rx"], combiner = "sum", domain = array<i64: 128, 42, 83, 83, 5, 5>, indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4 - 2, d3 + d5 - 2)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], may_pad = 0.000000e+00 : f32, pad_values = [0.000000e+00 : f32, unit]} : (tensor<128x42x83x83xf32>, tensor<42x5x5xf32>) -> tensor<128x42x83x83xf32>
  "func.return"(%63) : (tensor<128x42x83x83xf32>) -> ()
}) {function_type = (tensor<128x42x83x83xf32>, tensor<42x5x5xf32>) -> tensor<128x42x83x83xf32>, sym_name = "d1"} : () -> ()

// ----- Relu E1: max(I, 0) on 128x256x14x14.
// Irregular shape: h = w = 14 is not a multiple of the 32-thread warp, so the four axes,
// adjacent and full in both tensors, fuse first into one of 6422528 points (§3.2,
// axes = ["n*c*h*w"]). No reduction, each input read once: no reuse, nothing staged in shared
// memory (staged = false, §3.2 "loads them directly from the bottom layer"), one program.
// The register tile grows until the register limit: 48 inputs + 48 outputs = 96 registers
// on V100, 64 + 64 = 128 on H100 (each device's regs_per_thread).
//   On V100, 640 threads would need 640 x (96 + 24 of overhead, THREAD_REGISTER_OVERHEAD)
//   = 76800 registers, more than the 65536 of a core, so the block stops at 24576 / 48 = 512
//   threads = 16 warps; 262 blocks, 0.19% padding.
//   On H100, 512 threads would need 512 x (128 + 24) = 77824 registers: 24576 / 64 = 384
//   threads = 12 warps; 262 blocks, 0.19% padding.
// CHECK-LABEL: te.compute
// V100: tiles = {{\[\[}}24576], [48]], pad = {{\[\[}}0]], grid = [262], threads = 512, est_us = {{[0-9.e+]+}}, epsilon = 0.2, staged = false, axes = ["n*c*h*w"], footprint = [384, 0,
// H100: tiles = {{\[\[}}24576], [64]], pad = {{\[\[}}0]], grid = [262], threads = 384, est_us = {{[0-9.e+]+}}, epsilon = 0.2, staged = false, axes = ["n*c*h*w"], footprint = [512, 0,
// CHECK: sym_name = "e1"
"func.func"() ({
^bb0(%arg62: tensor<128x256x14x14xf32>):
  %55 = "te.compute"(%arg62) ({
  ^bb0(%arg63: f32):
    %56 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %57 = "arith.maximumf"(%arg63, %56) : (f32, f32) -> f32
    "te.yield"(%57) : (f32) -> ()
  }) {axis_names = ["n", "c", "h", "w"], domain = array<i64: 128, 256, 14, 14>, indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"], may_pad = 0.000000e+00 : f32} : (tensor<128x256x14x14xf32>) -> tensor<128x256x14x14xf32>
  "func.return"(%55) : (tensor<128x256x14x14xf32>) -> ()
}) {function_type = (tensor<128x256x14x14xf32>) -> tensor<128x256x14x14xf32>, sym_name = "e1"} : () -> ()

// ----- Avgpool P2, window sum: 128x42x83x83, 3x3 window, stride 1, SAME.
// n and c are adjacent full dimensions of input and output and 42 is not a multiple of 32:
// they fuse (axes = ["n*c", ...]); y and x cannot (the input reads y + ry - 1, a halo).
// x is the output's leading dimension: the block covers it whole (96 >= 83, 15.7% padding)
// instead of being transaction-aligned. Threads 4 * 8 * 24 = 768 = 24 warps on both devices.
// The input's data tile row is 96 + 3 - 1 = 98 floats (392 B >= 128): bank padding
// (128 - 392 mod 128 + 24) mod 128 = 16 B = 4 floats, for the 6 floats one thread reads. Both devices pick the same tiles:
// the register tile [1, 1, 4, 1, 3] (1x6 input + 4 accumulators = 40 B) is far from either
// register limit and the block's 16320 B of shared memory far from either capacity; the
// model ranks the same candidates first.
// CHECK-LABEL: te.compute
// CHECK: tiles = {{\[\[}}4, 8, 96, 3, 3], [1, 1, 4, 1, 3]], pad = {{\[\[}}0, 0, 4]], grid = [1344, 11, 1], threads = 768, est_us = {{[0-9.e+]+}}, epsilon = 0.2, axes = ["n*c", "y", "x", "ry", "rx"]
// CHECK: sym_name = "p2_S"
"func.func"() ({
^bb0(%arg50: tensor<128x42x83x83xf32>):
  %43 = "te.compute"(%arg50) ({
  ^bb0(%arg51: f32):
    "te.yield"(%arg51) : (f32) -> ()
  }) {axis_names = ["n", "c", "y", "x", "ry", "rx"], combiner = "sum", domain = array<i64: 128, 42, 83, 83, 3, 3>, indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4 - 1, d3 + d5 - 1)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], may_pad = 0.000000e+00 : f32, pad_values = [0.000000e+00 : f32]} : (tensor<128x42x83x83xf32>) -> tensor<128x42x83x83xf32>
  "func.return"(%43) : (tensor<128x42x83x83xf32>) -> ()
}) {function_type = (tensor<128x42x83x83xf32>) -> tensor<128x42x83x83xf32>, sym_name = "p2_S"} : () -> ()

// ----- ReduceMean R0, sum part: S[a, b] = sum_c I[a, b, c], 128x512x1024.
// c is a reduction axis: it stays in one thread (§3.2) and is the input's leading dimension,
// so the block's c is a whole number of transactions: 16 floats = 64 B.
//   On V100, register tile [4, 4, 4]: 64 inputs + 16 accumulators = 80 registers (320 B of 384);
//   threads (16/4) * (32/4) = 32 = one warp (a factor of the 4-warp group); shared memory
//   16x32x16 floats = 32768 B; grid 8 x 16 = 128 blocks >= 80 SMs.
//   On H100, register tile [2, 6, 8]: 96 inputs + 12 accumulators = 108 registers (432 B of
//   512); threads (2/2) * (192/6) = 32; grid 64 x 3 = 192 blocks >= 132 SMs.
// CHECK-LABEL: te.compute
// V100: tiles = {{\[\[}}16, 32, 16], [4, 4, 4]], pad = {{\[\[}}0, 0, 0]], grid = [8, 16], threads = 32,
// H100: tiles = {{\[\[}}2, 192, 16], [2, 6, 8]], pad = {{\[\[}}0, 0, 0]], grid = [64, 3], threads = 32,
// CHECK: sym_name = "r0_S"
"func.func"() ({
^bb0(%arg46: tensor<128x512x1024xf32>):
  %39 = "te.compute"(%arg46) ({
  ^bb0(%arg47: f32):
    "te.yield"(%arg47) : (f32) -> ()
  }) {axis_names = ["a", "b", "c"], combiner = "sum", domain = array<i64: 128, 512, 1024>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], may_pad = 0.000000e+00 : f32} : (tensor<128x512x1024xf32>) -> tensor<128x512xf32>
  "func.return"(%39) : (tensor<128x512xf32>) -> ()
}) {function_type = (tensor<128x512x1024xf32>) -> tensor<128x512xf32>, sym_name = "r0_S"} : () -> ()

// ----- DepthwiseConv D2: 128x84x21x21 input, channel multiplier 4 (336 output channels o, each
// reading input channel o floordiv 4), 1x1 filter. The floordiv index is kept as
// floor((o + 0) / 4): s consecutive o touch at most ceil((s - 1) / 4) + 1 input channels (a
// bound; an aligned tile touches one fewer), and no transaction rule applies to it.
// x is the output's leading dimension; 21 floats are not whole transactions, so the block
// covers it (24, 14% padding). The register tile grows to the register limit:
//   On V100, [5, 3, 1, 3, 1, 1]: input 5 x (ceil(3/4) + 1 = 2) x 1 x 3 = 30 + filter 3 + 45
//   accumulators = 78 registers; the next step, [5, 4, 1, 3, 1, 1] (94), leaves no aligned
//   block within the register file once each thread is charged 24 more registers for
//   addresses and counters. Threads 1 * 16 * 3 * 8 = 384 = 12 warps.
//   On H100, [5, 5, 1, 3, 1, 1]: 30 + 5 + 75 = 110 registers (440 B of 512). Threads
//   2 * 12 * 2 * 8 = 384.
// CHECK-LABEL: te.compute
// V100: tiles = {{\[\[}}5, 48, 3, 24, 1, 1], [5, 3, 1, 3, 1, 1]], pad = {{\[\[}}0, 0, 0, 0], [0, 0, 0]], grid = [26, 7, 7, 1], threads = 384,
// H100: tiles = {{\[\[}}10, 60, 2, 24, 1, 1], [5, 5, 1, 3, 1, 1]], pad = {{\[\[}}0, 0, 0, 0], [0, 0, 0]], grid = [13, 6, 11, 1], threads = 384,
// CHECK: sym_name = "d2"
"func.func"() ({
^bb0(%arg66: tensor<128x84x21x21xf32>, %arg67: tensor<336x1x1xf32>):
  %61 = "te.compute"(%arg66, %arg67) ({
  ^bb0(%arg68: f32, %arg69: f32):
    %62 = "arith.mulf"(%arg68, %arg69) : (f32, f32) -> f32
    "te.yield"(%62) : (f32) -> ()
  }) {axis_names = ["n", "o", "y", "x", "ry", "rx"], combiner = "sum", domain = array<i64: 128, 336, 21, 21, 1, 1>, indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 floordiv 4, d2 + d4, d3 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], may_pad = 0.000000e+00 : f32} : (tensor<128x84x21x21xf32>, tensor<336x1x1xf32>) -> tensor<128x336x21x21xf32>
  "func.return"(%61) : (tensor<128x336x21x21xf32>) -> ()
}) {function_type = (tensor<128x84x21x21xf32>, tensor<336x1x1xf32>) -> tensor<128x336x21x21xf32>, sym_name = "d2"} : () -> ()

// ----- An index the rTile analysis cannot express (o mod 84) gets a remark; the op is left
// unchanged and the pipeline goes on.
// RUN: rtile-opt %S/Inputs/mod-index.mlir --allow-unregistered-dialect --construct-rtile="device=v100" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// REMARK: mod-index.mlir:3:3: remark: construct-rtile: op left unchanged: index 1 of input read #0 is not of the form (sum(coeff * axis) + constant) [floordiv constant]
// REMARK-NOT: rtile.programs
// REMARK: sym_name = "d2"
