"func.func"() ({
^bb0(%A: tensor<256x64xf32>, %B: tensor<64x128xf32>):
  %C = "te.compute"(%A, %B) ({
  ^bb0(%a: f32, %b: f32):
    %p = "arith.mulf"(%a, %b) : (f32, f32) -> f32
    "te.yield"(%p) : (f32) -> ()
  }) {axis_names = ["m", "n", "k"], combiner = "sum", domain = array<i64: 256, 128, 64>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>
  "func.return"(%C) : (tensor<256x128xf32>) -> ()
}) {function_type = (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>, sym_name = "mm"} : () -> ()
