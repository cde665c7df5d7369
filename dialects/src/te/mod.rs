//! te: tensor expressions (Roller §3.1). See `docs/dialects/te.md`.
//!
//! - [`dialect`]: the registry entries (`TeDialect`: te.compute, te.yield).
//! - [`model`]: the semantic model of one `te.compute` ([`model::TeCompute`]).
//! - [`expr`]: the custom form's body language (lalrpop) and its printer.
//! - [`round`]: rounding values to element types (literals, the interpreter).
//! - [`verify`]: the verifier on the model (arity, ranks, shapes, bounds, types).
//! - [`generic`]: the generic form's body as upstream arith/math ops, both directions.
//! - [`ir`]: building a `te.compute` op from the model and reading one back.
//! - [`module`]: the computes of a parsed `.mlir` file (tests, tools).
//! - [`walk`]: every `te.compute` of a module, with its function.

pub mod dialect;
pub mod expr;
pub mod generic;
pub mod ir;
pub mod model;
pub mod module;
pub mod round;
pub mod verify;
pub mod walk;

#[cfg(test)]
mod tests;
