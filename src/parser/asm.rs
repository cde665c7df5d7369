//! [`OpAsmParser`]: the interface a registered op's custom assembly parser sees
//! (MLIR's `OpAsmParser`), a thin view over the core parser state.

use super::lexer::{SpannedToken, Token};
use super::{State, UnresolvedOperand};
use crate::diagnostics::Diagnostic;
use crate::ir::{Attribute, BlockId, Context, NamedAttribute, RegionId, Span, Type, Value};

/// Handed to [`crate::dialect::OpDefinition::parse`] to parse an op's custom form.
pub struct OpAsmParser<'p, 's> {
    st: &'p mut State<'s>,
}

fn merge_sorted(out: &mut Vec<NamedAttribute>, new: Vec<NamedAttribute>) {
    for a in new {
        match out.binary_search_by(|x| x.name.as_str().cmp(&a.name)) {
            Ok(i) => out[i].value = a.value,
            Err(i) => out.insert(i, a),
        }
    }
}

impl<'p, 's> OpAsmParser<'p, 's> {
    pub(crate) fn new(st: &'p mut State<'s>) -> Self {
        OpAsmParser { st }
    }

    /// The IR context (to create blocks, look up types of values, ...).
    pub fn ctx(&mut self) -> &mut Context {
        self.st.ctx
    }

    /// An error at the current token.
    pub fn error_here(&self, msg: impl Into<String>) -> Diagnostic {
        self.st.error_here(msg)
    }

    /// An error at `span`.
    pub fn error_at(&self, span: Span, msg: impl Into<String>) -> Diagnostic {
        self.st.error_at(span, msg)
    }

    /// The span of the current token.
    pub fn current_span(&self) -> Span {
        self.st.cur().span
    }

    /// Consumes punctuation `p` (`(`, `->`, `::`, ...) or fails with "expected 'p'".
    pub fn parse_punct(&mut self, p: &str) -> Result<(), Diagnostic> {
        self.st.expect_punct(p).map(|_| ())
    }

    /// Consumes punctuation `p` if it is next.
    pub fn parse_optional_punct(&mut self, p: &str) -> bool {
        self.st.eat_punct(p)
    }

    /// True when punctuation `p` is next.
    pub fn peek_punct(&self, p: &str) -> bool {
        self.st.at_punct(p)
    }

    /// Consumes keyword `kw` or fails with "expected 'kw'".
    pub fn parse_keyword(&mut self, kw: &str) -> Result<(), Diagnostic> {
        if self.st.eat_keyword(kw) {
            Ok(())
        } else {
            Err(self.st.err_expected(&format!("'{kw}'")))
        }
    }

    /// Consumes keyword `kw` if it is next.
    pub fn parse_optional_keyword(&mut self, kw: &str) -> bool {
        self.st.eat_keyword(kw)
    }

    /// Consumes any bare identifier.
    pub fn parse_any_keyword(&mut self) -> Result<String, Diagnostic> {
        if self.st.at(Token::BareId) {
            Ok(self.st.bump().text.to_string())
        } else {
            Err(self.st.err_expected("valid keyword"))
        }
    }

    /// The bare identifier that is next, if any.
    pub fn peek_keyword(&self) -> Option<String> {
        let t = self.st.cur();
        (t.token == Token::BareId).then(|| t.text.to_string())
    }

    /// An optionally negative integer that fits i64.
    pub fn parse_integer(&mut self) -> Result<i64, Diagnostic> {
        let start = self.st.cur().span;
        let neg = self.st.at(Token::Minus);
        if neg && self.st.peek_is_integer() {
            self.st.bump();
        } else if neg || !self.st.at(Token::Integer) {
            return Err(self.st.err_expected("integer value"));
        }
        let t = self.st.bump();
        let mag = if let Some(h) = t.text.strip_prefix("0x") {
            i128::from_str_radix(h, 16).ok()
        } else {
            t.text.parse::<i128>().ok()
        };
        let v = mag
            .map(|m| if neg { -m } else { m })
            .and_then(|v| i64::try_from(v).ok())
            .ok_or_else(|| {
                self.st
                    .error_at(start.join(t.span), "integer value too large")
            })?;
        Ok(v)
    }

    /// A static dimension list without a trailing `x` (`32x32x8`), as MLIR's
    /// `parseDimensionList(dims, /*allowDynamic=*/false, /*withTrailingX=*/false)`.
    pub fn parse_dimension_list(&mut self) -> Result<Vec<i64>, Diagnostic> {
        let mut dims = Vec::new();
        loop {
            match self.st.parse_dim_extent(false)? {
                Some(d) => dims.push(d),
                None => return Err(self.st.err_expected("dimension")),
            }
            let t = self.st.cur();
            if t.token != Token::BareId || !t.text.starts_with('x') {
                return Ok(dims);
            }
            self.st.parse_x_in_dimension_list()?;
        }
    }

    /// An optionally negative float (an integer literal is accepted too).
    pub fn parse_float(&mut self) -> Result<f64, Diagnostic> {
        let neg = self.st.eat_punct("-");
        let t = *self.st.cur();
        match t.token {
            Token::Float | Token::Integer => {
                self.st.bump();
                let v: f64 = if let Some(h) = t.text.strip_prefix("0x") {
                    u64::from_str_radix(h, 16)
                        .map(f64::from_bits)
                        .map_err(|_| self.st.error_at(t.span, "invalid floating point literal"))?
                } else {
                    t.text
                        .parse()
                        .map_err(|_| self.st.error_at(t.span, "invalid floating point literal"))?
                };
                Ok(if neg { -v } else { v })
            }
            _ => Err(self.st.err_expected("floating point value")),
        }
    }

    /// A string literal, unescaped.
    pub fn parse_string(&mut self) -> Result<String, Diagnostic> {
        if !self.st.at(Token::String) {
            return Err(self.st.err_expected("string"));
        }
        let t = self.st.bump();
        super::lexer::unescape(t.text).map_err(|e| self.st.bad_escape(t.span, e))
    }

    /// `@foo` → `"foo"` (also `@"quoted"`).
    pub fn parse_symbol_name(&mut self) -> Result<String, Diagnostic> {
        self.st.parse_symbol_name()
    }

    /// A symbol name if one is next.
    pub fn parse_optional_symbol_name(&mut self) -> Option<String> {
        if matches!(self.st.cur().token, Token::AtId | Token::AtString) {
            self.st.parse_symbol_name().ok()
        } else {
            None
        }
    }

    /// A type.
    pub fn parse_type(&mut self) -> Result<Type, Diagnostic> {
        self.st.parse_type()
    }

    /// A type, if the next token can start one.
    pub fn parse_optional_type(&mut self) -> Result<Option<Type>, Diagnostic> {
        if self.st.at_type_start() {
            self.st.parse_type().map(Some)
        } else {
            Ok(None)
        }
    }

    /// `: type`.
    pub fn parse_colon_type(&mut self) -> Result<Type, Diagnostic> {
        self.parse_punct(":")?;
        self.st.parse_type()
    }

    /// One or more comma separated types.
    pub fn parse_type_list(&mut self) -> Result<Vec<Type>, Diagnostic> {
        let mut v = vec![self.st.parse_type()?];
        while self.st.eat_punct(",") {
            v.push(self.st.parse_type()?);
        }
        Ok(v)
    }

    /// `(ins) -> outs`.
    pub fn parse_function_type(&mut self) -> Result<(Vec<Type>, Vec<Type>), Diagnostic> {
        self.st.parse_function_type()
    }

    /// Any attribute (integer and float literals take an optional `: type`).
    pub fn parse_attribute(&mut self) -> Result<Attribute, Diagnostic> {
        self.st.parse_attribute()
    }

    /// `{...}` if next, merged into `out` (kept sorted by name).
    pub fn parse_optional_attr_dict(
        &mut self,
        out: &mut Vec<NamedAttribute>,
    ) -> Result<(), Diagnostic> {
        if self.st.at_punct("{") {
            let d = self.st.parse_dictionary()?;
            merge_sorted(out, d);
        }
        Ok(())
    }

    /// `attributes {...}` if the keyword is next.
    pub fn parse_optional_attr_dict_with_keyword(
        &mut self,
        out: &mut Vec<NamedAttribute>,
    ) -> Result<(), Diagnostic> {
        if self.st.eat_keyword("attributes") {
            let d = self.st.parse_dictionary()?;
            merge_sorted(out, d);
        }
        Ok(())
    }

    /// `%x` or `%x#1`.
    pub fn parse_operand(&mut self) -> Result<UnresolvedOperand, Diagnostic> {
        self.st.parse_ssa_use()
    }

    /// An operand if `%` is next.
    pub fn parse_optional_operand(&mut self) -> Result<Option<UnresolvedOperand>, Diagnostic> {
        if self.st.at(Token::PercentId) {
            self.st.parse_ssa_use().map(Some)
        } else {
            Ok(None)
        }
    }

    /// Comma separated operands; empty when no `%` is next.
    pub fn parse_operand_list(&mut self) -> Result<Vec<UnresolvedOperand>, Diagnostic> {
        let mut v = Vec::new();
        if !self.st.at(Token::PercentId) {
            return Ok(v);
        }
        loop {
            v.push(self.st.parse_ssa_use()?);
            if !self.st.eat_punct(",") {
                return Ok(v);
            }
        }
    }

    /// The value `o` names, which must have type `ty` (a forward reference gets a
    /// placeholder of that type, checked when the definition is parsed).
    pub fn resolve_operand(
        &mut self,
        o: &UnresolvedOperand,
        ty: &Type,
    ) -> Result<Value, Diagnostic> {
        self.st.resolve_use(&o.name, o.index, o.span, ty)
    }

    /// A region argument definition `%arg0` or `%arg0: f32`, with an optional trailing
    /// `loc(...)` that becomes the argument's location when the region is parsed.
    pub fn parse_argument(
        &mut self,
        with_type: bool,
    ) -> Result<(UnresolvedOperand, Option<Type>), Diagnostic> {
        if !self.st.at(Token::PercentId) {
            return Err(self.st.err_expected("SSA identifier"));
        }
        let o = self.st.parse_ssa_use()?;
        let ty = if with_type {
            self.parse_punct(":")?;
            Some(self.st.parse_type()?)
        } else {
            None
        };
        self.st.parse_pending_arg_location(o.span)?;
        Ok((o, ty))
    }

    /// `{ ... }`; `entry_args` become the entry block's arguments. Returns a detached
    /// region for `OperationState::regions`.
    pub fn parse_region(
        &mut self,
        entry_args: &[(UnresolvedOperand, Type)],
    ) -> Result<RegionId, Diagnostic> {
        let isolated = self.st.current_op_isolated();
        self.st.parse_region_impl(entry_args, isolated)
    }

    /// A region if `{` is next.
    pub fn parse_optional_region(
        &mut self,
        entry_args: &[(UnresolvedOperand, Type)],
    ) -> Result<Option<RegionId>, Diagnostic> {
        if self.st.at_punct("{") {
            self.parse_region(entry_args).map(Some)
        } else {
            Ok(None)
        }
    }

    /// `^bb1`, a block of the enclosing region (forward references allowed).
    pub fn parse_successor(&mut self) -> Result<BlockId, Diagnostic> {
        self.st.parse_successor()
    }

    /// The current token (`None` at the end of input).
    pub fn peek_token(&self) -> Option<&SpannedToken<'s>> {
        let t = self.st.cur();
        (t.token != Token::Eof).then_some(t)
    }

    /// Consumes and returns the current token (`None` at the end of input).
    pub fn next_token(&mut self) -> Option<SpannedToken<'s>> {
        if self.st.at(Token::Eof) {
            None
        } else {
            Some(self.st.bump())
        }
    }

    /// Consumes a balanced `{ ... }` and returns the text strictly inside and its span.
    pub fn parse_raw_braced(&mut self) -> Result<(String, Span), Diagnostic> {
        self.st.parse_raw_braced()
    }

    /// A value already defined in scope, by name (`"%A"`, `"%r#1"`).
    pub fn lookup_value(&self, name: &str) -> Option<Value> {
        let (n, idx) = match name.split_once('#') {
            Some((n, i)) => (n, i.parse::<u32>().ok()?),
            None => (name, 0),
        };
        self.st.lookup_value(n, idx)
    }

    /// How many result values were bound before `=`.
    pub fn num_results(&self) -> usize {
        self.st.num_results
    }
}

impl State<'_> {
    pub(crate) fn peek_is(&self, t: Token) -> bool {
        self.peek_next_token().token == t
    }

    pub(crate) fn peek_is_integer(&self) -> bool {
        self.peek_is(Token::Integer)
    }

    fn peek_next_token(&self) -> SpannedToken<'_> {
        let mut l = self.lex.clone();
        l.next_token()
    }

    pub(crate) fn current_op_isolated(&self) -> bool {
        self.isolated.last().copied().unwrap_or(false)
    }

    /// From the `{` at `open` to just past its matching `}`, skipping strings and `//`
    /// comments. Only braces nest: the text inside is another language (te bodies compare
    /// with `<` and `>`), so angle brackets must not count as in pretty dialect bodies.
    fn scan_braces(&self, open: usize) -> Result<usize, Diagnostic> {
        let b = self.src.as_bytes();
        let mut depth = 0usize;
        let mut i = open;
        while i < b.len() {
            match b[i] {
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        if b[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(i + 1);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Err(self.error_at(self.span_of(open, open + 1), "unbalanced '{' character"))
    }

    pub(crate) fn parse_raw_braced(&mut self) -> Result<(String, Span), Diagnostic> {
        if !self.at_punct("{") {
            return Err(self.err_expected("'{'"));
        }
        let open = self.cur.start();
        let end = self.scan_braces(open)?;
        let text = self.src[open + 1..end - 1].to_string();
        let span = self.span_of(open + 1, end - 1);
        self.reset_to(end);
        Ok((text, span))
    }
}
