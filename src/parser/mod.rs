//! MLIR text → IR.
//!
//! A hand-written recursive-descent parser in the structure of MLIR's own
//! (`mlir/lib/AsmParser`): a lazy, restartable logos lexer ([`lexer`]), types
//! (`types`) and attributes ([`types_attrs`], element literals in `elements`),
//! locations (`location`), affine maps and sets through a lalrpop grammar
//! ([`affine_expr`]), operations in generic form or in the custom form of a registered
//! op (through [`OpAsmParser`]), regions and blocks (`ops`), SSA name scopes with
//! forward references (`scopes`), and top-level alias definitions. Every error is a
//! [`Diagnostic`] with a span; no input can make it panic.

pub mod affine_expr;
mod asm;
pub mod builtin;
mod display;
mod elements;
pub mod lexer;
mod location;
mod ops;
mod resources;
mod scopes;
mod types;
mod types_attrs;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;
use std::sync::Arc;

use crate::diagnostics::Diagnostic;
use crate::dialect::DialectRegistry;
use crate::ir::{
    AttrKind, Attribute, BlockId, Context, Identifier, Location, OpId, OperationState, Span, Type,
    Value,
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
