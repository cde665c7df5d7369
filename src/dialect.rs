//! Dialects and op definitions: the registry that tells the parser, printer and verifier
//! what an op name means.
//!
//! An op is registered once, as a value implementing [`OpDefinition`]: its traits, its
//! verifier and, optionally, its custom assembly form. Passes ask the registry through
//! these hooks instead of matching on op names. Most ops are declared as a [`decl::OpDecl`]
//! constant rather than a hand-written implementation.

pub mod decl;

use std::collections::HashMap;

use crate::diagnostics::Diagnostic;
use crate::ir::attributes::Attribute;
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

impl OpTraits {
    /// No traits (the `const` form of `Default`, for `..OpTraits::NONE` in constants).
    pub const NONE: OpTraits = OpTraits {
        is_terminator: false,
        no_terminator: false,
        single_block: false,
        isolated_from_above: false,
        symbol_table: false,
        symbol: false,
        graph_regions: false,
        pure: false,
    };
    /// A side-effect-free op.
    pub const PURE: OpTraits = OpTraits {
        pure: true,
        ..OpTraits::NONE
    };
    /// A side-effect-free terminator (`return`, `yield`).
    pub const TERMINATOR: OpTraits = OpTraits {
        is_terminator: true,
        pure: true,
        ..OpTraits::NONE
    };
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
    /// Inherent properties the op takes when the text leaves them out, as MLIR fills in
    /// defaults (e.g. `overflowFlags = #arith.overflow<none>` on `arith.addi`). The parser
    /// adds them to ops written in generic form, so both forms build the same op.
    fn default_properties(&self) -> Vec<crate::ir::NamedAttribute> {
        Vec::new()
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
    /// The name the op's results print under in custom form instead of a number, as
    /// MLIR's `OpAsmOpInterface::getAsmResultNames` gives it (`cst` for
    /// `arith.constant`); the printer makes it unique (`%cst_0`). `None`: numbered.
    fn asm_result_name(&self, _ctx: &Context, _op: OpId) -> Option<String> {
        None
    }
}

/// Verifies a dialect's discardable attributes wherever they appear (MLIR's
/// `Dialect::verifyOperationAttribute`): the verifier calls it for every attribute named
/// `<namespace>.<name>` on any op, e.g. `rtile.programs` on a `te.compute`.
pub trait AttributeVerifier: Send + Sync {
    /// Checks attribute `name` (full name, with the namespace) with value `attr` on `op`.
    fn verify_operation_attribute(
        &self,
        ctx: &Context,
        op: OpId,
        name: &str,
        attr: &Attribute,
    ) -> Result<(), Diagnostic>;
}

/// A dialect: a namespace and its ops.
pub trait Dialect: Send + Sync {
    /// The namespace (`te`, `arith`, ...).
    fn namespace(&self) -> &'static str;
    /// One line for docs.
    fn description(&self) -> &'static str;
    /// The dialect's op definitions.
    fn ops(&self) -> Vec<Box<dyn OpDefinition>>;
    /// The verifier of its discardable attributes on other ops, if it has one.
    fn attribute_verifier(&self) -> Option<Box<dyn AttributeVerifier>> {
        None
    }
    /// True when the dialect is an upstream MLIR dialect that rtile models only in part
    /// (`tensor`, `gpu`, ...): its other ops exist upstream, so under
    /// `--allow-unregistered-dialect` they pass through opaquely, unverified, instead of
    /// being rejected. A dialect rtile owns outright (`te`) keeps unknown ops an error.
    fn models_upstream_in_part(&self) -> bool {
        false
    }
}

/// The registered dialects and ops.
#[derive(Default)]
pub struct DialectRegistry {
    dialects: Vec<(&'static str, &'static str)>,
    ops: HashMap<&'static str, Box<dyn OpDefinition>>,
    attr_verifiers: HashMap<&'static str, Box<dyn AttributeVerifier>>,
    partial: Vec<&'static str>,
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
        if let Some(v) = dialect.attribute_verifier() {
            self.attr_verifiers.insert(dialect.namespace(), v);
        }
        if dialect.models_upstream_in_part() {
            self.partial.push(dialect.namespace());
        }
    }
    /// True when dialect `namespace` is registered and models an upstream dialect only in
    /// part ([`Dialect::models_upstream_in_part`]).
    pub fn is_partial(&self, namespace: &str) -> bool {
        self.partial.contains(&namespace)
    }
    /// Replaces the attribute verifier of dialect `namespace`: how a crate that depends on
    /// the dialect extends its verification (MLIR's dialect extensions), e.g. the passes
    /// crate adding device capacity checks to `rtile` attributes.
    pub fn set_attribute_verifier(
        &mut self,
        namespace: &'static str,
        verifier: Box<dyn AttributeVerifier>,
    ) {
        self.attr_verifiers.insert(namespace, verifier);
    }
    /// The attribute verifier of dialect `namespace`, if any.
    pub fn attribute_verifier(&self, namespace: &str) -> Option<&dyn AttributeVerifier> {
        self.attr_verifiers.get(namespace).map(|b| b.as_ref())
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
