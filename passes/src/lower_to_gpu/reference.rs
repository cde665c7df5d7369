//! The reference a host function carries (`rtile.te`): the te function it was lowered
//! from, which `rtile-run --sim` runs in the interpreter as the oracle.

use rtile::ir::{Context, OpId};
use rtile::printer::{PrintOptions, print_op};
use rtile_dialects::te::ir::COMPUTE;

/// The te function as a reference for `rtile-run --sim`: `f` printed in custom form
/// without its computes' `rtile.program(s)` (taken off for the print, then put back).
pub(super) fn reference_text(ctx: &mut Context, f: OpId) -> String {
    let computes: Vec<OpId> = ctx
        .collect_ops(f)
        .into_iter()
        .filter(|&o| ctx.op_name(o) == COMPUTE)
        .collect();
    let mut saved = Vec::new();
    for &o in &computes {
        for n in ["rtile.program", "rtile.programs"] {
            if let Some(a) = ctx.remove_attr(o, n) {
                saved.push((o, n, a));
            }
        }
    }
    let text = print_op(ctx, f, &PrintOptions::default());
    for (o, n, a) in saved {
        ctx.set_attr(o, n, a);
    }
    text
}
