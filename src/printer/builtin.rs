//! PLACEHOLDER: custom form of builtin.module.
use super::OpAsmPrinter;
use crate::ir::{Context, OpId};

/// Prints `module @name attributes {...} {...}`.
pub fn print_module(_ctx: &Context, _op: OpId, _p: &mut OpAsmPrinter<'_>) {}
