//! Reading the `te.compute`s of a whole `.mlir` file with the real parser: what tests
//! and tools use to get at the models of a file (the operator suite in `bench/ops/`).

use std::sync::Arc;

use rtile::diagnostics::render::render_with;
use rtile::ir::{Context, OpId};
use rtile::parser::parse_str;
use rtile::verifier::verify;

use super::ir::compute_from_op;
use super::model::TeCompute;
use super::walk::computes_with_func;

/// One compute found in a module.
#[derive(Clone, Debug)]
pub struct FoundCompute {
    /// The enclosing `func.func` symbol, without `@` (empty at module level).
    pub func: String,
    /// The result's name as written in the source, without `%` (empty if unknown).
    pub result: String,
    /// The op.
    pub op: OpId,
    /// Its model.
    pub compute: TeCompute,
}

/// A context knowing builtin and every dialect of this crate.
pub fn new_context() -> Context {
    Context::new(Arc::new(crate::dialect_registry()))
}

/// Parses and verifies `text`; errors come back rendered (no colour).
pub fn parse_and_verify(ctx: &mut Context, name: &str, text: &str) -> Result<OpId, String> {
    let out = parse_str(ctx, name, text).map_err(|d| render_with(ctx, &d, false))?;
    verify(ctx, out.module).map_err(|ds| {
        ds.iter()
            .map(|d| render_with(ctx, d, false))
            .collect::<String>()
    })?;
    Ok(out.module)
}

/// The name a result was written with: the source text of the op's span starts with it
/// (`%C = te.compute ...`).
fn written_result_name(ctx: &Context, op: OpId) -> String {
    let Some(span) = ctx.op(op).span else {
        return String::new();
    };
    let Some(src) = ctx.sources.get(span.file as usize) else {
        return String::new();
    };
    let text = src.text.get(span.start as usize..).unwrap_or("");
    match text.split_once('=') {
        Some((lhs, _)) if lhs.trim_start().starts_with('%') => {
            lhs.trim().trim_start_matches('%').to_string()
        }
        _ => String::new(),
    }
}

/// Every `te.compute` under `root`, in program order, with its function and model.
pub fn computes_in(ctx: &Context, root: OpId) -> Result<Vec<FoundCompute>, String> {
    computes_with_func(ctx, root)
        .into_iter()
        .map(|(op, func)| {
            let (compute, _) = compute_from_op(ctx, op)?;
            Ok(FoundCompute {
                func,
                result: written_result_name(ctx, op),
                op,
                compute,
            })
        })
        .collect()
}

/// Parses, verifies and collects the computes of `text` in a fresh context.
pub fn parse_computes(name: &str, text: &str) -> Result<Vec<FoundCompute>, String> {
    let mut ctx = new_context();
    let module = parse_and_verify(&mut ctx, name, text)?;
    computes_in(&ctx, module)
}
