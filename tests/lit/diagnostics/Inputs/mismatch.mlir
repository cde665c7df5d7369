// Input for verify-diagnostics.mlir: expectations that do not match what is produced.

// expected-error @+3 {{this message is never produced}}

%0 = "builtin.module"() ({
}) : () -> i32

// -----

// expected-warning @+1 {{wrong severity}}
%1 = "builtin.module"() ({
}) : () -> i32
