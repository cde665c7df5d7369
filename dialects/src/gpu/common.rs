//! Helpers shared by the upstream-subset dialects (gpu, scf, memref, vector): a table-driven
//! op definition and the small type checks their verifiers repeat.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::{OpDefinition, OpTraits};
use rtile::ir::attributes::Attribute;
use rtile::ir::types::Type;
use rtile::ir::{Context, OpId};

/// A verifier returning a message; the op prefix and span are added by [`SimpleOp`].
pub type VerifyFn = fn(&Context, OpId) -> Result<(), String>;

/// An op defined by its name, summary, traits and verifier (generic form only).
pub struct SimpleOp {
    pub name: &'static str,
    pub summary: &'static str,
    pub traits: OpTraits,
    pub verify: VerifyFn,
}

impl OpDefinition for SimpleOp {
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
        (self.verify)(ctx, op).map_err(|m| Diagnostic::op_error(ctx, op, m))
    }
}

/// Boxes a [`SimpleOp`].
pub fn op(
    name: &'static str,
    summary: &'static str,
    traits: OpTraits,
    verify: VerifyFn,
) -> Box<dyn OpDefinition> {
    Box::new(SimpleOp {
        name,
        summary,
        traits,
        verify,
    })
}

/// Traits of a side-effect-free op.
pub fn pure() -> OpTraits {
    OpTraits {
        pure: true,
        ..OpTraits::default()
    }
}

/// Traits of a terminator.
pub fn terminator() -> OpTraits {
    OpTraits {
        is_terminator: true,
        pure: true,
        ..OpTraits::default()
    }
}

/// Checks operand and result counts.
pub fn counts(ctx: &Context, op: OpId, operands: usize, results: usize) -> Result<(), String> {
    let (o, r) = (ctx.operands(op).len(), ctx.results(op).len());
    if o != operands {
        return Err(format!("expected {operands} operands, but found {o}"));
    }
    if r != results {
        return Err(format!("requires {results} results, but found {r}"));
    }
    Ok(())
}

/// The memory space of a memref type.
pub fn memory_space(t: &Type) -> Option<&Attribute> {
    match t {
        Type::MemRef { memory_space, .. } | Type::UnrankedMemRef { memory_space, .. } => {
            memory_space.as_deref()
        }
        _ => None,
    }
}

/// True when `a` is `#gpu.address_space<space>`.
pub fn is_address_space(a: Option<&Attribute>, space: &str) -> bool {
    match a {
        Some(Attribute::Dialect { dialect, body }) => {
            dialect == "gpu" && body.replace(' ', "") == format!("address_space<{space}>")
        }
        _ => false,
    }
}

/// Checks that `indices` values are all `index`-typed.
pub fn all_index(ctx: &Context, vals: &[rtile::ir::Value], what: &str) -> Result<(), String> {
    if vals.iter().all(|&v| *ctx.value_type(v) == Type::Index) {
        Ok(())
    } else {
        Err(format!("{what} must be of type 'index'"))
    }
}
