//! The load-time check: every op inside a `gpu.func` is in the vocabulary.

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, WalkOrder};

use crate::op::GpuOp;

/// Decodes every op nested in a `gpu.func` under `root`; the first op outside the
/// vocabulary is the error, at that op, naming it and its `gpu.func`, prefixed with `tool`
/// (a comparison without a known predicate is the decoder's error). The back ends and the
/// simulator call this before translating, so a module they cannot handle is refused as a
/// whole instead of half-translated.
pub fn check_module(ctx: &Context, root: OpId, tool: &str) -> Result<(), Diagnostic> {
    let mut funcs = Vec::new();
    ctx.walk(root, WalkOrder::PreOrder, &mut |_, op| {
        if ctx.op_name(op) == "gpu.func" {
            funcs.push(op);
        }
    });
    for f in funcs {
        let mut first = None;
        ctx.walk(f, WalkOrder::PreOrder, &mut |_, op| {
            if op != f && first.is_none() {
                first = GpuOp::decode(ctx, op).err().map(|e| (op, e));
            }
        });
        let Some((op, e)) = first else { continue };
        let name = ctx.op_name(op);
        if GpuOp::is_vocabulary_name(name) {
            return Err(e);
        }
        let func = ctx
            .inherent_attr(f, "sym_name")
            .and_then(|a| a.as_str())
            .unwrap_or("?");
        return Err(Diagnostic::error(
            ctx.op(op).span,
            format!(
                "{tool}: unsupported operation '{name}' in gpu.func @{func} (it is not in the gpu-level vocabulary; see docs/targets.md for the supported op set)"
            ),
        ));
    }
    Ok(())
}
