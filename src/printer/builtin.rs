//! Custom form of `builtin.module`: `module @name attributes {...} {...}`.

use super::OpAsmPrinter;
use crate::ir::{AttrKind, Context, NamedAttribute, OpId};

/// Prints the part after `module`: the optional `@name`, the other attributes after
/// `attributes`, and the body without entry block header (a module has no terminator).
pub fn print_module(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    if let Some(AttrKind::String { value, .. }) =
        ctx.inherent_attr(op, "sym_name").map(|x| x.kind())
    {
        p.write(" ");
        p.print_symbol_name(value);
    }
    let data = ctx.op(op);
    // Inherent attributes other than the name print with the discardable ones, sorted.
    let attrs: Vec<NamedAttribute> = match data.properties.as_ref().and_then(|a| a.as_dictionary())
    {
        Some(props) if !props.is_empty() => {
            let mut v: Vec<NamedAttribute> =
                props.iter().chain(&data.attributes).cloned().collect();
            v.sort_by_key(|a| a.name);
            v
        }
        _ => data.attributes.clone(),
    };
    p.print_optional_attr_dict_with_keyword(&attrs, &["sym_name"]);
    if let Some(&r) = ctx.regions(op).first() {
        p.write(" ");
        p.print_region(r, false, false);
    }
}
