// A shared stage read at [2y, 2x], [2y + 1, 2x + 1] and [y, x] by one consumer: the reads
// move by 8 and 4 rows a block (4x4 blocks over 13x10: partial last blocks), so the stage's
// region is one span covering them in every block (lower_to_gpu/shared_stage.rs, union /
// cover_with): 20x16, what --connect's propagation asks of P (value_tile / covering_span).
func.func @rs(%X: tensor<26x20xf32>) -> tensor<13x10xf32> {
  %0 = tilegraph.kernel -> (tensor<13x10xf32>) {
    %p = te.compute (%y, %x) in [26, 20] : (tensor<26x20xf32>) -> tensor<26x20xf32> {
      tanh(%X[%y, %x]) + 0.25
    } {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 20, 16>}}
    %s = te.compute (%y, %x) in [13, 10] : (tensor<26x20xf32>) -> tensor<13x10xf32> {
      %p[%y * 2, %x * 2] + %p[%y * 2 + 1, %x * 2 + 1] * 0.5 + %p[%y, %x] * 0.25
    } {tilegraph.connect = ["shared", "shared", "shared"], tilegraph.tiles = {register = array<i64: 1, 1>, shared = array<i64: 4, 4>}}
    tilegraph.yield %s : tensor<13x10xf32>
  } {tilegraph.device = "h100"}
  func.return %0 : tensor<13x10xf32>
}
