// A file with a syntax error on line 3 (used by rtile-opt-cli.mlir).
"test.ok"() : () -> ()
"test.broken"( : () -> ()
