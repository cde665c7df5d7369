//! PLACEHOLDER (being replaced by the parser work): MLIR text → IR.

pub mod builtin;

use crate::diagnostics::Diagnostic;
use std::marker::PhantomData;

/// The interface custom assembly parsers see.
pub struct OpAsmParser<'p, 's> {
    _p: PhantomData<(&'p (), &'s ())>,
}

impl OpAsmParser<'_, '_> {
    /// An error at the current token.
    pub fn error_here(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(None, msg)
    }
}
