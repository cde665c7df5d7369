// arith.constant with a dense_resource: the verifier checks that the blob exists in the
// file's builtin dialect_resources and holds exactly the bytes the type needs (upstream
// finds out only when something reads the elements), and the value type is the result type.
// RUN: rtile-opt %s --split-input-file --verify-diagnostics

func.func @missing() -> tensor<2xf32> {
  // expected-error @+1 {{'arith.constant' op no blob 'nope' in the file's dialect_resources (builtin)}}
  %0 = arith.constant dense_resource<nope> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @short() -> tensor<3xf32> {
  // expected-error @+1 {{'arith.constant' op blob 'w' holds 8 bytes but tensor<3xf32> needs 12 (3 elements of 4 bytes)}}
  %0 = arith.constant dense_resource<w> : tensor<3xf32>
  return %0 : tensor<3xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040"
    }
  }
#-}

// -----

func.func @bools() -> tensor<2xi1> {
  // expected-error @+1 {{'arith.constant' op blob 'b' holds 1 bytes but tensor<2xi1> needs 2 (2 elements of 1 bytes)}}
  %0 = arith.constant dense_resource<b> : tensor<2xi1>
  return %0 : tensor<2xi1>
}
{-#
  dialect_resources: {
    builtin: {
      b: "0x0100000001"
    }
  }
#-}

// -----

func.func @no_header() -> tensor<0xf32> {
  // expected-error @+1 {{'arith.constant' op blob 'h': shorter than its 4-byte alignment header}}
  %0 = arith.constant dense_resource<h> : tensor<0xf32>
  return %0 : tensor<0xf32>
}
{-#
  dialect_resources: {
    builtin: {
      h: "0x0400"
    }
  }
#-}

// -----

func.func @not_hex() -> tensor<1xi8> {
  // expected-error @+1 {{'arith.constant' op blob 'x': 'g' is not a hex digit}}
  %0 = arith.constant dense_resource<x> : tensor<1xi8>
  return %0 : tensor<1xi8>
}
{-#
  dialect_resources: {
    builtin: {
      x: "0x010000000g"
    }
  }
#-}

// -----

func.func @dynamic() -> tensor<?xf32> {
  // expected-error @+1 {{'arith.constant' op tensor<?xf32> is not a statically shaped type}}
  %0 = "arith.constant"() <{value = dense_resource<w> : tensor<?xf32>}> : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000"
    }
  }
#-}

// -----

func.func @mismatch() -> tensor<2xf16> {
  // expected-error @+1 {{'arith.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "arith.constant"() <{value = dense_resource<w> : tensor<2xf32>}> : () -> tensor<2xf16>
  return %0 : tensor<2xf16>
}
{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040"
    }
  }
#-}
