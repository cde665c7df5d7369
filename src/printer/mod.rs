//! IR → MLIR text, matching what `mlir-opt` 22 prints.
//!
//! [`print_op`] prints an op (usually the top-level module) in custom or generic form:
//! attribute aliases first (`#map = affine_map<...>`), then the op. Values and blocks are
//! named as MLIR's `SSANameState` names them, so printed files diff cleanly against
//! `mlir-opt` output.
//!
//! Layout: ops write their text into one buffer and record the layout (line pieces, hard
//! line breaks, block bodies); [`render`] then writes the pieces with every block body
//! indented two spaces deeper. MLIR's layout has only hard breaks, never a group that
//! may or may not break, so a pretty-printing document (the `pretty` crate's, used
//! before) bought nothing and cost a node per piece: on a 20 MB module the document
//! alone outweighed the IR. Rendering straight from the events allocates nothing but
//! the output.

mod affine;
mod aliases;
pub mod builtin;
mod elements;
mod float;
#[cfg(test)]
mod float_tests;
pub(crate) mod format;
mod resources;
#[cfg(test)]
mod tests;

use slotmap::SecondaryMap;

use crate::ir::{
    Attribute, BlockId, Context, Identifier, Location, NamedAttribute, OpId, RegionId, Type,
    TypeKind, Value, ValueDef,
};
use aliases::Aliases;
use format::{Fmt, push_u64};

/// How to print.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// Print every op in generic form (`"d.op"(...) : (...) -> ...`).
    pub generic: bool,
    /// Print ` loc(...)` after every op.
    pub debug_info: bool,
}

/// Prints `op` and everything nested in it, preceded by the attribute alias definitions
/// it uses, with a trailing newline.
pub fn print_op(ctx: &Context, op: OpId, opts: &PrintOptions) -> String {
    let mut out = String::new();
    print_op_to(ctx, op, opts, &mut |s| out.push_str(s));
    out
}

/// How much rendered text [`print_op_to`] gathers before handing it to its sink.
const SINK_CHUNK: usize = 1 << 16;

/// [`print_op`], handing the text to `sink` in pieces of about 64 KiB as it is rendered,
/// so that a large module's text is never held whole (see `rtile_tools::run_opt_to`).
pub fn print_op_to(ctx: &Context, op: OpId, opts: &PrintOptions, sink: &mut dyn FnMut(&str)) {
    let names = Names::compute(ctx, op, opts.generic);
    let mut p = OpAsmPrinter {
        ctx,
        opts: *opts,
        names,
        aliases: Aliases::default(),
        collecting: true,
        buf: String::with_capacity(256),
        layout: Layout {
            out: String::with_capacity(SINK_CHUNK + 1024),
            depth: 0,
            sink,
        },
        dialect_stack: vec!["builtin"],
        pending_space: false,
        line_starts: Default::default(),
    };
    // First pass: visit what would be printed, in MLIR's order, to number the aliases.
    p.aliases.text = ctx.text_aliases.clone();
    p.collect_op(op);
    p.collecting = false;
    p.aliases.finish_locations();
    p.aliases.number_distincts();
    p.aliases.number_around_text_aliases();
    p.dialect_stack.truncate(1);
    p.aliases.definitions(&mut p.layout.out);
    p.emit_op(op);
    p.flush();
    let out = &mut p.layout.out;
    out.push('\n');
    // Op locations are deferred aliases: MLIR defines them after the op.
    p.aliases.location_definitions(out);
    if ctx.parent_op(op).is_none() {
        resources::write_resources(out, &ctx.resources, &p.aliases.resources_used);
    }
    (p.layout.sink)(out);
}

/// The text of a type, without aliases (for diagnostics).
pub fn type_to_string(t: &Type) -> String {
    let mut s = String::new();
    Fmt { aliases: None }.ty(&mut s, t);
    s
}

/// The text of an attribute, without aliases (for diagnostics).
pub fn attr_to_string(a: &Attribute) -> String {
    let mut s = String::new();
    Fmt { aliases: None }.attr(&mut s, a, false);
    s
}

/// The default dialect an op gives the ops in its regions (MLIR's
/// `OpAsmOpInterface::getDefaultDialect`): custom-form ops of that dialect nested directly
/// in its regions drop the `dialect.` prefix (`return` inside `func.func`). Only the ops
/// that declare one upstream have one; `scf.for` has none, so `scf.yield` stays spelled out.
pub fn default_dialect(op_name: &str) -> &'static str {
    match op_name {
        "builtin.module" => "builtin",
        "func.func" => "func",
        _ => "",
    }
}

/// MLIR's SSA value and block numbering for one printed op.
#[derive(Default)]
struct Names {
    /// Number of each op's first result.
    ops: SecondaryMap<OpId, u32>,
    /// Ops whose results print under a name their definition gives
    /// ([`crate::dialect::OpDefinition::asm_result_name`]), made unique: `%cst_0`.
    named: SecondaryMap<OpId, String>,
    /// Block arguments: number, and whether it prints as `%argN`.
    args: SecondaryMap<Value, (u32, bool)>,
    /// `^bbN` of each block, per region.
    blocks: SecondaryMap<BlockId, u32>,
}

impl Names {
    /// Numbers values as `SSANameState` does. Regions are taken from a stack (last
    /// pushed first); each is numbered whole, then the regions of its ops are pushed with
    /// the counters as they stand. In custom form a region starts from the counters saved
    /// with it, so sibling regions reuse numbers (`func` bodies restart at `%0`); in
    /// generic form (MLIR's unique-SSA-ids mode) the counters just keep running.
    ///
    /// In custom form an op may name its results (`%cst`, `%c0_i32`); a name already
    /// used in an enclosing region or earlier in this one gets `_N` from one running
    /// conflict counter, saved and restored with the others as MLIR's scoped name table
    /// is.
    fn compute(ctx: &Context, root: OpId, unique: bool) -> Names {
        let mut n = Names::default();
        let mut scopes = NameScopes::default();
        let mut stack: Vec<(RegionId, [u32; 3], Option<usize>)> = ctx
            .regions(root)
            .iter()
            .map(|&r| (r, [0, 0, 0], None))
            .collect();
        let (mut next_value, mut next_arg, mut next_conflict) = (0u32, 0u32, 0u32);
        if !ctx.results(root).is_empty() {
            n.ops.insert(root, 0);
            next_value = 1;
        }
        let mut nested = Vec::new();
        while let Some((r, [saved_value, saved_arg, saved_conflict], parent)) = stack.pop() {
            if !unique {
                next_value = saved_value;
                next_arg = saved_arg;
                next_conflict = saved_conflict;
            }
            let scope = scopes.open(parent);
            for (bi, &b) in ctx.region_blocks(r).iter().enumerate() {
                n.blocks.insert(b, bi as u32);
                for &a in ctx.block_args(b) {
                    if bi == 0 {
                        n.args.insert(a, (next_arg, true));
                        next_arg += 1;
                    } else {
                        n.args.insert(a, (next_value, false));
                        next_value += 1;
                    }
                }
                for op in ctx.block_ops(b) {
                    if !ctx.results(op).is_empty() {
                        let hint = if unique {
                            None
                        } else {
                            ctx.op_def(op).and_then(|d| d.asm_result_name(ctx, op))
                        };
                        match hint.filter(|h| !h.is_empty()) {
                            Some(h) => {
                                let name = scopes.unique(scope, &h, &mut next_conflict);
                                n.named.insert(op, name);
                            }
                            None => {
                                n.ops.insert(op, next_value);
                                next_value += 1;
                            }
                        }
                    }
                    nested.extend_from_slice(ctx.regions(op));
                }
            }
            stack.extend(
                nested
                    .drain(..)
                    .map(|r| (r, [next_value, next_arg, next_conflict], Some(scope))),
            );
        }
        n
    }

    /// Writes the result name of `op` (`%0`, `%cst_1`) without `#index`.
    fn push_op_name(&self, out: &mut String, op: OpId) -> bool {
        if let Some(name) = self.named.get(op) {
            out.push('%');
            out.push_str(name);
            return true;
        }
        match self.ops.get(op) {
            Some(&id) => {
                out.push('%');
                push_u64(out, id as u64);
                true
            }
            None => false,
        }
    }

    fn push_value(&self, ctx: &Context, out: &mut String, v: Value) {
        if !ctx.value_exists(v) {
            out.push_str("<<UNKNOWN SSA VALUE>>");
            return;
        }
        match ctx.value_def(v) {
            ValueDef::OpResult { op, index } => {
                if self.push_op_name(out, op) {
                    if ctx.results(op).len() > 1 {
                        out.push('#');
                        push_u64(out, index as u64);
                    }
                } else {
                    out.push_str("<<UNKNOWN SSA VALUE>>");
                }
            }
            ValueDef::BlockArgument { .. } => match self.args.get(v) {
                Some(&(id, is_arg)) => {
                    out.push_str(if is_arg { "%arg" } else { "%" });
                    push_u64(out, id as u64);
                }
                None => out.push_str("<<UNKNOWN SSA VALUE>>"),
            },
        }
    }

    fn push_block(&self, out: &mut String, b: BlockId) {
        match self.blocks.get(b) {
            Some(&id) => {
                out.push_str("^bb");
                push_u64(out, id as u64);
            }
            None => out.push_str("<<UNKNOWN BLOCK>>"),
        }
    }
}

/// MLIR's scoped table of used result names: one scope per region, inside the scope of
/// the region that holds its op.
#[derive(Default)]
struct NameScopes {
    /// Per scope: the enclosing scope and the names used in it.
    scopes: Vec<(Option<usize>, std::collections::HashSet<String>)>,
}

impl NameScopes {
    fn open(&mut self, parent: Option<usize>) -> usize {
        self.scopes.push((parent, Default::default()));
        self.scopes.len() - 1
    }

    fn used(&self, mut scope: Option<usize>, name: &str) -> bool {
        while let Some(s) = scope {
            if self.scopes[s].1.contains(name) {
                return true;
            }
            scope = self.scopes[s].0;
        }
        false
    }

    /// `name` sanitized, with `_N` appended from `conflict` while it is taken (MLIR's
    /// `SSANameState::uniqueValueName`), recorded as used in `scope`.
    fn unique(&mut self, scope: usize, name: &str, conflict: &mut u32) -> String {
        let name = sanitize_identifier(name);
        let mut out = name.clone();
        while self.used(Some(scope), &out) {
            out = format!("{name}_{conflict}");
            *conflict += 1;
        }
        self.scopes[scope].1.insert(out.clone());
        out
    }
}

/// MLIR's `sanitizeIdentifier`: letters, digits and `$._-` are kept, a space becomes
/// `_`, other bytes their upper-case hex; a leading digit gets a `_` prefix.
fn sanitize_identifier(name: &str) -> String {
    let valid = |c: u8| c.is_ascii_alphanumeric() || b"$._-".contains(&c);
    let bytes = name.as_bytes();
    let lead_digit = bytes.first().is_some_and(u8::is_ascii_digit);
    if !lead_digit && bytes.iter().all(|&c| valid(c)) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 1);
    if lead_digit {
        out.push('_');
    }
    for &c in bytes {
        if valid(c) {
            out.push(c as char);
        } else if c == b' ' {
            out.push('_');
        } else {
            out.push_str(&format!("{c:X}"));
        }
    }
    out
}

/// The rendered output: text pieces as they are, and each hard break as a newline
/// indented two spaces per block body it is in. Whole lines go to `sink` whenever `out`
/// holds [`SINK_CHUNK`] bytes.
struct Layout<'a> {
    out: String,
    /// Block bodies the current line is in.
    depth: usize,
    sink: &'a mut dyn FnMut(&str),
}

impl Layout<'_> {
    fn text(&mut self, piece: &str) {
        self.out.push_str(piece);
    }

    fn hardline(&mut self) {
        if self.out.len() >= SINK_CHUNK {
            (self.sink)(&self.out);
            self.out.clear();
        }
        self.out.push('\n');
        self.out.extend(std::iter::repeat_n(' ', 2 * self.depth));
    }

    fn nest(&mut self) {
        self.depth += 1;
    }

    fn end_nest(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

/// The printer handed to [`crate::dialect::OpDefinition::print`] for custom forms.
///
/// Text goes to the current line; [`Self::newline`] and [`Self::print_region`] start new
/// lines at the right indentation. Right after the op name a space is inserted before the
/// first thing printed unless it starts with a space, a newline or `(` (so `return` with
/// no operands has no trailing space, and `func.func @f` gets its space either way).
pub struct OpAsmPrinter<'a> {
    ctx: &'a Context,
    opts: PrintOptions,
    names: Names,
    aliases: Aliases,
    /// Alias-numbering pass: nothing is printed, aliasable attributes are recorded.
    collecting: bool,
    /// The current line piece, not yet rendered.
    buf: String,
    /// Where rendered text goes.
    layout: Layout<'a>,
    /// Default dialects of the enclosing regions' ops.
    dialect_stack: Vec<&'static str>,
    /// The op name was just printed: separate what follows with a space.
    pending_space: bool,
    /// Line start offsets of source files, for block argument locations.
    line_starts: std::collections::HashMap<u32, Vec<u32>>,
}

impl<'a> OpAsmPrinter<'a> {
    /// The context being printed.
    pub fn ctx(&self) -> &Context {
        self.ctx
    }

    /// Inserts the space after the op name if `first` needs one.
    fn lead(&mut self, first: char) {
        if self.pending_space {
            self.pending_space = false;
            if !matches!(first, ' ' | '\n' | '(') {
                self.buf.push(' ');
            }
        }
    }

    /// Appends raw text (a `\n` starts a new, indented line).
    pub fn write(&mut self, s: &str) {
        if self.collecting || s.is_empty() {
            return;
        }
        self.lead(s.chars().next().unwrap_or(' '));
        if !s.contains('\n') {
            self.buf.push_str(s);
            return;
        }
        for (i, line) in s.split('\n').enumerate() {
            if i > 0 {
                self.newline();
            }
            self.buf.push_str(line);
        }
    }

    /// Ends the line; the next text starts at the current indentation.
    pub fn newline(&mut self) {
        if self.collecting {
            return;
        }
        self.pending_space = false;
        self.flush();
        self.layout.hardline();
    }

    /// Ends the current line piece (before a break or a nested body) and renders it.
    fn flush(&mut self) {
        self.layout.text(&self.buf);
        self.buf.clear();
    }

    /// Prints an SSA value use (`%0`, `%arg1`, `%3#1`).
    pub fn print_operand(&mut self, v: Value) {
        if self.collecting {
            return;
        }
        self.lead('%');
        self.names.push_value(self.ctx, &mut self.buf, v);
    }

    /// Prints values separated by `, `.
    pub fn print_operands(&mut self, vs: &[Value]) {
        for (i, v) in vs.iter().enumerate() {
            if i > 0 {
                self.write(", ");
            }
            self.print_operand(*v);
        }
    }

    /// The printed name of a value (`%0`, `%arg1`, `%3#1`).
    pub fn value_name(&self, v: Value) -> String {
        let mut s = String::new();
        self.names.push_value(self.ctx, &mut s, v);
        s
    }

    /// Prints a type.
    pub fn print_type(&mut self, t: &Type) {
        if self.collecting {
            self.aliases.visit_type(t);
            return;
        }
        self.lead('t');
        let f = Fmt {
            aliases: Some(&self.aliases),
        };
        f.ty(&mut self.buf, t);
    }

    /// Prints types separated by `, `.
    pub fn print_types(&mut self, ts: &[Type]) {
        if self.collecting {
            ts.iter().for_each(|t| self.aliases.visit_type(t));
            return;
        }
        if ts.is_empty() {
            return;
        }
        self.lead('t');
        let f = Fmt {
            aliases: Some(&self.aliases),
        };
        f.types(&mut self.buf, ts);
    }

    /// Prints `(ins) -> outs` (results parenthesised unless exactly one non-function).
    pub fn print_function_type(&mut self, ins: &[Type], outs: &[Type]) {
        if self.collecting {
            ins.iter()
                .chain(outs)
                .for_each(|t| self.aliases.visit_type(t));
            return;
        }
        self.lead('(');
        let f = Fmt {
            aliases: Some(&self.aliases),
        };
        f.function_type(&mut self.buf, ins, outs);
    }

    /// Prints ` -> i32`, ` -> (i32, f32)`, or nothing when `ts` is empty.
    pub fn print_arrow_result_types(&mut self, ts: &[Type]) {
        if ts.is_empty() {
            return;
        }
        if self.collecting {
            ts.iter().for_each(|t| self.aliases.visit_type(t));
            return;
        }
        self.lead(' ');
        self.buf.push_str(" -> ");
        let wrap = ts.len() != 1 || matches!((ts[0]).kind(), TypeKind::Function { .. });
        if wrap {
            self.buf.push('(');
        }
        let f = Fmt {
            aliases: Some(&self.aliases),
        };
        f.types(&mut self.buf, ts);
        if wrap {
            self.buf.push(')');
        }
    }

    /// Prints an attribute (with its type, e.g. `1 : i32`).
    pub fn print_attribute(&mut self, a: &Attribute) {
        if self.collecting {
            self.aliases.visit_attr(a);
            return;
        }
        self.lead('a');
        let f = Fmt {
            aliases: Some(&self.aliases),
        };
        f.attr(&mut self.buf, a, false);
    }

    fn attr_dict(&mut self, attrs: &[NamedAttribute], elided: &[&str], keyword: bool) {
        let mut kept = attrs
            .iter()
            .filter(|a| !elided.contains(&a.name.as_str()))
            .peekable();
        if kept.peek().is_none() {
            return;
        }
        if self.collecting {
            kept.for_each(|a| self.aliases.visit_attr(&a.value));
            return;
        }
        self.lead(' ');
        self.buf
            .push_str(if keyword { " attributes {" } else { " {" });
        let f = Fmt {
            aliases: Some(&self.aliases),
        };
        for (i, a) in kept.enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            f.named_attr(&mut self.buf, a);
        }
        self.buf.push('}');
    }

    /// Prints ` {a = 1 : i32, b}` without the `elided` names; nothing when none is left.
    pub fn print_optional_attr_dict(&mut self, attrs: &[NamedAttribute], elided: &[&str]) {
        self.attr_dict(attrs, elided, false);
    }

    /// Prints ` attributes {...}` without the `elided` names; nothing when none is left.
    pub fn print_optional_attr_dict_with_keyword(
        &mut self,
        attrs: &[NamedAttribute],
        elided: &[&str],
    ) {
        self.attr_dict(attrs, elided, true);
    }

    /// Prints `@name`, quoted when it is not a bare identifier.
    pub fn print_symbol_name(&mut self, name: &str) {
        if self.collecting {
            return;
        }
        self.lead('@');
        format::symbol_ref(&mut self.buf, name);
    }

    /// Prints a region `{ ... }` as a custom form does: the entry block's header only
    /// when `print_entry_block_args` and it has arguments; the blocks' terminators only
    /// when `print_block_terminators`.
    pub fn print_region(
        &mut self,
        r: RegionId,
        print_entry_block_args: bool,
        print_block_terminators: bool,
    ) {
        self.region(r, print_entry_block_args, print_block_terminators, false);
    }

    /// Prints a block argument with its type: `%arg0: f32`.
    pub fn print_region_argument(&mut self, v: Value) {
        if self.collecting {
            self.aliases.visit_type(self.ctx.value_type(v));
            self.arg_trailing_location(v);
            return;
        }
        self.print_operand(v);
        self.buf.push_str(": ");
        let f = Fmt {
            aliases: Some(&self.aliases),
        };
        f.ty(&mut self.buf, self.ctx.value_type(v));
        self.arg_trailing_location(v);
    }

    /// Prints a successor block name (`^bb1`).
    pub fn print_successor(&mut self, b: BlockId) {
        if self.collecting {
            return;
        }
        self.lead('^');
        self.names.push_block(&mut self.buf, b);
    }

    /// The location of a block argument: the one it was given (the parser gives every
    /// argument one), else where it was parsed, or `unknown` for arguments made by code.
    fn arg_location(&mut self, v: Value) -> Location {
        let ctx = self.ctx;
        let ValueDef::BlockArgument { block, index } = ctx.value_def(v) else {
            return Location::Unknown;
        };
        if let Some(l) = ctx.block_arg_location(block, index as usize) {
            return l.clone();
        }
        let Some(span) = ctx.block_arg_span(block, index as usize) else {
            return Location::Unknown;
        };
        let Some(src) = ctx.sources.get(span.file as usize) else {
            return Location::Unknown;
        };
        let starts = self.line_starts.entry(span.file).or_insert_with(|| {
            std::iter::once(0)
                .chain(
                    src.text
                        .bytes()
                        .enumerate()
                        .filter(|(_, b)| *b == b'\n')
                        .map(|(i, _)| i as u32 + 1),
                )
                .collect()
        });
        let line = starts.partition_point(|&s| s <= span.start);
        let col = span.start - starts[line.saturating_sub(1)] + 1;
        Location::FileLineCol {
            file: Identifier::new(&src.name),
            line: line as u32,
            col,
        }
    }

    /// ` loc(...)` after a block argument in debug mode: always spelled out (MLIR
    /// prints argument locations without aliases).
    fn arg_trailing_location(&mut self, v: Value) {
        if !self.opts.debug_info {
            return;
        }
        let l = self.arg_location(v);
        if self.collecting {
            self.aliases.visit_location(&l, false);
            return;
        }
        self.buf.push_str(" loc(");
        Fmt { aliases: None }.location_body(&mut self.buf, &l);
        self.buf.push(')');
    }

    // ----- ops -------------------------------------------------------------------------

    fn custom_def(&self, op: OpId) -> Option<&'a dyn crate::dialect::OpDefinition> {
        if self.opts.generic {
            return None;
        }
        let ctx: &'a Context = self.ctx;
        ctx.op_def(op).filter(|d| d.has_custom_assembly())
    }

    /// The alias pass over one op, in the order MLIR's dummy printer visits things.
    fn collect_op(&mut self, op: OpId) {
        let ctx = self.ctx;
        if self.opts.debug_info {
            self.aliases.visit_location(&ctx.op(op).location, true);
        }
        if let Some(def) = self.custom_def(op) {
            self.dialect_stack.push(default_dialect(ctx.op_name(op)));
            def.print(ctx, op, self);
            self.dialect_stack.pop();
            return;
        }
        for &r in ctx.regions(op) {
            self.collect_region(r, true, true);
        }
        for &v in ctx.operands(op) {
            self.aliases.visit_type(ctx.value_type(v));
        }
        for &v in ctx.results(op) {
            self.aliases.visit_type(ctx.value_type(v));
        }
        let data = ctx.op(op);
        if let Some(p) = &data.properties {
            self.aliases.visit_attr(p);
        }
        for a in &data.attributes {
            self.aliases.visit_attr(&a.value);
        }
    }

    fn collect_region(&mut self, r: RegionId, entry_args: bool, terminators: bool) {
        let ctx = self.ctx;
        for (i, &b) in ctx.region_blocks(r).iter().enumerate() {
            if i > 0 || entry_args {
                for &a in ctx.block_args(b) {
                    self.aliases.visit_type(ctx.value_type(a));
                    self.arg_trailing_location(a);
                }
            }
            let skip = self.skipped_terminator(b, terminators);
            for o in ctx.block_ops(b) {
                if Some(o) != skip {
                    self.collect_op(o);
                }
            }
        }
    }

    /// The terminator of `b` when it should not be printed.
    fn skipped_terminator(&self, b: BlockId, terminators: bool) -> Option<OpId> {
        if terminators {
            return None;
        }
        let last = self.ctx.last_op(b)?;
        self.ctx
            .op_def(last)
            .is_some_and(|d| d.traits().is_terminator)
            .then_some(last)
    }

    /// Prints one op (with its regions) into the text and layout.
    fn emit_op(&mut self, op: OpId) {
        self.print_op_line(op);
        self.flush();
    }

    fn print_op_line(&mut self, op: OpId) {
        let ctx = self.ctx;
        let results = ctx.results(op);
        if !results.is_empty() {
            if !self.names.push_op_name(&mut self.buf, op) {
                self.buf.push_str("<<UNKNOWN SSA VALUE>>");
            }
            if results.len() > 1 {
                self.buf.push(':');
                push_u64(&mut self.buf, results.len() as u64);
            }
            self.buf.push_str(" = ");
        }
        if let Some(def) = self.custom_def(op) {
            let name = ctx.op_name(op);
            let dd = self.dialect_stack.last().copied().unwrap_or("");
            let short = match name.strip_prefix(dd).and_then(|s| s.strip_prefix('.')) {
                Some(rest) if !dd.is_empty() && !rest.contains('.') => rest,
                _ => name,
            };
            self.buf.push_str(short);
            self.pending_space = true;
            self.dialect_stack.push(default_dialect(name));
            def.print(ctx, op, self);
            self.dialect_stack.pop();
            self.pending_space = false;
        } else {
            self.print_generic(op);
        }
        if self.opts.debug_info {
            self.buf.push_str(" loc(");
            let f = Fmt {
                aliases: Some(&self.aliases),
            };
            f.location(&mut self.buf, &ctx.op(op).location);
            self.buf.push(')');
        }
    }

    fn print_generic(&mut self, op: OpId) {
        let ctx = self.ctx;
        format::escaped_string(&mut self.buf, ctx.op_name(op));
        self.buf.push('(');
        for (i, &v) in ctx.operands(op).iter().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.names.push_value(ctx, &mut self.buf, v);
        }
        self.buf.push(')');
        let succ = ctx.successors(op);
        if !succ.is_empty() {
            self.buf.push('[');
            for (i, &b) in succ.iter().enumerate() {
                if i > 0 {
                    self.buf.push_str(", ");
                }
                self.names.push_block(&mut self.buf, b);
            }
            self.buf.push(']');
        }
        let data = ctx.op(op);
        if let Some(p) = &data.properties {
            self.buf.push_str(" <");
            let f = Fmt {
                aliases: Some(&self.aliases),
            };
            f.attr(&mut self.buf, p, false);
            self.buf.push('>');
        }
        let regions = ctx.regions(op);
        if !regions.is_empty() {
            self.dialect_stack.push(default_dialect(ctx.op_name(op)));
            self.buf.push_str(" (");
            for (i, &r) in regions.iter().enumerate() {
                if i > 0 {
                    self.buf.push_str(", ");
                }
                self.region(r, true, true, true);
            }
            self.buf.push(')');
            self.dialect_stack.pop();
        }
        self.attr_dict(&data.attributes, &[], false);
        self.buf.push_str(" : (");
        let f = Fmt {
            aliases: Some(&self.aliases),
        };
        for (i, &v) in ctx.operands(op).iter().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            f.ty(&mut self.buf, ctx.value_type(v));
        }
        self.buf.push_str(") -> ");
        let results = ctx.results(op);
        let wrap = results.len() != 1
            || matches!(ctx.value_type(results[0]).kind(), TypeKind::Function { .. });
        if wrap {
            self.buf.push('(');
        }
        for (i, &v) in results.iter().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            f.ty(&mut self.buf, ctx.value_type(v));
        }
        if wrap {
            self.buf.push(')');
        }
    }

    /// `printRegion`: `{`, the blocks, `}` at the op's indentation.
    fn region(&mut self, r: RegionId, entry_args: bool, terminators: bool, empty_block: bool) {
        if self.collecting {
            self.collect_region(r, entry_args, terminators);
            return;
        }
        self.lead('{');
        let ctx = self.ctx;
        self.buf.push('{');
        self.flush();
        let blocks = ctx.region_blocks(r);
        let preds = if blocks.len() > 1 {
            Some(self.predecessors(blocks))
        } else {
            None
        };
        for (i, &b) in blocks.iter().enumerate() {
            let header = if i == 0 {
                (empty_block && ctx.block_is_empty(b))
                    || (entry_args && !ctx.block_args(b).is_empty())
            } else {
                true
            };
            if header {
                self.layout.hardline();
                self.block_header(b, i == 0, preds.as_ref());
                self.flush();
            }
            let skip = self.skipped_terminator(b, terminators);
            let mut opened = false;
            for o in ctx.block_ops(b) {
                if Some(o) == skip {
                    continue;
                }
                if !opened {
                    self.layout.nest();
                    opened = true;
                }
                self.layout.hardline();
                self.emit_op(o);
            }
            if opened {
                self.layout.end_nest();
            }
        }
        self.layout.hardline();
        self.buf.push('}');
    }

    /// For each block of a multi-block region, its predecessors (one entry per branch).
    fn predecessors(&self, blocks: &[BlockId]) -> SecondaryMap<BlockId, Vec<BlockId>> {
        let mut preds: SecondaryMap<BlockId, Vec<BlockId>> = SecondaryMap::new();
        for &b in blocks {
            for o in self.ctx.block_ops(b) {
                for &s in self.ctx.successors(o) {
                    match preds.get_mut(s) {
                        Some(v) => v.push(b),
                        None => {
                            preds.insert(s, vec![b]);
                        }
                    }
                }
            }
        }
        preds
    }

    fn block_header(
        &mut self,
        b: BlockId,
        is_entry: bool,
        preds: Option<&SecondaryMap<BlockId, Vec<BlockId>>>,
    ) {
        let ctx = self.ctx;
        self.names.push_block(&mut self.buf, b);
        let args = ctx.block_args(b);
        if !args.is_empty() {
            self.buf.push('(');
            for (i, &a) in args.iter().enumerate() {
                if i > 0 {
                    self.buf.push_str(", ");
                }
                self.names.push_value(ctx, &mut self.buf, a);
                self.buf.push_str(": ");
                let f = Fmt {
                    aliases: Some(&self.aliases),
                };
                f.ty(&mut self.buf, ctx.value_type(a));
                self.arg_trailing_location(a);
            }
            self.buf.push(')');
        }
        self.buf.push(':');
        let list = preds.and_then(|p| p.get(b)).filter(|v| !v.is_empty());
        match list {
            None => {
                if !is_entry {
                    self.buf.push_str("  // no predecessors");
                }
            }
            // As MLIR's `getSinglePredecessor`: two edges from one block (a conditional
            // branch to the same block twice) are two predecessors.
            Some(v) if v.len() == 1 => {
                self.buf.push_str("  // pred: ");
                self.names.push_block(&mut self.buf, v[0]);
            }
            Some(v) => {
                let mut sorted = v.clone();
                sorted.sort_by_key(|p| self.names.blocks.get(*p).copied().unwrap_or(u32::MAX));
                self.buf.push_str("  // ");
                push_u64(&mut self.buf, sorted.len() as u64);
                self.buf.push_str(" preds: ");
                for (i, p) in sorted.iter().enumerate() {
                    if i > 0 {
                        self.buf.push_str(", ");
                    }
                    self.names.push_block(&mut self.buf, *p);
                }
            }
        }
    }
}
