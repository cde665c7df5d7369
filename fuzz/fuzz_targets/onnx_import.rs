//! Arbitrary bytes as an ONNX model: `rtile_onnx::import_model` must return a module or
//! an error, never panic, and a module it returns must print. The corpus is seeded from
//! `tests/lit/onnx/Inputs/*.onnx` (see `fuzz/run-fuzz.sh`), so mutations reach the
//! graph walk, the operators and the folding, not only the protobuf decoder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rtile::printer::{PrintOptions, print_op};
use rtile_onnx::{ImportOptions, import_model};

fuzz_target!(|data: &[u8]| {
    let opts = ImportOptions {
        input_shapes: Vec::new(),
    };
    if let Ok((ctx, module)) = import_model(data, &opts) {
        let _ = print_op(&ctx, module, &PrintOptions::default());
    }
});
