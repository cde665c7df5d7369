//! The builtin dialect: `builtin.module`.

use crate::diagnostics::Diagnostic;
use crate::dialect::{Dialect, OpDefinition, OpTraits};
use crate::ir::{Context, OpId, OperationState};
use crate::parser::OpAsmParser;
use crate::printer::OpAsmPrinter;

/// The `builtin` dialect.
pub struct BuiltinDialect;

impl Dialect for BuiltinDialect {
    fn namespace(&self) -> &'static str {
        "builtin"
    }
    fn description(&self) -> &'static str {
        "MLIR's builtin dialect: the top-level module"
    }
    fn models_upstream_in_part(&self) -> bool {
        true
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![Box::new(ModuleOp)]
    }
}

/// `builtin.module`: `module @name attributes {...} { ... }`.
pub struct ModuleOp;

/// ModuleOp's inherent attributes, in name order.
pub const MODULE_INHERENT: &[&str] = &["sym_name", "sym_visibility"];

impl OpDefinition for ModuleOp {
    fn name(&self) -> &'static str {
        "builtin.module"
    }
    fn summary(&self) -> &'static str {
        "A top-level container of operations (a symbol table)"
    }
    fn traits(&self) -> OpTraits {
        OpTraits {
            no_terminator: true,
            single_block: true,
            isolated_from_above: true,
            symbol_table: true,
            graph_regions: true,
            ..OpTraits::default()
        }
    }
    fn verify(&self, ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
        if !ctx.operands(op).is_empty() || !ctx.results(op).is_empty() {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                "expects no operands and no results",
            ));
        }
        if ctx.regions(op).len() != 1 {
            return Err(Diagnostic::op_error(ctx, op, "requires one region"));
        }
        // The ODS constraints of ModuleOp (an optional symbol): wording as mlir-opt's.
        if let Some(a) = ctx.inherent_attr(op, "sym_name")
            && a.as_str().is_none()
        {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                "attribute 'sym_name' failed to satisfy constraint: string attribute",
            ));
        }
        if let Some(v) = ctx.inherent_attr(op, "sym_visibility") {
            match v.as_str() {
                Some("public" | "private" | "nested") => {}
                Some(s) => {
                    return Err(Diagnostic::op_error(
                        ctx,
                        op,
                        format!(
                            "visibility expected to be one of [\"public\", \"private\", \"nested\"], but got \"{s}\""
                        ),
                    ));
                }
                None => {
                    return Err(Diagnostic::op_error(
                        ctx,
                        op,
                        "attribute 'sym_visibility' failed to satisfy constraint: string attribute",
                    ));
                }
            }
        }
        // Discardable attributes belong to a dialect (ModuleOp::verify).
        if let Some(a) = ctx
            .op(op)
            .attributes
            .iter()
            .find(|a| !a.name.contains('.') && !MODULE_INHERENT.contains(&a.name.as_str()))
        {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!(
                    "can only contain attributes with dialect-prefixed names, found: '{}'",
                    a.name
                ),
            ));
        }
        let body = ctx.regions(op)[0];
        if ctx
            .region_blocks(body)
            .first()
            .is_some_and(|&b| !ctx.block_args(b).is_empty())
        {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                "region should have no arguments",
            ));
        }
        Ok(())
    }
    fn inherent_attributes(&self) -> &'static [&'static str] {
        MODULE_INHERENT
    }
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        state: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        crate::parser::builtin::parse_module(p, state)
    }
    fn print(&self, ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
        crate::printer::builtin::print_module(ctx, op, p)
    }
}
