//! The te dialect's registry entries: `te.compute` and `te.yield`, with their traits and
//! verifiers. (The custom assembly form is added on top of [`super::expr`] once the
//! core parser's `OpAsmParser` is in place.)

use rtile::diagnostics::Diagnostic;
use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::{Context, OpId};

use super::ir::{COMPUTE, YIELD, compute_from_op};
use super::verify::verify;

/// `te`: tensor expressions.
pub struct TeDialect;

impl Dialect for TeDialect {
    fn namespace(&self) -> &'static str {
        "te"
    }
    fn description(&self) -> &'static str {
        "tensor expressions: index-based computes with parallel and reduction axes (Roller §3.1)"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![Box::new(ComputeOp), Box::new(YieldOp)]
    }
}

/// `te.compute`.
pub struct ComputeOp;

impl OpDefinition for ComputeOp {
    fn name(&self) -> &'static str {
        COMPUTE
    }
    fn summary(&self) -> &'static str {
        "a tensor expression over an iteration domain of parallel and reduction axes"
    }
    fn traits(&self) -> OpTraits {
        OpTraits {
            single_block: true,
            isolated_from_above: true,
            pure: true,
            ..OpTraits::default()
        }
    }
    fn verify(&self, ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
        let (c, _) = compute_from_op(ctx, op).map_err(|m| Diagnostic::op_error(ctx, op, m))?;
        verify(&c).map_err(|e| Diagnostic::op_error(ctx, op, e.message))
    }
}

/// `te.yield`: the body's value.
pub struct YieldOp;

impl OpDefinition for YieldOp {
    fn name(&self) -> &'static str {
        YIELD
    }
    fn summary(&self) -> &'static str {
        "yields the per-point value of a te.compute body"
    }
    fn traits(&self) -> OpTraits {
        OpTraits {
            is_terminator: true,
            pure: true,
            ..OpTraits::default()
        }
    }
    fn verify(&self, ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
        let parent = ctx.parent_op(op);
        if parent.is_none_or(|p| ctx.op_name(p) != COMPUTE) {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                "expects parent op 'te.compute'",
            ));
        }
        if ctx.operands(op).len() != 1 {
            return Err(Diagnostic::op_error(ctx, op, "takes exactly one value"));
        }
        Ok(())
    }
}
