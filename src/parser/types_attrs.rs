//! Types, attributes and locations (recursive descent, as MLIR's TypeParser.cpp and
//! AttributeParser.cpp), plus the context-sensitive lexing they need: dimension lists
//! (`4x?xf32`) and pretty dialect bodies scanned raw (`!llvm.ptr<1>`).

use super::State;
use super::affine_expr::{self, AffTok};
use super::lexer::{self, Token};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    AttrKind, Attribute, DYNAMIC, DenseArray, DenseLiteral, FloatBits, FloatFormat, FloatKind,
    Identifier, Location, NamedAttribute, Signedness, Span, TextAlias, Type, TypeKind,
};

/// Bound on the tokens of one affine map/set (its syntax tree is walked recursively).
const MAX_AFFINE_TOKENS: usize = 50_000;

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

fn parse_int_literal(text: &str) -> Option<u128> {
    if let Some(h) = text.strip_prefix("0x") {
        u128::from_str_radix(h, 16).ok()
    } else {
        text.parse::<u128>().ok()
    }
}

/// The float a hex bit pattern denotes in format `k`, as f64 (MLIR's `0x... : f32`); NaN
/// payloads are kept bit for bit. `None` when the pattern is wider than the format. f80 and
/// f128 values are rounded to f64.
fn float_from_bits(bits: u128, k: FloatKind) -> Option<f64> {
    if matches!(k, FloatKind::F80 | FloatKind::F128) {
        return wide_from_bits(bits, k);
    }
    let f = FloatFormat::of(k)?;
    let bits = u64::try_from(bits).ok()?;
    if f.width() < 64 && bits >> f.width() != 0 {
        return None;
    }
    Some(f.decode(bits))
}

/// x87 extended (explicit integer bit) or IEEE quad bits to the nearest f64.
fn wide_from_bits(bits: u128, k: FloatKind) -> Option<f64> {
    let (width, frac_bits, explicit) = if k == FloatKind::F80 {
        (80, 63, true)
    } else {
        (128, 112, false)
    };
    if width < 128 && bits >> width != 0 {
        return None;
    }
    let sign = if (bits >> (width - 1)) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let exp = ((bits >> (width - 16)) & 0x7FFF) as i32;
    let frac = bits & ((1u128 << frac_bits) - 1);
    if exp == 0x7FFF {
        return Some(if frac == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        });
    }
    let mut mant = if explicit {
        bits & ((1u128 << 64) - 1)
    } else if exp == 0 {
        frac
    } else {
        frac | (1u128 << frac_bits)
    };
    let mut e = exp.max(1) - 16383 - frac_bits;
    // Scale in steps that stay finite; `mant as f64` rounds to nearest even.
    let mut v = 0.0;
    if mant != 0 {
        while mant >> 53 != 0 && mant & 1 == 0 {
            mant >>= 1;
            e += 1;
        }
        v = mant as f64;
        while e > 0 {
            let s = e.min(1000);
            v *= 2f64.powi(s);
            e -= s;
        }
        while e < 0 {
            let s = (-e).min(1000);
            v *= 2f64.powi(-s);
            e += s;
        }
    }
    Some(sign * v)
}

/// Rounds a parsed value to the precision of `ty`, as MLIR's APFloat conversion does.
fn round_to(v: f64, ty: &Type) -> f64 {
    match ty.kind() {
        TypeKind::Float(k) => FloatFormat::of(*k).map_or(v, |f| f.round(v)),
        _ => v,
    }
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
    fn parse_x_in_dimension_list(&mut self) -> Result<(), Diagnostic> {
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
    fn parse_dim_extent(&mut self, allow_dynamic: bool) -> Result<Option<i64>, Diagnostic> {
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
    fn parse_dialect_symbol(&mut self) -> Result<Result<(String, String), &'s str>, Diagnostic> {
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

    // ----- attributes --------------------------------------------------------------

    pub(crate) fn parse_attribute(&mut self) -> Result<Attribute, Diagnostic> {
        self.enter()?;
        let r = self.parse_attribute_inner();
        self.leave();
        r
    }

    fn parse_attribute_inner(&mut self) -> Result<Attribute, Diagnostic> {
        match self.cur.token {
            Token::BareId => {
                let kw = self.cur.text;
                match kw {
                    "unit" => {
                        self.bump();
                        Ok(Attribute::unit())
                    }
                    "true" | "false" => {
                        self.bump();
                        Ok(Attribute::new(AttrKind::Bool(kw == "true")))
                    }
                    "affine_map" | "affine_set" => self.parse_affine_attr(),
                    "dense" => self.parse_dense_attr(),
                    "array" => self.parse_dense_array_attr(),
                    "strided" => self.parse_strided_attr(),
                    "loc" => Ok(Attribute::new(AttrKind::Location(self.parse_location()?))),
                    _ if is_type_keyword(kw) => {
                        Ok(Attribute::new(AttrKind::Type(self.parse_type()?)))
                    }
                    "dense_resource" => self.parse_dense_resource_attr(),
                    "sparse" => self.parse_sparse_attr(),
                    "distinct" => self.parse_distinct_attr(),
                    "opaque" => {
                        Err(self.error_here(format!("'{kw}' attributes are not supported")))
                    }
                    _ => Err(self.err_expected("attribute value")),
                }
            }
            Token::Integer | Token::Float | Token::Minus => self.parse_number_attr(),
            Token::String => {
                let t = self.bump();
                let bytes =
                    lexer::unescape_bytes(t.text).map_err(|e| self.bad_escape(t.span, e))?;
                let ty = if self.at_punct(":") {
                    self.bump();
                    Some(self.parse_type()?)
                } else {
                    None
                };
                // `\FF` escapes may spell bytes that are not UTF-8: kept as bytes, unchanged.
                Ok(match String::from_utf8(bytes) {
                    Ok(value) => Attribute::new(AttrKind::String { value, ty }),
                    Err(e) => Attribute::new(AttrKind::Bytes {
                        value: e.into_bytes(),
                        ty,
                    }),
                })
            }
            Token::LBracket => {
                self.bump();
                let mut v = Vec::new();
                if !self.eat_punct("]") {
                    loop {
                        v.push(self.parse_attribute()?);
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                    if !self.at_punct("]") {
                        return Err(self.err_expected("',' or ']'"));
                    }
                    self.bump();
                }
                Ok(Attribute::new(AttrKind::Array(v)))
            }
            Token::LBrace => Ok(Attribute::new(AttrKind::Dictionary(
                self.parse_dictionary()?,
            ))),
            Token::AtId | Token::AtString => {
                let root = self.parse_symbol_name()?;
                let mut nested = Vec::new();
                while self.at_punct("::") {
                    self.bump();
                    nested.push(self.parse_symbol_name()?);
                }
                Ok(Attribute::new(AttrKind::SymbolRef { root, nested }))
            }
            Token::HashId => {
                let span = self.cur.span;
                match self.parse_dialect_symbol()? {
                    // An optional `: type`, as MLIR reads after a dialect attribute.
                    Ok((dialect, body)) if self.eat_punct(":") => {
                        Ok(Attribute::new(AttrKind::TypedDialect {
                            dialect,
                            body,
                            ty: self.parse_type()?,
                        }))
                    }
                    Ok((dialect, body)) => Ok(Attribute::new(AttrKind::Dialect { dialect, body })),
                    Err(alias) => self.attr_aliases.get(alias).cloned().ok_or_else(|| {
                        self.error_at(span, format!("undefined symbol alias id '{alias}'"))
                    }),
                }
            }
            Token::BangId | Token::LParen => Ok(Attribute::new(AttrKind::Type(self.parse_type()?))),
            _ => Err(self.err_expected("attribute value")),
        }
    }

    /// `@name` or `@"name"`.
    pub(crate) fn parse_symbol_name(&mut self) -> Result<String, Diagnostic> {
        match self.cur.token {
            Token::AtId => Ok(self.bump().text[1..].to_string()),
            Token::AtString => {
                let t = self.bump();
                lexer::unescape(&t.text[1..]).map_err(|e| self.bad_escape(t.span, e + 1))
            }
            _ => Err(self.err_expected("valid '@'-identifier for symbol name")),
        }
    }

    /// `{a = 1, b, "c d" = 2}` sorted by name; duplicate keys are errors.
    pub(crate) fn parse_dictionary(&mut self) -> Result<Vec<NamedAttribute>, Diagnostic> {
        self.expect_punct("{")?;
        let mut out: Vec<NamedAttribute> = Vec::new();
        // Spans are only kept from the first out-of-order key on: a duplicate is reported
        // at its later occurrence, which can only be among those.
        let mut first_unsorted: Option<usize> = None;
        let mut late_spans: Vec<Span> = Vec::new();
        if !self.eat_punct("}") {
            loop {
                let t = self.cur;
                let name = match t.token {
                    Token::BareId => {
                        self.bump();
                        t.text.to_string()
                    }
                    Token::String => {
                        self.bump();
                        let n = lexer::unescape(t.text).map_err(|e| self.bad_escape(t.span, e))?;
                        if n.is_empty() {
                            return Err(self.error_at(t.span, "expected valid attribute name"));
                        }
                        n
                    }
                    _ => return Err(self.err_expected("attribute name")),
                };
                let value = if self.eat_punct("=") {
                    self.parse_attribute()?
                } else {
                    Attribute::unit()
                };
                let name = Identifier::from(name);
                if first_unsorted.is_none() && out.last().is_some_and(|l| l.name >= name) {
                    first_unsorted = Some(out.len());
                }
                if first_unsorted.is_some() {
                    late_spans.push(t.span);
                }
                out.push(NamedAttribute { name, value });
                if !self.eat_punct(",") {
                    break;
                }
            }
            if !self.at_punct("}") {
                return Err(self.err_expected("'}' in attribute dictionary"));
            }
            self.bump();
        }
        // Printed IR is already sorted: nothing to do.
        let Some(first_unsorted) = first_unsorted else {
            return Ok(out);
        };
        let mut idx: Vec<usize> = (0..out.len()).collect();
        idx.sort_by(|&a, &b| out[a].name.cmp(&out[b].name).then(a.cmp(&b)));
        for w in idx.windows(2) {
            if out[w[0]].name == out[w[1]].name {
                let span = late_spans
                    .get(w[1].saturating_sub(first_unsorted))
                    .copied()
                    .unwrap_or(self.cur.span);
                return Err(self.error_at(
                    span,
                    format!("duplicate key '{}' in dictionary attribute", out[w[1]].name),
                ));
            }
        }
        let mut slots: Vec<Option<NamedAttribute>> = out.into_iter().map(Some).collect();
        Ok(idx.into_iter().filter_map(|i| slots[i].take()).collect())
    }

    /// `[-]int [: type]` or `[-]float [: type]`.
    fn parse_number_attr(&mut self) -> Result<Attribute, Diagnostic> {
        let start = self.cur.span;
        let neg = self.eat_punct("-");
        let t = self.cur;
        match t.token {
            Token::Integer => {
                self.bump();
                let mag = parse_int_literal(t.text)
                    .ok_or_else(|| self.error_at(t.span, "integer constant out of range"))?;
                let ty = if self.at_punct(":") {
                    self.bump();
                    self.parse_type()?
                } else {
                    Type::i64()
                };
                if let TypeKind::Float(k) = ty.kind() {
                    if !t.text.starts_with("0x") {
                        return Err(self
                            .error_at(
                                t.span,
                                "unexpected decimal integer literal for a floating point value",
                            )
                            .with_note(Diagnostic::note(
                                Some(t.span),
                                "add a trailing dot to make the literal a float",
                            )));
                    }
                    if neg {
                        return Err(self.error_at(
                            start,
                            "hexadecimal float literal should not have a leading minus",
                        ));
                    }
                    let v = float_from_bits(mag, *k).ok_or_else(|| {
                        self.error_at(t.span, "hexadecimal float constant out of range for type")
                    })?;
                    return Ok(Attribute::new(AttrKind::Float {
                        value: FloatBits::new(v),
                        ty,
                    }));
                }
                if !ty.is_integer_like() {
                    return Err(
                        self.error_at(start, "integer literal not valid for specified type")
                    );
                }
                let value = i128::try_from(mag)
                    .map(|v| if neg { -v } else { v })
                    .map_err(|_| self.error_at(t.span, "integer constant out of range"))?;
                let value = self.fit_integer(value, neg, &ty, start)?;
                if matches!(
                    ty.kind(),
                    TypeKind::Integer {
                        width: 1,
                        signedness: Signedness::Signless
                    }
                ) {
                    return Ok(Attribute::new(AttrKind::Bool(value != 0)));
                }
                Ok(Attribute::new(AttrKind::Integer { value, ty }))
            }
            Token::Float => {
                self.bump();
                let v: f64 = t
                    .text
                    .parse()
                    .map_err(|_| self.error_at(t.span, "invalid floating point literal"))?;
                let v = if neg { -v } else { v };
                let ty = if self.at_punct(":") {
                    self.bump();
                    self.parse_type()?
                } else {
                    Type::f64()
                };
                if !ty.is_float() {
                    return Err(
                        self.error_at(start, "floating point value not valid for specified type")
                    );
                }
                Ok(Attribute::new(AttrKind::Float {
                    value: FloatBits::new(round_to(v, &ty)),
                    ty,
                }))
            }
            _ => Err(self.err_expected("integer or floating point literal")),
        }
    }

    /// Checks `value` fits `ty` and normalises it as MLIR's APInt storage reads back:
    /// signless and signed values are sign-extended (`255 : i8` is `-1 : i8`).
    fn fit_integer(
        &self,
        value: i128,
        neg: bool,
        ty: &Type,
        span: Span,
    ) -> Result<i128, Diagnostic> {
        let (width, signedness) = match ty.kind() {
            TypeKind::Integer { width, signedness } => (*width, *signedness),
            TypeKind::Index => (64, Signedness::Signless),
            _ => return Ok(value),
        };
        if width == 0 || width >= 127 {
            return Ok(value);
        }
        let out_of_range = || self.error_at(span, "integer constant out of range for attribute");
        let modulus = 1i128 << width;
        let half = 1i128 << (width - 1);
        match signedness {
            Signedness::Unsigned => {
                if neg && value != 0 {
                    return Err(self.error_at(
                        span,
                        "negative integer literal not valid for unsigned integer type",
                    ));
                }
                if value >= modulus {
                    return Err(out_of_range());
                }
                Ok(value)
            }
            Signedness::Signed => {
                if value < -half || value >= half {
                    return Err(out_of_range());
                }
                Ok(value)
            }
            Signedness::Signless => {
                if value < -half || value >= modulus {
                    return Err(out_of_range());
                }
                Ok(if value >= half {
                    value - modulus
                } else {
                    value
                })
            }
        }
    }

    /// `affine_map<...>` / `affine_set<...>`: the token slice up to the closing `>` is
    /// handed to the lalrpop grammar.
    fn parse_affine_attr(&mut self) -> Result<Attribute, Diagnostic> {
        let kw = self.bump();
        let is_map = kw.text == "affine_map";
        self.expect_punct("<")?;
        let mut toks: Vec<(usize, AffTok<'s>, usize)> = Vec::new();
        let end;
        loop {
            let t = self.bump();
            let adj_eq = |st: &Self| st.cur.token == Token::Equal && st.cur.start() == t.end();
            let tok = match t.token {
                Token::Greater if adj_eq(self) => {
                    let e = self.bump();
                    toks.push((t.start(), AffTok::Ge, e.end()));
                    continue;
                }
                Token::Greater => {
                    end = t.start();
                    break;
                }
                Token::Less if adj_eq(self) => {
                    let e = self.bump();
                    toks.push((t.start(), AffTok::Le, e.end()));
                    continue;
                }
                Token::Equal if adj_eq(self) => {
                    let e = self.bump();
                    toks.push((t.start(), AffTok::EqEq, e.end()));
                    continue;
                }
                Token::LParen => AffTok::LParen,
                Token::RParen => AffTok::RParen,
                Token::LBracket => AffTok::LBracket,
                Token::RBracket => AffTok::RBracket,
                Token::Comma => AffTok::Comma,
                Token::Colon => AffTok::Colon,
                Token::Arrow => AffTok::Arrow,
                Token::Plus => AffTok::Plus,
                Token::Minus => AffTok::Minus,
                Token::Star => AffTok::Star,
                Token::BareId => match t.text {
                    "floordiv" => AffTok::FloorDiv,
                    "ceildiv" => AffTok::CeilDiv,
                    "mod" => AffTok::Mod,
                    s => AffTok::Id(s),
                },
                Token::Integer => {
                    let v = parse_int_literal(t.text)
                        .and_then(|v| i64::try_from(v).ok())
                        .ok_or_else(|| self.error_at(t.span, "constant too large for index"))?;
                    AffTok::Int(v)
                }
                Token::Eof => {
                    return Err(self.error_at(t.span, "expected '>' to end affine expression"));
                }
                _ => {
                    return Err(self.error_at(
                        t.span,
                        format!("unexpected '{}' in affine expression", t.text),
                    ));
                }
            };
            toks.push((t.start(), tok, t.end()));
        }
        if toks.len() > MAX_AFFINE_TOKENS {
            return Err(self.error_at(kw.span, "affine expression is too large"));
        }
        let file = self.file;
        let to_diag =
            |(s, e, m): affine_expr::AffineError| Diagnostic::error(Some(Span::new(file, s, e)), m);
        if is_map {
            Ok(Attribute::new(AttrKind::AffineMap(
                affine_expr::parse_map(toks, end).map_err(to_diag)?,
            )))
        } else {
            Ok(Attribute::new(AttrKind::IntegerSet(
                affine_expr::parse_set(toks, end).map_err(to_diag)?,
            )))
        }
    }

    /// `dense<literal> : type`.
    fn parse_dense_attr(&mut self) -> Result<Attribute, Diagnostic> {
        let kw = self.bump();
        self.expect_punct("<")?;
        let lit_span = self.span_of(kw.start(), self.cur.end());
        let literal = if self.at_punct(">") {
            DenseLiteral::Empty
        } else {
            self.parse_dense_literal()?
        };
        self.expect_punct(">")?;
        if !self.at_punct(":") {
            return Err(self.err_expected("':'"));
        }
        self.bump();
        let ty_span = self.cur.span;
        let ty = self.parse_type()?;
        check_dense_literal(&literal, &ty).map_err(|(msg, at_type)| {
            self.error_at(if at_type { ty_span } else { lit_span }, msg)
        })?;
        Ok(Attribute::new(AttrKind::DenseElements { literal, ty }))
    }

    /// `distinct[id]<attr>`, `distinct[id]<>` for a unit value.
    fn parse_distinct_attr(&mut self) -> Result<Attribute, Diagnostic> {
        self.bump();
        self.expect_punct("[")?;
        let t = self.cur;
        let id = (t.token == Token::Integer)
            .then(|| parse_int_literal(t.text))
            .flatten()
            .and_then(|v| u64::try_from(v).ok())
            .ok_or_else(|| self.err_expected("distinct ID"))?;
        self.bump();
        self.expect_punct("]")?;
        self.expect_punct("<")?;
        let value = if self.at_punct(">") {
            Attribute::unit()
        } else {
            self.parse_attribute()?
        };
        self.expect_punct(">")?;
        Ok(Attribute::new(AttrKind::Distinct { id, value }))
    }

    /// `sparse<indices, values> : type` or `sparse<> : type`.
    fn parse_sparse_attr(&mut self) -> Result<Attribute, Diagnostic> {
        let start = self.cur.span;
        self.bump();
        self.expect_punct("<")?;
        let empty = self.at_punct(">");
        let (indices, values) = if empty {
            (
                DenseLiteral::List(Vec::new()),
                DenseLiteral::List(Vec::new()),
            )
        } else {
            let i = self.parse_dense_literal()?;
            self.expect_punct(",")?;
            (i, self.parse_dense_literal()?)
        };
        self.expect_punct(">")?;
        self.expect_punct(":")?;
        let ty_span = self.cur.span;
        let ty = self.parse_type()?;
        let Some(shape) = ty.shape().map(|s| s.to_vec()) else {
            return Err(self.error_at(ty_span, "elements literal must be a shaped type"));
        };
        if shape.contains(&DYNAMIC) {
            return Err(self.error_at(start, "elements literal type must have static shape"));
        }
        let rank = shape.len() as i64;
        let shape_of = |l: &DenseLiteral, splat: Vec<i64>| {
            literal_shape(l).map(|s| if s.is_empty() { splat } else { s })
        };
        let (index_shape, value_shape) = if empty {
            (vec![0, rank], vec![0])
        } else {
            let is =
                shape_of(&indices, vec![1, rank]).map_err(|(m, _)| self.error_at(ty_span, m))?;
            let vs = shape_of(&values, vec![is[0]]).map_err(|(m, _)| self.error_at(ty_span, m))?;
            (is, vs)
        };
        check_sparse(&shape, &indices, &index_shape, &value_shape, &ty)
            .map_err(|m| self.error_at(start, m))?;
        Ok(Attribute::new(AttrKind::Sparse {
            indices,
            index_shape,
            values,
            value_shape,
            ty,
        }))
    }

    fn parse_dense_literal(&mut self) -> Result<DenseLiteral, Diagnostic> {
        self.enter()?;
        let r = self.parse_dense_literal_inner();
        self.leave();
        r
    }

    fn parse_dense_literal_inner(&mut self) -> Result<DenseLiteral, Diagnostic> {
        match self.cur.token {
            Token::LBracket => {
                self.bump();
                let mut v = Vec::new();
                if !self.eat_punct("]") {
                    loop {
                        v.push(self.parse_dense_literal()?);
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                    self.expect_punct("]")?;
                }
                Ok(DenseLiteral::List(v))
            }
            Token::LParen => {
                self.bump();
                let re = self.parse_dense_literal()?;
                self.expect_punct(",")?;
                let im = self.parse_dense_literal()?;
                self.expect_punct(")")?;
                Ok(DenseLiteral::Complex(Box::new(re), Box::new(im)))
            }
            Token::String => {
                let t = self.bump();
                let s = &t.text[1..t.text.len() - 1];
                if s.starts_with("0x") && s[2..].bytes().all(|b| b.is_ascii_hexdigit()) {
                    Ok(DenseLiteral::Hex(s.to_string()))
                } else {
                    let bytes =
                        lexer::unescape_bytes(t.text).map_err(|e| self.bad_escape(t.span, e))?;
                    Ok(DenseLiteral::Str(bytes))
                }
            }
            Token::BareId if self.cur.text == "true" || self.cur.text == "false" => {
                Ok(DenseLiteral::Bool(self.bump().text == "true"))
            }
            Token::Minus | Token::Integer | Token::Float => {
                let neg = self.eat_punct("-");
                let t = self.bump();
                match t.token {
                    Token::Integer => {
                        let mag = parse_int_literal(t.text)
                            .and_then(|v| i128::try_from(v).ok())
                            .ok_or_else(|| {
                                self.error_at(t.span, "integer constant out of range")
                            })?;
                        Ok(DenseLiteral::Int(if neg { -mag } else { mag }))
                    }
                    Token::Float => {
                        let v: f64 = t
                            .text
                            .parse()
                            .map_err(|_| self.error_at(t.span, "invalid floating point literal"))?;
                        Ok(DenseLiteral::Float(FloatBits::new(if neg {
                            -v
                        } else {
                            v
                        })))
                    }
                    _ => Err(self.error_at(t.span, "expected integer or floating point literal")),
                }
            }
            _ => Err(self.err_expected("element literal of primitive type")),
        }
    }

    /// `array<i64: 1, 2>`, `array<f32>`, `array<i1: true>`.
    fn parse_dense_array_attr(&mut self) -> Result<Attribute, Diagnostic> {
        self.bump();
        self.expect_punct("<")?;
        let ty_span = self.cur.span;
        let elem = self.parse_type()?;
        let is_float = match elem.kind() {
            TypeKind::Integer { .. } => false,
            TypeKind::Float(_) => true,
            _ => {
                return Err(self.error_at(ty_span, "expected integer or float type"));
            }
        };
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        if self.eat_punct(":") {
            loop {
                let span = self.cur.span;
                if !is_float && (self.at_keyword("true") || self.at_keyword("false")) {
                    ints.push((self.bump().text == "true") as i64);
                } else {
                    let neg = self.eat_punct("-");
                    let t = self.bump();
                    match (t.token, is_float) {
                        (Token::Integer, false) => {
                            // Negate before narrowing so that i64::MIN (MLIR's kDynamic in
                            // static_offsets) is accepted.
                            let v = parse_int_literal(t.text)
                                .and_then(|v| i128::try_from(v).ok())
                                .and_then(|v| i64::try_from(if neg { -v } else { v }).ok())
                                .ok_or_else(|| {
                                    self.error_at(t.span, "integer constant out of range")
                                })?;
                            ints.push(v);
                        }
                        // A hexadecimal integer is the element's bit pattern, as for
                        // float attributes: the printer writes inf and NaN that way.
                        (Token::Integer, true) if t.text.starts_with("0x") => {
                            let TypeKind::Float(k) = elem.kind() else {
                                return Err(self.error_at(t.span, "expected a float element type"));
                            };
                            if neg {
                                return Err(self.error_at(
                                    span,
                                    "hexadecimal float literal should not have a leading minus",
                                ));
                            }
                            let v = parse_int_literal(t.text)
                                .and_then(|bits| float_from_bits(bits, *k))
                                .ok_or_else(|| {
                                    self.error_at(
                                        t.span,
                                        "hexadecimal float constant out of range for type",
                                    )
                                })?;
                            floats.push(FloatBits::new(v));
                        }
                        (Token::Integer | Token::Float, true) => {
                            let v: f64 = t.text.parse().map_err(|_| {
                                self.error_at(t.span, "invalid floating point literal")
                            })?;
                            let v = if neg { -v } else { v };
                            floats.push(FloatBits::new(round_to(v, &elem)));
                        }
                        _ => {
                            return Err(self.error_at(span, "expected integer or float literal"));
                        }
                    }
                }
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        self.expect_punct(">")?;
        Ok(Attribute::new(AttrKind::DenseArray(if is_float {
            DenseArray::Float {
                elem,
                values: floats,
            }
        } else {
            DenseArray::Int { elem, values: ints }
        })))
    }

    fn parse_stride_value(&mut self) -> Result<i64, Diagnostic> {
        if self.eat(Token::Question) {
            return Ok(DYNAMIC);
        }
        let neg = self.eat_punct("-");
        if !self.at(Token::Integer) {
            return Err(self.err_expected("a 64-bit signed integer or '?'"));
        }
        let t = self.bump();
        parse_int_literal(t.text)
            .and_then(|v| i128::try_from(v).ok())
            .and_then(|v| i64::try_from(if neg { -v } else { v }).ok())
            .ok_or_else(|| self.error_at(t.span, "integer constant out of range"))
    }

    /// `strided<[4, 1], offset: ?>`.
    fn parse_strided_attr(&mut self) -> Result<Attribute, Diagnostic> {
        self.bump();
        self.expect_punct("<")?;
        self.expect_punct("[")?;
        let mut strides = Vec::new();
        if !self.eat_punct("]") {
            loop {
                strides.push(self.parse_stride_value()?);
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct("]")?;
        }
        let mut offset = 0;
        if self.eat_punct(",") {
            if !self.eat_keyword("offset") {
                return Err(self.err_expected("'offset' after comma"));
            }
            self.expect_punct(":")?;
            offset = self.parse_stride_value()?;
        }
        self.expect_punct(">")?;
        Ok(Attribute::new(AttrKind::Strided { strides, offset }))
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

/// True when a string element is nested in `lit`.
fn has_string(lit: &DenseLiteral) -> bool {
    match lit {
        DenseLiteral::Str(_) => true,
        DenseLiteral::List(items) => items.iter().any(has_string),
        _ => false,
    }
}

/// String elements (MLIR's `DenseStringElementsAttr`): all elements are strings, of an
/// element type that is not a builtin number; mlir-opt's messages otherwise.
fn check_string_elements(lit: &DenseLiteral, elem: &Type) -> Result<(), (String, bool)> {
    match elem.kind() {
        TypeKind::Integer { .. } | TypeKind::Index => {
            return Err(("integer constant out of range for type".into(), false));
        }
        TypeKind::Float(_) | TypeKind::Complex(_) => {
            return Err(("expected floating point literal".into(), false));
        }
        _ => {}
    }
    fn all_strings(l: &DenseLiteral) -> bool {
        match l {
            DenseLiteral::Str(_) => true,
            DenseLiteral::List(items) => items.iter().all(all_strings),
            _ => false,
        }
    }
    if all_strings(lit) {
        Ok(())
    } else {
        Err(("expected string token".into(), false))
    }
}

/// MLIR's checks of a `dense<...>` literal against its type (TensorLiteralParser):
/// a statically shaped tensor, vector or memref, a consistently nested literal whose shape is
/// the type's (or a single splat element), and elements of the element type's kind.
/// Errors carry whether they point at the type (else at the literal).
fn check_dense_literal(lit: &DenseLiteral, ty: &Type) -> Result<(), (String, bool)> {
    let (shape, elem) = match ty.kind() {
        // mlir-opt-22 accepts memrefs too.
        TypeKind::Tensor { shape, elem, .. }
        | TypeKind::Vector { shape, elem, .. }
        | TypeKind::MemRef { shape, elem, .. } => (shape, elem),
        TypeKind::UnrankedTensor { .. } | TypeKind::UnrankedMemRef { .. } => {
            return Err(("elements literal type must have static shape".into(), true));
        }
        _ => return Err(("elements literal must be a shaped type".into(), true)),
    };
    if shape.iter().any(|&d| d < 0) {
        return Err(("elements literal type must have static shape".into(), true));
    }
    if matches!(lit, DenseLiteral::Hex(_) | DenseLiteral::Empty) {
        return Ok(());
    }
    let lit_shape = literal_shape(lit)?;
    if !lit_shape.is_empty() && lit_shape != *shape {
        let dims = |s: &[i64]| {
            s.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err((
            format!(
                "inferred shape of elements literal ([{}]) does not match type ([{}])",
                dims(&lit_shape),
                dims(shape)
            ),
            false,
        ));
    }
    check_dense_elements(lit, elem)
}

/// The shape of a nested literal list; scalars have shape `[]`.
fn literal_shape(lit: &DenseLiteral) -> Result<Vec<i64>, (String, bool)> {
    let DenseLiteral::List(items) = lit else {
        return Ok(Vec::new());
    };
    let mut inner: Option<Vec<i64>> = None;
    for item in items {
        let s = literal_shape(item)?;
        match &inner {
            Some(prev) if *prev != s => {
                return Err((
                    "tensor literal is invalid; ranks are not consistent between elements".into(),
                    false,
                ));
            }
            Some(_) => {}
            None => inner = Some(s),
        }
    }
    let mut shape = vec![items.len() as i64];
    shape.extend(inner.unwrap_or_default());
    Ok(shape)
}

/// Upstream's `SparseElementsAttr` rules: the indices are `[count, rank]` (or, for a 1-d
/// type, a flat list), the values hold one element per index, and every index lies in the
/// type's shape. The messages are mlir-opt's.
fn check_sparse(
    shape: &[i64],
    indices: &DenseLiteral,
    index_shape: &[i64],
    value_shape: &[i64],
    ty: &Type,
) -> Result<(), String> {
    let dims = |s: &[i64]| {
        s.iter()
            .map(|d| {
                if *d == DYNAMIC {
                    "?".to_string()
                } else {
                    d.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let shape_error = || {
        format!(
            "expected shape ([{}]); inferred shape of indices literal ([{}]); inferred shape of values literal ([{}])",
            dims(shape),
            dims(index_shape),
            dims(value_shape)
        )
    };
    let rank = shape.len() as i64;
    match index_shape {
        [_, r] if *r == rank => {}
        [_] if rank == 1 => {}
        _ => return Err(shape_error()),
    }
    if value_shape.len() != 1 {
        return Err("expected 1-d tensor for sparse element values".into());
    }
    if value_shape[0] != index_shape[0] {
        return Err(shape_error());
    }
    let ints = |l: &DenseLiteral| -> Vec<i128> {
        match l {
            DenseLiteral::Int(v) => vec![*v],
            DenseLiteral::List(v) => v
                .iter()
                .filter_map(|x| match x {
                    DenseLiteral::Int(i) => Some(*i),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    let tuples: Vec<Vec<i128>> = match indices {
        // `[[i, j], ...]` gives one tuple per row, a flat `[i, ...]` (1-d) one per element.
        DenseLiteral::List(v) => v.iter().map(ints).collect(),
        // A splat index is the whole `[1, rank]` tuple filled with it.
        single => vec![ints(single).repeat(shape.len())],
    };
    for (n, t) in tuples.iter().enumerate() {
        let inside = t.len() == shape.len()
            && t.iter()
                .zip(shape)
                .all(|(&i, &d)| i >= 0 && i < i128::from(d));
        if !inside {
            // mlir-opt prints the indices as the unsigned 64-bit values it stores.
            let idx: Vec<String> = t.iter().map(|&i| (i as i64 as u64).to_string()).collect();
            return Err(format!(
                "sparse index #{n} is not contained within the value shape, with index=[{}], and type='{}'",
                idx.join(", "),
                crate::printer::type_to_string(ty)
            ));
        }
    }
    Ok(())
}

/// Each scalar of `lit` must suit element type `elem` (integer types take integers,
/// `i1` also `true`/`false`).
fn check_dense_elements(lit: &DenseLiteral, elem: &Type) -> Result<(), (String, bool)> {
    if has_string(lit) {
        return check_string_elements(lit, elem);
    }
    match lit {
        DenseLiteral::List(items) => items.iter().try_for_each(|i| check_dense_elements(i, elem)),
        DenseLiteral::Float(_)
            if matches!(elem.kind(), TypeKind::Integer { .. } | TypeKind::Index) =>
        {
            Err((
                "expected integer elements, but parsed floating-point".into(),
                false,
            ))
        }
        DenseLiteral::Bool(_)
            if matches!(elem.kind(), TypeKind::Index)
                || matches!(elem.kind(), TypeKind::Integer { width, .. } if *width != 1) =>
        {
            Err((
                "expected i1 type for 'true' or 'false' values".into(),
                false,
            ))
        }
        _ => Ok(()),
    }
}
