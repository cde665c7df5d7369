//! Custom form of `builtin.module`: `module`, `module @name`,
//! `module attributes {...}`, then its single-block body region.

use super::OpAsmParser;
use crate::diagnostics::Diagnostic;
use crate::ir::{Attribute, OperationState};

/// Parses `module @name attributes {...} { ... }` (name and attributes optional).
pub fn parse_module(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    if let Some(name) = p.parse_optional_symbol_name() {
        state.add_attribute("sym_name", Attribute::string(name));
    }
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict_with_keyword(&mut attrs)?;
    for a in attrs {
        state.add_attribute(a.name, a.value);
    }
    let region = p.parse_region(&[])?;
    // A module body always has exactly one block, even when written `{}`.
    let ctx = p.ctx();
    if ctx.region_blocks(region).is_empty() {
        let b = ctx.create_block(Vec::new());
        ctx.append_block(region, b);
    } else if ctx.region_blocks(region).len() > 1 {
        return Err(p.error_here("expects region #0 to have 0 or 1 blocks"));
    }
    state.regions.push(region);
    // The name and visibility are ModuleOp's inherent attributes (its properties).
    super::move_inherent_to_properties(state, super::super::builtin::MODULE_INHERENT);
    Ok(())
}
