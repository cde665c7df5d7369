//! `--symbol-dce`: MLIR's SymbolDCE. In every symbol table, erases the symbols that may be
//! discarded (private ones, and `nested` ones in a table not visible from outside) and
//! that no live operation references through a symbol reference attribute.
//!
//! Liveness is a worklist over operations: every non-symbol op in a table and every
//! non-discardable symbol is live; a live op makes live whatever its attributes (and
//! those of the ops nested in it, not crossing nested symbol tables) reference; a live
//! symbol table op has its own table's liveness computed the same way. References resolve
//! in the nearest symbol table only, as in MLIR; a nested reference `@a::@b` keeps every
//! symbol on its path alive.

use std::collections::HashSet;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{AttrKind, Attribute, Context, OpId, WalkOrder};
use rtile::pass::{Pass, PassStatistics};
use rtile::verifier::symbol_name;

/// The `symbol-dce` pass.
pub struct SymbolDce;

/// True when `op` defines a symbol table (its region's children are symbols).
fn is_symbol_table(ctx: &Context, op: OpId) -> bool {
    ctx.op_def(op).is_some_and(|d| d.traits().symbol_table)
}

/// True when `op` is a symbol: a registered op with a `sym_name` (MLIR's
/// `SymbolOpInterface`; unregistered ops are never symbols).
fn is_symbol(ctx: &Context, op: OpId) -> bool {
    ctx.op_def(op).is_some() && symbol_name(ctx, op).is_some()
}

/// The `sym_visibility` of a symbol (`None` = public).
fn visibility(ctx: &Context, op: OpId) -> Option<&str> {
    ctx.inherent_attr(op, "sym_visibility")
        .and_then(|a| a.as_str())
}

fn is_private(ctx: &Context, op: OpId) -> bool {
    visibility(ctx, op) == Some("private")
}

fn is_public(ctx: &Context, op: OpId) -> bool {
    matches!(visibility(ctx, op), None | Some("public"))
}

/// The direct children of every block of `table`'s regions.
fn children(ctx: &Context, table: OpId) -> Vec<OpId> {
    ctx.regions(table)
        .iter()
        .flat_map(|&r| ctx.region_blocks(r).iter())
        .flat_map(|&b| ctx.block_ops(b))
        .collect()
}

/// Every symbol reference held by an attribute, recursively.
fn collect_refs<'a>(a: &'a Attribute, out: &mut Vec<(&'a str, &'a [String])>) {
    match a.kind() {
        AttrKind::SymbolRef { root, nested } => out.push((root, nested)),
        AttrKind::Array(v) => v.iter().for_each(|x| collect_refs(x, out)),
        AttrKind::Dictionary(v) => v.iter().for_each(|n| collect_refs(&n.value, out)),
        _ => {}
    }
}

/// The symbol uses of `op`: its own attributes and those of the ops nested in it, not
/// looking inside nested symbol tables (they are handled by their own liveness).
fn symbol_uses(ctx: &Context, op: OpId) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut stack = vec![op];
    while let Some(o) = stack.pop() {
        let data = ctx.op(o);
        for a in &data.attributes {
            collect_refs(&a.value, &mut out);
        }
        if let Some(p) = &data.properties {
            collect_refs(p, &mut out);
        }
        if o == op || !is_symbol_table(ctx, o) {
            for &r in ctx.regions(o) {
                for &b in ctx.region_blocks(r) {
                    stack.extend(ctx.block_ops(b));
                }
            }
        }
    }
    out.into_iter()
        .map(|(r, n)| (r.to_string(), n.to_vec()))
        .collect()
}

/// The symbol named `name` directly in `table`.
fn lookup(ctx: &Context, table: OpId, name: &str) -> Option<OpId> {
    children(ctx, table)
        .into_iter()
        .find(|&c| is_symbol(ctx, c) && symbol_name(ctx, c) == Some(name))
}

/// Marks live the symbols of `table` reachable from its live ops (MLIR's
/// `computeLiveness`). A symbol is discardable when it is not public and either it is
/// private or its table is hidden (not reachable from an enclosing scope), as mlir-opt
/// does: `nested` symbols of the top-level module are erased when unused.
fn compute_liveness(ctx: &Context, table: OpId, hidden: bool, live: &mut HashSet<OpId>) {
    let mut worklist = Vec::new();
    for op in children(ctx, table) {
        if !is_symbol(ctx, op) {
            worklist.push(op);
            continue;
        }
        let discardable = (hidden || is_private(ctx, op)) && !is_public(ctx, op);
        if !discardable && live.insert(op) {
            worklist.push(op);
        }
    }
    while let Some(op) = worklist.pop() {
        if is_symbol_table(ctx, op) {
            let sym_hidden = hidden || !is_symbol(ctx, op) || is_private(ctx, op);
            compute_liveness(ctx, op, sym_hidden, live);
        }
        let Some(scope) = ctx.parent_op(op) else {
            continue;
        };
        for (root, nested) in symbol_uses(ctx, op) {
            // Unknown symbols are ignored, as in MLIR.
            let Some(mut sym) = lookup(ctx, scope, &root) else {
                continue;
            };
            let mut path = vec![sym];
            for n in &nested {
                match lookup(ctx, sym, n) {
                    Some(s) => {
                        sym = s;
                        path.push(s);
                    }
                    None => break,
                }
            }
            for s in path {
                if live.insert(s) {
                    worklist.push(s);
                }
            }
        }
    }
}

rtile::declare_pass! {
    pass SymbolDce {
        flag: "symbol-dce",
        display_name: "SymbolDCE",
        summary: "Eliminate dead symbols",
        description: "Erases private symbols that no live symbol references, to a fixed point (MLIR's SymbolDCE).",
        statistics {
            NUM_DCED: "num-dce'd", "Number of symbols DCE'd";
        }
    }
}

impl Pass for SymbolDce {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        if !is_symbol_table(ctx, op) {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                " was scheduled to run under SymbolDCE, but does not define a symbol table",
            ));
        }
        // A top-level table is hidden; a nested one run on directly is visible from its
        // parent unless it is private.
        let hidden = if ctx.parent_op(op).is_some() && is_symbol(ctx, op) {
            is_private(ctx, op)
        } else {
            true
        };
        let mut live = HashSet::new();
        compute_liveness(ctx, op, hidden, &mut live);
        // Post-order, as MLIR's walk: nested tables are swept before their parents.
        let mut tables = Vec::new();
        ctx.walk(op, WalkOrder::PostOrder, &mut |_, o| {
            if is_symbol_table(ctx, o) {
                tables.push(o);
            }
        });
        for t in tables {
            if !ctx.op_exists(t) {
                continue;
            }
            for c in children(ctx, t) {
                if is_symbol(ctx, c) && !live.contains(&c) && ctx.erase_op(c) {
                    stats.add(Self::NUM_DCED, 1);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;

    fn names(ctx: &Context, table: OpId) -> Vec<String> {
        children(ctx, table)
            .into_iter()
            .map(|c| symbol_name(ctx, c).unwrap_or("-").to_string())
            .collect()
    }

    fn run(ctx: &mut Context, m: OpId) -> u64 {
        let mut stats = PassStatistics::declared(SymbolDce::DECL.statistics);
        SymbolDce.run(ctx, m, &mut stats).unwrap();
        stats.get("num-dce'd").unwrap()
    }

    #[test]
    fn removes_unreferenced_private_symbols_to_a_fixed_point() {
        let mut c = ctx();
        let (m, mb) = module(&mut c, None);
        let public = func(&mut c, mb, "public", None);
        let live = func(&mut c, mb, "live", Some("private"));
        let chained = func(&mut c, mb, "chained", Some("private"));
        func(&mut c, mb, "dead", Some("private"));
        let dead_rec = func(&mut c, mb, "dead_rec", Some("private"));
        let dead_caller = func(&mut c, mb, "dead_caller", Some("private"));
        func(&mut c, mb, "nested_vis", Some("nested"));
        call(&mut c, public, "live");
        call(&mut c, live, "chained");
        // Self-recursion and calls from dead code keep nothing alive.
        call(&mut c, dead_rec, "dead_rec");
        call(&mut c, dead_caller, "dead_rec");
        let _ = chained;
        assert_eq!(run(&mut c, m), 4);
        assert_eq!(names(&c, m), ["public", "live", "chained"]);
        assert!(rtile::verifier::verify(&c, m).is_ok());
    }

    #[test]
    fn references_from_non_symbol_ops_and_nested_attributes() {
        let mut c = ctx();
        let (m, mb) = module(&mut c, None);
        func(&mut c, mb, "a", Some("private"));
        func(&mut c, mb, "b", Some("private"));
        func(&mut c, mb, "unused", Some("private"));
        let user = c.create_op(rtile::ir::OperationState::new("test.user"));
        c.append_op(mb, user);
        c.set_attr(
            user,
            "refs",
            Attribute::new(AttrKind::Array(vec![Attribute::dictionary(vec![
                rtile::ir::NamedAttribute {
                    name: "x".into(),
                    value: Attribute::symbol("a"),
                },
            ])])),
        );
        c.op_mut(user).properties = Some(Attribute::dictionary(vec![rtile::ir::NamedAttribute {
            name: "callee".into(),
            value: Attribute::symbol("b"),
        }]));
        assert_eq!(run(&mut c, m), 1);
        assert_eq!(names(&c, m), ["a", "b", "-"]);
    }

    #[test]
    fn nested_symbol_tables_and_nested_references() {
        let mut c = ctx();
        let (m, mb) = module(&mut c, None);
        let (inner, ib) = module(&mut c, Some(mb));
        c.set_attr(inner, "sym_name", Attribute::string("inner"));
        func(&mut c, ib, "dead_nested", Some("private"));
        func(&mut c, ib, "kept_nested", Some("private"));
        func(&mut c, ib, "nested_fn", Some("nested"));
        let user = c.create_op(rtile::ir::OperationState::new("test.user"));
        c.append_op(mb, user);
        c.set_attr(
            user,
            "uses",
            Attribute::new(AttrKind::SymbolRef {
                root: "inner".into(),
                nested: vec!["kept_nested".into()],
            }),
        );
        // A dead private nested module is erased with its contents (which MLIR counts).
        let (dead_mod, db) = module(&mut c, Some(mb));
        c.set_attr(dead_mod, "sym_name", Attribute::string("dead_mod"));
        c.set_attr(dead_mod, "sym_visibility", Attribute::string("private"));
        func(&mut c, db, "f", None);
        // Checked against mlir-opt-22: the unused `nested` symbol of a public nested module
        // of the top-level module goes too.
        assert_eq!(run(&mut c, m), 4);
        assert_eq!(names(&c, m), ["inner", "-"]);
        assert_eq!(names(&c, inner), ["kept_nested"]);
    }

    #[test]
    fn nested_symbols_of_a_visible_table_are_kept() {
        // Run directly on a public nested module: its table is visible from the parent.
        let mut c = ctx();
        let (_m, mb) = module(&mut c, None);
        let (inner, ib) = module(&mut c, Some(mb));
        c.set_attr(inner, "sym_name", Attribute::string("inner"));
        func(&mut c, ib, "nested_fn", Some("nested"));
        func(&mut c, ib, "private_fn", Some("private"));
        assert_eq!(run(&mut c, inner), 1);
        assert_eq!(names(&c, inner), ["nested_fn"]);
    }

    #[test]
    fn rejects_non_symbol_tables() {
        let mut c = ctx();
        let (_m, mb) = module(&mut c, None);
        let f = func(&mut c, mb, "f", None);
        let err = SymbolDce
            .run(&mut c, f, &mut PassStatistics::default())
            .unwrap_err();
        assert_eq!(
            err.message,
            "'func.func' op  was scheduled to run under SymbolDCE, but does not define a symbol table"
        );
    }
}
