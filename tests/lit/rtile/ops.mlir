// #rtile.program and #rtile.tile attributes: parse, verify and print back unchanged, in the
// custom and the generic form, and through upstream mlir-opt (which keeps them as opaque
// attributes of an unregistered dialect).
//
// RUN: rtile-opt %s --allow-unregistered-dialect --split-input-file | FileCheck %s
// RUN: rtile-opt %s --allow-unregistered-dialect --split-input-file --mlir-print-op-generic \
// RUN:   | rtile-opt --allow-unregistered-dialect --split-input-file | FileCheck %s
// RUN: rtile-opt %s --allow-unregistered-dialect --split-input-file --mlir-print-op-generic \
// RUN:   | mlir-opt --allow-unregistered-dialect --split-input-file --mlir-print-op-generic \
// RUN:   | rtile-opt --allow-unregistered-dialect --split-input-file | FileCheck %s

// Two candidates of --construct-rtile (device=v100 top-k=3; epsilon grew to 0.4), best first.
// CHECK-LABEL: te.compute
// CHECK: rtile.programs = [#rtile.program<device = "v100", tiles = {{\[\[}}24, 16, 16], [3, 4, 1]], pad = {{\[\[}}0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4, footprint = [76, 2560, 229376], traffic = [5063680, 1036288, 1036288]>, #rtile.program<device = "v100", tiles = {{\[\[}}24, 16, 8], [3, 4, 1]], pad = {{\[\[}}0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.2, footprint = [76, 1280, 229376], traffic = [5063680, 1036288, 1036288]>]
// CHECK-SAME: rtile.tile = #rtile.tile<[24, 16, 16], pad = {{\[\[}}0, 1], [0, 4]]>
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.programs = [#rtile.program<device = "v100", tiles = [[24, 16, 16], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.4, footprint = [76, 2560, 229376], traffic = [5063680, 1036288, 1036288]>, #rtile.program<device = "v100", tiles = [[24, 16, 8], [3, 4, 1]], pad = [[0, 0], [0, 0]], grid = [11, 8], threads = 32, est_us = 2.094, epsilon = 0.2, footprint = [76, 1280, 229376], traffic = [5063680, 1036288, 1036288]>],
      rtile.tile = #rtile.tile<[24, 16, 16], pad = [[0, 1], [0, 4]]>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// The chosen program (--rtile-select): only the required fields, in another order — pad,
// footprint, traffic, epsilon, tensor_core and staged take their defaults.
// CHECK-LABEL: te.compute
// CHECK: rtile.program = #rtile.program<threads = 32, device = "h100", grid = [64, 3], est_us = 1.281, tiles = {{\[\[}}4, 56, 8], [1, 7, 1]], epsilon = 0.4>
"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"],
      rtile.program = #rtile.program<threads = 32, device = "h100", grid = [64, 3], est_us = 1.281, tiles = [[4, 56, 8], [1, 7, 1]], epsilon = 0.4>} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()

// -----

// A program over fused axes (relu on 17x11x3 fuses to 561 points): `axes` names the fused
// axis, unstaged (no reuse), no padding lists needed.
// CHECK-LABEL: te.compute
// CHECK: rtile.program = #rtile.program<device = "h100", tiles = {{\[\[}}576], [9]], pad = [], grid = [1], threads = 64, est_us = 0.5, epsilon = 0.2, staged = false, axes = ["i*j*l"]>
"func.func"() ({
^bb0(%X: tensor<17x11x3xf32>):
  %Y = "te.compute"(%X) ({
  ^bb0(%x: f32):
    %z = "arith.constant"() <{value = 0.0 : f32}> : () -> f32
    %m = "arith.maximumf"(%x, %z) : (f32, f32) -> f32
    "te.yield"(%m) : (f32) -> ()
  }) {axis_names = ["i", "j", "l"], domain = array<i64: 17, 11, 3>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"],
      rtile.program = #rtile.program<device = "h100", tiles = [[576], [9]], pad = [], grid = [1], threads = 64, est_us = 0.5, epsilon = 0.2, staged = false, axes = ["i*j*l"]>} : (tensor<17x11x3xf32>) -> tensor<17x11x3xf32>
  "func.return"(%Y) : (tensor<17x11x3xf32>) -> ()
}) {function_type = (tensor<17x11x3xf32>) -> tensor<17x11x3xf32>, sym_name = "relu"} : () -> ()
