// tilegraph verifier: structure (dialect) and device/propagation rules (installed by the
// passes crate, as for rtile's device checks).
// RUN: rtile-opt %s --split-input-file --verify-diagnostics

func.func @inner_edge_global(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{body op #1: operand #0 is produced in this kernel, so its edge is connected at 'register' or 'shared', not 'global'}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}}
    %b = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%a[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}}
    tilegraph.yield %b : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}

// -----

func.func @outer_edge_connected(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{body op #0: operand #0 comes from outside the kernel, so its edge goes through 'global', not 'shared'}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["shared"], tilegraph.tiles = {shared = array<i64: 32>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}

// -----

func.func @register_edge_without_register_tile(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{body op #0: has an edge connected at 'register' but no 'register' tile}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}}
    %b = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%a[%i]) }
      {tilegraph.connect = ["register"], tilegraph.tiles = {shared = array<i64: 32>, register = array<i64: 2>}}
    tilegraph.yield %b : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}

// -----

func.func @register_outside_shared(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{the 'register' tile (64) is larger than the 'shared' tile (32) in dim 0}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>, register = array<i64: 64>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}

// -----

func.func @tile_rank(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{the 'shared' tile has 2 sizes for a domain of 1 dims}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32, 1>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}

// -----

func.func @tile_too_big(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{the 'shared' tile's size 128 exceeds the extent 64 of dim 0}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 128>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}

// -----

func.func @no_device(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{requires a string attribute 'tilegraph.device' naming the device}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}}
    tilegraph.yield %a : tensor<64xf32>
  }
  func.return %k : tensor<64xf32>
}

// -----

func.func @yield_types(%X: tensor<64xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{tilegraph.yield operand types must match the kernel's result types}}
  %k = tilegraph.kernel -> (tensor<32xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<32xf32>
}

// -----

func.func @connect_outside_kernel(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{attribute 'tilegraph.connect': only valid on an op directly inside 'tilegraph.kernel'}}
  %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
    {tilegraph.connect = ["global"]}
  func.return %a : tensor<64xf32>
}

// -----

func.func @bad_level(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{body op #0: 'tilegraph.connect': entry #0 is not a connect level}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    // expected-error @+1 {{entry #0 is not a connect level}}
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["l2"], tilegraph.tiles = {shared = array<i64: 32>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}

// -----

func.func @not_a_body_op(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{body op #0 ('arith.constant') cannot run in a kernel: only te.compute and tensor reshapes}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %c = arith.constant 1.0 : f32
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}

// -----

func.func @yield_outside(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{expects parent op 'tilegraph.kernel'}}
  tilegraph.yield %X : tensor<64xf32>
}

// -----

func.func @unknown_device(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{unknown device 'z80'}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "z80"}
  func.return %k : tensor<64xf32>
}

// -----

// The transpose reads an [8x4] tile of %a, which computes [4x8].
func.func @inconsistent_with_propagation(%X: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{body op #0's 'shared' tile [4, 8] is not the tile [8, 4] that body op #1 reads through operand #0 (§3.1 propagation)}}
  %k = tilegraph.kernel -> (tensor<64x64xf32>) {
    %a = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { exp(%X[%i, %j]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 4, 8>}}
    %t = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { %a[%j, %i] }
      {tilegraph.connect = ["shared"], tilegraph.tiles = {shared = array<i64: 4, 8>}}
    tilegraph.yield %t : tensor<64x64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64x64xf32>
}

// -----

func.func @split_connected_reduction(%X: tensor<64x128xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{body op #1: reduction dim 1 reads the tile connected from body op #0, so its 'shared' tile takes it whole (128), not 32}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %e = te.compute (%i, %j) in [64, 128] : (tensor<64x128xf32>) -> tensor<64x128xf32> { exp(%X[%i, %j]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 4, 32>}}
    %s = te.compute (%i) reduce (%j) in [64, 128] : (tensor<64x128xf32>) -> tensor<64xf32> { te.sum(%e[%i, %j]) }
      {tilegraph.connect = ["shared"], tilegraph.tiles = {shared = array<i64: 4, 32>}}
    tilegraph.yield %s : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}

// -----

// V100's 48 KiB of shared memory: a [64x1024] f32 input tile alone is 256 KiB.
func.func @over_shared_capacity(%X: tensor<64x1024xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{footprint of 262400 B in 'shared' exceeds the 49152 B of 'v100'}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %s = te.compute (%i) reduce (%j) in [64, 1024] : (tensor<64x1024xf32>) -> tensor<64xf32> { te.sum(%X[%i, %j]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 64, 1024>}}
    tilegraph.yield %s : tensor<64xf32>
  } {tilegraph.device = "v100"}
  func.return %k : tensor<64xf32>
}

// -----

// Register groups: 2 x 64 f32 per thread in and out is 512 B + 256 B, over V100's 384 B.
func.func @over_register_capacity(%X: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{in 'register' exceeds the 384 B of 'v100'}}
  %k = tilegraph.kernel -> (tensor<64x64xf32>) {
    %a = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { exp(%X[%i, %j]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 2, 64>, register = array<i64: 2, 64>}}
    %b = te.compute (%i, %j) in [64, 64] : (tensor<64x64xf32>) -> tensor<64x64xf32> { exp(%a[%i, %j]) }
      {tilegraph.connect = ["register"], tilegraph.tiles = {shared = array<i64: 2, 64>, register = array<i64: 2, 64>}}
    tilegraph.yield %b : tensor<64x64xf32>
  } {tilegraph.device = "v100"}
  func.return %k : tensor<64x64xf32>
}

// -----

func.func @parallelism_utilization_out_of_range(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{attribute 'tilegraph.parallelism': 'utilization' must be a float in (0, 1]}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100", tilegraph.parallelism = {blocks = 2 : i64, threads = 32 : i64, utilization = 1.5 : f64}}
  func.return %k : tensor<64xf32>
}

// -----

func.func @parallelism_no_blocks(%X: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{attribute 'tilegraph.parallelism': 'blocks' must be a positive integer}}
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100", tilegraph.parallelism = {threads = 32 : i64, utilization = 0.5 : f64}}
  func.return %k : tensor<64xf32>
}

// -----

func.func @parallelism_on_a_body_op(%X: tensor<64xf32>) -> tensor<64xf32> {
  %k = tilegraph.kernel -> (tensor<64xf32>) {
    // expected-error @+1 {{attribute 'tilegraph.parallelism': only valid on 'tilegraph.kernel'}}
    %a = te.compute (%i) in [64] : (tensor<64xf32>) -> tensor<64xf32> { exp(%X[%i]) }
      {tilegraph.connect = ["global"], tilegraph.tiles = {shared = array<i64: 32>}, tilegraph.parallelism = {blocks = 2 : i64, threads = 32 : i64, utilization = 0.5 : f64}}
    tilegraph.yield %a : tensor<64xf32>
  } {tilegraph.device = "h100"}
  func.return %k : tensor<64xf32>
}
