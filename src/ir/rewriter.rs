//! A rewriter over the [`Builder`]: replacing ops and values, erasing with use-list
//! upkeep, moving ops and blocks, inlining blocks and regions and splitting blocks, as
//! MLIR's `RewriterBase`. Every change keeps the use lists exact; an erase that would
//! leave a use of an erased value behind is refused with a [`RewriteError`] instead.
//!
//! ```
//! use rtile::ir::{Attribute, Builder, Context, Rewriter, Type};
//!
//! let mut ctx = Context::default();
//! ctx.allow_unregistered = true;
//! let block = ctx.create_block(vec![Type::index()]);
//! let x = ctx.block_args(block)[0];
//! let mut rw = Rewriter::new(&mut ctx);
//! rw.set_insertion_point_to_end(block);
//! let twice = rw.op("arith.addi").operands(&[x, x]).result(Type::index()).build();
//! let sum = rw.ctx().result(twice, 0);
//! let user = rw.op("test.use").operand(sum).build();
//! // `x + x` becomes `x * 2`: a new op in front of the old one, which goes away.
//! rw.set_insertion_point(twice);
//! let two = rw.op("arith.constant").property("value", Attribute::int(2, Type::index()))
//!     .result(Type::index()).value();
//! let mul = rw.op("arith.muli").operands(&[x, two]).result(Type::index()).value();
//! rw.replace_op(twice, &[mul]).unwrap();
//! assert_eq!(rw.ctx().operands(user), &[mul]);
//! assert_eq!(rw.ctx().uses(x).len(), 1);
//! ```

use std::ops::{Deref, DerefMut};

use super::builder::Builder;
use super::context::{BlockId, Context, OpId, OperationState, RegionId, Value, ValueDef};

/// Why a rewrite was refused. The IR is left unchanged when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RewriteError {
    /// An op cannot be erased while its results are used outside of it.
    #[error("cannot erase '{op}': its results still have {uses} use(s)")]
    ResultsInUse { op: String, uses: usize },
    /// A block cannot be erased while values it defines are used outside of it.
    #[error("cannot erase a block: values it defines still have {uses} use(s) outside it")]
    BlockValuesInUse { uses: usize },
    /// `replace_op` got a different number of values than the op has results.
    #[error("'{op}' has {expected} result(s) but {got} replacement value(s) were given")]
    ResultCountMismatch {
        op: String,
        expected: usize,
        got: usize,
    },
    /// An op cannot be replaced by a value it defines itself.
    #[error("'{op}' cannot be replaced by a value defined inside it")]
    SelfReplacement { op: String },
    /// Inlining a block needs one value per block argument.
    #[error("the block has {expected} argument(s) but {got} value(s) were given")]
    ArgCountMismatch { expected: usize, got: usize },
    /// The anchor of a move or split is not where it must be.
    #[error("{0}")]
    BadAnchor(&'static str),
}

/// A [`Builder`] that also changes existing IR. It derefs to the builder, so ops are
/// created with the same calls.
pub struct Rewriter<'c> {
    b: Builder<'c>,
}

impl<'c> Deref for Rewriter<'c> {
    type Target = Builder<'c>;
    fn deref(&self) -> &Builder<'c> {
        &self.b
    }
}

impl DerefMut for Rewriter<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.b
    }
}

impl<'c> Rewriter<'c> {
    /// A rewriter with no insertion point.
    pub fn new(ctx: &'c mut Context) -> Self {
        Rewriter {
            b: Builder::new(ctx),
        }
    }

    // ----- values and ops ----------------------------------------------------------------

    /// Makes every user of `from` use `to`.
    pub fn replace_all_uses_with(&mut self, from: Value, to: Value) {
        self.b.ctx_mut().replace_all_uses_with(from, to);
    }

    /// Makes every user of `from` except `except` use `to` (MLIR's
    /// `replaceAllUsesExcept`: the usual way to wrap a value in a new op that reads it).
    pub fn replace_all_uses_except(&mut self, from: Value, to: Value, except: OpId) {
        let uses: Vec<_> = self.ctx().uses(from).to_vec();
        for u in uses.into_iter().filter(|u| u.op != except) {
            self.b.ctx_mut().set_operand(u.op, u.index as usize, to);
        }
    }

    /// Replaces every use of `op`'s results with `values`, then erases `op`.
    pub fn replace_op(&mut self, op: OpId, values: &[Value]) -> Result<(), RewriteError> {
        let ctx = self.ctx();
        let n = ctx.results(op).len();
        if n != values.len() {
            return Err(RewriteError::ResultCountMismatch {
                op: ctx.op_name(op).to_string(),
                expected: n,
                got: values.len(),
            });
        }
        if values.iter().any(|&v| self.defined_inside(v, op)) {
            return Err(RewriteError::SelfReplacement {
                op: ctx.op_name(op).to_string(),
            });
        }
        let results = ctx.results(op).to_vec();
        for (r, v) in results.into_iter().zip(values) {
            self.replace_all_uses_with(r, *v);
        }
        self.erase_op(op)
    }

    /// Creates the op `state` describes at the insertion point and replaces `op` with its
    /// results (MLIR's `replaceOpWithNewOp`, with the point set before `op` first).
    pub fn replace_op_with(
        &mut self,
        op: OpId,
        state: OperationState,
    ) -> Result<OpId, RewriteError> {
        let saved = self.insertion_point();
        if self.ctx().parent_block(op).is_some() {
            self.set_insertion_point(op);
        }
        let new = self.create(state);
        self.restore_insertion_point(saved);
        let vals = self.ctx().results(new).to_vec();
        match self.replace_op(op, &vals) {
            Ok(()) => Ok(new),
            Err(e) => {
                // Leave the IR as it was: the new op has no users yet.
                self.b.ctx_mut().erase_op(new);
                Err(e)
            }
        }
    }

    /// Erases `op` and everything nested in it. Refused while a result of `op` (or of an
    /// op nested in it) is used outside of it.
    pub fn erase_op(&mut self, op: OpId) -> Result<(), RewriteError> {
        let ctx = self.ctx();
        let uses = ctx
            .collect_ops(op)
            .iter()
            .flat_map(|&o| ctx.results(o))
            .flat_map(|&r| ctx.uses(r))
            .filter(|u| !ctx.is_ancestor(op, u.op))
            .count();
        if uses > 0 {
            return Err(RewriteError::ResultsInUse {
                op: ctx.op_name(op).to_string(),
                uses,
            });
        }
        if self.insertion_point().and_then(|p| p.before) == Some(op) {
            // The point moves to the op that follows, as an erased op cannot anchor it.
            let next = self.ctx().next_op(op);
            let block = self.insertion_block();
            self.restore_insertion_point(block.map(|block| super::InsertionPoint {
                block,
                before: next,
            }));
        }
        let erased = self.b.ctx_mut().erase_op(op);
        debug_assert!(erased, "uses were checked above");
        Ok(())
    }

    /// Erases `block` with its ops. Refused while its arguments or results of its ops are
    /// used outside of it.
    pub fn erase_block(&mut self, block: BlockId) -> Result<(), RewriteError> {
        let ctx = self.ctx();
        let ops: Vec<OpId> = ctx.block_ops(block).collect();
        let inside = |u: &super::Use| ops.iter().any(|&o| ctx.is_ancestor(o, u.op));
        let mut defined: Vec<Value> = ctx.block_args(block).to_vec();
        for &o in &ops {
            for n in ctx.collect_ops(o) {
                defined.extend_from_slice(ctx.results(n));
            }
        }
        let uses = defined
            .iter()
            .flat_map(|&v| ctx.uses(v))
            .filter(|u| !inside(u))
            .count();
        if uses > 0 {
            return Err(RewriteError::BlockValuesInUse { uses });
        }
        if self.insertion_block() == Some(block) {
            self.clear_insertion_point();
        }
        self.b.ctx_mut().erase_block(block);
        Ok(())
    }

    // ----- moves ------------------------------------------------------------------------

    /// Moves `op` right before `anchor` (which may be in another block).
    pub fn move_op_before(&mut self, op: OpId, anchor: OpId) -> Result<(), RewriteError> {
        self.check_move_anchor(op, anchor)?;
        let ctx = self.b.ctx_mut();
        ctx.detach_op(op);
        ctx.insert_op_before(anchor, op);
        Ok(())
    }

    /// Moves `op` right after `anchor`.
    pub fn move_op_after(&mut self, op: OpId, anchor: OpId) -> Result<(), RewriteError> {
        self.check_move_anchor(op, anchor)?;
        let ctx = self.b.ctx_mut();
        ctx.detach_op(op);
        ctx.insert_op_after(anchor, op);
        Ok(())
    }

    /// Moves `op` to the end of `block`.
    pub fn move_op_to_end(&mut self, op: OpId, block: BlockId) {
        let ctx = self.b.ctx_mut();
        ctx.detach_op(op);
        ctx.append_op(block, op);
    }

    fn check_move_anchor(&self, op: OpId, anchor: OpId) -> Result<(), RewriteError> {
        let ctx = self.ctx();
        if ctx.parent_block(anchor).is_none() {
            return Err(RewriteError::BadAnchor("the anchor op is not in a block"));
        }
        if ctx.is_ancestor(op, anchor) {
            return Err(RewriteError::BadAnchor(
                "an op cannot be moved next to itself or into its own regions",
            ));
        }
        Ok(())
    }

    /// Moves `block` right before `anchor` (in `anchor`'s region).
    pub fn move_block_before(&mut self, block: BlockId, anchor: BlockId) {
        let ctx = self.b.ctx_mut();
        if block == anchor {
            return;
        }
        ctx.detach_block(block);
        ctx.insert_block_before(anchor, block);
    }

    /// Moves `block` to the end of `region`.
    pub fn move_block_to_end(&mut self, block: BlockId, region: RegionId) {
        let ctx = self.b.ctx_mut();
        ctx.detach_block(block);
        ctx.append_block(region, block);
    }

    // ----- inlining and splitting ---------------------------------------------------------

    /// Moves every op of `source` in front of `anchor`, with `args` standing for the
    /// block's arguments, and erases the emptied `source` (MLIR's `inlineBlockBefore`).
    pub fn inline_block_before(
        &mut self,
        source: BlockId,
        anchor: OpId,
        args: &[Value],
    ) -> Result<(), RewriteError> {
        self.check_args(source, args)?;
        if self.ctx().parent_block(anchor).is_none() {
            return Err(RewriteError::BadAnchor("the anchor op is not in a block"));
        }
        if self
            .ctx()
            .block_ops(source)
            .any(|o| self.ctx().is_ancestor(o, anchor))
        {
            return Err(RewriteError::BadAnchor(
                "a block cannot be inlined into one of its own ops",
            ));
        }
        self.substitute_args(source, args);
        let ops: Vec<OpId> = self.ctx().block_ops(source).collect();
        let ctx = self.b.ctx_mut();
        for o in ops {
            ctx.detach_op(o);
            ctx.insert_op_before(anchor, o);
        }
        self.erase_block(source)
    }

    /// Moves every op of `source` to the end of `dest`, with `args` standing for
    /// `source`'s arguments, and erases the emptied `source` (MLIR's `mergeBlocks`).
    pub fn merge_blocks(
        &mut self,
        source: BlockId,
        dest: BlockId,
        args: &[Value],
    ) -> Result<(), RewriteError> {
        self.check_args(source, args)?;
        if source == dest {
            return Err(RewriteError::BadAnchor(
                "a block cannot be merged into itself",
            ));
        }
        self.substitute_args(source, args);
        let ops: Vec<OpId> = self.ctx().block_ops(source).collect();
        let ctx = self.b.ctx_mut();
        for o in ops {
            ctx.detach_op(o);
            ctx.append_op(dest, o);
        }
        self.erase_block(source)
    }

    /// Moves every block of `region` into `dest` in front of `before` (at the end when
    /// `None`), leaving `region` empty (MLIR's `inlineRegionBefore`).
    pub fn inline_region_before(
        &mut self,
        region: RegionId,
        dest: RegionId,
        before: Option<BlockId>,
    ) {
        let blocks = self.ctx().region_blocks(region).to_vec();
        for b in blocks {
            match before {
                Some(anchor) => self.move_block_before(b, anchor),
                None => self.move_block_to_end(b, dest),
            }
        }
    }

    /// Splits `block` in front of `at`: `at` and the ops after it move to a new block
    /// (no arguments) placed right after `block`, which is returned.
    pub fn split_block(&mut self, block: BlockId, at: OpId) -> Result<BlockId, RewriteError> {
        if self.ctx().parent_block(at) != Some(block) {
            return Err(RewriteError::BadAnchor(
                "the split point is not in the block",
            ));
        }
        let mut tail = Vec::new();
        let mut cur = Some(at);
        while let Some(o) = cur {
            tail.push(o);
            cur = self.ctx().next_op(o);
        }
        let ctx = self.b.ctx_mut();
        let new = ctx.create_block(Vec::new());
        let next = ctx.block_parent(block).and_then(|r| {
            let bs = ctx.region_blocks(r);
            let i = bs.iter().position(|b| *b == block)?;
            bs.get(i + 1).copied().map(Ok).or(Some(Err(r)))
        });
        match next {
            Some(Ok(anchor)) => ctx.insert_block_before(anchor, new),
            Some(Err(region)) => ctx.append_block(region, new),
            None => {}
        }
        for o in tail {
            ctx.detach_op(o);
            ctx.append_op(new, o);
        }
        Ok(new)
    }

    fn check_args(&self, source: BlockId, args: &[Value]) -> Result<(), RewriteError> {
        let n = self.ctx().block_args(source).len();
        if n != args.len() {
            return Err(RewriteError::ArgCountMismatch {
                expected: n,
                got: args.len(),
            });
        }
        Ok(())
    }

    fn substitute_args(&mut self, source: BlockId, args: &[Value]) {
        let formal = self.ctx().block_args(source).to_vec();
        for (f, a) in formal.into_iter().zip(args) {
            self.replace_all_uses_with(f, *a);
        }
    }

    /// True when `v` is a result of `op` or of an op nested in it, or an argument of a
    /// block nested in it.
    fn defined_inside(&self, v: Value, op: OpId) -> bool {
        let ctx = self.ctx();
        match ctx.value_def(v) {
            ValueDef::OpResult { op: d, .. } => ctx.is_ancestor(op, d),
            ValueDef::BlockArgument { block, .. } => ctx
                .block_parent(block)
                .and_then(|r| ctx.region_parent(r))
                .is_some_and(|p| ctx.is_ancestor(op, p)),
        }
    }
}

#[cfg(test)]
#[path = "rewriter_tests.rs"]
mod tests;
