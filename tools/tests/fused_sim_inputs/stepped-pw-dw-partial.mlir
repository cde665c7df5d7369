// As stepped-pw-dw.mlir, with 3 rows per block (the last block partial, its halo past the
// map's edge) and a 400-channel reduction computed in steps of 200.
module {
  func.func @pw_dw_partial(%arg0: tensor<1x400x8x8xf32>, %arg1: tensor<64x400xf32>, %arg2: tensor<64x3x3xf32>) -> tensor<1x64x8x8xf32> {
    %0 = tilegraph.kernel -> (tensor<1x64x8x8xf32>) {
      %1 = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 64, 8, 8, 400] : (tensor<1x400x8x8xf32>, tensor<64x400xf32>) -> tensor<1x64x8x8xf32> {
        te.sum(%arg0[%n, %c, %y, %x] * %arg1[%f, %c])
      } {tilegraph.connect = ["global", "global"], tilegraph.tiles = {shared = array<i64: 1, 8, 5, 8, 50>}}
      %2 = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [1, 64, 8, 8, 3, 3] : (tensor<1x64x8x8xf32>, tensor<64x3x3xf32>) -> tensor<1x64x8x8xf32> {
        te.sum(%1[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %arg2[%c, %ry, %rx])
      } {tilegraph.connect = ["shared", "global"], tilegraph.tiles = {register = array<i64: 1, 1, 1, 1, 3, 3>, shared = array<i64: 1, 8, 3, 8, 3, 3>}}
      tilegraph.yield %2 : tensor<1x64x8x8xf32>
    } {tilegraph.device = "v100"}
    return %0 : tensor<1x64x8x8xf32>
  }
}
