//! An IR builder with an insertion point, as MLIR's `OpBuilder` (and pliron's inserter):
//! ops are created into the [`Context`] arena and linked in at the current insertion
//! point, so a pass writes IR as a sequence of calls instead of text to parse back.
//!
//! ```
//! use rtile::ir::{Attribute, Builder, Context, Type};
//!
//! let mut ctx = Context::default();
//! ctx.allow_unregistered = true;
//! let mut b = Builder::new(&mut ctx);
//! let module = b.op("builtin.module").regions(1).build();
//! let body = b.create_block_in(b.ctx().regions(module)[0], &[]);
//! // `create_block_in` moved the insertion point to the end of `body`.
//! let c = b
//!     .op("arith.constant")
//!     .property("value", Attribute::int(4, Type::index()))
//!     .result(Type::index())
//!     .value();
//! let sum = b.op("arith.addi").operands(&[c, c]).result(Type::index()).value();
//! assert_eq!(b.ctx().uses(c).len(), 2);
//! assert_eq!(b.ctx().value_type(sum), &Type::index());
//! assert_eq!(b.ctx().block_ops(body).count(), 2);
//! ```

use super::attributes::{Attribute, NamedAttribute};
use super::context::{BlockId, Context, OpId, OperationState, RegionId, Value};
use super::location::Location;
use super::types::Type;
use crate::ir::AttrKind;

/// Where the next op goes: before `before` in `block`, or at the end of `block` when
/// `before` is `None` (MLIR's block + iterator pair). Inserting several ops in a row keeps
/// their order, since the point stays in front of the same op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InsertionPoint {
    /// The block ops are inserted into.
    pub block: BlockId,
    /// The op new ops go in front of; `None`: the end of the block.
    pub before: Option<OpId>,
}

impl InsertionPoint {
    /// The end of `block`.
    pub fn block_end(block: BlockId) -> Self {
        InsertionPoint {
            block,
            before: None,
        }
    }

    /// The start of `block` (before its first op, whatever is inserted there later).
    pub fn block_start(ctx: &Context, block: BlockId) -> Self {
        InsertionPoint {
            block,
            before: ctx.first_op(block),
        }
    }

    /// Right before `op`; `None` when `op` is not in a block.
    pub fn before(ctx: &Context, op: OpId) -> Option<Self> {
        Some(InsertionPoint {
            block: ctx.parent_block(op)?,
            before: Some(op),
        })
    }

    /// Right after `op`; `None` when `op` is not in a block.
    pub fn after(ctx: &Context, op: OpId) -> Option<Self> {
        Some(InsertionPoint {
            block: ctx.parent_block(op)?,
            before: ctx.next_op(op),
        })
    }
}

/// Creates ops, blocks and regions in a [`Context`] at an insertion point.
pub struct Builder<'c> {
    ctx: &'c mut Context,
    ip: Option<InsertionPoint>,
    loc: Location,
}

impl<'c> Builder<'c> {
    /// A builder with no insertion point: ops it creates stay detached until inserted.
    pub fn new(ctx: &'c mut Context) -> Self {
        Builder {
            ctx,
            ip: None,
            loc: Location::Unknown,
        }
    }

    /// A builder inserting at the end of `block`.
    pub fn at_end(ctx: &'c mut Context, block: BlockId) -> Self {
        let mut b = Builder::new(ctx);
        b.set_insertion_point_to_end(block);
        b
    }

    /// The context (read-only).
    pub fn ctx(&self) -> &Context {
        self.ctx
    }

    /// The context, for changes the builder does not wrap.
    pub fn ctx_mut(&mut self) -> &mut Context {
        self.ctx
    }

    // ----- insertion point -------------------------------------------------------------

    /// The current insertion point (save it to restore later, as MLIR's `InsertionGuard`).
    pub fn insertion_point(&self) -> Option<InsertionPoint> {
        self.ip
    }
    /// Restores a saved insertion point (`None`: new ops stay detached).
    pub fn restore_insertion_point(&mut self, ip: Option<InsertionPoint>) {
        self.ip = ip;
    }
    /// The block the next op goes into.
    pub fn insertion_block(&self) -> Option<BlockId> {
        self.ip.map(|p| p.block)
    }
    /// New ops go to the end of `block`.
    pub fn set_insertion_point_to_end(&mut self, block: BlockId) {
        self.ip = Some(InsertionPoint::block_end(block));
    }
    /// New ops go to the start of `block`, in front of its current first op.
    pub fn set_insertion_point_to_start(&mut self, block: BlockId) {
        self.ip = Some(InsertionPoint::block_start(self.ctx, block));
    }
    /// New ops go right before `op`. Panics when `op` is detached (a builder bug, not
    /// user input).
    pub fn set_insertion_point(&mut self, op: OpId) {
        self.ip = Some(InsertionPoint::before(self.ctx, op).expect("op is not in a block"));
    }
    /// New ops go right after `op` (and after each other). Panics when `op` is detached.
    pub fn set_insertion_point_after(&mut self, op: OpId) {
        self.ip = Some(InsertionPoint::after(self.ctx, op).expect("op is not in a block"));
    }
    /// Drops the insertion point: new ops stay detached.
    pub fn clear_insertion_point(&mut self) {
        self.ip = None;
    }

    /// The location given to the ops created from now on.
    pub fn set_location(&mut self, loc: Location) {
        self.loc = loc;
    }
    /// The location given to new ops.
    pub fn location(&self) -> &Location {
        &self.loc
    }

    // ----- ops ---------------------------------------------------------------------------

    /// Links a detached `op` in at the insertion point (no-op without one).
    pub fn insert(&mut self, op: OpId) -> OpId {
        match self.ip {
            Some(InsertionPoint {
                before: Some(anchor),
                ..
            }) => self.ctx.insert_op_before(anchor, op),
            Some(InsertionPoint {
                block,
                before: None,
            }) => self.ctx.append_op(block, op),
            None => {}
        }
        op
    }

    /// Creates the op `state` describes and inserts it (MLIR's `OpBuilder::create`).
    /// A state without a location gets the builder's; a registered op's properties left
    /// out get their defaults (`overflowFlags` of `arith.addi`, ...).
    pub fn create(&mut self, mut state: OperationState) -> OpId {
        if matches!(state.location, Location::Unknown) {
            state.location = self.loc.clone();
        }
        // The properties left out take their defaults, as the parser gives them, so a
        // built op is the op its text would parse to.
        if let Some(d) = self.ctx.registry.op(&state.name) {
            state.fill_default_properties(d.default_properties());
        }
        let op = self.ctx.create_op(state);
        self.insert(op)
    }

    /// Starts an op named `name`; finish it with [`OpDraft::build`] or [`OpDraft::value`].
    pub fn op(&mut self, name: &str) -> OpDraft<'_, 'c> {
        OpDraft {
            b: self,
            state: OperationState::new(name),
            props: Vec::new(),
            new_regions: 0,
        }
    }

    // ----- blocks and regions ------------------------------------------------------------

    /// Creates a block with arguments of `arg_types` at the end of `region` and moves the
    /// insertion point to its end (as MLIR's `createBlock`).
    pub fn create_block_in(&mut self, region: RegionId, arg_types: &[Type]) -> BlockId {
        let b = self.ctx.create_block(arg_types.to_vec());
        self.ctx.append_block(region, b);
        self.set_insertion_point_to_end(b);
        b
    }

    /// Creates a block with arguments of `arg_types` right before `anchor` (in its region)
    /// and moves the insertion point to its end.
    pub fn create_block_before(&mut self, anchor: BlockId, arg_types: &[Type]) -> BlockId {
        let b = self.ctx.create_block(arg_types.to_vec());
        self.ctx.insert_block_before(anchor, b);
        self.set_insertion_point_to_end(b);
        b
    }

    /// Creates a detached region, to hand to an op through [`OpDraft::region`].
    pub fn create_region(&mut self) -> RegionId {
        self.ctx.create_region()
    }
}

/// An op being described: operands, result types, attributes, properties, regions and
/// successors. Nothing exists in the context until [`OpDraft::build`].
pub struct OpDraft<'b, 'c> {
    b: &'b mut Builder<'c>,
    state: OperationState,
    props: Vec<NamedAttribute>,
    new_regions: usize,
}

impl<'b, 'c> OpDraft<'b, 'c> {
    /// Appends operands.
    pub fn operands(mut self, vs: &[Value]) -> Self {
        self.state.operands.extend_from_slice(vs);
        self
    }
    /// Appends one operand.
    pub fn operand(mut self, v: Value) -> Self {
        self.state.operands.push(v);
        self
    }
    /// Appends result types.
    pub fn results(mut self, tys: impl IntoIterator<Item = Type>) -> Self {
        self.state.result_types.extend(tys);
        self
    }
    /// Appends one result type.
    pub fn result(mut self, ty: Type) -> Self {
        self.state.result_types.push(ty);
        self
    }
    /// Sets a discardable attribute (`{name = value}` in generic form).
    pub fn attr(mut self, name: &str, value: Attribute) -> Self {
        self.state.add_attribute(name, value);
        self
    }
    /// Sets an inherent property (`<{name = value}>` in generic form).
    pub fn property(mut self, name: &str, value: Attribute) -> Self {
        match self.props.binary_search_by(|a| a.name.as_str().cmp(name)) {
            Ok(i) => self.props[i].value = value,
            Err(i) => self.props.insert(
                i,
                NamedAttribute {
                    name: name.to_string().into(),
                    value,
                },
            ),
        }
        self
    }
    /// Hands the op a region built beforehand (detached, from
    /// [`Builder::create_region`]).
    pub fn region(mut self, r: RegionId) -> Self {
        self.state.regions.push(r);
        self
    }
    /// Gives the op `n` new empty regions after those handed in (fill them with
    /// [`Builder::create_block_in`]).
    pub fn regions(mut self, n: usize) -> Self {
        self.new_regions += n;
        self
    }
    /// Appends a successor block.
    pub fn successor(mut self, b: BlockId) -> Self {
        self.state.successors.push(b);
        self
    }
    /// Sets the op's location (default: the builder's).
    pub fn loc(mut self, loc: Location) -> Self {
        self.state.location = loc;
        self
    }

    /// Creates the op and inserts it at the builder's insertion point.
    pub fn build(self) -> OpId {
        self.finish().1
    }

    /// Creates the op and returns its only result. Panics when the op does not have
    /// exactly one result (a builder bug, not user input).
    pub fn value(self) -> Value {
        let n = self.state.result_types.len();
        assert_eq!(n, 1, "OpDraft::value on an op with {n} results");
        let (b, op) = self.finish();
        b.ctx.result(op, 0)
    }

    /// Creates the op and returns its results.
    pub fn values(self) -> Vec<Value> {
        let (b, op) = self.finish();
        b.ctx.results(op).to_vec()
    }

    fn finish(mut self) -> (&'b mut Builder<'c>, OpId) {
        if !self.props.is_empty() {
            self.state.properties = Some(Attribute::new(AttrKind::Dictionary(self.props)));
        }
        for _ in 0..self.new_regions {
            let r = self.b.ctx.create_region();
            self.state.regions.push(r);
        }
        let op = self.b.create(self.state);
        (self.b, op)
    }
}
