//! PLACEHOLDER: custom form of builtin.module.
use super::OpAsmParser;
use crate::diagnostics::Diagnostic;
use crate::ir::OperationState;

/// Parses `module @name attributes {...} {...}`.
pub fn parse_module(
    p: &mut OpAsmParser<'_, '_>,
    _state: &mut OperationState,
) -> Result<(), Diagnostic> {
    Err(p.error_here("not yet"))
}
