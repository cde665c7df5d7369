//! The file metadata section `{-# dialect_resources: {...}, external_resources: {...} #-}`,
//! read into [`crate::ir::Context::resources`].

use super::State;
use super::lexer::{self, Token};
use crate::diagnostics::Diagnostic;
use crate::ir::{AttrKind, Attribute, ResourceGroup, ResourceValue};

impl State<'_> {
    /// `dense_resource<handle> : type`: elements held in a blob of the file's
    /// `dialect_resources` section.
    pub(super) fn parse_dense_resource_attr(&mut self) -> Result<Attribute, Diagnostic> {
        self.bump();
        self.expect_punct("<")?;
        let handle = self.parse_resource_key()?;
        self.expect_punct(">")?;
        self.expect_punct(":")?;
        let ty = self.parse_type()?;
        if ty.shape().is_none() {
            return Err(self.err_expected("a shaped type for dense_resource"));
        }
        Ok(Attribute::new(AttrKind::DenseResource { handle, ty }))
    }

    /// `{-# key: { owner: { name: value, ... }, ... }, ... #-}` with `key` one of
    /// `dialect_resources` and `external_resources`.
    pub(super) fn parse_file_metadata(&mut self) -> Result<(), Diagnostic> {
        let start = self.bump();
        if self.cur.token == Token::FileMetadataEnd {
            self.bump();
            return Ok(());
        }
        loop {
            let key = self.cur;
            if key.token == Token::Eof {
                return Err(self.error_at(start.span, "expected '#-}' to end file metadata"));
            }
            if key.token != Token::BareId {
                return Err(self.err_expected("identifier"));
            }
            self.bump();
            self.expect_punct(":")?;
            let groups = self.parse_resource_groups()?;
            match key.text {
                "dialect_resources" => self.ctx.resources.dialect.extend(groups),
                "external_resources" => self.ctx.resources.external.extend(groups),
                other => {
                    return Err(self.error_at(
                        key.span,
                        format!("unknown key '{other}' in file metadata dictionary"),
                    ));
                }
            }
            if self.cur.token == Token::FileMetadataEnd {
                self.bump();
                return Ok(());
            }
            if !self.eat_punct(",") {
                return Err(self.err_expected("'#-}'"));
            }
        }
    }

    /// `{ owner: { entries }, ... }`.
    fn parse_resource_groups(&mut self) -> Result<Vec<ResourceGroup>, Diagnostic> {
        self.expect_punct("{")?;
        let mut groups = Vec::new();
        if self.eat_punct("}") {
            return Ok(groups);
        }
        loop {
            let owner = self.parse_resource_key()?;
            self.expect_punct(":")?;
            self.expect_punct("{")?;
            let mut entries = Vec::new();
            if !self.eat_punct("}") {
                loop {
                    let k = self.parse_resource_key()?;
                    self.expect_punct(":")?;
                    entries.push((k, self.parse_resource_value()?));
                    if self.eat_punct("}") {
                        break;
                    }
                    self.expect_punct(",")?;
                }
            }
            groups.push(ResourceGroup { owner, entries });
            if self.eat_punct("}") {
                return Ok(groups);
            }
            self.expect_punct(",")?;
        }
    }

    /// A bare identifier or a quoted string.
    fn parse_resource_key(&mut self) -> Result<String, Diagnostic> {
        match self.cur.token {
            Token::BareId => Ok(self.bump().text.to_string()),
            Token::String => {
                let t = self.bump();
                lexer::unescape(t.text).map_err(|e| self.bad_escape(t.span, e))
            }
            _ => Err(self.err_expected("resource handle name")),
        }
    }

    /// `true`, `false` or a string (a blob is a hex string).
    fn parse_resource_value(&mut self) -> Result<ResourceValue, Diagnostic> {
        match self.cur.token {
            Token::BareId if matches!(self.cur.text, "true" | "false") => {
                Ok(ResourceValue::Bool(self.bump().text == "true"))
            }
            Token::String => {
                let t = self.bump();
                let s = lexer::unescape(t.text).map_err(|e| self.bad_escape(t.span, e))?;
                Ok(ResourceValue::String(s))
            }
            _ => Err(self.err_expected("a string or 'true'/'false' resource value")),
        }
    }
}
