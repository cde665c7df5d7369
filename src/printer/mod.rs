//! PLACEHOLDER (being replaced by the printer work): IR → MLIR text.

pub mod builtin;

use std::marker::PhantomData;

/// The interface custom assembly printers see.
pub struct OpAsmPrinter<'a> {
    _p: PhantomData<&'a ()>,
}
