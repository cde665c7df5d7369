//! Parse → verify → print → reparse → print must be a fixed point, in generic form, in
//! custom form and in generic form with `--mlir-print-debuginfo` locations, for any input
//! the parser accepts; no input may panic. Only the builtin dialect is registered: this
//! target fuzzes the IR core (lexer, parser, verifier, printer), not rtile's dialects.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use rtile::dialect::DialectRegistry;
use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile::printer::{PrintOptions, print_op};
use rtile::verifier::verify;

/// Parses `text` with unregistered ops allowed; `None` when it does not parse or verify.
fn parse(registry: &Arc<DialectRegistry>, text: &str) -> Option<(Context, rtile::ir::OpId)> {
    let mut ctx = Context::new(registry.clone());
    ctx.allow_unregistered = true;
    let module = parse_str(&mut ctx, "fuzz.mlir", text).ok()?.module;
    verify(&ctx, module).ok()?;
    Some((ctx, module))
}

/// Prints the parsed `text`, reparses that print and prints again: both prints must be
/// equal, and the print must parse and verify.
fn roundtrip(registry: &Arc<DialectRegistry>, text: &str, opts: &PrintOptions) {
    let Some((ctx, module)) = parse(registry, text) else {
        return;
    };
    let first = print_op(&ctx, module, opts);
    let Some((ctx2, module2)) = parse(registry, &first) else {
        panic!(
            "printed IR does not parse or verify (generic={}):\n{first}",
            opts.generic
        );
    };
    let second = print_op(&ctx2, module2, opts);
    assert_eq!(
        first, second,
        "print is not a fixed point (generic={})",
        opts.generic
    );
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let registry = Arc::new(DialectRegistry::with_builtin());
    for (generic, debug_info) in [(true, false), (false, false), (true, true)] {
        let opts = PrintOptions {
            generic,
            debug_info,
        };
        roundtrip(&registry, text, &opts);
    }
});
