//! Locations: `loc(...)` attributes, the optional trailing `loc(...)` of ops and block
//! arguments, and location aliases used before their definition (resolved once the file
//! is read).

use super::lexer::{self, Token};
use super::{State, TrailingLoc};
use crate::diagnostics::Diagnostic;
use crate::ir::{AttrKind, BlockId, Location, OperationState, Span};

impl<'s> State<'s> {
    pub(super) fn resolve_deferred_locations(&mut self) -> Result<(), Diagnostic> {
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
    pub(super) fn file_location(&self, offset: usize) -> Location {
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
    pub(super) fn set_arg_location(
        &mut self,
        block: BlockId,
        i: usize,
        at: Span,
        loc: TrailingLoc,
    ) {
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

    pub(super) fn finish_location(
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
    pub(super) fn parse_trailing_location(&mut self) -> Result<TrailingLoc, Diagnostic> {
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

    // ----- locations ---------------------------------------------------------------

    /// `loc(...)`.
    pub(crate) fn parse_location(&mut self) -> Result<Location, Diagnostic> {
        if !self.eat_keyword("loc") {
            return Err(self.err_expected("location"));
        }
        self.expect_punct("(")?;
        let l = self.parse_location_inner()?;
        self.expect_punct(")")?;
        Ok(l)
    }

    fn parse_location_inner(&mut self) -> Result<Location, Diagnostic> {
        self.enter()?;
        let r = self.parse_location_inner_impl();
        self.leave();
        r
    }

    fn parse_location_inner_impl(&mut self) -> Result<Location, Diagnostic> {
        let t = self.cur;
        match t.token {
            Token::BareId if t.text == "unknown" => {
                self.bump();
                Ok(Location::Unknown)
            }
            Token::BareId if t.text == "callsite" => {
                self.bump();
                self.expect_punct("(")?;
                let callee = self.parse_location_inner()?;
                if !self.eat_keyword("at") {
                    return Err(self.err_expected("'at' in callsite location"));
                }
                let caller = self.parse_location_inner()?;
                self.expect_punct(")")?;
                Ok(Location::CallSite {
                    callee: Box::new(callee),
                    caller: Box::new(caller),
                })
            }
            Token::BareId if t.text == "fused" => {
                self.bump();
                let metadata = if self.eat_punct("<") {
                    let a = self.parse_attribute()?;
                    self.expect_punct(">")?;
                    Some(Box::new(a))
                } else {
                    None
                };
                self.expect_punct("[")?;
                let mut locations = Vec::new();
                if !self.eat_punct("]") {
                    loop {
                        locations.push(self.parse_location_inner()?);
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                    self.expect_punct("]")?;
                }
                Ok(Location::Fused {
                    locations,
                    metadata,
                })
            }
            Token::String => {
                self.bump();
                let s = lexer::unescape(t.text).map_err(|e| self.bad_escape(t.span, e))?;
                if self.eat_punct(":") {
                    let line = self.parse_u32("line number in file location")?;
                    self.expect_punct(":")?;
                    let col = self.parse_u32("column number in file location")?;
                    // MLIR 20+ ranges (`to 3:4`, `to :4`) carry no more than we keep.
                    if self.eat_keyword("to") {
                        if self.at(Token::Integer) {
                            self.bump();
                        }
                        self.expect_punct(":")?;
                        self.parse_u32("column number in file location range")?;
                    }
                    Ok(Location::FileLineCol {
                        file: s.into(),
                        line,
                        col,
                    })
                } else if self.eat_punct("(") {
                    let child = self.parse_location_inner()?;
                    self.expect_punct(")")?;
                    Ok(Location::Name {
                        name: s,
                        child: Some(Box::new(child)),
                    })
                } else {
                    Ok(Location::Name {
                        name: s,
                        child: None,
                    })
                }
            }
            Token::HashId => {
                self.bump();
                match self.attr_aliases.get(&t.text[1..]).map(|x| x.kind()) {
                    Some(AttrKind::Location(l)) => Ok(l.clone()),
                    Some(_) => {
                        Err(self
                            .error_at(t.span, format!("expected location, but found '{}'", t.text)))
                    }
                    None => Err(self.error_at(
                        t.span,
                        format!("undefined symbol alias id '{}'", &t.text[1..]),
                    )),
                }
            }
            _ => Err(self.err_expected("location instance")),
        }
    }

    fn parse_u32(&mut self, what: &str) -> Result<u32, Diagnostic> {
        if !self.at(Token::Integer) {
            return Err(self.err_expected(what));
        }
        let t = self.bump();
        t.text
            .parse::<u32>()
            .map_err(|_| self.error_at(t.span, format!("expected {what}")))
    }
}
