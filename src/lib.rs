//! rtile's IR core: an MLIR-style IR in Rust whose text is real MLIR.
//!
//! - [`ir`]: operations, regions, blocks, SSA values, types, attributes, affine maps.
//! - [`dialect`]: the registry of dialects and op definitions (traits, verifiers,
//!   custom assembly forms); [`builtin`] registers `builtin.module`.
//! - [`parser`]: MLIR's generic syntax and registered custom forms.
//! - [`printer`]: custom or generic form, with MLIR's value naming and aliases.
//! - [`verifier`]: structural rules and per-op hooks.
//! - [`diagnostics`]: errors with source spans, rendered by miette.
//! - [`pass`]: the pass manager and pipeline syntax.

pub mod builtin;
pub mod diagnostics;
pub mod dialect;
pub mod ir;
pub mod parser;
pub mod pass;
pub mod printer;
pub mod verifier;
