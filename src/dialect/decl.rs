//! Declaring an op in one place ([`OpDecl`]): its name, summary, traits, inherent
//! attributes, the constraints the verifier checks before any op-specific code (counts,
//! required attributes, the parent op) and its custom assembly, as a `const` value that
//! implements [`OpDefinition`]. MLIR's ODS in Rust, for the ops whose definition is a
//! table plus a few functions.
//!
//! ```
//! use rtile::dialect::decl::{Assembly, Constraint, OpDecl, Verify};
//! use rtile::dialect::OpTraits;
//!
//! /// `demo.yield`: one operand, only inside `demo.loop`.
//! const YIELD: OpDecl = OpDecl {
//!     name: "demo.yield",
//!     summary: "yields the loop body's value",
//!     traits: OpTraits::TERMINATOR,
//!     constraints: &[
//!         Constraint::Parent("demo.loop"),
//!         Constraint::Operands(1, "takes exactly one value"),
//!     ],
//!     ..OpDecl::EMPTY
//! };
//! ```
//!
//! Constraints are checked in order, and the first that fails is reported as
//! `'<name>' op <message>` at the op, exactly as a hand-written verifier would; then
//! [`OpDecl::verify`] runs.

use super::{OpDefinition, OpTraits};
use crate::diagnostics::Diagnostic;
use crate::ir::attributes::Attribute;
use crate::ir::{Context, OpId, OperationState};
use crate::parser::OpAsmParser;
use crate::printer::OpAsmPrinter;

/// A check on an attribute's value.
pub type AttrPredicate = fn(&Attribute) -> bool;

/// One declarative constraint of an op.
#[derive(Clone, Copy)]
pub enum Constraint {
    /// The op's parent is op `name`: else `expects parent op '<name>'`.
    Parent(&'static str),
    /// Exactly `n` operands, else the message.
    Operands(usize, &'static str),
    /// Exactly `n` results, else the message.
    Results(usize, &'static str),
    /// Exactly `n` regions, else the message; `{}` in it stands for the number found.
    Regions(usize, &'static str),
    /// Inherent attribute `name` is present (else `requires attribute '<name>'`) and
    /// satisfies the predicate (else `attribute '<name>' failed to satisfy constraint:
    /// <description>`), as ODS words both.
    Attr(&'static str, AttrPredicate, &'static str),
    /// Like [`Constraint::Attr`] for an optional attribute: checked only when present.
    OptionalAttr(&'static str, AttrPredicate, &'static str),
}

impl Constraint {
    /// The message of the violated constraint, if `op` violates it.
    pub fn check(&self, ctx: &Context, op: OpId) -> Option<String> {
        let count = |found: usize, n: usize, msg: &str| {
            (found != n).then(|| msg.replace("{}", &found.to_string()))
        };
        match *self {
            Constraint::Parent(name) => ctx
                .parent_op(op)
                .is_none_or(|p| ctx.op_name(p) != name)
                .then(|| format!("expects parent op '{name}'")),
            Constraint::Operands(n, msg) => count(ctx.operands(op).len(), n, msg),
            Constraint::Results(n, msg) => count(ctx.results(op).len(), n, msg),
            Constraint::Regions(n, msg) => count(ctx.regions(op).len(), n, msg),
            Constraint::Attr(name, pred, desc) => match ctx.inherent_attr(op, name) {
                None => Some(format!("requires attribute '{name}'")),
                Some(a) => attr_failure(name, a, pred, desc),
            },
            Constraint::OptionalAttr(name, pred, desc) => ctx
                .inherent_attr(op, name)
                .and_then(|a| attr_failure(name, a, pred, desc)),
        }
    }
}

fn attr_failure(name: &str, a: &Attribute, pred: AttrPredicate, desc: &str) -> Option<String> {
    (!pred(a)).then(|| format!("attribute '{name}' failed to satisfy constraint: {desc}"))
}

/// The op-specific part of verification, after the declared constraints hold.
#[derive(Clone, Copy)]
pub enum Verify {
    /// Nothing beyond the constraints.
    None,
    /// A message, reported as `'<name>' op <message>` at the op.
    Message(fn(&Context, OpId) -> Result<(), String>),
    /// A full diagnostic (notes, or a message without the op prefix, as upstream words
    /// some errors).
    Diagnostic(fn(&Context, OpId) -> Result<(), Diagnostic>),
}

/// Parses an op's custom form (after the op name and the result names) into the state.
pub type ParseFn = fn(&mut OpAsmParser<'_, '_>, &mut OperationState) -> Result<(), Diagnostic>;
/// Prints an op's custom form (after `%results = name`).
pub type PrintFn = fn(&Context, OpId, &mut OpAsmPrinter<'_>);

/// A custom assembly form: its parser and printer.
#[derive(Clone, Copy)]
pub struct Assembly {
    /// Reads the custom form.
    pub parse: ParseFn,
    /// Writes the custom form.
    pub print: PrintFn,
}

/// An op declared in one place; see the module documentation.
#[derive(Clone, Copy)]
pub struct OpDecl {
    /// Full name, `dialect.op`.
    pub name: &'static str,
    /// One line for `--help` and docs.
    pub summary: &'static str,
    /// Structural traits.
    pub traits: OpTraits,
    /// Inherent attribute (property) names.
    pub inherent: &'static [&'static str],
    /// Checked in order before [`Self::verify`].
    pub constraints: &'static [Constraint],
    /// Op-specific verification.
    pub verify: Verify,
    /// The custom form, if the op has one (else it prints generic).
    pub assembly: Option<Assembly>,
}

impl OpDecl {
    /// A declaration with nothing set, to fill with `..OpDecl::EMPTY`.
    pub const EMPTY: OpDecl = OpDecl {
        name: "",
        summary: "",
        traits: OpTraits::NONE,
        inherent: &[],
        constraints: &[],
        verify: Verify::None,
        assembly: None,
    };

    /// The declaration, boxed for [`super::Dialect::ops`].
    pub fn boxed(self) -> Box<dyn OpDefinition> {
        Box::new(self)
    }
}

impl OpDefinition for OpDecl {
    fn name(&self) -> &'static str {
        self.name
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn traits(&self) -> OpTraits {
        self.traits
    }
    fn verify(&self, ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
        if let Some(m) = self.constraints.iter().find_map(|c| c.check(ctx, op)) {
            return Err(Diagnostic::op_error(ctx, op, m));
        }
        match self.verify {
            Verify::None => Ok(()),
            Verify::Message(f) => f(ctx, op).map_err(|m| Diagnostic::op_error(ctx, op, m)),
            Verify::Diagnostic(f) => f(ctx, op),
        }
    }
    fn inherent_attributes(&self) -> &'static [&'static str] {
        self.inherent
    }
    fn has_custom_assembly(&self) -> bool {
        self.assembly.is_some()
    }
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        state: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        match self.assembly {
            Some(a) => (a.parse)(p, state),
            None => Err(p.error_here(format!("'{}' has no custom assembly form", self.name))),
        }
    }
    fn print(&self, ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
        if let Some(a) = self.assembly {
            (a.print)(ctx, op, p)
        }
    }
}

#[cfg(test)]
mod tests;
