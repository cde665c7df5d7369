// Verification of rtile attributes: the attribute text, the device-independent rules (one size
// per axis, lower-layer tiles divide upper ones, padding within epsilon, the grid), and the
// device's limits (threads and warps, registers, shared memory, tensor cores).
// RUN: rtile-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// A field the attribute does not have.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{attribute 'rtile.program': unknown field 'bogus'}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4, bogus = 1>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// Unbalanced list: the body is not an #rtile.program.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{attribute 'rtile.program': expected ','}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11 8], threads = 32, est_us = 2.094, epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// A required field is missing.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{attribute 'rtile.program': #rtile.program needs 'tiles'}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", grid = [11, 8], threads = 32, est_us = 2.0>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// rtile.programs holds a list of programs.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{attribute 'rtile.programs': 'rtile.programs' must be an array of #rtile.program}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.programs = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// The second candidate is checked too; one size per axis (m, n, k).
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{attribute 'rtile.programs': program #1: tiles must have 3 sizes each, one per axis (got 2 and 3)}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.programs = [#rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4>, #rtile.program<device = "v100", tiles = [[24, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4>]} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// Lower layers divide upper ones: a block of 24 rows cannot hold threads of 5.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{axis m: register tile 5 does not divide block tile 24}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[24, 16, 16], [5, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// Tiling m = 256 by 198 computes 396 rows, 55% padding, beyond epsilon = 0.4.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{axis m: block tile 198 pads extent 256 by more than epsilon = 0.4}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[198, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [2, 8], threads = 32, est_us = 2.094, epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// epsilon is a fraction of each extent, at most 1.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{epsilon must be a number in [0, 1]}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 4.0>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// The grid is the block count along each spatial axis: ceil(256 / 24) = 11.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{grid [12, 8] does not match the block tile (expected [11, 8])}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [12, 8], threads = 32, est_us = 2.094, epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// Device names are checked against the built-in descriptions.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{unknown device 'tpu'; built-in devices are: a100, h100, h200, k80, mi250x, mi50, v100}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "tpu", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// A device file that is not there.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{cannot read device file 'no/such/gpu.toml'}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "gpu", device_file = "no/such/gpu.toml", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// Shared memory: a 256x128x64 block stages (256*64 + 64*128) * 4 = 98304 B; V100 has 49152 per block.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{block tile needs 98304 bytes of shared memory, the device has 49152 per block}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[256, 128, 64], [8, 8, 1]], grid = [1, 1], threads = 512, est_us = 9.0, epsilon = 0.2>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// Registers: a 16x16 thread tile needs 16 + 16 + 256 = 288 registers; V100 allows 96.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{register tile needs 1152 bytes per thread, the device allows 384}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[128, 64, 16], [16, 16, 1]], grid = [2, 2], threads = 32, est_us = 9.0, epsilon = 0.2>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// Execution unit: 8 x 6 = 48 threads are not whole warps.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{48 threads are not aligned with the execution unit (32 lanes x 4 per core)}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[24, 12, 16], [3, 2, 1]], grid = [11, 11], threads = 48, est_us = 9.0, epsilon = 0.2>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// The thread count must be the tiles' own.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{threads = 64 but the tiles give 32 threads per block}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 64, est_us = 2.094, epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// V100's tensor cores take f16, not f32.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{tensor cores requested, but 'v100' has none for this f32 operator}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4, tensor_core = true>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// A recorded footprint must be the tiles' (here: 76 B of registers, 2560 B shared).
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{footprint [80, 2560] does not match the tiles (registers 76, shared 2560)}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4, footprint = [80, 2560, 0]>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// Only rtile.programs, rtile.program and rtile.tile belong to the dialect.
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  // expected-error @below {{attribute 'rtile.best': unknown rtile attribute (expected rtile.programs, rtile.program, rtile.tile, rtile.launch, rtile.te, rtile.unroll, rtile.device, rtile.peak_bytes, rtile.shared_stages, rtile.stepped_stages, rtile.split_result, rtile.pipeline_stages, rtile.tensor_map_of, rtile.persistent, rtile.wait or rtile.no_hoist)}}
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.best = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// rtile.program(s) describe how a te.compute is tiled; elsewhere they mean nothing.
// expected-error @below {{'test.op' op attribute 'rtile.program': only valid on 'te.compute'}}
"test.op"() {rtile.program = #rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4>} : () -> ()

// -----

// An #rtile.tile needs a shape.
// expected-error @below {{attribute 'rtile.tile': expected '['}}
"test.op"() {rtile.tile = #rtile.tile<pad = [[0]]>} : () -> ()

// -----

// rtile.device names the device description of a gpu.module, and only there.
func.func @device_elsewhere() attributes {rtile.device = "h100"} {
  // expected-error @-1 {{'func.func' op attribute 'rtile.device': only valid on 'gpu.module'}}
  return
}

// -----

// expected-error @+1 {{'gpu.module' op attribute 'rtile.device': expected a string naming a device}}
gpu.module @k attributes {rtile.device = 3 : i64} {
}

// -----

// expected-error @+1 {{'gpu.module' op attribute 'targets' failed to satisfy constraint: array of GPU target attributes with at least 1 elements}}
"gpu.module"() <{sym_name = "k", targets = []}> ({
}) : () -> ()

// -----

// rtile.split_result (one result of a tilegraph.kernel with several): on a gpu.func only,
// array<i64: result, results> with result < results and at least two results.
// expected-error @below {{attribute 'rtile.split_result': only valid on 'gpu.func'}}
"func.func"() ({
  "func.return"() : () -> ()
}) {function_type = () -> (), sym_name = "f", rtile.split_result = array<i64: 0, 2>} : () -> ()

// -----

"gpu.module"() ({
  // expected-error @below {{attribute 'rtile.split_result': expected array<i64: result, results> with 0 <= result < results and results >= 2}}
  "gpu.func"() ({
    "gpu.return"() : () -> ()
  }) {function_type = () -> (), sym_name = "k", gpu.kernel, rtile.split_result = array<i64: 2, 2>} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

"gpu.module"() ({
  // expected-error @below {{attribute 'rtile.split_result': expected array<i64: result, results> with 0 <= result < results and results >= 2}}
  "gpu.func"() ({
    "gpu.return"() : () -> ()
  }) {function_type = () -> (), sym_name = "k", gpu.kernel, rtile.split_result = array<i64: 0, 1>} : () -> ()
}) {sym_name = "m"} : () -> ()

// -----

// rtile.no_hoist marks an scf.for (a persistent kernel's loop over its schedule entries).
func.func @no_hoist_elsewhere() attributes {rtile.no_hoist} {
  // expected-error @-1 {{'func.func' op attribute 'rtile.no_hoist': only valid on 'scf.for'}}
  return
}

// -----

func.func @no_hoist_value(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op attribute 'rtile.no_hoist': expected a unit attribute}}
  scf.for %i = %c0 to %n step %c1 {
  } {rtile.no_hoist = 2 : i64}
  return
}

// -----

// A spin-wait names its pair, or none (array<i64>: the pair is data).
func.func @wait_three(%n: index) {
  // expected-error @+1 {{'scf.while' op attribute 'rtile.wait': expected array<i64: veu, order> or array<i64> (a dynamic wait)}}
  "scf.while"() ({
    %t = arith.constant true
    "scf.condition"(%t) : (i1) -> ()
  }, {
    "scf.yield"() : () -> ()
  }) {rtile.wait = array<i64: 1, 2, 3>} : () -> ()
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'gpu.func' op attribute 'rtile.persistent': expected {coresident = N} with N >= 1 (and blocks_per_core = B >= 1)}}
    gpu.func @k() kernel attributes {rtile.persistent = {blocks_per_core = 0 : i64, coresident = 4 : i64}} {
      gpu.return
    }
  }
}

// -----

// rtile.tensor_map_of names, per tensor-map parameter, the global memref it describes.
!tm = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
gpu.module @tensor_maps {
  // expected-error @+1 {{'gpu.func' op attribute 'rtile.tensor_map_of': index 1 must name a statically shaped, identity-layout global memref parameter of the tensor map's rank and element type}}
  gpu.func @wrong_type(%a: memref<256x64xf16>, %b: memref<256x64xf32>, %t: !tm) kernel attributes {rtile.tensor_map_of = array<i64: 1>} {
    gpu.return
  }
  // expected-error @+1 {{'gpu.func' op attribute 'rtile.tensor_map_of': has 2 indices for 1 tensor-map parameters}}
  gpu.func @count(%a: memref<256x64xf16>, %t: !tm) kernel attributes {rtile.tensor_map_of = array<i64: 0, 0>} {
    gpu.return
  }
}

// -----

// A read beyond the rTile model (`j mod 8`): its capacities cannot be counted, but the
// block's threads are still checked against the device.
"func.func"() ({
^bb0(%A: tensor<64x8xf32>):
  // expected-error @below {{attribute 'rtile.program': 4096 threads per block exceed the device's 1024}}
  %C = "te.compute"(%A) ({
  ^bb0(%a: f32):
    "te.yield"(%a) : (f32) -> ()
  }) {axis_names = ["i", "j"], domain = array<i64: 64, 64>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1 mod 8)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"],
      rtile.program = #rtile.program<device = "v100", tiles = [[64, 64], [1, 1]], pad = [[0, 0]], grid = [1, 1], threads = 4096, est_us = 1.0, epsilon = 0.4>} : (tensor<64x8xf32>) -> tensor<64x64xf32>
  "func.return"(%C) : (tensor<64x64xf32>) -> ()
}) {function_type = (tensor<64x8xf32>) -> tensor<64x64xf32>, sym_name = "tile"} : () -> ()

// -----

// The same read with a block the device holds verifies.
"func.func"() ({
^bb0(%A: tensor<64x8xf32>):
  %C = "te.compute"(%A) ({
  ^bb0(%a: f32):
    "te.yield"(%a) : (f32) -> ()
  }) {axis_names = ["i", "j"], domain = array<i64: 64, 64>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1 mod 8)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"],
      rtile.program = #rtile.program<device = "v100", tiles = [[16, 64], [1, 1]], pad = [[0, 0]], grid = [4, 1], threads = 1024, est_us = 1.0, epsilon = 0.4>} : (tensor<64x8xf32>) -> tensor<64x64xf32>
  "func.return"(%C) : (tensor<64x64xf32>) -> ()
}) {function_type = (tensor<64x8xf32>) -> tensor<64x64xf32>, sym_name = "tile"} : () -> ()
