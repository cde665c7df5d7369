//! Dialects and op definitions: the registry that tells the parser, printer and verifier
//! what an op name means.
//!
//! An op is registered once, as a value implementing [`OpDefinition`]: its traits, its
//! verifier and, optionally, its custom assembly form. Passes ask the registry through
//! these hooks instead of matching on op names.

use std::collections::HashMap;

use crate::diagnostics::Diagnostic;
use crate::ir::{Context, OpId, OperationState};
use crate::parser::OpAsmParser;
use crate::printer::OpAsmPrinter;

/// Structural properties of an op (MLIR's op traits), used by the verifier and passes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpTraits {
    /// Must be the last op of its block (`IsTerminator`).
    pub is_terminator: bool,
    /// Its regions' blocks need no terminator (`NoTerminator`).
    pub no_terminator: bool,
    /// Its regions hold at most one block (`SingleBlock`).
    pub single_block: bool,
    /// Values from outside may not be used inside (`IsolatedFromAbove`).
    pub isolated_from_above: bool,
    /// Its region is a symbol table: `sym_name`s of its children are unique.
    pub symbol_table: bool,
    /// It defines a symbol through its `sym_name` attribute (`Symbol`).
    pub symbol: bool,
    /// Its regions are graph regions: no dominance, no ordering (`RegionKind::Graph`).
    pub graph_regions: bool,
    /// It has no side effects, so it may be removed when its results are unused (`Pure`).
    pub pure: bool,
}

/// What the registry knows about one op.
pub trait OpDefinition: Send + Sync {
    /// Full name, `dialect.op`.
    fn name(&self) -> &'static str;
    /// One line for `--help` and docs.
    fn summary(&self) -> &'static str;
    /// Structural traits.
    fn traits(&self) -> OpTraits {
        OpTraits::default()
    }
    /// Op-specific verification, after the structural checks pass.
    fn verify(&self, _ctx: &Context, _op: OpId) -> Result<(), Diagnostic> {
        Ok(())
    }
    /// Names of the op's inherent attributes (MLIR's properties): printed in `<{...}>`
    /// in generic form, and taken from the attribute dictionary when a generic op is
    /// written without `<{...}>`, as MLIR does.
    fn inherent_attributes(&self) -> &'static [&'static str] {
        &[]
    }
    /// True when the op has a custom assembly form ([`Self::parse`], [`Self::print`]).
    fn has_custom_assembly(&self) -> bool {
        false
    }
    /// Parses the custom form, after the op name (and the result names, which the
    /// core parser binds), into `state`.
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        _state: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        Err(p.error_here(format!("'{}' has no custom assembly form", self.name())))
    }
    /// Prints the custom form, after `%results = name`.
    fn print(&self, _ctx: &Context, _op: OpId, _p: &mut OpAsmPrinter<'_>) {}
}

/// A dialect: a namespace and its ops.
pub trait Dialect: Send + Sync {
    /// The namespace (`te`, `arith`, ...).
    fn namespace(&self) -> &'static str;
    /// One line for docs.
    fn description(&self) -> &'static str;
    /// The dialect's op definitions.
    fn ops(&self) -> Vec<Box<dyn OpDefinition>>;
}

/// The registered dialects and ops.
#[derive(Default)]
pub struct DialectRegistry {
    dialects: Vec<(&'static str, &'static str)>,
    ops: HashMap<&'static str, Box<dyn OpDefinition>>,
}

impl DialectRegistry {
    /// A registry with only the builtin dialect.
    pub fn with_builtin() -> Self {
        let mut r = DialectRegistry::default();
        r.register(&crate::builtin::BuiltinDialect);
        r
    }
    /// Registers a dialect and its ops.
    pub fn register(&mut self, dialect: &dyn Dialect) {
        self.dialects
            .push((dialect.namespace(), dialect.description()));
        for op in dialect.ops() {
            self.ops.insert(op.name(), op);
        }
    }
    /// The definition of op `name`, if registered.
    pub fn op(&self, name: &str) -> Option<&dyn OpDefinition> {
        self.ops.get(name).map(|b| b.as_ref())
    }
    /// True when dialect `namespace` is registered.
    pub fn has_dialect(&self, namespace: &str) -> bool {
        self.dialects.iter().any(|(n, _)| *n == namespace)
    }
    /// Registered dialects, `(namespace, description)`.
    pub fn dialects(&self) -> &[(&'static str, &'static str)] {
        &self.dialects
    }
    /// Every registered op name, sorted.
    pub fn op_names(&self) -> Vec<&'static str> {
        let mut v: Vec<_> = self.ops.keys().copied().collect();
        v.sort_unstable();
        v
    }
}

/// The dialect namespace of an op name (`te` for `te.compute`).
pub fn dialect_of(op_name: &str) -> &str {
    op_name.split_once('.').map(|(d, _)| d).unwrap_or(op_name)
}
