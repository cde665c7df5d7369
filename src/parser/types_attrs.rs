//! Attributes (recursive descent, as MLIR's AttributeParser.cpp): builtin attributes,
//! numbers, affine maps and sets, dictionaries, `distinct` and `strided`, and dialect
//! attributes; plus the number-literal helpers shared with the other parser modules.
//! Types are in [`super::types`], element literals of `dense`/`sparse`/`array` in
//! [`super::elements`], locations in [`super::location`].

use super::State;
use super::affine_expr::{self, AffTok};
use super::lexer::{self, Token};
use super::types::is_type_keyword;
use crate::diagnostics::Diagnostic;
use crate::ir::{
    AttrKind, Attribute, DYNAMIC, FloatBits, FloatFormat, FloatKind, Identifier, NamedAttribute,
    Signedness, Span, Type, TypeKind,
};

/// Bound on the tokens of one affine map/set (its syntax tree is walked recursively).
const MAX_AFFINE_TOKENS: usize = 50_000;

pub(super) fn parse_int_literal(text: &str) -> Option<u128> {
    if let Some(h) = text.strip_prefix("0x") {
        u128::from_str_radix(h, 16).ok()
    } else {
        text.parse::<u128>().ok()
    }
}

/// The float a hex bit pattern denotes in format `k`, as f64 (MLIR's `0x... : f32`); NaN
/// payloads are kept bit for bit. `None` when the pattern is wider than the format. f80 and
/// f128 values are rounded to f64.
pub(super) fn float_from_bits(bits: u128, k: FloatKind) -> Option<f64> {
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
pub(super) fn round_to(v: f64, ty: &Type) -> f64 {
    match ty.kind() {
        TypeKind::Float(k) => FloatFormat::of(*k).map_or(v, |f| f.round(v)),
        _ => v,
    }
}

impl<'s> State<'s> {
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
}
