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
