//! MLIR text → IR.
//!
//! A hand-written recursive-descent parser in the structure of MLIR's own
//! (`mlir/lib/AsmParser`): a lazy, restartable logos lexer ([`lexer`]), types and
//! attributes ([`types_attrs`]), affine maps and sets through a lalrpop grammar
//! ([`affine_expr`]), operations in generic form or in the custom form of a registered
//! op (through [`OpAsmParser`]), regions, blocks, SSA name scopes with forward
//! references, and top-level alias definitions. Every error is a [`Diagnostic`] with a
//! span; no input can make it panic.

pub mod affine_expr;
mod asm;
pub mod builtin;
mod display;
pub mod lexer;
mod resources;
mod types_attrs;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;
use std::sync::Arc;

use crate::diagnostics::Diagnostic;
use crate::dialect::{DialectRegistry, dialect_of};
use crate::ir::{
    AttrKind, Attribute, BlockId, Context, Identifier, Location, OpId, OperationState, RegionId,
    Span, Type, TypeKind, Value,
};
use lexer::{Lexer, SpannedToken, Token};

pub use asm::OpAsmParser;

/// Result of parsing a source file.
#[derive(Debug)]
pub struct ParseOutput {
    /// The top-level `builtin.module` (implicit or written).
    pub module: OpId,
    /// Non-fatal findings (e.g. skipped `{-# dialect_resources #-}` blocks).
    pub warnings: Vec<Diagnostic>,
}

/// An SSA use not yet resolved to a value: `%name` or `%name#index`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnresolvedOperand {
    /// The name with its `%` sigil (`%x`).
    pub name: String,
    /// The result number after `#` (0 when absent).
    pub index: u32,
    /// Where the use was written.
    pub span: Span,
}

/// Parses `ctx.sources[file]` into a top-level `builtin.module` (MLIR's implicit module
/// rule: a file that is exactly one `builtin.module` op is that op; otherwise the
/// top-level ops are wrapped in a new module).
pub fn parse_source(ctx: &mut Context, file: u32) -> Result<ParseOutput, Diagnostic> {
    let Some(source) = ctx.sources.get(file as usize) else {
        return Err(Diagnostic::error(None, format!("no source file #{file}")));
    };
    let text = source.text.clone();
    // Deeply nested input recurses deeply; a dedicated thread with a large stack keeps
    // the nesting limit (MAX_DEPTH) well within reach on any caller's thread.
    let threaded = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("rtile-parser".into())
            .stack_size(512 << 20)
            .spawn_scoped(s, || {
                let mut st = State::new(&mut *ctx, &text, file);
                st.parse_top_level()
            });
        worker.ok().map(|h| {
            h.join().unwrap_or_else(|_| {
                Err(Diagnostic::error(
                    None,
                    "internal error: parser thread panicked",
                ))
            })
        })
    });
    match threaded {
        Some(r) => r,
        // No thread available: parse here (nesting is still bounded by MAX_DEPTH).
        None => State::new(ctx, &text, file).parse_top_level(),
    }
}

/// Adds `text` as source `name` to the context, then [`parse_source`]s it.
pub fn parse_str(ctx: &mut Context, name: &str, text: &str) -> Result<ParseOutput, Diagnostic> {
    let file = ctx.add_source(name, text);
    parse_source(ctx, file)
}

/// Maximum nesting of regions, types and attributes.
const MAX_DEPTH: usize = 1000;

/// Largest result number accepted in `%x#N` / `%x:N` (bounds memory on hostile input).
const MAX_RESULTS: u32 = 1 << 20;

/// The FxHash function (rustc's): much cheaper than SipHash on short SSA names.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// One definition (or forward reference) of `%name#index`.
#[derive(Clone, Copy, Debug)]
struct ValueEntry {
    value: Value,
    span: Span,
    /// A placeholder created by a use before the definition.
    forward: bool,
}

/// The definitions of one name, by result number; one result (the common case) is
/// stored inline to avoid an allocation per SSA name.
#[derive(Default)]
enum Slots {
    #[default]
    Empty,
    One([Option<ValueEntry>; 1]),
    Many(Vec<Option<ValueEntry>>),
}

impl Slots {
    fn all(&self) -> &[Option<ValueEntry>] {
        match self {
            Slots::Empty => &[],
            Slots::One(a) => a,
            Slots::Many(v) => v,
        }
    }

    fn get(&self, i: usize) -> Option<ValueEntry> {
        self.all().get(i).copied().flatten()
    }

    /// Stores `e` at `i`, returning what was there.
    fn set(&mut self, i: usize, e: ValueEntry) -> Option<ValueEntry> {
        if let Slots::Many(v) = self {
            if v.len() <= i {
                v.resize(i + 1, None);
            }
            return v[i].replace(e);
        }
        match (std::mem::take(self), i) {
            (Slots::Empty, 0) => {
                *self = Slots::One([Some(e)]);
                None
            }
            (Slots::One([old]), 0) => {
                *self = Slots::One([Some(e)]);
                old
            }
            (prev, _) => {
                let mut v = match prev {
                    Slots::One([o]) => vec![o],
                    _ => Vec::new(),
                };
                if v.len() <= i {
                    v.resize(i + 1, None);
                }
                let r = v[i].replace(e);
                *self = Slots::Many(v);
                r
            }
        }
    }
}

/// Names visible in one IsolatedFromAbove scope.
#[derive(Default)]
struct IsolatedScope {
    values: FxMap<Rc<str>, Slots>,
    /// Names defined in each open region of this scope, dropped when it closes.
    region_defs: Vec<Vec<Rc<str>>>,
}

#[derive(Clone, Copy)]
struct BlockEntry {
    block: BlockId,
    defined: bool,
    span: Span,
}

/// Block names of one region.
struct RegionScope {
    blocks: FxMap<String, BlockEntry>,
}

/// A location after an op or a block argument: resolved, or an alias defined later in
/// the file.
pub(crate) enum TrailingLoc {
    None,
    Loc(Location),
    Deferred(String, Span),
}

/// The parser state shared by the core parser and [`OpAsmParser`].
pub(crate) struct State<'s> {
    pub(crate) ctx: &'s mut Context,
    src: &'s str,
    file: u32,
    lex: Lexer<'s>,
    cur: SpannedToken<'s>,
    registry: Arc<DialectRegistry>,
    type_aliases: FxMap<String, Type>,
    attr_aliases: FxMap<String, Attribute>,
    scopes: Vec<IsolatedScope>,
    regions: Vec<RegionScope>,
    /// Dialect of each enclosing custom-form op (for op names without a dialect).
    default_dialects: Vec<String>,
    /// IsolatedFromAbove of each enclosing op whose regions are being parsed.
    isolated: Vec<bool>,
    num_results: usize,
    deferred_locs: Vec<(OpId, String, Span)>,
    /// Block arguments whose `loc(#alias)` names an alias defined later in the file.
    deferred_arg_locs: Vec<(BlockId, usize, String, Span)>,
    /// `loc(...)` written after region arguments that a custom parser read (through
    /// [`OpAsmParser::parse_argument`]), by the byte offset of the argument's name,
    /// until the region that defines them is parsed.
    pending_arg_locs: FxMap<u32, TrailingLoc>,
    /// Byte offset of the start of each line, for the `loc("file":line:col)` of ops
    /// and arguments written without one (as mlir-opt assigns).
    line_starts: Vec<u32>,
    /// The source's name as given (the file name in locations).
    /// Interned once: every op parsed gets a location in this file.
    file_name: Identifier,
    warnings: Vec<Diagnostic>,
    depth: usize,
    op_names: FxMap<String, Identifier>,
    reserved: bool,
}

fn token_is_punct(t: Token, p: &str) -> bool {
    t.punct() == Some(p)
}

impl<'s> State<'s> {
    fn new(ctx: &'s mut Context, src: &'s str, file: u32) -> Self {
        let mut lex = Lexer::new(src, file);
        let cur = lex.next_token();
        let registry = ctx.registry.clone();
        let file_name = ctx
            .sources
            .get(file as usize)
            .map_or(Identifier::new(""), |s| Identifier::new(&s.name));
        let line_starts = std::iter::once(0)
            .chain(
                src.bytes()
                    .enumerate()
                    .filter(|(_, b)| *b == b'\n')
                    .map(|(i, _)| i as u32 + 1),
            )
            .collect();
        State {
            ctx,
            src,
            file,
            lex,
            cur,
            registry,
            type_aliases: FxMap::default(),
            attr_aliases: FxMap::default(),
            scopes: Vec::new(),
            regions: Vec::new(),
            default_dialects: Vec::new(),
            isolated: Vec::new(),
            num_results: 0,
            deferred_locs: Vec::new(),
            deferred_arg_locs: Vec::new(),
            pending_arg_locs: FxMap::default(),
            line_starts,
            file_name,
            warnings: Vec::new(),
            depth: 0,
            op_names: FxMap::default(),
            reserved: false,
        }
    }

    /// One shared `Arc<str>` per op name, so creating an op does not allocate its name.
    fn intern(&mut self, name: &str) -> Identifier {
        if let Some(&a) = self.op_names.get(name) {
            return a;
        }
        let a = Identifier::new(name);
        self.op_names.insert(name.to_string(), a);
        a
    }

    // ----- tokens ------------------------------------------------------------------

    pub(crate) fn cur(&self) -> &SpannedToken<'s> {
        &self.cur
    }

    pub(crate) fn bump(&mut self) -> SpannedToken<'s> {
        let t = self.cur;
        self.cur = self.lex.next_token();
        t
    }

    /// The token after the current one.
    fn peek_next(&self) -> SpannedToken<'s> {
        self.lex.clone().next_token()
    }

    /// Restarts lexing at byte `pos`.
    fn reset_to(&mut self, pos: usize) {
        self.lex.reset(pos);
        self.cur = self.lex.next_token();
    }

    pub(crate) fn at(&self, t: Token) -> bool {
        self.cur.token == t
    }

    pub(crate) fn eat(&mut self, t: Token) -> bool {
        if self.cur.token == t {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(crate) fn at_punct(&self, p: &str) -> bool {
        token_is_punct(self.cur.token, p)
    }

    pub(crate) fn eat_punct(&mut self, p: &str) -> bool {
        if self.at_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(crate) fn expect_punct(&mut self, p: &str) -> Result<SpannedToken<'s>, Diagnostic> {
        if self.at_punct(p) {
            Ok(self.bump())
        } else {
            Err(self.err_expected(&format!("'{p}'")))
        }
    }

    /// [`Self::expect_punct`] with MLIR's context in the message
    /// (`expected '>' in tensor type`).
    pub(crate) fn expect_punct_in(
        &mut self,
        p: &str,
        context: &str,
    ) -> Result<SpannedToken<'s>, Diagnostic> {
        if self.at_punct(p) {
            Ok(self.bump())
        } else {
            Err(self.err_expected(&format!("'{p}' in {context}")))
        }
    }

    pub(crate) fn at_keyword(&self, kw: &str) -> bool {
        self.cur.is_keyword(kw)
    }

    pub(crate) fn eat_keyword(&mut self, kw: &str) -> bool {
        if self.at_keyword(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(crate) fn span_of(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    pub(crate) fn error_at(&self, span: Span, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(Some(span), msg)
    }

    pub(crate) fn error_here(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(Some(self.cur.span), msg)
    }

    /// An invalid escape in the string token at `span`, `offset` bytes into the token:
    /// the error points at the backslash, as MLIR's lexer does.
    pub(crate) fn bad_escape(&self, span: Span, offset: usize) -> Diagnostic {
        let at = span.start as usize + offset;
        let end = (at + 2).min(span.end as usize);
        self.error_at(
            Span::new(span.file, at, end),
            "unknown escape in string literal",
        )
    }

    /// "expected X" about the current token, or the lexer's complaint about it.
    pub(crate) fn err_expected(&self, what: &str) -> Diagnostic {
        match self.cur.token {
            // An unterminated string: the quote is missing at the end of its line.
            Token::Error if self.cur.text.starts_with('"') => {
                let from = self.cur.start();
                let eol = self.src[from..]
                    .find(['\n', '\r'])
                    .map_or(self.src.len(), |i| from + i);
                self.error_at(
                    Span::new(self.file, eol, eol),
                    "expected '\"' in string literal",
                )
            }
            Token::Error if self.cur.text.starts_with('@') => {
                self.error_here("@ identifier expected to start with letter or '_'")
            }
            Token::Error => self.error_here(format!("unexpected character '{}'", self.cur.text)),
            _ => self.error_at(self.wrong_token_span(), format!("expected {what}")),
        }
    }

    /// Where an "expected ..." error about the current token points: as MLIR's
    /// `emitWrongTokenError`, just past the previous token, skipping whitespace, blank
    /// lines and comments, which is where the missing token belongs (the end of the
    /// previous line when the wrong token starts a line).
    fn wrong_token_span(&self) -> Span {
        let b = self.src.as_bytes();
        let mut loc = self.cur.start().min(b.len());
        if self.cur.token == Token::Eof {
            loc = loc.saturating_sub(1);
        }
        let original = self.cur.span;
        let mut end = loc;
        loop {
            while end > 0 && matches!(b[end - 1], b' ' | b'\t') {
                end -= 1;
            }
            if end == 0 {
                return original;
            }
            if !matches!(b[end - 1], b'\n' | b'\r') {
                return Span::new(self.file, end, end);
            }
            end -= 1;
            // A `//` on the previous line starts a comment: back up to before it.
            let line_start = b[..end]
                .iter()
                .rposition(|&c| c == b'\n' || c == b'\r')
                .map_or(0, |i| i + 1);
            if let Some(c) = self.src[line_start..end].find("//") {
                end = line_start + c;
            }
        }
    }

    fn enter(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_here(format!("exceeded maximum nesting depth of {MAX_DEPTH}")));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Scans raw source from `open` (a `<`, `{`, `[` or `(`) to its matching closer,
    /// skipping strings and nested brackets; returns the byte offset just past it.
    pub(crate) fn scan_balanced(&self, open: usize) -> Result<usize, Diagnostic> {
        let b = self.src.as_bytes();
        let mut stack: Vec<u8> = Vec::new();
        let mut i = open;
        while i < b.len() {
            let c = b[i];
            match c {
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        if b[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    if i >= b.len() {
                        break;
                    }
                }
                b'<' | b'(' | b'[' | b'{' => stack.push(c),
                // `->` inside a dialect body is an arrow, not a closing bracket.
                b'-' if b.get(i + 1) == Some(&b'>') => i += 1,
                b'>' | b')' | b']' | b'}' => {
                    let want = match c {
                        b'>' => b'<',
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if stack.pop() != Some(want) {
                        return Err(self.error_at(
                            self.span_of(i, i + 1),
                            format!(
                                "unbalanced '{}' character in pretty dialect name",
                                c as char
                            ),
                        ));
                    }
                    if stack.is_empty() {
                        return Ok(i + 1);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        let opener = b.get(open).copied().unwrap_or(b'<') as char;
        Err(self.error_at(
            self.span_of(open, open + 1),
            format!("unbalanced '{opener}' character in pretty dialect name"),
        ))
    }

    // ----- top level ---------------------------------------------------------------

    fn parse_top_level(&mut self) -> Result<ParseOutput, Diagnostic> {
        self.scopes.push(IsolatedScope {
            region_defs: vec![Vec::new()],
            ..IsolatedScope::default()
        });
        let top = self.ctx.create_block(Vec::new());
        let top_region = self.ctx.create_region();
        self.ctx.append_block(top_region, top);
        loop {
            match self.cur.token {
                Token::Eof => break,
                Token::HashId if self.peek_next().token == Token::Equal => {
                    self.parse_attr_alias_def()?
                }
                Token::BangId if self.peek_next().token == Token::Equal => {
                    self.parse_type_alias_def()?
                }
                Token::FileMetadataBegin => self.parse_file_metadata()?,
                _ => {
                    self.parse_operation(top)?;
                }
            }
        }
        self.pop_isolated_scope()?;
        self.resolve_deferred_locations()?;

        let ops: Vec<OpId> = self.ctx.block_ops(top).collect();
        let module = if ops.len() == 1 && self.ctx.op_name(ops[0]) == "builtin.module" {
            self.ctx.detach_op(ops[0]);
            ops[0]
        } else {
            let mut state = OperationState::new("builtin.module");
            let region = self.ctx.create_region();
            let block = self.ctx.create_block(Vec::new());
            self.ctx.append_block(region, block);
            for &o in &ops {
                self.ctx.detach_op(o);
                self.ctx.append_op(block, o);
            }
            state.regions.push(region);
            state.span = Some(self.span_of(0, 0));
            // mlir-opt's implicit module is at line 0, column 0 of the file.
            state.location = Location::FileLineCol {
                file: self.file_name,
                line: 0,
                col: 0,
            };
            self.ctx.create_op(state)
        };
        // The temporary top-level block is empty now.
        self.ctx.erase_block(top);
        Ok(ParseOutput {
            module,
            warnings: std::mem::take(&mut self.warnings),
        })
    }

    fn parse_attr_alias_def(&mut self) -> Result<(), Diagnostic> {
        let tok = self.bump();
        let name = &tok.text[1..];
        if name.contains('.') {
            return Err(self.error_at(
                tok.span,
                "attribute names with a '.' are reserved for dialect-defined names",
            ));
        }
        if self.attr_aliases.contains_key(name) {
            return Err(self.error_at(
                tok.span,
                format!("redefinition of attribute alias id '{name}'"),
            ));
        }
        self.expect_punct("=")?;
        let a = self.parse_attribute()?;
        self.attr_aliases.insert(name.to_string(), a);
        Ok(())
    }

    fn parse_type_alias_def(&mut self) -> Result<(), Diagnostic> {
        let tok = self.bump();
        let name = &tok.text[1..];
        if name.contains('.') {
            return Err(self.error_at(
                tok.span,
                "type names with a '.' are reserved for dialect-defined names",
            ));
        }
        if self.type_aliases.contains_key(name) {
            return Err(self.error_at(tok.span, format!("redefinition of type alias id '{name}'")));
        }
        self.expect_punct("=")?;
        let t = self.parse_type()?;
        self.type_aliases.insert(name.to_string(), t);
        Ok(())
    }

    fn resolve_deferred_locations(&mut self) -> Result<(), Diagnostic> {
        for (op, name, span) in std::mem::take(&mut self.deferred_locs) {
            let l = self.deferred_location(&name, span)?;
            self.ctx.op_mut(op).location = l;
        }
        for (block, i, name, span) in std::mem::take(&mut self.deferred_arg_locs) {
            let l = self.deferred_location(&name, span)?;
            self.ctx.set_block_arg_location(block, i, l);
        }
        Ok(())
    }

    /// The location alias `#name` used before its definition, now that the file is read.
    fn deferred_location(&self, name: &str, span: Span) -> Result<Location, Diagnostic> {
        match self.attr_aliases.get(name).map(|x| x.kind()) {
            Some(AttrKind::Location(l)) => Ok(l.clone()),
            Some(_) => Err(self.error_at(span, format!("expected location, but found '#{name}'"))),
            None => Err(self.error_at(
                span,
                format!("operation location alias was never defined: '#{name}'"),
            )),
        }
    }

    /// `loc("file":line:col)` of byte offset `offset` (1-based line and column, the
    /// column in bytes, as mlir-opt counts).
    fn file_location(&self, offset: usize) -> Location {
        let offset = offset as u32;
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self.line_starts[line.saturating_sub(1)];
        Location::FileLineCol {
            file: self.file_name,
            line: line as u32,
            col: offset - start + 1,
        }
    }

    /// Sets the location of argument `i` of `block`, written at `at`: the `loc(...)`
    /// written after it, or where it was written.
    fn set_arg_location(&mut self, block: BlockId, i: usize, at: Span, loc: TrailingLoc) {
        let l = match loc {
            TrailingLoc::None => self.file_location(at.start as usize),
            TrailingLoc::Loc(l) => l,
            TrailingLoc::Deferred(name, span) => {
                self.deferred_arg_locs.push((block, i, name, span));
                return;
            }
        };
        self.ctx.set_block_arg_location(block, i, l);
    }

    // ----- SSA names ---------------------------------------------------------------

    fn pop_isolated_scope(&mut self) -> Result<(), Diagnostic> {
        let Some(scope) = self.scopes.pop() else {
            return Ok(());
        };
        // The first forward reference never defined; `%x#N` past the results of a
        // defined `%x` is MLIR's "invalid result number".
        let mut first: Option<(Span, bool)> = None;
        for entries in scope.values.values() {
            let all = entries.all();
            let defined = all.iter().flatten().any(|e| !e.forward);
            for e in all.iter().flatten() {
                if e.forward && first.is_none_or(|(s, _)| e.span.start < s.start) {
                    first = Some((e.span, defined));
                }
            }
        }
        if let Some((span, defined)) = first {
            let msg = if defined {
                "reference to invalid result number"
            } else {
                "use of undeclared SSA value name"
            };
            return Err(self.error_at(span, msg));
        }
        Ok(())
    }

    fn push_region_scope(&mut self, isolated: bool) {
        if isolated || self.scopes.is_empty() {
            let mut scope = IsolatedScope::default();
            // The outermost body (usually the module's) holds most names of the file:
            // size it from the source to avoid rehashing while it grows.
            if self.scopes.len() <= 1 && !self.reserved {
                self.reserved = true;
                scope.values.reserve(self.src.len() / 256);
            }
            self.scopes.push(scope);
        }
        if let Some(s) = self.scopes.last_mut() {
            s.region_defs.push(Vec::new());
        }
        self.regions.push(RegionScope {
            blocks: FxMap::default(),
        });
    }

    fn pop_region_scope(&mut self, isolated: bool) -> Result<(), Diagnostic> {
        if let Some(rs) = self.regions.pop() {
            let mut undefined: Option<(Span, &String)> = None;
            for (name, b) in &rs.blocks {
                if !b.defined && undefined.is_none_or(|(s, _)| b.span.start < s.start) {
                    undefined = Some((b.span, name));
                }
            }
            if let Some((span, name)) = undefined {
                return Err(
                    self.error_at(span, format!("reference to an undefined block '{name}'"))
                );
            }
        }
        if let Some(s) = self.scopes.last_mut()
            && let Some(defs) = s.region_defs.pop()
        {
            for d in defs {
                if let Some(entries) = s.values.get(&d)
                    && entries.all().iter().flatten().all(|e| !e.forward)
                {
                    s.values.remove(&d);
                }
            }
        }
        if isolated {
            self.pop_isolated_scope()?;
        }
        Ok(())
    }

    /// Binds `name#index` to `value`, resolving a forward reference if there is one.
    fn define_value(
        &mut self,
        name: &str,
        index: u32,
        value: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let Some(scope) = self.scopes.last_mut() else {
            return Ok(());
        };
        let entries = match scope.values.get_mut(name) {
            Some(e) => e,
            None => {
                let key: Rc<str> = Rc::from(name);
                if let Some(defs) = scope.region_defs.last_mut() {
                    defs.push(key.clone());
                }
                scope.values.entry(key).or_default()
            }
        };
        let prev = entries.set(
            index as usize,
            ValueEntry {
                value,
                span,
                forward: false,
            },
        );
        if let Some(prev) = prev {
            if !prev.forward {
                return Err(self
                    .error_at(span, format!("redefinition of SSA value '{name}'"))
                    .with_note(Diagnostic::note(Some(prev.span), "previously defined here")));
            }
            let (old_ty, new_ty) = (
                *self.ctx.value_type(prev.value),
                *self.ctx.value_type(value),
            );
            if old_ty != new_ty {
                return Err(self
                    .error_at(
                        span,
                        format!(
                            "definition of SSA value '{name}#{index}' has type {}",
                            display::quoted_type(&new_ty)
                        ),
                    )
                    .with_note(Diagnostic::note(
                        Some(prev.span),
                        format!(
                            "previously used here with type {}",
                            display::quoted_type(&old_ty)
                        ),
                    )));
            }
            self.ctx.replace_all_uses_with(prev.value, value);
            if let Some(ph) = self.ctx.defining_op(prev.value) {
                self.ctx.erase_op(ph);
            }
            // The name now belongs to this region for visibility purposes.
            if let Some(scope) = self.scopes.last_mut()
                && let Some((key, _)) = scope.values.get_key_value(name)
            {
                let key = key.clone();
                if let Some(defs) = scope.region_defs.last_mut() {
                    defs.push(key);
                }
            }
        }
        Ok(())
    }

    /// The value `name#index` used with type `ty` (a placeholder when not yet defined).
    pub(crate) fn resolve_use(
        &mut self,
        name: &str,
        index: u32,
        span: Span,
        ty: &Type,
    ) -> Result<Value, Diagnostic> {
        if let Some(scope) = self.scopes.last()
            && let Some(e) = scope.values.get(name).and_then(|v| v.get(index as usize))
        {
            let have = self.ctx.value_type(e.value);
            if have != ty {
                let shown = if index == 0 {
                    name.to_string()
                } else {
                    format!("{name}#{index}")
                };
                return Err(self
                    .error_at(
                        span,
                        format!(
                            "use of value '{shown}' expects different type than prior uses: {} vs {}",
                            display::quoted_type(ty),
                            display::quoted_type(have)
                        ),
                    )
                    .with_note(Diagnostic::note(Some(e.span), "prior use here")));
            }
            return Ok(e.value);
        }
        let mut st = OperationState::new("builtin.unrealized_forward_ref");
        st.result_types.push(*ty);
        st.span = Some(span);
        let ph = self.ctx.create_op(st);
        let v = self.ctx.result(ph, 0);
        let Some(scope) = self.scopes.last_mut() else {
            return Ok(v);
        };
        let entries = scope.values.entry(Rc::from(name)).or_default();
        entries.set(
            index as usize,
            ValueEntry {
                value: v,
                span,
                forward: true,
            },
        );
        Ok(v)
    }

    /// A defined (not forward-referenced) value.
    pub(crate) fn lookup_value(&self, name: &str, index: u32) -> Option<Value> {
        let e = self.scopes.last()?.values.get(name)?.get(index as usize)?;
        (!e.forward).then_some(e.value)
    }

    /// `%name` or `%name#N`.
    pub(crate) fn parse_ssa_use(&mut self) -> Result<UnresolvedOperand, Diagnostic> {
        let (name, index, span) = self.parse_ssa_use_raw()?;
        Ok(UnresolvedOperand {
            name: name.to_string(),
            index,
            span,
        })
    }

    /// `%name#N` as a source slice (no allocation).
    fn parse_ssa_use_raw(&mut self) -> Result<(&'s str, u32, Span), Diagnostic> {
        if !self.at(Token::PercentId) {
            return Err(self.err_expected("SSA operand"));
        }
        let t = self.bump();
        let mut span = t.span;
        let mut index = 0;
        if self.at(Token::HashId) && self.cur.start() == t.end() {
            let h = self.bump();
            index = h.text[1..]
                .parse::<u32>()
                .ok()
                .filter(|i| *i < MAX_RESULTS)
                .ok_or_else(|| self.error_at(h.span, "invalid SSA value result number"))?;
            span = span.join(h.span);
        }
        Ok((t.text, index, span))
    }

    // ----- blocks ------------------------------------------------------------------

    /// The block named `name` in the current region, created on first reference.
    fn block_ref(&mut self, name: &str, span: Span) -> Result<BlockId, Diagnostic> {
        let Some(rs) = self.regions.last_mut() else {
            return Err(self.error_at(span, "block reference outside of a region"));
        };
        if let Some(b) = rs.blocks.get(name) {
            return Ok(b.block);
        }
        let block = self.ctx.create_block(Vec::new());
        rs.blocks.insert(
            name.to_string(),
            BlockEntry {
                block,
                defined: false,
                span,
            },
        );
        Ok(block)
    }

    pub(crate) fn parse_successor(&mut self) -> Result<BlockId, Diagnostic> {
        if !self.at(Token::CaretId) {
            return Err(self.err_expected("block name"));
        }
        let t = self.bump();
        self.block_ref(t.text, t.span)
    }

    // ----- operations --------------------------------------------------------------

    /// Parses one operation and appends it to `block`.
    fn parse_operation(&mut self, block: BlockId) -> Result<OpId, Diagnostic> {
        self.enter()?;
        let r = self.parse_operation_inner(block);
        self.leave();
        r
    }

    fn parse_operation_inner(&mut self, block: BlockId) -> Result<OpId, Diagnostic> {
        let start = self.cur.start();
        let mut results: Vec<(&'s str, u32, Span)> = Vec::new();
        if self.at(Token::PercentId) {
            loop {
                if !self.at(Token::PercentId) {
                    return Err(self.err_expected("SSA value name"));
                }
                let t = self.bump();
                let mut count = 1u32;
                if self.eat_punct(":") {
                    if !self.at(Token::Integer) {
                        return Err(self.err_expected("integer number of results"));
                    }
                    let n = self.bump();
                    count = n
                        .text
                        .parse::<u32>()
                        .ok()
                        .filter(|c| *c > 0 && *c < MAX_RESULTS)
                        .ok_or_else(|| {
                            self.error_at(
                                n.span,
                                "expected named operation to have at least 1 result",
                            )
                        })?;
                }
                results.push((t.text, count, t.span));
                if !self.eat_punct(",") {
                    break;
                }
            }
            if !self.at_punct("=") {
                return Err(self.err_expected("'=' after SSA name"));
            }
            self.bump();
        }
        let num_results: usize = results.iter().map(|r| r.1 as usize).sum();
        let name_tok = self.cur;
        let (state, deferred) = match self.cur.token {
            Token::String => self.parse_generic_op(start)?,
            Token::BareId => self.parse_custom_op(start, num_results)?,
            _ => return Err(self.err_expected("operation name in quotes")),
        };
        let op = self.ctx.create_op(state);
        if let Some((name, span)) = deferred {
            self.deferred_locs.push((op, name, span));
        }
        let nres = self.ctx.results(op).len();
        if !results.is_empty() && nres != num_results {
            return Err(self.error_at(
                self.span_of(start, name_tok.end()),
                format!("operation defines {nres} results but was provided {num_results} to bind"),
            ));
        }
        let mut k = 0;
        for (name, count, span) in results {
            for i in 0..count {
                let v = self.ctx.result(op, k);
                self.define_value(name, i, v, span)?;
                k += 1;
            }
        }
        self.ctx.append_op(block, op);
        Ok(op)
    }

    fn finish_location(
        &mut self,
        state: &mut OperationState,
    ) -> Result<Option<(String, Span)>, Diagnostic> {
        match self.parse_trailing_location()? {
            TrailingLoc::None => Ok(None),
            TrailingLoc::Loc(l) => {
                state.location = l;
                Ok(None)
            }
            TrailingLoc::Deferred(n, s) => Ok(Some((n, s))),
        }
    }

    /// An optional `loc(...)`; `loc(#alias)` with an alias not yet defined is deferred.
    fn parse_trailing_location(&mut self) -> Result<TrailingLoc, Diagnostic> {
        if !self.at_keyword("loc") || self.peek_next().token != Token::LParen {
            return Ok(TrailingLoc::None);
        }
        // Look for `loc(#alias)` where the alias comes later in the file.
        let mut la = self.lex.clone();
        let (t1, t2) = (la.next_token(), la.next_token());
        let t3 = la.next_token();
        if t2.token == Token::HashId
            && t3.token == Token::RParen
            && !self.attr_aliases.contains_key(&t2.text[1..])
        {
            let _ = t1;
            self.bump();
            self.bump();
            let h = self.bump();
            self.bump();
            return Ok(TrailingLoc::Deferred(h.text[1..].to_string(), h.span));
        }
        Ok(TrailingLoc::Loc(self.parse_location()?))
    }

    /// An optional `loc(...)` after a region argument that a custom parser reads; kept
    /// until the region defining the argument is parsed.
    pub(crate) fn parse_pending_arg_location(&mut self, at: Span) -> Result<(), Diagnostic> {
        let l = self.parse_trailing_location()?;
        if !matches!(l, TrailingLoc::None) {
            self.pending_arg_locs.insert(at.start, l);
        }
        Ok(())
    }

    #[allow(clippy::type_complexity)]
    fn parse_generic_op(
        &mut self,
        start: usize,
    ) -> Result<(OperationState, Option<(String, Span)>), Diagnostic> {
        let name_tok = self.bump();
        let raw = &name_tok.text[1..name_tok.text.len() - 1];
        // Fast path: op names almost never contain escapes.
        let name = if raw.contains('\\') {
            lexer::unescape(name_tok.text).map_err(|e| self.bad_escape(name_tok.span, e))?
        } else {
            raw.to_string()
        };
        if name.is_empty() {
            return Err(self.error_at(name_tok.span, "empty operation name is invalid"));
        }
        let registry = self.registry.clone();
        let def = registry.op(&name);
        if def.is_none() {
            let dialect = dialect_of(&name);
            if registry.is_partial(dialect) {
                // An upstream op rtile does not model: opaque (generic form, no
                // verification) when unregistered ops are allowed, as mlir-opt would keep it.
                if !self.ctx.allow_unregistered {
                    return Err(self.error_at(
                        name_tok.span,
                        format!(
                            "operation '{name}' of registered dialect '{dialect}' is not modelled by rtile; use --allow-unregistered-dialect to pass it through unverified"
                        ),
                    ));
                }
            } else if registry.has_dialect(dialect) {
                return Err(self.error_at(
                    name_tok.span,
                    format!(
                        "unregistered operation '{name}' found in dialect ('{dialect}') that does not allow unknown operations"
                    ),
                ));
            }
            if !self.ctx.allow_unregistered {
                return Err(self.error_at(
                    name_tok.span,
                    "operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used",
                ));
            }
        }
        let isolated = def.is_some_and(|d| d.traits().isolated_from_above);
        let mut state = OperationState::new(self.intern(&name));

        self.expect_punct("(")?;
        let mut operands = Vec::new();
        if !self.at_punct(")") {
            loop {
                operands.push(self.parse_ssa_use_raw()?);
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        if !self.eat_punct(")") {
            return Err(self.err_expected("')' to end operand list"));
        }
        if self.eat_punct("[") {
            loop {
                let b = self.parse_successor()?;
                state.successors.push(b);
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct("]")?;
        }
        if self.at_punct("<") && self.peek_next().token == Token::LBrace {
            self.bump();
            let props = self.parse_dictionary()?;
            state.properties = Some(Attribute::new(AttrKind::Dictionary(props)));
            self.expect_punct(">")?;
        }
        if self.at_punct("(") && self.peek_next().token == Token::LBrace {
            self.bump();
            loop {
                let r = self.parse_region_impl(&[], isolated)?;
                state.regions.push(r);
                if !self.eat_punct(",") {
                    break;
                }
            }
            if !self.eat_punct(")") {
                return Err(self.err_expected("')' to end region list"));
            }
        }
        if self.at_punct("{") {
            state.attributes = self.parse_dictionary()?;
        }
        // Without `<{...}>`, a registered op's inherent attributes come from the
        // attribute dictionary (MLIR's setPropertiesFromAttr); then the defaults of the
        // properties not written at all.
        if let Some(d) = def {
            if state.properties.is_none() {
                move_inherent_to_properties(&mut state, d.inherent_attributes());
            }
            state.fill_default_properties(d.default_properties());
        }
        if !self.at_punct(":") {
            return Err(self.err_expected("':' followed by operation type"));
        }
        self.bump();
        let ty_start = self.cur.span;
        let ty = self.parse_type()?;
        let TypeKind::Function { inputs, results } = ty.kind() else {
            return Err(self.error_at(ty_start, "expected function type"));
        };
        if inputs.len() != operands.len() {
            return Err(self.error_at(
                ty_start,
                format!(
                    "expected {} operand type{} but had {}",
                    operands.len(),
                    if operands.len() == 1 { "" } else { "s" },
                    inputs.len()
                ),
            ));
        }
        for (&(name, index, span), t) in operands.iter().zip(inputs) {
            let v = self.resolve_use(name, index, span, t)?;
            state.operands.push(v);
        }
        state.result_types = results.clone();
        state.span = Some(self.span_of(start, name_tok.end()));
        state.location = self.file_location(name_tok.start());
        let deferred = self.finish_location(&mut state)?;
        Ok((state, deferred))
    }

    #[allow(clippy::type_complexity)]
    fn parse_custom_op(
        &mut self,
        start: usize,
        num_results: usize,
    ) -> Result<(OperationState, Option<(String, Span)>), Diagnostic> {
        let name_tok = self.bump();
        let written = name_tok.text;
        let registry = self.registry.clone();
        let (full, def) = if written.contains('.') {
            match registry.op(written) {
                Some(d) => (written.to_string(), d),
                None => {
                    let dialect = dialect_of(written);
                    let defaulted = self
                        .default_dialects
                        .last()
                        .map(|d| format!("{d}.{written}"))
                        .and_then(|n| registry.op(&n).map(|d| (n, d)));
                    match defaulted {
                        Some(x) => x,
                        None if !registry.has_dialect(dialect) => {
                            let mut known: Vec<&str> =
                                registry.dialects().iter().map(|d| d.0).collect();
                            known.sort_unstable();
                            return Err(self
                                .error_at(
                                    name_tok.span,
                                    format!(
                                        "Dialect `{dialect}' not found for custom op '{written}' "
                                    ),
                                )
                                .with_note(Diagnostic::note(
                                    Some(name_tok.span),
                                    format!(
                                        "Available dialects: {} ; for more info on dialect registration see https://mlir.llvm.org/getting_started/Faq/#registered-loaded-dependent-whats-up-with-dialects-management",
                                        known.join(", ")
                                    ),
                                )));
                        }
                        None if registry.is_partial(dialect) => {
                            return Err(self.error_at(
                                name_tok.span,
                                format!(
                                    "custom op '{written}' of registered dialect '{dialect}' is not modelled by rtile; write it in generic form with --allow-unregistered-dialect to pass it through unverified"
                                ),
                            ));
                        }
                        None => {
                            return Err(self.error_at(
                                name_tok.span,
                                format!("custom op '{written}' is unknown"),
                            ));
                        }
                    }
                }
            }
        } else {
            let builtin = format!("builtin.{written}");
            if let Some(d) = registry.op(&builtin) {
                (builtin, d)
            } else {
                let defaulted = self
                    .default_dialects
                    .last()
                    .map(|d| format!("{d}.{written}"))
                    .and_then(|n| registry.op(&n).map(|d| (n, d)));
                match defaulted {
                    Some(x) => x,
                    None => {
                        // At top level the default dialect is builtin's, as in MLIR.
                        let d = self
                            .default_dialects
                            .last()
                            .map_or("builtin", |d| d.as_str());
                        let tried = format!(" (tried '{d}.{written}' as well)");
                        return Err(self.error_at(
                            name_tok.span,
                            format!("custom op '{written}' is unknown{tried}"),
                        ));
                    }
                }
            }
        };
        if !def.has_custom_assembly() {
            return Err(self.error_at(
                name_tok.span,
                format!("custom op '{full}' has no custom assembly form"),
            ));
        }
        let mut state = OperationState::new(self.intern(&full));
        state.span = Some(self.span_of(start, name_tok.end()));
        state.location = self.file_location(name_tok.start());
        self.default_dialects.push(dialect_of(&full).to_string());
        self.isolated.push(def.traits().isolated_from_above);
        let saved = std::mem::replace(&mut self.num_results, num_results);
        let r = {
            let mut p = OpAsmParser::new(self);
            def.parse(&mut p, &mut state)
        };
        self.num_results = saved;
        self.isolated.pop();
        self.default_dialects.pop();
        r?;
        // Custom parsers may add attributes in any order; keep MLIR's sorted dictionary.
        state.attributes.sort_by_key(|a| a.name);
        let deferred = self.finish_location(&mut state)?;
        Ok((state, deferred))
    }

    // ----- regions -----------------------------------------------------------------

    /// `{ blocks }`; `entry_args` become the entry block's arguments.
    pub(crate) fn parse_region_impl(
        &mut self,
        entry_args: &[(UnresolvedOperand, Type)],
        isolated: bool,
    ) -> Result<RegionId, Diagnostic> {
        if !self.at_punct("{") {
            return Err(self.err_expected("'{' to begin a region"));
        }
        self.enter()?;
        self.bump();
        self.push_region_scope(isolated);
        let r = self.parse_region_body(entry_args);
        let popped = self.pop_region_scope(isolated);
        self.leave();
        let region = r?;
        popped?;
        Ok(region)
    }

    fn parse_region_body(
        &mut self,
        entry_args: &[(UnresolvedOperand, Type)],
    ) -> Result<RegionId, Diagnostic> {
        let region = self.ctx.create_region();
        if self.at_punct("}") && entry_args.is_empty() {
            self.bump();
            return Ok(region);
        }
        if self.at(Token::CaretId) {
            if !entry_args.is_empty() {
                return Err(self.error_here("invalid block name in region with named arguments"));
            }
        } else {
            let block = self.ctx.create_block(Vec::new());
            self.ctx.append_block(region, block);
            for (i, (o, ty)) in entry_args.iter().enumerate() {
                let v = self.ctx.add_block_argument(block, *ty, Some(o.span));
                let loc = self
                    .pending_arg_locs
                    .remove(&o.span.start)
                    .unwrap_or(TrailingLoc::None);
                self.set_arg_location(block, i, o.span, loc);
                self.define_value(&o.name, 0, v, o.span)?;
            }
            self.parse_block_body(block)?;
        }
        while self.at(Token::CaretId) {
            self.parse_labeled_block(region)?;
        }
        if !self.at_punct("}") {
            return Err(self.err_expected("'}' to end a region"));
        }
        self.bump();
        Ok(region)
    }

    fn parse_block_body(&mut self, block: BlockId) -> Result<(), Diagnostic> {
        loop {
            match self.cur.token {
                Token::CaretId | Token::RBrace => return Ok(()),
                Token::Eof => return Err(self.err_expected("'}' to end a region")),
                _ => {
                    self.parse_operation(block)?;
                }
            }
        }
    }

    fn parse_labeled_block(&mut self, region: RegionId) -> Result<(), Diagnostic> {
        let t = self.bump();
        let block = self.block_ref(t.text, t.span)?;
        if let Some(rs) = self.regions.last_mut()
            && let Some(e) = rs.blocks.get_mut(t.text)
        {
            if e.defined {
                return Err(self.error_at(t.span, format!("redefinition of block '{}'", t.text)));
            }
            e.defined = true;
            e.span = t.span;
        }
        self.ctx.append_block(region, block);
        self.ctx.set_block_span(block, t.span);
        if self.eat_punct("(") {
            if !self.at_punct(")") {
                loop {
                    let o = self.parse_ssa_use()?;
                    self.expect_punct(":")?;
                    let ty = self.parse_type()?;
                    let loc = self.parse_trailing_location()?;
                    let v = self.ctx.add_block_argument(block, ty, Some(o.span));
                    let i = self.ctx.block_args(block).len() - 1;
                    self.set_arg_location(block, i, o.span, loc);
                    self.define_value(&o.name, o.index, v, o.span)?;
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            }
            self.expect_punct(")")?;
        }
        if !self.at_punct(":") {
            return Err(self.err_expected("':' after block name"));
        }
        self.bump();
        self.parse_block_body(block)
    }
}

/// Moves the attributes named in `inherent` from `state.attributes` into
/// `state.properties` (a dictionary, sorted by name; none when there are none).
pub(crate) fn move_inherent_to_properties(state: &mut OperationState, inherent: &[&str]) {
    if inherent.is_empty() {
        return;
    }
    let (props, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut state.attributes)
        .into_iter()
        .partition(|a| inherent.contains(&a.name.as_str()));
    state.attributes = rest;
    if !props.is_empty() {
        // Both come from sorted dictionaries: `props` is sorted.
        state.properties = Some(Attribute::new(AttrKind::Dictionary(props)));
    }
}
