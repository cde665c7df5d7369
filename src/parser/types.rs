//! Types (recursive descent, as MLIR's TypeParser.cpp): builtin types, dimension lists
//! (`4x?xf32`) lexed in context, and dialect types with their pretty bodies scanned raw
//! (`!llvm.ptr<1>`).

use super::State;
use super::lexer::Token;
use crate::diagnostics::Diagnostic;
use crate::ir::{AttrKind, DYNAMIC, FloatKind, Signedness, TextAlias, Type, TypeKind};

/// Largest integer width MLIR accepts.
const MAX_INT_WIDTH: u64 = 16_777_215;

/// Parses `i32`, `si8`, `ui64` spellings.
fn int_type_keyword(s: &str) -> Option<(Signedness, &str)> {
    let (sign, digits) = if let Some(d) = s.strip_prefix("si") {
        (Signedness::Signed, d)
    } else if let Some(d) = s.strip_prefix("ui") {
        (Signedness::Unsigned, d)
    } else {
        (Signedness::Signless, s.strip_prefix('i')?)
    };
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some((sign, digits))
}

/// True when a bare identifier spells a builtin type.
pub(crate) fn is_type_keyword(s: &str) -> bool {
    matches!(
        s,
        "index" | "none" | "tensor" | "memref" | "vector" | "complex" | "tuple"
    ) || FloatKind::from_keyword(s).is_some()
        || int_type_keyword(s).is_some()
}

impl<'s> State<'s> {
    // ----- types -------------------------------------------------------------------

    /// True when the current token can start a type.
    pub(crate) fn at_type_start(&self) -> bool {
        match self.cur.token {
            Token::LParen | Token::BangId => true,
            Token::BareId => is_type_keyword(self.cur.text),
            _ => false,
        }
    }

    pub(crate) fn parse_type(&mut self) -> Result<Type, Diagnostic> {
        self.enter()?;
        let r = self.parse_type_inner();
        self.leave();
        r
    }

    fn parse_type_inner(&mut self) -> Result<Type, Diagnostic> {
        match self.cur.token {
            Token::LParen => {
                let (inputs, results) = self.parse_function_type()?;
                Ok(Type::new(TypeKind::Function { inputs, results }))
            }
            Token::BangId => self.parse_extended_type(),
            Token::BareId => self.parse_keyword_type(),
            _ => Err(self.err_expected("non-function type")),
        }
    }

    /// `(ins) -> outs` where `outs` is one non-function type or a parenthesised list.
    pub(crate) fn parse_function_type(&mut self) -> Result<(Vec<Type>, Vec<Type>), Diagnostic> {
        self.expect_punct("(")?;
        let inputs = self.parse_type_list_until(")")?;
        if !self.at_punct("->") {
            return Err(self.err_expected("'->' in function type"));
        }
        self.bump();
        let results = if self.at_punct("(") {
            self.bump();
            self.parse_type_list_until(")")?
        } else {
            vec![self.parse_type()?]
        };
        Ok((inputs, results))
    }

    /// Comma separated types up to (and including) `close`; may be empty.
    fn parse_type_list_until(&mut self, close: &str) -> Result<Vec<Type>, Diagnostic> {
        let mut v = Vec::new();
        if self.eat_punct(close) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_type()?);
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct(close)?;
        Ok(v)
    }

    fn parse_keyword_type(&mut self) -> Result<Type, Diagnostic> {
        let t = self.cur;
        let kw = t.text;
        if let Some(k) = FloatKind::from_keyword(kw) {
            self.bump();
            return Ok(Type::float(k));
        }
        if let Some((signedness, digits)) = int_type_keyword(kw) {
            self.bump();
            let width = digits
                .parse::<u64>()
                .ok()
                .filter(|w| *w <= MAX_INT_WIDTH)
                .ok_or_else(|| {
                    self.error_at(t.span, "integer bitwidth is limited to 16777215 bits")
                })?;
            return Ok(Type::new(TypeKind::Integer {
                width: width as u32,
                signedness,
            }));
        }
        match kw {
            "index" => {
                self.bump();
                Ok(Type::index())
            }
            "none" => {
                self.bump();
                Ok(Type::new(TypeKind::None))
            }
            "tensor" => self.parse_tensor_type(),
            "memref" => self.parse_memref_type(),
            "vector" => self.parse_vector_type(),
            "complex" => {
                self.bump();
                self.expect_punct("<")?;
                let e = self.parse_type()?;
                self.expect_punct_in(">", "complex type")?;
                Ok(Type::new(TypeKind::Complex(e)))
            }
            "tuple" => {
                self.bump();
                self.expect_punct("<")?;
                let v = self.parse_type_list_until(">")?;
                Ok(Type::new(TypeKind::Tuple(v)))
            }
            _ => Err(self.err_expected("non-function type")),
        }
    }

    /// Consumes the `x` that separates dimensions; a bare identifier such as `xf32` is
    /// split by restarting the lexer just after the `x` (MLIR's trick).
    pub(super) fn parse_x_in_dimension_list(&mut self) -> Result<(), Diagnostic> {
        if self.cur.token != Token::BareId || !self.cur.text.starts_with('x') {
            return Err(self.err_expected("'x' in dimension list"));
        }
        if self.cur.text.len() == 1 {
            self.bump();
        } else {
            let p = self.cur.start() + 1;
            self.reset_to(p);
        }
        Ok(())
    }

    /// A dimension extent: decimal integer or (when allowed) `?`. A hex token such as
    /// `0xf32` is really `0` `x` `f32`.
    pub(super) fn parse_dim_extent(
        &mut self,
        allow_dynamic: bool,
    ) -> Result<Option<i64>, Diagnostic> {
        match self.cur.token {
            Token::Question if allow_dynamic => {
                self.bump();
                Ok(Some(DYNAMIC))
            }
            Token::Integer => {
                let t = self.cur;
                if t.text.starts_with("0x") {
                    self.reset_to(t.start() + 1);
                    return Ok(Some(0));
                }
                self.bump();
                let v = t
                    .text
                    .parse::<i64>()
                    .map_err(|_| self.error_at(t.span, "invalid dimension"))?;
                Ok(Some(v))
            }
            _ => Ok(None),
        }
    }

    /// `4x?x` prefixes (each extent followed by `x`).
    fn parse_dimension_list(&mut self, allow_dynamic: bool) -> Result<Vec<i64>, Diagnostic> {
        let mut dims = Vec::new();
        loop {
            if !allow_dynamic && self.at(Token::Question) {
                return Err(self.error_here("expected static shape"));
            }
            match self.parse_dim_extent(allow_dynamic)? {
                Some(d) => {
                    dims.push(d);
                    self.parse_x_in_dimension_list()?;
                }
                None => return Ok(dims),
            }
        }
    }

    fn parse_tensor_type(&mut self) -> Result<Type, Diagnostic> {
        self.bump();
        self.expect_punct("<")?;
        if self.eat_punct("*") {
            self.parse_x_in_dimension_list()?;
            let elem = self.parse_type()?;
            self.expect_punct_in(">", "tensor type")?;
            return Ok(Type::new(TypeKind::UnrankedTensor { elem }));
        }
        let shape = self.parse_dimension_list(true)?;
        let elem = self.parse_type()?;
        let encoding = if self.eat_punct(",") {
            Some(Box::new(self.parse_attribute()?))
        } else {
            None
        };
        self.expect_punct_in(">", "tensor type")?;
        Ok(Type::new(TypeKind::Tensor {
            shape,
            elem,
            encoding: encoding.map(|b| *b),
        }))
    }

    fn parse_memref_type(&mut self) -> Result<Type, Diagnostic> {
        self.bump();
        self.expect_punct("<")?;
        if self.eat_punct("*") {
            self.parse_x_in_dimension_list()?;
            let elem = self.parse_type()?;
            let memory_space = if self.eat_punct(",") {
                Some(Box::new(self.parse_attribute()?))
            } else {
                None
            };
            self.expect_punct_in(">", "memref type")?;
            return Ok(Type::new(TypeKind::UnrankedMemRef {
                elem,
                memory_space: memory_space.map(|b| *b),
            }));
        }
        let shape = self.parse_dimension_list(true)?;
        let elem = self.parse_type()?;
        let mut layout = None;
        let mut memory_space = None;
        while self.eat_punct(",") {
            let span = self.cur.span;
            let a = self.parse_attribute()?;
            let is_layout = matches!(a.kind(), AttrKind::AffineMap(_) | AttrKind::Strided { .. });
            if let AttrKind::AffineMap(m) = a.kind()
                && is_layout
                && layout.is_none()
                && m.num_dims as usize != shape.len()
            {
                return Err(self.error_at(
                    span,
                    format!(
                        "memref layout mismatch between rank and affine map: {} != {}",
                        shape.len(),
                        m.num_dims
                    ),
                ));
            }
            if is_layout && layout.is_none() && memory_space.is_none() {
                layout = Some(Box::new(a));
            } else if memory_space.is_none() && !is_layout {
                memory_space = Some(Box::new(a));
            } else {
                return Err(self.error_at(span, "multiple memory spaces specified in memref type"));
            }
        }
        self.expect_punct_in(">", "memref type")?;
        Ok(Type::new(TypeKind::MemRef {
            shape,
            elem,
            layout: layout.map(|b| *b),
            memory_space: memory_space.map(|b| *b),
        }))
    }

    fn parse_vector_type(&mut self) -> Result<Type, Diagnostic> {
        let start = self.bump().span;
        self.expect_punct("<")?;
        let mut shape = Vec::new();
        let mut scalable = Vec::new();
        loop {
            if self.at_punct("[") {
                self.bump();
                let Some(d) = self.parse_dim_extent(false)? else {
                    return Err(self.err_expected("scalable dimension"));
                };
                self.expect_punct("]")?;
                shape.push(d);
                scalable.push(true);
            } else if self.at(Token::Question) {
                return Err(self.error_here("expected static shape"));
            } else if let Some(d) = self.parse_dim_extent(false)? {
                shape.push(d);
                scalable.push(false);
            } else {
                break;
            }
            self.parse_x_in_dimension_list()?;
        }
        let elem = self.parse_type()?;
        self.expect_punct_in(">", "vector type")?;
        if let Some(&d) = shape.iter().find(|&&d| d <= 0) {
            return Err(self.error_at(
                start,
                format!("vector types must have positive constant sizes but got {d}"),
            ));
        }
        Ok(Type::new(TypeKind::Vector {
            shape,
            scalable,
            elem,
        }))
    }

    /// Splits `!name` / `#name` into alias, pretty dialect or opaque dialect form.
    /// Returns `Err(None)`-like `Ok(None)` when it is an alias name (caller resolves).
    pub(super) fn parse_dialect_symbol(
        &mut self,
    ) -> Result<Result<(String, String), &'s str>, Diagnostic> {
        let t = self.bump();
        let ident = &t.text[1..];
        let after = t.end();
        if ident.starts_with('.') {
            // `#.x`: a dialect symbol with an empty namespace (mlir-opt's wording).
            return Err(self.error_at(t.span, "invalid dialect namespace '\"\"'"));
        }
        let has_body = self.src.as_bytes().get(after) == Some(&b'<');
        if !has_body {
            return Ok(match ident.split_once('.') {
                Some((d, b)) => Ok((d.to_string(), b.to_string())),
                None => Err(ident),
            });
        }
        let end = self.scan_balanced(after)?;
        self.reset_to(end);
        self.note_text_aliases(after, end);
        Ok(Ok(match ident.split_once('.') {
            Some((d, b)) => (d.to_string(), format!("{b}{}", &self.src[after..end])),
            // `#gpu<dim x>` / `#foo<"opaque">`: the body keeps its angle brackets verbatim, so
            // the printer can tell this form from `#d.name<...>` and reproduce it exactly.
            None => (ident.to_string(), self.src[after..end].to_string()),
        }))
    }

    /// Records the aliases that the dialect body `src[start..end]` names (`#a`, `!t`), so
    /// that the printer can define them again (see [`crate::ir::Context::text_aliases`]).
    fn note_text_aliases(&mut self, start: usize, end: usize) {
        let bytes = self.src.as_bytes();
        // The quoted form `#d<"body">` is the same attribute as `#d.body` (the printer
        // quotes a body it cannot print bare), so its string is scanned as the body is.
        let (start, end) = match &self.src[start..end] {
            b if b.len() >= 4 && b.starts_with("<\"") && b.ends_with("\">") => (start + 2, end - 2),
            _ => (start, end),
        };
        let mut i = start;
        while i < end {
            let sigil = bytes[i];
            if sigil == b'"' {
                // Skip string literals: `"#x"` is text, not a reference.
                i += 1;
                while i < end && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                continue;
            }
            i += 1;
            if sigil != b'#' && sigil != b'!' {
                continue;
            }
            let name_end = (i..end)
                .find(|&j| !(bytes[j].is_ascii_alphanumeric() || b"_$.-".contains(&bytes[j])))
                .unwrap_or(end);
            let name = &self.src[i..name_end];
            let alias = match sigil {
                b'#' => self
                    .attr_aliases
                    .get(name)
                    .map(|a| TextAlias::Attr(name.to_string(), *a)),
                _ => self
                    .type_aliases
                    .get(name)
                    .map(|t| TextAlias::Type(name.to_string(), *t)),
            };
            if let Some(a) = alias
                && !self.ctx.text_aliases.contains(&a)
            {
                self.ctx.text_aliases.push(a);
            }
            i = name_end;
        }
    }

    fn parse_extended_type(&mut self) -> Result<Type, Diagnostic> {
        let span = self.cur.span;
        match self.parse_dialect_symbol()? {
            Ok((dialect, body)) => Ok(Type::new(TypeKind::Dialect { dialect, body })),
            Err(alias) => {
                self.type_aliases.get(alias).cloned().ok_or_else(|| {
                    self.error_at(span, format!("undefined symbol alias id '{alias}'"))
                })
            }
        }
    }
}
