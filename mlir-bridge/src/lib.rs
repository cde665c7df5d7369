//! rtile ⇄ upstream MLIR 22 through melior. A leaf crate: nothing else in the workspace
//! depends on it, so the IR core, dialects and passes build and test without MLIR.
//!
//! Modules move between MLIR and rtile as text in the generic form (MLIR prints, rtile
//! parses; rtile prints, MLIR parses and verifies).
//! - [`import`][]: `linalg.generic` (named ops after upstream `linalg-generalize-named-ops`)
//!   → `te.compute`, on rtile's IR.
//! - [`mlir`][]: the MLIR side: a context with every upstream dialect and pass, rtile passes
//!   as MLIR external passes, and mixed pipelines (`rtile-mlir-opt`).

pub mod compat;
pub mod export;
pub mod import;
pub mod mlir;

use rtile::diagnostics::render::render_with;
use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile::printer::{PrintOptions, print_op};
use rtile::verifier::verify;
use std::sync::Arc;

pub use import::{ImportReport, Remark, import_linalg};

/// Parses `text` (MLIR generic or custom form; ops rtile does not know, such as `linalg.*`,
/// are kept as unregistered ops), imports its linalg ops to te, verifies, and prints the
/// result (`generic`: MLIR's generic form, else rtile's custom form).
pub fn import_text(
    name: &str,
    text: &str,
    generic: bool,
) -> Result<(String, ImportReport), String> {
    let mut ctx = Context::new(Arc::new(compat::bridge_registry()));
    ctx.allow_unregistered = true;
    let out = parse_str(&mut ctx, name, text).map_err(|d| render_with(&ctx, &d, false))?;
    let report = import_linalg(&mut ctx, out.module);
    verify(&ctx, out.module).map_err(|ds| {
        ds.iter()
            .map(|d| render_with(&ctx, d, false))
            .collect::<String>()
    })?;
    let printed = print_op(
        &ctx,
        out.module,
        &PrintOptions {
            generic,
            ..PrintOptions::default()
        },
    );
    Ok((printed, report))
}

/// Parses `text`, exports its te computes with programs to `linalg.generic` with an
/// `lowering_config` ([`export`]), verifies, and prints the generic form.
pub fn export_text(name: &str, text: &str) -> Result<(String, export::ExportReport), String> {
    let mut ctx = Context::new(Arc::new(compat::bridge_registry()));
    ctx.allow_unregistered = true;
    let out = parse_str(&mut ctx, name, text).map_err(|d| render_with(&ctx, &d, false))?;
    let report = export::export_linalg(&mut ctx, out.module);
    verify(&ctx, out.module).map_err(|ds| {
        ds.iter()
            .map(|d| render_with(&ctx, d, false))
            .collect::<String>()
    })?;
    let printed = print_op(
        &ctx,
        out.module,
        &PrintOptions {
            generic: true,
            debug_info: true,
        },
    );
    Ok((printed, report))
}

/// Re-prints an MLIR generic-form module with rtile's printer (custom form for te, rtile,
/// and everything else rtile defines; opaque ops stay generic).
pub fn print_with_rtile(name: &str, text: &str) -> Result<String, String> {
    let mut ctx = Context::new(Arc::new(compat::bridge_registry()));
    ctx.allow_unregistered = true;
    let out = parse_str(&mut ctx, name, text).map_err(|d| render_with(&ctx, &d, false))?;
    Ok(print_op(&ctx, out.module, &PrintOptions::default()))
}

/// Runs an rtile pipeline (`builtin.module(construct-rtile{device=h100})`) on `text` and
/// prints the result in the generic form (for MLIR to parse back). Diagnostics come back
/// rendered.
pub fn run_rtile_pipeline(name: &str, text: &str, pipeline: &str) -> Result<String, String> {
    let mut ctx = Context::new(Arc::new(compat::bridge_registry()));
    ctx.allow_unregistered = true;
    let render = |ctx: &Context, ds: &[rtile::diagnostics::Diagnostic]| {
        ds.iter()
            .map(|d| render_with(ctx, d, false))
            .collect::<String>()
    };
    let out = parse_str(&mut ctx, name, text).map_err(|d| render_with(&ctx, &d, false))?;
    verify(&ctx, out.module).map_err(|ds| render(&ctx, &ds))?;
    let passes = rtile_passes::pass_registry();
    let root = rtile::pass::parse_pass_pipeline(&mut ctx, &passes, pipeline)
        .map_err(|d| render_with(&ctx, &d, false))?;
    let mut pm = rtile::pass::PassManager::new(root);
    let result = pm.run_all_diagnostics(&mut ctx, out.module);
    // MLIR's pass has no channel for rtile's remarks; they go to stderr as rtile-opt's do.
    let emitted = ctx.take_emitted();
    eprint!("{}", render(&ctx, &emitted));
    result.map_err(|ds| render(&ctx, &ds))?;
    Ok(print_op(
        &ctx,
        out.module,
        &PrintOptions {
            generic: true,
            debug_info: true,
        },
    ))
}
