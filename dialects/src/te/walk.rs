//! Finding the `te.compute`s of a module: the one walker every pass, tool and back end that
//! works per compute starts from.

use rtile::ir::{Context, OpId, WalkOrder};

use super::ir::COMPUTE;
use crate::func::{FUNC, sym_name};

/// Every `te.compute` nested under `root` (and `root` itself if it is one), in program
/// order (pre-order: an op before the ops in its regions).
pub fn compute_ops(ctx: &Context, root: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    ctx.walk(root, WalkOrder::PreOrder, &mut |_, o| {
        if ctx.op_name(o) == COMPUTE {
            out.push(o);
        }
    });
    out
}

/// The symbol name (without `@`) of the nearest `func.func` enclosing `op`, if any.
pub fn enclosing_func(ctx: &Context, op: OpId) -> Option<&str> {
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        if ctx.op_name(p) == FUNC {
            return sym_name(ctx, p);
        }
        cur = ctx.parent_op(p);
    }
    None
}

/// Every `te.compute` under `root` in program order, with the name of its enclosing
/// `func.func` (empty outside any function).
pub fn computes_with_func(ctx: &Context, root: OpId) -> Vec<(OpId, String)> {
    compute_ops(ctx, root)
        .into_iter()
        .map(|op| (op, enclosing_func(ctx, op).unwrap_or("").to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::te::module::{new_context, parse_and_verify};

    const TEXT: &str = r#"
func.func @a(%I: tensor<4xf32>) -> tensor<4xf32> {
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    max(%I[%i], 0.0)
  }
  %1 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %0[%i] * 2.0
  }
  func.return %1 : tensor<4xf32>
}
func.func @b(%I: tensor<4xf32>) -> tensor<4xf32> {
  %0 = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %I[%i] + 1.0
  }
  func.return %0 : tensor<4xf32>
}
"#;

    #[test]
    fn finds_computes_in_program_order_with_their_functions() {
        let mut ctx = new_context();
        let m = parse_and_verify(&mut ctx, "walk.mlir", TEXT).unwrap();
        let found = computes_with_func(&ctx, m);
        let funcs: Vec<&str> = found.iter().map(|(_, f)| f.as_str()).collect();
        assert_eq!(funcs, ["a", "a", "b"]);
        assert_eq!(
            compute_ops(&ctx, m),
            found.iter().map(|f| f.0).collect::<Vec<_>>()
        );
        assert_eq!(enclosing_func(&ctx, m), None);
        assert_eq!(compute_ops(&ctx, found[2].0), [found[2].0]);
    }
}
