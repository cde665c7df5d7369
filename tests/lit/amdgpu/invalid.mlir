// amdgpu.mfma verifier errors, with upstream MFMAOp::verify's messages; mlir-opt-22 rejects
// the same inputs (checked in the second RUN line on the first case).
// RUN: rtile-opt %s --split-input-file --verify-diagnostics
// RUN: not mlir-opt-22 %s --split-input-file 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: expected 8 source values for this operation but got 4

func.func @src_len(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>) {
  // expected-error @+1 {{expected 8 source values for this operation but got 4}}
  %d = amdgpu.mfma 32x32x8 %a * %b + %c { blocks = 2 : i32 } blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
  return
}

// -----

func.func @dst_len(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>) {
  // expected-error @+1 {{expected 16 result values for this operation but got 4}}
  %d = amdgpu.mfma 32x32x8 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
  return
}

// -----

func.func @mixed(%a: vector<4xf16>, %b: vector<4xbf16>, %c: vector<16xf32>) {
  // expected-error @+1 {{expected both non-small-float source operand types to match exactly}}
  %d = amdgpu.mfma 32x32x8 %a * %b + %c blgp = none : vector<4xf16>, vector<4xbf16>, vector<16xf32>
  return
}

// -----

func.func @abid(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>) {
  // expected-error @+1 {{block ID for permuting A (abid) must be below 2 ** cbsz}}
  %d = amdgpu.mfma 32x32x8 %a * %b + %c { abid = 1 : i32 } blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
  return
}

// -----

func.func @negate(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>) {
  // expected-error @+1 {{negation flags only available for double-precision operations}}
  %d = amdgpu.mfma 32x32x8 %a * %b + %c { negateA } blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
  return
}

// -----

func.func @shape(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>) {
  // expected-error @+1 {{attribute 'm' failed to satisfy constraint}}
  %d = amdgpu.mfma 8x32x8 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
  return
}

// -----

func.func @dims(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>) {
  // expected-error @+1 {{expected 3 dimensions in MNK dimension list}}
  %d = amdgpu.mfma 32x32 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
  return
}

// -----

func.func @blgp(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>) {
  // expected-error @+1 {{expected one of none, bcast_first_32}}
  %d = amdgpu.mfma 32x32x8 %a * %b + %c blgp = sideways : vector<4xf16>, vector<4xf16>, vector<16xf32>
  return
}
