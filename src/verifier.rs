//! The verifier: MLIR's structural rules (live operands, SSA dominance, terminators,
//! single-block regions, successors, symbol tables), then each registered op's own
//! [`OpDefinition::verify`](crate::dialect::OpDefinition::verify) hook.
//!
//! Messages follow MLIR's `Verifier.cpp` and trait verifiers word for word, so
//! `--verify-diagnostics` tests written against `mlir-opt` match ours.

use std::collections::HashMap;

use crate::diagnostics::Diagnostic;
use crate::dialect::OpTraits;
use crate::ir::{BlockId, Context, OpId, RegionId, Value, ValueDef, WalkOrder};

/// Verifies `op` and everything nested in it; returns every error found.
///
/// Structural checks run first (pre-order, as MLIR's `verifyOnEntrance`), then each
/// registered op's own verifier in post-order (nested ops first), then SSA dominance.
pub fn verify(ctx: &Context, op: OpId) -> Result<(), Vec<Diagnostic>> {
    let mut errs = Vec::new();
    let mut post = Vec::new();
    ctx.walk(op, WalkOrder::PostOrder, &mut |_, o| post.push(o));
    // Structural checks; an op whose structure is broken does not reach its own hook,
    // since op verifiers may assume the structure (MLIR stops the same way).
    let mut structurally_ok = HashMap::new();
    for o in ctx.collect_ops(op) {
        let before = errs.len();
        verify_structure(ctx, o, &mut errs);
        structurally_ok.insert(o, errs.len() == before);
    }
    for &o in &post {
        if structurally_ok.get(&o) != Some(&true) {
            continue;
        }
        if let Some(def) = ctx.op_def(o)
            && let Err(d) = def.verify(ctx, o)
        {
            errs.push(d);
        }
        verify_dialect_attributes(ctx, o, &mut errs);
    }
    if errs.is_empty() {
        verify_dominance(ctx, op, &mut errs);
    }
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// Discardable attributes named `<dialect>.<name>` go to that dialect's attribute
/// verifier, when it has one (MLIR's `verifyOperationAttribute`).
fn verify_dialect_attributes(ctx: &Context, op: OpId, errs: &mut Vec<Diagnostic>) {
    for a in &ctx.op(op).attributes {
        let Some((ns, _)) = a.name.split_once('.') else {
            continue;
        };
        if let Some(v) = ctx.registry.attribute_verifier(ns)
            && let Err(d) = v.verify_operation_attribute(ctx, op, &a.name, &a.value)
        {
            errs.push(d);
        }
    }
}

/// Traits of `op`, `None` when it is unregistered.
fn traits_of(ctx: &Context, op: OpId) -> Option<OpTraits> {
    ctx.op_def(op).map(|d| d.traits())
}

/// Checks that need only `op` and its immediate regions.
fn verify_structure(ctx: &Context, op: OpId, errs: &mut Vec<Diagnostic>) {
    let traits = traits_of(ctx, op);
    for (i, &v) in ctx.operands(op).iter().enumerate() {
        if !ctx.value_exists(v) {
            errs.push(Diagnostic::error(
                ctx.op(op).span,
                format!("operand #{i} does not refer to a live value"),
            ));
        }
    }
    // Successors: same region as the op, and only on terminators.
    let own_region = ctx.parent_block(op).and_then(|b| ctx.block_parent(b));
    for &s in ctx.successors(op) {
        if ctx.block_parent(s) != own_region || own_region.is_none() {
            errs.push(Diagnostic::op_error(
                ctx,
                op,
                "reference to block defined in another region",
            ));
            break;
        }
    }
    if !ctx.successors(op).is_empty() && traits.is_some_and(|t| !t.is_terminator) {
        errs.push(Diagnostic::op_error(
            ctx,
            op,
            "operation with successors must be a terminator",
        ));
    }
    // A registered terminator must end its block.
    if traits.is_some_and(|t| t.is_terminator)
        && ctx.parent_block(op).is_some()
        && ctx.next_op(op).is_some()
    {
        errs.push(Diagnostic::op_error(
            ctx,
            op,
            "must be the last operation in the parent block",
        ));
    }
    let regions = ctx.regions(op);
    if let Some(t) = traits {
        if t.single_block {
            for (i, &r) in regions.iter().enumerate() {
                if ctx.region_blocks(r).len() > 1 {
                    errs.push(Diagnostic::op_error(
                        ctx,
                        op,
                        format!("expects region #{i} to have 0 or 1 blocks"),
                    ));
                }
            }
        }
        if t.symbol_table {
            verify_symbol_table(ctx, op, errs);
        }
        if t.symbol {
            verify_symbol(ctx, op, errs);
        }
    }
    for &r in regions {
        verify_region(ctx, op, traits, r, errs);
    }
}

/// Entry-block predecessors and terminators of one region of `op`.
fn verify_region(
    ctx: &Context,
    op: OpId,
    traits: Option<OpTraits>,
    region: RegionId,
    errs: &mut Vec<Diagnostic>,
) {
    let blocks = ctx.region_blocks(region);
    if let Some(&entry) = blocks.first() {
        let has_pred = blocks
            .iter()
            .flat_map(|&b| ctx.block_ops(b))
            .any(|o| ctx.successors(o).contains(&entry));
        if has_pred {
            errs.push(Diagnostic::error(
                ctx.op(op).span,
                "entry block of region may not have predecessors",
            ));
        }
    }
    // Unregistered ops and NoTerminator ops may hold blocks without terminators.
    let needs_terminator = traits.is_some_and(|t| !t.no_terminator);
    if !needs_terminator {
        return;
    }
    for &b in blocks {
        match ctx.last_op(b) {
            None => errs.push(Diagnostic::error(
                ctx.block_span(b).or(ctx.op(op).span),
                "empty block: expect at least a terminator",
            )),
            Some(last) => {
                // An unregistered last op might be a terminator: accept it, as MLIR does.
                if traits_of(ctx, last).is_some_and(|t| !t.is_terminator) {
                    errs.push(Diagnostic::error(
                        ctx.op(last).span,
                        format!("block with no terminator, has '{}'", ctx.op_name(last)),
                    ));
                }
            }
        }
    }
}

/// The `sym_name` of a symbol op, if it has one.
pub fn symbol_name(ctx: &Context, op: OpId) -> Option<&str> {
    ctx.inherent_attr(op, "sym_name").and_then(|a| a.as_str())
}

/// MLIR's `Symbol` trait: a string `sym_name`, a known visibility, and (when nested in a
/// registered op) a symbol-table parent.
fn verify_symbol(ctx: &Context, op: OpId, errs: &mut Vec<Diagnostic>) {
    if symbol_name(ctx, op).is_none() {
        errs.push(Diagnostic::op_error(
            ctx,
            op,
            "requires string attribute 'sym_name'",
        ));
    }
    if let Some(v) = ctx.inherent_attr(op, "sym_visibility") {
        let ok = matches!(v.as_str(), Some("public" | "private" | "nested"));
        if !ok {
            let got = match v.as_str() {
                Some(s) => format!("\"{s}\""),
                None => "a non-string attribute".to_string(),
            };
            errs.push(Diagnostic::op_error(
                ctx,
                op,
                format!(
                    "visibility expected to be one of [\"public\", \"private\", \"nested\"], but got {got}"
                ),
            ));
        }
    }
    // Unregistered parents might be symbol tables: accept them.
    if let Some(parent) = ctx.parent_op(op)
        && traits_of(ctx, parent).is_some_and(|t| !t.symbol_table)
    {
        errs.push(Diagnostic::op_error(
            ctx,
            op,
            "symbol's parent must have the SymbolTable trait",
        ));
    }
}

/// `sym_name`s are unique among the direct children of a symbol table.
fn verify_symbol_table(ctx: &Context, op: OpId, errs: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<&str, OpId> = HashMap::new();
    for &r in ctx.regions(op) {
        for &b in ctx.region_blocks(r) {
            for child in ctx.block_ops(b) {
                let Some(name) = symbol_name(ctx, child) else {
                    continue;
                };
                if let Some(&first) = seen.get(name) {
                    errs.push(
                        Diagnostic::error(
                            ctx.op(child).span,
                            format!("redefinition of symbol named '{name}'"),
                        )
                        .with_note(Diagnostic::note(
                            ctx.op(first).span,
                            "see existing symbol definition here",
                        )),
                    );
                } else {
                    seen.insert(name, child);
                }
            }
        }
    }
}

// ----- dominance -------------------------------------------------------------------------

/// Immediate dominators of one region's blocks (Cooper, Harvey & Kennedy, "A Simple,
/// Fast Dominance Algorithm").
#[derive(Debug)]
pub struct DomTree {
    /// Reverse-postorder number of each reachable block.
    rpo_index: HashMap<BlockId, usize>,
    /// Immediate dominator, by RPO number (the entry's is itself).
    idom: Vec<usize>,
}

impl DomTree {
    /// Builds the dominator tree of `region`'s CFG (edges are op successors).
    pub fn new(ctx: &Context, region: RegionId) -> DomTree {
        let blocks = ctx.region_blocks(region);
        let succs = |b: BlockId| -> Vec<BlockId> {
            ctx.block_ops(b)
                .flat_map(|o| ctx.successors(o).iter().copied())
                .filter(|s| ctx.block_parent(*s) == Some(region))
                .collect()
        };
        // Iterative DFS for postorder (deep CFGs must not overflow the stack).
        let mut order = Vec::new();
        let mut rpo_index = HashMap::new();
        if let Some(&entry) = blocks.first() {
            let mut visited = std::collections::HashSet::new();
            let mut stack: Vec<(BlockId, Vec<BlockId>, usize)> = vec![(entry, succs(entry), 0)];
            visited.insert(entry);
            while let Some((b, ss, i)) = stack.last_mut() {
                if *i < ss.len() {
                    let s = ss[*i];
                    *i += 1;
                    if visited.insert(s) {
                        let next = succs(s);
                        stack.push((s, next, 0));
                    }
                } else {
                    order.push(*b);
                    stack.pop();
                }
            }
            order.reverse();
            for (i, &b) in order.iter().enumerate() {
                rpo_index.insert(b, i);
            }
        }
        let n = order.len();
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, &b) in order.iter().enumerate() {
            for s in succs(b) {
                if let Some(&j) = rpo_index.get(&s) {
                    preds[j].push(i);
                }
            }
        }
        const UNDEF: usize = usize::MAX;
        let mut idom = vec![UNDEF; n];
        if n > 0 {
            idom[0] = 0;
        }
        let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
            while a != b {
                while a > b {
                    a = idom[a];
                }
                while b > a {
                    b = idom[b];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..n {
                let mut new_idom = UNDEF;
                for &p in &preds[b] {
                    if idom[p] == UNDEF {
                        continue;
                    }
                    new_idom = if new_idom == UNDEF {
                        p
                    } else {
                        intersect(&idom, p, new_idom)
                    };
                }
                if new_idom != UNDEF && idom[b] != new_idom {
                    idom[b] = new_idom;
                    changed = true;
                }
            }
        }
        DomTree { rpo_index, idom }
    }

    /// True when `b` is reachable from the region's entry.
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.rpo_index.contains_key(&b)
    }

    /// True when `a` dominates `b` (every block dominates itself). Unreachable blocks are
    /// dominated by everything, as in MLIR.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        let Some(&bi) = self.rpo_index.get(&b) else {
            return true;
        };
        let Some(&ai) = self.rpo_index.get(&a) else {
            return false;
        };
        let mut cur = bi;
        loop {
            if cur == ai {
                return true;
            }
            if cur == 0 || cur < ai {
                return false;
            }
            cur = self.idom[cur];
        }
    }
}

/// Why a use is invalid.
enum UseError {
    NotDominated,
    /// The use crosses this IsolatedFromAbove op.
    Isolated(OpId),
}

/// Checks every operand of every op nested in `root` (root's own operands come from
/// outside and are not checked).
fn verify_dominance(ctx: &Context, root: OpId, errs: &mut Vec<Diagnostic>) {
    let mut trees: HashMap<RegionId, DomTree> = HashMap::new();
    let mut ops = Vec::new();
    ctx.walk(root, WalkOrder::PreOrder, &mut |_, o| ops.push(o));
    for &user in ops.iter().skip(1) {
        for (i, &v) in ctx.operands(user).iter().enumerate() {
            if !ctx.value_exists(v) {
                continue;
            }
            match check_use(ctx, root, user, v, &mut trees) {
                Ok(()) => {}
                Err(UseError::NotDominated) => {
                    let def_span = match ctx.value_def(v) {
                        ValueDef::OpResult { op, .. } => ctx.op(op).span,
                        ValueDef::BlockArgument { block, index } => {
                            ctx.block_arg_span(block, index as usize)
                        }
                    };
                    errs.push(
                        Diagnostic::error(
                            ctx.op(user).span,
                            format!("operand #{i} does not dominate this use"),
                        )
                        .with_note(Diagnostic::note(def_span, "operand defined here")),
                    );
                }
                Err(UseError::Isolated(iso)) => {
                    errs.push(
                        Diagnostic::error(
                            ctx.op(user).span,
                            "using value defined outside the region",
                        )
                        .with_note(Diagnostic::note(
                            ctx.op(iso).span,
                            "required by region isolation constraints",
                        )),
                    );
                }
            }
        }
    }
}

/// Whether region `r` (owned by `owner`) follows SSACFG dominance rules. As MLIR's
/// `mayHaveSSADominance`, regions of unregistered ops do not: nothing is known of them,
/// and mlir-opt-22 accepts forward uses there.
fn is_ssacfg(ctx: &Context, owner: Option<OpId>) -> bool {
    match owner {
        None => true,
        Some(o) => traits_of(ctx, o).is_some_and(|t| !t.graph_regions),
    }
}

fn check_use(
    ctx: &Context,
    root: OpId,
    user: OpId,
    v: Value,
    trees: &mut HashMap<RegionId, DomTree>,
) -> Result<(), UseError> {
    let Some(def_block) = ctx.value_block(v) else {
        return Err(UseError::NotDominated);
    };
    let Some(def_region) = ctx.block_parent(def_block) else {
        return Err(UseError::NotDominated);
    };
    // Climb from the user to its ancestor that sits in the def's region.
    let mut anc = user;
    loop {
        let Some(b) = ctx.parent_block(anc) else {
            return Err(UseError::NotDominated);
        };
        if ctx.block_parent(b) == Some(def_region) {
            break;
        }
        let Some(parent) = ctx.parent_op(anc) else {
            return Err(UseError::NotDominated);
        };
        if traits_of(ctx, parent).is_some_and(|t| t.isolated_from_above) {
            return Err(UseError::Isolated(parent));
        }
        if parent == root {
            // The def lies outside the verified op: not ours to judge.
            return Ok(());
        }
        anc = parent;
    }
    if !is_ssacfg(ctx, ctx.region_parent(def_region)) {
        return Ok(());
    }
    let Some(anc_block) = ctx.parent_block(anc) else {
        return Err(UseError::NotDominated);
    };
    if anc_block == def_block {
        return match ctx.value_def(v) {
            ValueDef::BlockArgument { .. } => Ok(()),
            ValueDef::OpResult { op: def_op, .. } => {
                // The def must come strictly before the user's ancestor.
                let mut cur = ctx.prev_op(anc);
                while let Some(o) = cur {
                    if o == def_op {
                        return Ok(());
                    }
                    cur = ctx.prev_op(o);
                }
                Err(UseError::NotDominated)
            }
        };
    }
    let tree = trees
        .entry(def_region)
        .or_insert_with(|| DomTree::new(ctx, def_region));
    if tree.dominates(def_block, anc_block) {
        Ok(())
    } else {
        Err(UseError::NotDominated)
    }
}

#[cfg(test)]
mod tests;
