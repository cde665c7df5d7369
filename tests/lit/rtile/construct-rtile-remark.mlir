// The "op left unchanged" remark goes through the diagnostics engine, so
// --verify-diagnostics checks it like any other diagnostic.
// RUN: rtile-opt %s --construct-rtile="device=v100" --verify-diagnostics

"func.func"() ({
^bb0(%arg66: tensor<128x84x21x21xf32>, %arg67: tensor<336x1x1xf32>):
  // expected-remark @below {{construct-rtile: op left unchanged: index 1 of input read #0 is not of the form}}
  %61 = "te.compute"(%arg66, %arg67) ({
  ^bb0(%arg68: f32, %arg69: f32):
    %62 = "arith.mulf"(%arg68, %arg69) : (f32, f32) -> f32
    "te.yield"(%62) : (f32) -> ()
  }) {axis_names = ["n", "o", "y", "x", "ry", "rx"], combiner = "sum", domain = array<i64: 128, 336, 21, 21, 1, 1>, indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 mod 84, d2 + d4, d3 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"], may_pad = 0.000000e+00 : f32} : (tensor<128x84x21x21xf32>, tensor<336x1x1xf32>) -> tensor<128x336x21x21xf32>
  "func.return"(%61) : (tensor<128x336x21x21xf32>) -> ()
}) {function_type = (tensor<128x84x21x21xf32>, tensor<336x1x1xf32>) -> tensor<128x336x21x21xf32>, sym_name = "d2"} : () -> ()
