//! Text of types, attributes, affine maps and locations, as MLIR's AsmPrinter writes
//! them (mlir/lib/IR/AsmPrinter.cpp). Everything appends to a `String`: these run for
//! every operand type of every op, so they avoid intermediate allocations.

use std::fmt::Write as _;

use super::affine::{write_affine_map_attr, write_integer_set_attr};
use super::aliases::{Aliases, alias_name};
use super::elements::dense_elements;
use super::float::write_float;
use crate::ir::{
    AttrKind, Attribute, DYNAMIC, DenseArray, FloatKind, Location, NamedAttribute, Signedness,
    Type, TypeKind,
};

/// A memref layout that MLIR drops: the identity affine map.
pub(super) fn is_identity_layout(a: &Attribute) -> bool {
    matches!(a.kind(), AttrKind::AffineMap(m) if m.is_identity())
}

/// A memory space that MLIR drops: integer 0.
fn is_default_memory_space(a: &Attribute) -> bool {
    matches!(a.kind(), AttrKind::Integer { value: 0, ty } if *ty == Type::i64())
}

/// Appends a decimal integer (faster than `write!` on the hot path of value names).
pub(crate) fn push_u64(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // The buffer holds ASCII digits only.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

pub(super) fn push_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_u64(out, n.unsigned_abs());
}

/// Formats types and attributes, with or without aliases.
#[derive(Clone, Copy)]
pub(crate) struct Fmt<'x> {
    pub aliases: Option<&'x Aliases>,
}

impl Fmt<'_> {
    /// Appends type `t`.
    pub fn ty(&self, out: &mut String, t: &Type) {
        match t.kind() {
            TypeKind::Integer { width, signedness } => {
                out.push_str(match signedness {
                    Signedness::Signless => "i",
                    Signedness::Signed => "si",
                    Signedness::Unsigned => "ui",
                });
                push_u64(out, *width as u64);
            }
            TypeKind::Float(k) => out.push_str(k.keyword()),
            TypeKind::Index => out.push_str("index"),
            TypeKind::None => out.push_str("none"),
            TypeKind::Tensor {
                shape,
                elem,
                encoding,
            } => {
                out.push_str("tensor<");
                shape_prefix(out, shape, None);
                self.ty(out, elem);
                if let Some(e) = encoding {
                    out.push_str(", ");
                    self.attr(out, e, false);
                }
                out.push('>');
            }
            TypeKind::UnrankedTensor { elem } => {
                out.push_str("tensor<*x");
                self.ty(out, elem);
                out.push('>');
            }
            TypeKind::MemRef {
                shape,
                elem,
                layout,
                memory_space,
            } => {
                out.push_str("memref<");
                shape_prefix(out, shape, None);
                self.ty(out, elem);
                if let Some(l) = layout
                    && !is_identity_layout(l)
                {
                    out.push_str(", ");
                    self.attr(out, l, true);
                }
                if let Some(m) = memory_space
                    && !is_default_memory_space(m)
                {
                    out.push_str(", ");
                    self.attr(out, m, true);
                }
                out.push('>');
            }
            TypeKind::UnrankedMemRef { elem, memory_space } => {
                out.push_str("memref<*x");
                self.ty(out, elem);
                if let Some(m) = memory_space
                    && !is_default_memory_space(m)
                {
                    out.push_str(", ");
                    self.attr(out, m, true);
                }
                out.push('>');
            }
            TypeKind::Vector {
                shape,
                scalable,
                elem,
            } => {
                out.push_str("vector<");
                shape_prefix(out, shape, Some(scalable));
                self.ty(out, elem);
                out.push('>');
            }
            TypeKind::Complex(e) => {
                out.push_str("complex<");
                self.ty(out, e);
                out.push('>');
            }
            TypeKind::Tuple(ts) => {
                out.push_str("tuple<");
                self.types(out, ts);
                out.push('>');
            }
            TypeKind::Function { inputs, results } => self.function_type(out, inputs, results),
            TypeKind::Dialect { dialect, body } => dialect_symbol(out, '!', dialect, body),
        }
    }

    /// Appends a comma-separated type list.
    pub fn types(&self, out: &mut String, ts: &[Type]) {
        for (i, t) in ts.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.ty(out, t);
        }
    }

    /// `(ins) -> out`, `(ins) -> (a, b)`; a single function-typed result is wrapped.
    pub fn function_type(&self, out: &mut String, inputs: &[Type], results: &[Type]) {
        out.push('(');
        self.types(out, inputs);
        out.push_str(") -> ");
        let wrap = results.len() != 1 || matches!((results[0]).kind(), TypeKind::Function { .. });
        if wrap {
            out.push('(');
        }
        self.types(out, results);
        if wrap {
            out.push(')');
        }
    }

    /// Appends attribute `a`. `may_elide` is MLIR's `AttrTypeElision::May`: the `: i64`
    /// and `: f64` of integers and floats are left out (array elements, memory spaces).
    pub fn attr(&self, out: &mut String, a: &Attribute, may_elide: bool) {
        match a.kind() {
            AttrKind::Unit => out.push_str("unit"),
            AttrKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            AttrKind::Integer { value, ty } => {
                if *ty == Type::i1() {
                    out.push_str(if *value & 1 != 0 { "true" } else { "false" });
                    return;
                }
                write_int(out, *value, ty);
                if !(may_elide && *ty == Type::i64()) {
                    out.push_str(" : ");
                    self.ty(out, ty);
                }
            }
            AttrKind::Float { value, ty } => {
                let kind = match ty.kind() {
                    TypeKind::Float(k) => *k,
                    _ => FloatKind::F64,
                };
                write_float(out, value.get(), kind);
                if !(may_elide && kind == FloatKind::F64) {
                    out.push_str(" : ");
                    self.ty(out, ty);
                }
            }
            AttrKind::String { value, ty } => {
                escaped_string(out, value);
                if let Some(t) = ty
                    && *t != Type::new(TypeKind::None)
                {
                    out.push_str(" : ");
                    self.ty(out, t);
                }
            }
            AttrKind::Bytes { value, ty } => {
                escaped_bytes(out, value);
                if let Some(t) = ty
                    && *t != Type::new(TypeKind::None)
                {
                    out.push_str(" : ");
                    self.ty(out, t);
                }
            }
            AttrKind::Type(t) => self.ty(out, t),
            AttrKind::Array(v) => {
                out.push('[');
                for (i, a) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.attr(out, a, true);
                }
                out.push(']');
            }
            AttrKind::DenseArray(d) => self.dense_array(out, d),
            AttrKind::Dictionary(v) => self.dictionary(out, v),
            AttrKind::SymbolRef { root, nested } => {
                symbol_ref(out, root);
                for n in nested {
                    out.push_str("::");
                    symbol_ref(out, n);
                }
            }
            AttrKind::AffineMap(m) => match self.aliases.and_then(|al| al.maps.get(m)) {
                Some(n) => alias_name(out, "map", *n),
                None => write_affine_map_attr(out, m),
            },
            AttrKind::IntegerSet(s) => match self.aliases.and_then(|al| al.sets.get(s)) {
                Some(n) => alias_name(out, "set", *n),
                None => write_integer_set_attr(out, s),
            },
            AttrKind::DenseElements { literal, ty } => {
                out.push_str("dense<");
                dense_elements(out, literal, ty);
                out.push_str("> : ");
                self.ty(out, ty);
            }
            AttrKind::Strided { strides, offset } => {
                out.push_str("strided<[");
                for (i, s) in strides.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    dim(out, *s);
                }
                out.push(']');
                if *offset != 0 {
                    out.push_str(", offset: ");
                    dim(out, *offset);
                }
                out.push('>');
            }
            AttrKind::Location(l) => {
                if let Some(n) = self.aliases.and_then(|a| a.locs.get(l)) {
                    alias_name(out, "loc", *n);
                } else {
                    out.push_str("loc(");
                    self.location_body(out, l);
                    out.push(')');
                }
            }
            AttrKind::Dialect { dialect, body } => dialect_symbol(out, '#', dialect, body),
            AttrKind::TypedDialect { dialect, body, ty } => {
                dialect_symbol(out, '#', dialect, body);
                out.push_str(" : ");
                self.ty(out, ty);
            }
            AttrKind::Distinct { .. } => match self.aliases {
                Some(al) if al.distincts.contains_key(a) => {
                    alias_name(out, "distinct", al.distincts[a]);
                }
                _ => self.distinct_body(out, a),
            },
            AttrKind::Sparse {
                indices,
                index_shape,
                values,
                value_shape,
                ty,
            } => {
                out.push_str("sparse<");
                if index_shape.iter().product::<i64>() != 0 {
                    // Printed as the two dense attributes MLIR stores: i64 coordinates and
                    // values of the element type (splats folded the same way).
                    let tensor = |shape: &[i64], elem: Type| Type::tensor(shape.to_vec(), elem);
                    dense_elements(out, indices, &tensor(index_shape, Type::i64()));
                    out.push_str(", ");
                    let elem = ty.element_type().cloned().unwrap_or(Type::i64());
                    dense_elements(out, values, &tensor(value_shape, elem));
                }
                out.push_str("> : ");
                self.ty(out, ty);
            }
            AttrKind::DenseResource { handle, ty } => {
                out.push_str("dense_resource<");
                super::resources::keyword_or_string(out, handle);
                out.push_str("> : ");
                self.ty(out, ty);
            }
        }
    }

    /// `distinct[N]<value>` spelled out, `N` renumbered in print order.
    pub(super) fn distinct_body(&self, out: &mut String, a: &Attribute) {
        let AttrKind::Distinct { id, value } = a.kind() else {
            return;
        };
        out.push_str("distinct[");
        let n = self.aliases.map_or(*id, |al| al.distinct_id(*id));
        push_u64(out, n);
        out.push_str("]<");
        if **value != AttrKind::Unit {
            self.attr(out, value, false);
        }
        out.push('>');
    }

    fn dense_array(&self, out: &mut String, d: &DenseArray) {
        out.push_str("array<");
        match d {
            DenseArray::Int { elem, values } => {
                self.ty(out, elem);
                if !values.is_empty() {
                    out.push_str(": ");
                }
                let is_bool = *elem == Type::i1();
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    if is_bool {
                        out.push_str(if *v != 0 { "true" } else { "false" });
                    } else {
                        write_int(out, *v as i128, elem);
                    }
                }
            }
            DenseArray::Float { elem, values } => {
                self.ty(out, elem);
                if !values.is_empty() {
                    out.push_str(": ");
                }
                let kind = match elem.kind() {
                    TypeKind::Float(k) => *k,
                    _ => FloatKind::F64,
                };
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_float(out, v.get(), kind);
                }
            }
        }
        out.push('>');
    }

    /// `{a = 1 : i32, b}`.
    pub fn dictionary(&self, out: &mut String, v: &[NamedAttribute]) {
        out.push('{');
        for (i, n) in v.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.named_attr(out, n);
        }
        out.push('}');
    }

    /// `name = value`, or a bare `name` for a unit attribute.
    pub fn named_attr(&self, out: &mut String, n: &NamedAttribute) {
        keyword_or_string(out, &n.name);
        if n.value != Attribute::unit() {
            out.push_str(" = ");
            self.attr(out, &n.value, false);
        }
    }

    /// The inside of `loc(...)`: `#locN` when the location has an alias.
    pub fn location(&self, out: &mut String, l: &Location) {
        if let Some(n) = self.aliases.and_then(|a| a.locs.get(l)) {
            alias_name(out, "loc", *n);
            return;
        }
        self.location_body(out, l);
    }

    /// The inside of `loc(...)`, spelled out (nested locations may use aliases).
    pub fn location_body(&self, out: &mut String, l: &Location) {
        match l {
            Location::Unknown => out.push_str("unknown"),
            Location::FileLineCol { file, line, col } => {
                escaped_string(out, file);
                out.push(':');
                push_u64(out, *line as u64);
                out.push(':');
                push_u64(out, *col as u64);
            }
            Location::Name { name, child } => {
                escaped_string(out, name);
                if let Some(c) = child
                    && **c != Location::Unknown
                {
                    out.push('(');
                    self.location(out, c);
                    out.push(')');
                }
            }
            Location::CallSite { callee, caller } => {
                out.push_str("callsite(");
                self.location(out, callee);
                out.push_str(" at ");
                self.location(out, caller);
                out.push(')');
            }
            Location::Fused {
                locations,
                metadata,
            } => {
                out.push_str("fused");
                if let Some(m) = metadata {
                    out.push('<');
                    self.attr(out, m, false);
                    out.push('>');
                }
                out.push('[');
                for (i, l) in locations.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.location(out, l);
                }
                out.push(']');
            }
        }
    }
}

/// `4x?x` (and `[8]x` for scalable vector dims) before the element type.
fn shape_prefix(out: &mut String, shape: &[i64], scalable: Option<&Vec<bool>>) {
    for (i, d) in shape.iter().enumerate() {
        let sc = scalable.is_some_and(|s| s.get(i).copied().unwrap_or(false));
        if sc {
            out.push('[');
        }
        dim(out, *d);
        if sc {
            out.push(']');
        }
        out.push('x');
    }
}

fn dim(out: &mut String, d: i64) {
    if d == DYNAMIC {
        out.push('?');
    } else {
        push_i64(out, d);
    }
}

/// An integer attribute's value as MLIR's APInt prints it: signed unless the type is
/// unsigned, after truncation to the type's width.
pub(super) fn write_int(out: &mut String, value: i128, ty: &Type) {
    let (width, unsigned) = match ty.kind() {
        TypeKind::Integer { width, signedness } => (*width, *signedness == Signedness::Unsigned),
        _ => (64, false),
    };
    if width == 0 || width >= 128 {
        let _ = write!(out, "{value}");
        return;
    }
    let mask: u128 = (1u128 << width) - 1;
    let bits = (value as u128) & mask;
    if unsigned {
        let _ = write!(out, "{bits}");
    } else {
        let sign = 1u128 << (width - 1);
        let v = if bits & sign != 0 {
            (bits | !mask) as i128
        } else {
            bits as i128
        };
        if let Ok(small) = i64::try_from(v) {
            push_i64(out, small);
        } else {
            let _ = write!(out, "{v}");
        }
    }
}

/// MLIR's `isBareIdentifier`: `[a-zA-Z_][a-zA-Z0-9_$.]*`.
fn is_bare_identifier(s: &str) -> bool {
    let mut chars = s.bytes();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == b'_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.')
}

/// A name printed bare when it is an identifier, else as an escaped string.
pub(crate) fn keyword_or_string(out: &mut String, s: &str) {
    if is_bare_identifier(s) {
        out.push_str(s);
    } else {
        escaped_string(out, s);
    }
}

/// `@name`, or `@"name"` when it is not a bare identifier.
pub(crate) fn symbol_ref(out: &mut String, s: &str) {
    out.push('@');
    keyword_or_string(out, s);
}

/// `"text"` with llvm::printEscapedString's escaping: `\\`, and `\XX` (upper-case hex)
/// for `"` and anything not printable ASCII.
pub(crate) fn escaped_string(out: &mut String, s: &str) {
    escaped_bytes(out, s.as_bytes());
}

/// Appends `bytes` as an MLIR string literal: printable ASCII as is, `\\`, and every
/// other byte as `\XX`.
pub(crate) fn escaped_bytes(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('"');
    let mut start = 0;
    for (i, &c) in bytes.iter().enumerate() {
        let plain = (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\';
        if plain {
            continue;
        }
        // Only printable ASCII lies between escapes; slicing bytes, not the str, since
        // `start` may be inside a multi-byte character whose bytes are all escaped.
        out.extend(bytes[start..i].iter().map(|&b| b as char));
        start = i + 1;
        if c == b'\\' {
            out.push_str("\\\\");
        } else {
            out.push('\\');
            out.push(HEX[(c >> 4) as usize] as char);
            out.push(HEX[(c & 15) as usize] as char);
        }
    }
    out.extend(bytes[start..].iter().map(|&b| b as char));
    out.push('"');
}

/// MLIR's `isDialectSymbolSimpleEnoughForPrettyForm`.
fn pretty_dialect_body(body: &str) -> bool {
    if !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let rest = body.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_');
    rest.is_empty() || (rest.starts_with('<') && rest.ends_with('>'))
}

/// `!d.body` / `#d.body`, or the opaque `!d<"body">` when the body is not simple.
fn dialect_symbol(out: &mut String, sigil: char, dialect: &str, body: &str) {
    out.push(sigil);
    out.push_str(dialect);
    if body.starts_with('<') {
        // The namespace form `#d<...>`, kept verbatim by the parser.
        out.push_str(body);
    } else if body.is_empty() {
        // `#d.` has no symbol data: MLIR prints `#d<>`.
        out.push_str("<>");
    } else if pretty_dialect_body(body) {
        out.push('.');
        out.push_str(body);
    } else {
        out.push('<');
        escaped_string(out, body);
        out.push('>');
    }
}
