// te.compute verifier and body-language diagnostics.
// RUN: rtile-opt %s --split-input-file --verify-diagnostics

func.func @no_combiner(%A: tensor<4x6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{needs a combiner at the top}}
  %0 = te.compute (%m) reduce (%k) in [4, 6] : (tensor<4x6xf32>) -> tensor<4xf32> { %A[%m, %k] }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @combiner_without_reduction(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{combiner without reduction axes}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> { te.sum(%A[%i]) }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @unknown_axis(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown axis %q}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> { %A[%q] }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @rank(%A: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{1 indices for a rank-2 tensor}}
  %0 = te.compute (%i) in [4] : (tensor<4x4xf32>) -> tensor<4xf32> { %A[%i] }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @out_of_bounds(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{index 0 ranges over [1, 4] but dimension 0 of tensor<4xf32> has extent 4}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> { %A[%i + 1] }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @strided_out_of_bounds(%D: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{declare a pad value}}
  %0 = te.compute (%y) reduce (%r) in [4, 3] : (tensor<8xf32>) -> tensor<4xf32> { te.sum(%D[%y * 2 + %r - 1]) }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @not_affine(%A: tensor<4x16xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{not affine}}
  %0 = te.compute (%i) reduce (%k) in [4, 4] : (tensor<4x16xf32>) -> tensor<4xf32> { te.sum(%A[%i, %k * %k]) }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @axis_as_value(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{used as a value}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> { %A[%i] + %i }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @nested_combiner(%A: tensor<4x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{may appear only at the top}}
  %0 = te.compute (%i) reduce (%k) in [4, 4] : (tensor<4x4xf32>) -> tensor<4xf32> { te.sum(%A[%i, %k]) * 2.0 }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @type_mismatch(%A: tensor<4xf16>, %B: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand types differ: f16 vs f32}}
  %0 = te.compute (%i) in [4] : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32> { %A[%i] + %B[%i] }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @math_on_int(%A: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{exp needs a floating-point operand}}
  %0 = te.compute (%i) in [4] : (tensor<4xi32>) -> tensor<4xi32> { exp(%A[%i]) }
  func.return %0 : tensor<4xi32>
}

// -----

func.func @unknown_function(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown function `sinh`}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> { sinh(%A[%i]) }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @syntax(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unexpected end of expression}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> { exp(%A[%i] }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @yields_i1(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{body yields i1 but the result element type is f32}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> { %A[%i] > 0.0 }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @result_shape(%A: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{result dimension 0 is 5 but parallel axis %i has extent 4}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<5xf32> { %A[%i] }
  func.return %0 : tensor<5xf32>
}

// -----

func.func @int_literal(%A: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{is not an integer literal of type i32}}
  %0 = te.compute (%i) in [4] : (tensor<4xi32>) -> tensor<4xi32> { %A[%i] + 1.5 }
  func.return %0 : tensor<4xi32>
}

// -----

func.func @generic_no_combiner(%A: tensor<4x6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{reduction axes without a combiner}}
  %0 = "te.compute"(%A) ({
  ^bb0(%a: f32):
    "te.yield"(%a) : (f32) -> ()
  }) {domain = array<i64: 4, 6>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} : (tensor<4x6xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @generic_bad_body_op(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{`arith.remf` is not allowed in a te.compute body}}
  %0 = "te.compute"(%A) ({
  ^bb0(%a: f32):
    %1 = "arith.remf"(%a, %a) : (f32, f32) -> f32
    "te.yield"(%1) : (f32) -> ()
  }) {domain = array<i64: 4>, indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @padded_without_permission(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a padded domain (padded_from) needs may_pad}}
  %0 = te.compute (%i) in [8] padded_from [4] : (tensor<4xf32>) -> tensor<4xf32> { %A[%i] }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @undefined_tensor(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> { %Q[%i] }
  func.return %0 : tensor<4xf32>
}

// -----

// expected-note @+1 {{prior use here}}
func.func @operand_type_mismatch(%A: tensor<5xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects different type than prior uses}}
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> { %A[%i] }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @not_a_tensor(%A: f32) -> tensor<4xf32> {
  // expected-error @+1 {{expected a static tensor of a te element type, got 'f32'}}
  %0 = te.compute (%i) in [4] : (f32) -> tensor<4xf32> { %A[%i] }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @yield_outside(%a: f32) {
  // expected-error @+1 {{'te.yield' op expects parent op 'te.compute'}}
  "te.yield"(%a) : (f32) -> ()
}

// -----

func.func @generic_missing_domain(%X: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'te.compute' op expected `domain = array<i64: ...>`}}
  %0 = "te.compute"(%X) ({
  ^bb0(%a: f32):
    "te.yield"(%a) : (f32) -> ()
  }) {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @header_attr_in_dict(%A: tensor<4xf32>) -> tensor<4xf32> {
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %A[%i]
  // expected-error @+1 {{'domain' is spelled by the te.compute header, not in its attribute dictionary}}
  } {domain = array<i64: 4>}
  func.return %0 : tensor<4xf32>
}

// -----

func.func @acc_without_reduction(%A: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{accumulator type f32 without reduction axes}}
  %0 = te.compute (%i) in [4] acc(f32) : (tensor<4xf16>) -> tensor<4xf16> { f16(f32(%A[%i])) }
  func.return %0 : tensor<4xf16>
}

// -----

func.func @acc_integer(%A: tensor<4x6xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{accumulator type i32 is not a float type}}
  %0 = te.compute (%m) reduce (%k) in [4, 6] acc(i32) : (tensor<4x6xi8>) -> tensor<4xi8> { te.sum(i32(%A[%m, %k])) }
  func.return %0 : tensor<4xi8>
}

// -----

func.func @acc_narrower(%A: tensor<4x6xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{accumulator f16 is not wider than the f32 result}}
  %0 = te.compute (%m) reduce (%k) in [4, 6] acc(f16) : (tensor<4x6xf32>) -> tensor<4xf32> { te.sum(f16(%A[%m, %k])) }
  func.return %0 : tensor<4xf32>
}

// -----

func.func @acc_f16_into_bf16(%A: tensor<4x6xf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{accumulator f16 is not wider than the bf16 result}}
  %0 = te.compute (%m) reduce (%k) in [4, 6] acc(f16) : (tensor<4x6xf16>) -> tensor<4xbf16> { te.sum(%A[%m, %k]) }
  func.return %0 : tensor<4xbf16>
}

// -----

func.func @acc_int_result(%A: tensor<4x6xf16>) -> tensor<4xi32> {
  // expected-error @+1 {{a i32 result cannot take a float accumulator (f32)}}
  %0 = te.compute (%m) reduce (%k) in [4, 6] acc(f32) : (tensor<4x6xf16>) -> tensor<4xi32> { te.sum(f32(%A[%m, %k])) }
  func.return %0 : tensor<4xi32>
}

// -----

func.func @acc_body_not_promoted(%A: tensor<4x6xf16>, %B: tensor<6x5xf16>) -> tensor<4x5xf16> {
  // expected-error @+1 {{body yields f16 but the accumulator type is f32; convert the operands, e.g. `f32(%A[...])`}}
  %0 = te.compute (%m, %n) reduce (%k) in [4, 5, 6] acc(f32) : (tensor<4x6xf16>, tensor<6x5xf16>) -> tensor<4x5xf16> { te.sum(%A[%m, %k] * %B[%k, %n]) }
  func.return %0 : tensor<4x5xf16>
}

// -----

func.func @acc_not_a_scalar(%A: tensor<4x6xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{expected an accumulator element type (f32, f64, f16 or bf16), got 'index'}}
  %0 = te.compute (%m) reduce (%k) in [4, 6] acc(index) : (tensor<4x6xf16>) -> tensor<4xf16> { te.sum(f32(%A[%m, %k])) }
  func.return %0 : tensor<4xf16>
}

// -----

func.func @acc_generic_not_a_type(%X: tensor<3x4xf16>) -> tensor<3xf16> {
  // expected-error @+1 {{accumulator must be a te element type (`accumulator = f32`)}}
  %0 = "te.compute"(%X) ({
  ^bb0(%a: f16):
    %1 = "arith.extf"(%a) : (f16) -> f32
    "te.yield"(%1) : (f32) -> ()
  }) {accumulator = "f32", combiner = "max", domain = array<i64: 3, 4>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} : (tensor<3x4xf16>) -> tensor<3xf16>
  func.return %0 : tensor<3xf16>
}

// -----

// Sizes past 2^48 are refused: the passes' cost models multiply them in 64 bits
// (--axis-fusion and --connect overflowed on this matmul, found by fuzz/pass_pipelines).
func.func @domain_too_large(%A: tensor<4611686018427387904x2xf32>, %B: tensor<2x2xf32>) -> tensor<4611686018427387904x2xf32> {
  // expected-error @+1 {{the iteration domain has more than 2^48 points, the most rtile's passes model}}
  %C = te.compute (%m, %n) reduce (%k) in [4611686018427387904, 2, 2] : (tensor<4611686018427387904x2xf32>, tensor<2x2xf32>) -> tensor<4611686018427387904x2xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<4611686018427387904x2xf32>
}

// -----

// A small domain reading a huge operand: its element count overflows i64.
func.func @operand_too_large(%A: tensor<4611686018427387904x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 (tensor<4611686018427387904x4xf32>) has more than 2^48 elements, the most rtile's passes model}}
  %C = te.compute (%i) in [4] : (tensor<4611686018427387904x4xf32>) -> tensor<4xf32> { %A[0, %i] }
  func.return %C : tensor<4xf32>
}

// -----

// 2^48 points exactly is still a te.compute.
func.func @domain_at_limit(%A: tensor<281474976710656xf32>) -> tensor<281474976710656xf32> {
  %C = te.compute (%i) in [281474976710656] : (tensor<281474976710656xf32>) -> tensor<281474976710656xf32> { %A[%i] * 2.0 }
  func.return %C : tensor<281474976710656xf32>
}
