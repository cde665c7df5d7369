//! Element literals of `dense<...>`, `sparse<...>` and `array<...>` attributes, and the
//! checks of a literal against its type (shape, element kinds, strings, sparse indices)
//! with mlir-opt's messages.

use super::State;
use super::lexer::{self, Token};
use super::types_attrs::{float_from_bits, parse_int_literal, round_to};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    AttrKind, Attribute, DYNAMIC, DenseArray, DenseLiteral, FloatBits, Type, TypeKind,
};

impl<'s> State<'s> {
    /// `dense<literal> : type`.
    pub(super) fn parse_dense_attr(&mut self) -> Result<Attribute, Diagnostic> {
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

    /// `sparse<indices, values> : type` or `sparse<> : type`.
    pub(super) fn parse_sparse_attr(&mut self) -> Result<Attribute, Diagnostic> {
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
    pub(super) fn parse_dense_array_attr(&mut self) -> Result<Attribute, Diagnostic> {
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
