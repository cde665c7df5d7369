//! The IR arena: operations, blocks, regions and SSA values, addressed by typed,
//! generational handles (slotmap keys) in the style of pliron. A stale handle (to an
//! erased op) is detected instead of aliasing a new one.
//!
//! Ownership follows MLIR: an operation owns its regions, a region owns its blocks, a
//! block owns its arguments and its operations (an intrusive doubly-linked list, so
//! insertion and removal are O(1)), an operation owns its results. Every value keeps its
//! use list, so `replace_all_uses_with` touches only the users.

use crate::ir::AttrKind;
use std::sync::Arc;

use slotmap::{SlotMap, new_key_type};

use super::attributes::{Attribute, NamedAttribute};
use super::identifier::Identifier;
use super::location::{Location, Span};
use super::types::Type;
use crate::dialect::{DialectRegistry, OpDefinition};

new_key_type! {
    /// Handle of an operation.
    pub struct OpId;
    /// Handle of a block.
    pub struct BlockId;
    /// Handle of a region.
    pub struct RegionId;
    /// Handle of an SSA value (an op result or a block argument).
    pub struct Value;
}

/// Where a value is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// Result `index` of `op`.
    OpResult { op: OpId, index: u32 },
    /// Argument `index` of `block`.
    BlockArgument { block: BlockId, index: u32 },
}

/// One use of a value: operand `index` of `op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    pub op: OpId,
    pub index: u32,
}

#[derive(Debug)]
struct ValueData {
    ty: Type,
    def: ValueDef,
    uses: Vec<Use>,
}

/// An operation's stored data. Fields that keep the IR consistent (operands, results,
/// links) are private; use the [`Context`] methods to change them.
#[derive(Debug)]
pub struct OperationData {
    /// Full name, `dialect.op` (interned).
    pub name: Identifier,
    operands: Vec<Value>,
    results: Vec<Value>,
    /// Discardable attributes, kept sorted by name (MLIR's attribute dictionary).
    pub attributes: Vec<NamedAttribute>,
    /// Inherent properties, printed as `<{...}>` in generic form (a dictionary), if any.
    pub properties: Option<Attribute>,
    regions: Vec<RegionId>,
    successors: Vec<BlockId>,
    /// The `loc(...)` of the op (Unknown when none was written).
    pub location: Location,
    /// Where the op was parsed from, for diagnostics.
    pub span: Option<Span>,
    parent: Option<BlockId>,
    prev: Option<OpId>,
    next: Option<OpId>,
}

#[derive(Debug, Default)]
struct BlockData {
    args: Vec<Value>,
    arg_spans: Vec<Option<Span>>,
    /// Locations of the arguments (`loc(...)` after `%arg: type`); `None` when not set.
    arg_locs: Vec<Option<Location>>,
    first: Option<OpId>,
    last: Option<OpId>,
    parent: Option<RegionId>,
    span: Option<Span>,
}

#[derive(Debug, Default)]
struct RegionData {
    blocks: Vec<BlockId>,
    parent: Option<OpId>,
}

/// A source file registered with the context, for diagnostics.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The name shown in diagnostics (path, or `<stdin>`).
    pub name: String,
    /// Full text.
    pub text: Arc<str>,
}

/// Everything needed to create an operation (MLIR's `OperationState`).
#[derive(Debug, Clone)]
pub struct OperationState {
    pub name: Identifier,
    pub operands: Vec<Value>,
    pub result_types: Vec<Type>,
    pub attributes: Vec<NamedAttribute>,
    pub properties: Option<Attribute>,
    /// Regions already built (detached, created with [`Context::create_region`]).
    pub regions: Vec<RegionId>,
    pub successors: Vec<BlockId>,
    pub location: Location,
    pub span: Option<Span>,
}

impl OperationState {
    /// An empty state for op `name`.
    pub fn new(name: impl Into<Identifier>) -> Self {
        OperationState {
            name: name.into(),
            operands: Vec::new(),
            result_types: Vec::new(),
            attributes: Vec::new(),
            properties: None,
            regions: Vec::new(),
            successors: Vec::new(),
            location: Location::Unknown,
            span: None,
        }
    }
    /// Adds the `defaults` (an op definition's default properties) that neither the
    /// properties nor the attributes give, keeping the properties sorted by name, as MLIR
    /// fills in the properties a builder or the text leaves out.
    pub fn fill_default_properties(&mut self, defaults: Vec<NamedAttribute>) {
        if defaults.is_empty() {
            return;
        }
        let mut props = match self.properties {
            Some(p) => match p.kind() {
                AttrKind::Dictionary(entries) => entries.clone(),
                _ => return,
            },
            None => Vec::new(),
        };
        for d in defaults {
            let given = props.iter().any(|p| p.name == d.name)
                || self.attributes.iter().any(|a| a.name == d.name);
            if !given {
                props.push(d);
            }
        }
        props.sort_by_key(|a| a.name);
        self.properties =
            (!props.is_empty()).then_some(Attribute::new(AttrKind::Dictionary(props)));
    }
    /// Adds (or replaces) a discardable attribute.
    pub fn add_attribute(&mut self, name: impl Into<String>, value: Attribute) {
        let name = name.into();
        match self
            .attributes
            .binary_search_by(|a| a.name.as_str().cmp(&name))
        {
            Ok(i) => self.attributes[i].value = value,
            Err(i) => self.attributes.insert(
                i,
                NamedAttribute {
                    name: name.into(),
                    value,
                },
            ),
        }
    }
}

/// Walk order for [`Context::walk`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkOrder {
    /// Visit an op before the ops nested in its regions.
    PreOrder,
    /// Visit an op after the ops nested in its regions.
    PostOrder,
}

/// The IR arena plus the dialect registry and the source files it was parsed from.
pub struct Context {
    ops: SlotMap<OpId, OperationData>,
    blocks: SlotMap<BlockId, BlockData>,
    regions: SlotMap<RegionId, RegionData>,
    values: SlotMap<Value, ValueData>,
    /// Registered dialects and op definitions.
    pub registry: Arc<DialectRegistry>,
    /// Accept ops of dialects that are not registered (`--allow-unregistered-dialect`).
    pub allow_unregistered: bool,
    /// Source files, indexed by [`Span::file`].
    pub sources: Vec<SourceFile>,
    /// Alias definitions the input referenced inside the text of a dialect attribute or
    /// type (`#a = "x"` used as `#foo.attr<#a>`): the text keeps `#a`, so the printer
    /// defines it again for the output to stay readable.
    pub text_aliases: Vec<TextAlias>,
    /// The `{-# ... #-}` section the input ended with, printed back after the module.
    pub resources: super::FileResources,
    /// Non-fatal diagnostics (warnings, remarks) that passes emitted, in order, for the
    /// driver to render or check (`--verify-diagnostics`), as MLIR's diagnostic engine does.
    emitted: Vec<crate::diagnostics::Diagnostic>,
}

/// An alias definition that a dialect attribute's or type's text refers to by name.
#[derive(Clone, Debug, PartialEq)]
pub enum TextAlias {
    /// `#name = attribute`.
    Attr(String, super::Attribute),
    /// `!name = type`.
    Type(String, super::Type),
}

impl Default for Context {
    fn default() -> Self {
        Context::new(Arc::new(DialectRegistry::with_builtin()))
    }
}

impl Context {
    /// An empty context over `registry`.
    pub fn new(registry: Arc<DialectRegistry>) -> Self {
        Context {
            ops: SlotMap::with_key(),
            blocks: SlotMap::with_key(),
            regions: SlotMap::with_key(),
            values: SlotMap::with_key(),
            registry,
            allow_unregistered: false,
            sources: Vec::new(),
            text_aliases: Vec::new(),
            resources: Default::default(),
            emitted: Vec::new(),
        }
    }

    /// Reports a non-fatal diagnostic; the driver that runs the passes renders it.
    pub fn emit(&mut self, diagnostic: crate::diagnostics::Diagnostic) {
        self.emitted.push(diagnostic);
    }

    /// The diagnostics emitted since the last call, in emission order.
    pub fn take_emitted(&mut self) -> Vec<crate::diagnostics::Diagnostic> {
        std::mem::take(&mut self.emitted)
    }

    /// Registers a source file and returns its index for [`Span::file`].
    pub fn add_source(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> u32 {
        self.sources.push(SourceFile {
            name: name.into(),
            text: text.into(),
        });
        (self.sources.len() - 1) as u32
    }

    // ----- operations -----------------------------------------------------------------

    /// Creates a detached operation from `state`; its regions become owned by it.
    pub fn create_op(&mut self, state: OperationState) -> OpId {
        let op = self.ops.insert(OperationData {
            name: state.name,
            operands: Vec::new(),
            results: Vec::new(),
            attributes: state.attributes,
            properties: state.properties,
            regions: state.regions.clone(),
            successors: state.successors,
            location: state.location,
            span: state.span,
            parent: None,
            prev: None,
            next: None,
        });
        for r in &state.regions {
            self.regions[*r].parent = Some(op);
        }
        let results: Vec<Value> = state
            .result_types
            .into_iter()
            .enumerate()
            .map(|(i, ty)| {
                self.values.insert(ValueData {
                    ty,
                    def: ValueDef::OpResult {
                        op,
                        index: i as u32,
                    },
                    uses: Vec::new(),
                })
            })
            .collect();
        self.ops[op].results = results;
        for (i, v) in state.operands.iter().enumerate() {
            self.values[*v].uses.push(Use {
                op,
                index: i as u32,
            });
        }
        self.ops[op].operands = state.operands;
        op
    }

    /// True while `op` has not been erased.
    pub fn op_exists(&self, op: OpId) -> bool {
        self.ops.contains_key(op)
    }
    /// The op's data (name, attributes, location are public fields).
    pub fn op(&self, op: OpId) -> &OperationData {
        &self.ops[op]
    }
    /// Mutable access to the op's public fields.
    pub fn op_mut(&mut self, op: OpId) -> &mut OperationData {
        &mut self.ops[op]
    }
    /// The op's full name.
    pub fn op_name(&self, op: OpId) -> &str {
        &self.ops[op].name
    }
    /// The registered definition of the op, if its dialect is registered.
    pub fn op_def(&self, op: OpId) -> Option<&dyn OpDefinition> {
        self.registry.op(&self.ops[op].name)
    }
    /// The op's operands.
    pub fn operands(&self, op: OpId) -> &[Value] {
        &self.ops[op].operands
    }
    /// The op's results.
    pub fn results(&self, op: OpId) -> &[Value] {
        &self.ops[op].results
    }
    /// Result `i`.
    pub fn result(&self, op: OpId, i: usize) -> Value {
        self.ops[op].results[i]
    }
    /// The op's regions.
    pub fn regions(&self, op: OpId) -> &[RegionId] {
        &self.ops[op].regions
    }
    /// The op's successor blocks.
    pub fn successors(&self, op: OpId) -> &[BlockId] {
        &self.ops[op].successors
    }
    /// Replaces successor `i`.
    pub fn set_successor(&mut self, op: OpId, i: usize, block: BlockId) {
        self.ops[op].successors[i] = block;
    }
    /// Looks up a discardable attribute.
    pub fn attr(&self, op: OpId, name: &str) -> Option<&Attribute> {
        let attrs = &self.ops[op].attributes;
        attrs
            .binary_search_by(|a| a.name.as_str().cmp(name))
            .ok()
            .map(|i| &attrs[i].value)
    }
    /// Sets (adds or replaces) a discardable attribute, keeping the list sorted.
    pub fn set_attr(&mut self, op: OpId, name: impl Into<String>, value: Attribute) {
        let name = name.into();
        let attrs = &mut self.ops[op].attributes;
        match attrs.binary_search_by(|a| a.name.as_str().cmp(&name)) {
            Ok(i) => attrs[i].value = value,
            Err(i) => attrs.insert(
                i,
                NamedAttribute {
                    name: name.into(),
                    value,
                },
            ),
        }
    }
    /// Removes a discardable attribute, returning it.
    pub fn remove_attr(&mut self, op: OpId, name: &str) -> Option<Attribute> {
        let attrs = &mut self.ops[op].attributes;
        match attrs.binary_search_by(|a| a.name.as_str().cmp(name)) {
            Ok(i) => Some(attrs.remove(i).value),
            Err(_) => None,
        }
    }
    /// Looks up an attribute in the properties dictionary, then in the discardable ones:
    /// an op parsed from `<{...}>` and one parsed from `{...}` answer alike.
    pub fn inherent_attr(&self, op: OpId, name: &str) -> Option<&Attribute> {
        self.ops[op]
            .properties
            .as_ref()
            .and_then(|p| p.dict_get(name))
            .or_else(|| self.attr(op, name))
    }

    /// Replaces operand `i` of `op`, keeping use lists right.
    pub fn set_operand(&mut self, op: OpId, i: usize, value: Value) {
        let old = self.ops[op].operands[i];
        self.remove_use(
            old,
            Use {
                op,
                index: i as u32,
            },
        );
        self.ops[op].operands[i] = value;
        self.values[value].uses.push(Use {
            op,
            index: i as u32,
        });
    }
    /// Replaces all operands of `op`.
    pub fn set_operands(&mut self, op: OpId, values: Vec<Value>) {
        let old = std::mem::take(&mut self.ops[op].operands);
        for (i, v) in old.into_iter().enumerate() {
            self.remove_use(
                v,
                Use {
                    op,
                    index: i as u32,
                },
            );
        }
        for (i, v) in values.iter().enumerate() {
            self.values[*v].uses.push(Use {
                op,
                index: i as u32,
            });
        }
        self.ops[op].operands = values;
    }

    fn remove_use(&mut self, value: Value, u: Use) {
        if let Some(vd) = self.values.get_mut(value)
            && let Some(pos) = vd.uses.iter().position(|x| *x == u)
        {
            vd.uses.swap_remove(pos);
        }
    }

    /// The block that holds `op`, if it is attached.
    pub fn parent_block(&self, op: OpId) -> Option<BlockId> {
        self.ops[op].parent
    }
    /// The op whose region holds `op`, if any.
    pub fn parent_op(&self, op: OpId) -> Option<OpId> {
        let b = self.ops[op].parent?;
        let r = self.blocks[b].parent?;
        self.regions[r].parent
    }
    /// The next op in the same block.
    pub fn next_op(&self, op: OpId) -> Option<OpId> {
        self.ops[op].next
    }
    /// The previous op in the same block.
    pub fn prev_op(&self, op: OpId) -> Option<OpId> {
        self.ops[op].prev
    }

    /// Erases `op` and everything nested in it. Its results must have no uses left
    /// outside of it; returns false (and erases nothing) otherwise.
    pub fn erase_op(&mut self, op: OpId) -> bool {
        let mut nested = Vec::new();
        self.walk(op, WalkOrder::PostOrder, &mut |_, o| nested.push(o));
        let inside: std::collections::HashSet<OpId> = nested.iter().copied().collect();
        for &o in &nested {
            for &r in &self.ops[o].results {
                if self.values[r].uses.iter().any(|u| !inside.contains(&u.op)) {
                    return false;
                }
            }
        }
        self.detach_op(op);
        for o in nested {
            let operands = std::mem::take(&mut self.ops[o].operands);
            for (i, v) in operands.into_iter().enumerate() {
                self.remove_use(
                    v,
                    Use {
                        op: o,
                        index: i as u32,
                    },
                );
            }
        }
        self.free_op(op);
        true
    }

    fn free_op(&mut self, op: OpId) {
        let Some(data) = self.ops.remove(op) else {
            return;
        };
        for r in data.results {
            self.values.remove(r);
        }
        for region in data.regions {
            self.free_region(region);
        }
    }

    fn free_region(&mut self, region: RegionId) {
        let Some(data) = self.regions.remove(region) else {
            return;
        };
        for b in data.blocks {
            self.free_block(b);
        }
    }

    fn free_block(&mut self, block: BlockId) {
        let mut cur = self.blocks[block].first;
        while let Some(o) = cur {
            cur = self.ops[o].next;
            self.free_op(o);
        }
        if let Some(data) = self.blocks.remove(block) {
            for a in data.args {
                self.values.remove(a);
            }
        }
    }

    /// Unlinks `op` from its block (it stays alive, detached).
    pub fn detach_op(&mut self, op: OpId) {
        let (parent, prev, next) = {
            let d = &self.ops[op];
            (d.parent, d.prev, d.next)
        };
        let Some(block) = parent else { return };
        match prev {
            Some(p) => self.ops[p].next = next,
            None => self.blocks[block].first = next,
        }
        match next {
            Some(n) => self.ops[n].prev = prev,
            None => self.blocks[block].last = prev,
        }
        let d = &mut self.ops[op];
        d.parent = None;
        d.prev = None;
        d.next = None;
    }

    /// Appends a detached `op` at the end of `block`.
    pub fn append_op(&mut self, block: BlockId, op: OpId) {
        debug_assert!(self.ops[op].parent.is_none(), "op is already attached");
        let last = self.blocks[block].last;
        {
            let d = &mut self.ops[op];
            d.parent = Some(block);
            d.prev = last;
            d.next = None;
        }
        match last {
            Some(l) => self.ops[l].next = Some(op),
            None => self.blocks[block].first = Some(op),
        }
        self.blocks[block].last = Some(op);
    }

    /// Inserts a detached `op` right before `anchor`. Panics when `anchor` is itself
    /// detached: a caller bug (passes insert next to ops of the parsed IR), never input.
    pub fn insert_op_before(&mut self, anchor: OpId, op: OpId) {
        let block = self.ops[anchor]
            .parent
            .expect("anchor op is not in a block");
        let prev = self.ops[anchor].prev;
        {
            let d = &mut self.ops[op];
            d.parent = Some(block);
            d.prev = prev;
            d.next = Some(anchor);
        }
        self.ops[anchor].prev = Some(op);
        match prev {
            Some(p) => self.ops[p].next = Some(op),
            None => self.blocks[block].first = Some(op),
        }
    }

    /// Inserts a detached `op` right after `anchor`. Panics when `anchor` is detached (a
    /// caller bug, as [`Context::insert_op_before`]).
    pub fn insert_op_after(&mut self, anchor: OpId, op: OpId) {
        match self.ops[anchor].next {
            Some(n) => self.insert_op_before(n, op),
            None => {
                let block = self.ops[anchor]
                    .parent
                    .expect("anchor op is not in a block");
                self.append_op(block, op)
            }
        }
    }

    // ----- values ----------------------------------------------------------------------

    /// The value's type.
    pub fn value_type(&self, v: Value) -> &Type {
        &self.values[v].ty
    }
    /// Changes the value's type.
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v].ty = ty;
    }
    /// Where the value is defined.
    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def
    }
    /// True while the value has not been erased.
    pub fn value_exists(&self, v: Value) -> bool {
        self.values.contains_key(v)
    }
    /// The defining op of a result, `None` for a block argument.
    pub fn defining_op(&self, v: Value) -> Option<OpId> {
        match self.values[v].def {
            ValueDef::OpResult { op, .. } => Some(op),
            ValueDef::BlockArgument { .. } => None,
        }
    }
    /// The block where the value becomes available (the op's block, or the arg's block).
    pub fn value_block(&self, v: Value) -> Option<BlockId> {
        match self.values[v].def {
            ValueDef::OpResult { op, .. } => self.ops[op].parent,
            ValueDef::BlockArgument { block, .. } => Some(block),
        }
    }
    /// Every use of the value.
    pub fn uses(&self, v: Value) -> &[Use] {
        &self.values[v].uses
    }
    /// True when the value has at least one use.
    pub fn has_uses(&self, v: Value) -> bool {
        !self.values[v].uses.is_empty()
    }
    /// Makes every user of `from` use `to` instead.
    pub fn replace_all_uses_with(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        let uses = std::mem::take(&mut self.values[from].uses);
        for u in &uses {
            self.ops[u.op].operands[u.index as usize] = to;
        }
        self.values[to].uses.extend(uses);
    }

    // ----- blocks and regions ----------------------------------------------------------

    /// Creates a detached, empty region.
    pub fn create_region(&mut self) -> RegionId {
        self.regions.insert(RegionData::default())
    }
    /// Adds a new empty region at the end of `op`'s regions.
    pub fn add_region(&mut self, op: OpId) -> RegionId {
        let r = self.regions.insert(RegionData {
            blocks: Vec::new(),
            parent: Some(op),
        });
        self.ops[op].regions.push(r);
        r
    }
    /// Creates a detached block with arguments of the given types.
    pub fn create_block(&mut self, arg_types: Vec<Type>) -> BlockId {
        let b = self.blocks.insert(BlockData::default());
        for ty in arg_types {
            self.add_block_argument(b, ty, None);
        }
        b
    }
    /// Appends a block argument.
    pub fn add_block_argument(&mut self, block: BlockId, ty: Type, span: Option<Span>) -> Value {
        let index = self.blocks[block].args.len() as u32;
        let v = self.values.insert(ValueData {
            ty,
            def: ValueDef::BlockArgument { block, index },
            uses: Vec::new(),
        });
        self.blocks[block].args.push(v);
        self.blocks[block].arg_spans.push(span);
        self.blocks[block].arg_locs.push(None);
        v
    }
    /// Appends a detached block to `region`.
    pub fn append_block(&mut self, region: RegionId, block: BlockId) {
        self.blocks[block].parent = Some(region);
        self.regions[region].blocks.push(block);
    }
    /// Inserts a detached `block` right before `anchor` in `anchor`'s region. Panics when
    /// `anchor` is in no region (a caller bug, never input).
    pub fn insert_block_before(&mut self, anchor: BlockId, block: BlockId) {
        let region = self.blocks[anchor]
            .parent
            .expect("anchor block is not in a region");
        let blocks = &mut self.regions[region].blocks;
        let i = blocks.iter().position(|b| *b == anchor).unwrap_or(0);
        blocks.insert(i, block);
        self.blocks[block].parent = Some(region);
    }
    /// Unlinks `block` from its region (it stays alive, detached, with its ops).
    pub fn detach_block(&mut self, block: BlockId) {
        if let Some(r) = self.blocks[block].parent.take() {
            self.regions[r].blocks.retain(|b| *b != block);
        }
    }
    /// True while `block` has not been erased.
    pub fn block_exists(&self, block: BlockId) -> bool {
        self.blocks.contains_key(block)
    }
    /// True while `region` has not been erased.
    pub fn region_exists(&self, region: RegionId) -> bool {
        self.regions.contains_key(region)
    }
    /// Removes `block` from its region and erases it with everything in it.
    pub fn erase_block(&mut self, block: BlockId) {
        if let Some(r) = self.blocks[block].parent {
            self.regions[r].blocks.retain(|b| *b != block);
        }
        let mut ops = Vec::new();
        let mut cur = self.blocks[block].first;
        while let Some(o) = cur {
            ops.push(o);
            cur = self.ops[o].next;
        }
        for o in ops.into_iter().rev() {
            let mut nested = Vec::new();
            self.walk(o, WalkOrder::PostOrder, &mut |_, x| nested.push(x));
            for x in nested {
                let operands = std::mem::take(&mut self.ops[x].operands);
                for (i, v) in operands.into_iter().enumerate() {
                    self.remove_use(
                        v,
                        Use {
                            op: x,
                            index: i as u32,
                        },
                    );
                }
            }
        }
        self.free_block(block);
    }
    /// The block's arguments.
    pub fn block_args(&self, block: BlockId) -> &[Value] {
        &self.blocks[block].args
    }
    /// The source span of block argument `i`, if parsed.
    pub fn block_arg_span(&self, block: BlockId, i: usize) -> Option<Span> {
        self.blocks[block].arg_spans.get(i).copied().flatten()
    }
    /// The location of block argument `i`, if one was set (the parser sets one for every
    /// argument: the written `loc(...)`, or where the argument was written).
    pub fn block_arg_location(&self, block: BlockId, i: usize) -> Option<&Location> {
        self.blocks[block].arg_locs.get(i).and_then(|l| l.as_ref())
    }
    /// Sets the location of block argument `i` (ignored when there is no such argument).
    pub fn set_block_arg_location(&mut self, block: BlockId, i: usize, loc: Location) {
        if let Some(l) = self.blocks[block].arg_locs.get_mut(i) {
            *l = Some(loc);
        }
    }
    /// The source span of the block label, if parsed.
    pub fn block_span(&self, block: BlockId) -> Option<Span> {
        self.blocks[block].span
    }
    /// Records where the block's label was parsed.
    pub fn set_block_span(&mut self, block: BlockId, span: Span) {
        self.blocks[block].span = Some(span);
    }
    /// The region that holds `block`.
    pub fn block_parent(&self, block: BlockId) -> Option<RegionId> {
        self.blocks[block].parent
    }
    /// The ops of `block`, in order.
    pub fn block_ops(&self, block: BlockId) -> BlockOps<'_> {
        BlockOps {
            ctx: self,
            cur: self.blocks[block].first,
        }
    }
    /// The first op of `block`.
    pub fn first_op(&self, block: BlockId) -> Option<OpId> {
        self.blocks[block].first
    }
    /// The last op of `block` (its terminator when it has one).
    pub fn last_op(&self, block: BlockId) -> Option<OpId> {
        self.blocks[block].last
    }
    /// True when the block holds no ops.
    pub fn block_is_empty(&self, block: BlockId) -> bool {
        self.blocks[block].first.is_none()
    }
    /// The blocks of `region`, in order.
    pub fn region_blocks(&self, region: RegionId) -> &[BlockId] {
        &self.regions[region].blocks
    }
    /// The op that owns `region`.
    pub fn region_parent(&self, region: RegionId) -> Option<OpId> {
        self.regions[region].parent
    }

    // ----- traversal -------------------------------------------------------------------

    /// Visits `root` and every op nested in it, with its nesting depth (root = 0).
    pub fn walk(&self, root: OpId, order: WalkOrder, f: &mut dyn FnMut(usize, OpId)) {
        self.walk_rec(root, 0, order, f);
    }

    fn walk_rec(&self, op: OpId, depth: usize, order: WalkOrder, f: &mut dyn FnMut(usize, OpId)) {
        if order == WalkOrder::PreOrder {
            f(depth, op);
        }
        for &r in &self.ops[op].regions {
            for &b in &self.regions[r].blocks {
                let mut cur = self.blocks[b].first;
                while let Some(o) = cur {
                    cur = self.ops[o].next;
                    self.walk_rec(o, depth + 1, order, f);
                }
            }
        }
        if order == WalkOrder::PostOrder {
            f(depth, op);
        }
    }

    /// Every op nested under `root` (root included) in pre-order.
    pub fn collect_ops(&self, root: OpId) -> Vec<OpId> {
        let mut v = Vec::new();
        self.walk(root, WalkOrder::PreOrder, &mut |_, o| v.push(o));
        v
    }

    /// True when `ancestor` is `op` or contains it.
    pub fn is_ancestor(&self, ancestor: OpId, op: OpId) -> bool {
        let mut cur = Some(op);
        while let Some(o) = cur {
            if o == ancestor {
                return true;
            }
            cur = self.parent_op(o);
        }
        false
    }

    /// Number of live operations in the arena.
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }
}

/// Iterator over the ops of a block.
pub struct BlockOps<'a> {
    ctx: &'a Context,
    cur: Option<OpId>,
}

impl Iterator for BlockOps<'_> {
    type Item = OpId;
    fn next(&mut self) -> Option<OpId> {
        let o = self.cur?;
        self.cur = self.ctx.ops[o].next;
        Some(o)
    }
}
