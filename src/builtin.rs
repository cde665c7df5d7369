//! The builtin dialect: `builtin.module`.

use crate::dialect::decl::{Assembly, Constraint, OpDecl, Verify};
use crate::dialect::{Dialect, OpDefinition, OpTraits};
use crate::ir::{Attribute, Context, OpId};

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
        vec![MODULE_OP.boxed()]
    }
}

/// `builtin.module`: `module @name attributes {...} { ... }`.
pub const MODULE_OP: OpDecl = OpDecl {
    name: "builtin.module",
    summary: "A top-level container of operations (a symbol table)",
    traits: OpTraits {
        no_terminator: true,
        single_block: true,
        isolated_from_above: true,
        symbol_table: true,
        graph_regions: true,
        ..OpTraits::NONE
    },
    inherent: MODULE_INHERENT,
    // The ODS constraints of ModuleOp (an optional symbol): wording as mlir-opt's.
    constraints: &[
        Constraint::Operands(0, "expects no operands and no results"),
        Constraint::Results(0, "expects no operands and no results"),
        Constraint::Regions(1, "requires one region"),
        Constraint::OptionalAttr("sym_name", is_string, "string attribute"),
        Constraint::OptionalAttr("sym_visibility", is_string, "string attribute"),
    ],
    verify: Verify::Message(verify_module),
    assembly: Some(Assembly {
        parse: crate::parser::builtin::parse_module,
        print: crate::printer::builtin::print_module,
    }),
};

/// ModuleOp's inherent attributes, in name order.
pub const MODULE_INHERENT: &[&str] = &["sym_name", "sym_visibility"];

fn is_string(a: &Attribute) -> bool {
    a.as_str().is_some()
}

fn verify_module(ctx: &Context, op: OpId) -> Result<(), String> {
    if let Some(v) = ctx
        .inherent_attr(op, "sym_visibility")
        .and_then(|a| a.as_str())
        && !matches!(v, "public" | "private" | "nested")
    {
        return Err(format!(
            "visibility expected to be one of [\"public\", \"private\", \"nested\"], but got \"{v}\""
        ));
    }
    // Discardable attributes belong to a dialect (ModuleOp::verify).
    if let Some(a) = ctx
        .op(op)
        .attributes
        .iter()
        .find(|a| !a.name.contains('.') && !MODULE_INHERENT.contains(&a.name.as_str()))
    {
        return Err(format!(
            "can only contain attributes with dialect-prefixed names, found: '{}'",
            a.name
        ));
    }
    let body = ctx.regions(op)[0];
    if ctx
        .region_blocks(body)
        .first()
        .is_some_and(|&b| !ctx.block_args(b).is_empty())
    {
        return Err("region should have no arguments".into());
    }
    Ok(())
}
