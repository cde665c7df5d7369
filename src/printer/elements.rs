//! The elements of `dense<...>` attributes as MLIR prints them: splats folded, nested
//! by the shape, or a hex blob above 100 elements.

use std::fmt::Write as _;

use super::float::{from_bits, to_bits, width_mask, write_float};
use super::format::{escaped_bytes, write_int};
use crate::ir::{DenseLiteral, FloatKind, Type, TypeKind};

/// Above this many elements MLIR prints a dense attribute as a hex blob.
const HEX_THRESHOLD: usize = 100;

/// One scalar element of a dense attribute, normalised to its element type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elem {
    Int(i128),
    /// Bits in the element's float format.
    Float(u64),
}

/// The inside of `dense<...>` as MLIR prints it: one element for a splat, the
/// elements nested by the shape, or a little-endian hex blob above 100 elements.
pub(super) fn dense_elements(out: &mut String, literal: &DenseLiteral, ty: &Type) {
    let elem_ty = ty.element_type();
    let int_width = match elem_ty.map(|x| x.kind()) {
        Some(TypeKind::Integer { width, .. }) => Some(*width),
        Some(TypeKind::Index) => Some(64),
        _ => None,
    };
    let float_kind = match elem_ty.map(|x| x.kind()) {
        Some(TypeKind::Float(k)) => Some(*k),
        _ => None,
    };
    let shape = ty.shape().filter(|s| s.iter().all(|&d| d >= 0));
    let (Some(shape), Some(elem_ty)) = (shape, elem_ty) else {
        return dense_literal(out, literal, float_kind.unwrap_or(FloatKind::F64));
    };
    if int_width.is_none() && float_kind.is_none() {
        // Complex, string and other element types: print what was written (splats
        // folded); no elements print as `dense<>`, as for numbers.
        if shape.contains(&0) {
            return;
        }
        let kind = match elem_ty.kind() {
            TypeKind::Complex(e) => match **e {
                TypeKind::Float(k) => k,
                _ => FloatKind::F64,
            },
            _ => FloatKind::F64,
        };
        return dense_literal(out, splat_of(literal).unwrap_or(literal), kind);
    }
    let count: usize = shape.iter().map(|&d| d as usize).product();
    let width = int_width.unwrap_or_else(|| float_kind.map_or(64, |k| k.width()));
    let to_elem = |l: &DenseLiteral| -> Option<Elem> {
        Some(match (l, float_kind) {
            (DenseLiteral::Int(v), None) => Elem::Int(*v),
            (DenseLiteral::Bool(b), None) => Elem::Int(*b as i128),
            (DenseLiteral::Float(f), Some(k)) => Elem::Float(to_bits(f.get(), k)),
            // The parser takes an integer among float elements only in hex: a bit pattern.
            (DenseLiteral::Int(v), Some(k)) => Elem::Float(*v as u64 & width_mask(k.width())),
            _ => return None,
        })
    };
    let mut elems: Vec<Elem> = Vec::new();
    let ok = match literal {
        DenseLiteral::Hex(h) => decode_hex(h, width, float_kind.is_some(), &mut elems),
        _ => flatten(literal, &to_elem, &mut elems),
    };
    if !ok || elems.is_empty() && count != 0 {
        return dense_literal(out, literal, float_kind.unwrap_or(FloatKind::F64));
    }
    if count == 0 {
        return;
    }
    let print_elem = |out: &mut String, e: Elem| match e {
        Elem::Int(v) if width == 1 => out.push_str(if v & 1 != 0 { "true" } else { "false" }),
        Elem::Int(v) => write_int(out, v, elem_ty),
        Elem::Float(b) => {
            let k = float_kind.unwrap_or(FloatKind::F64);
            write_float(out, from_bits(b, k), k)
        }
    };
    if elems.iter().all(|e| *e == elems[0]) {
        return print_elem(out, elems[0]);
    }
    if elems.len() != count {
        return dense_literal(out, literal, float_kind.unwrap_or(FloatKind::F64));
    }
    if count > HEX_THRESHOLD && width.is_multiple_of(8) && width <= 64 {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        out.push_str("\"0x");
        for e in &elems {
            let bits: u64 = match *e {
                Elem::Int(v) => v as u64,
                Elem::Float(b) => b,
            };
            for byte in 0..width / 8 {
                let x = (bits >> (8 * byte)) as u8;
                out.push(HEX[(x >> 4) as usize] as char);
                out.push(HEX[(x & 15) as usize] as char);
            }
        }
        out.push('"');
        return;
    }
    // Nested by the shape, innermost dimension last.
    let mut next = 0usize;
    nested(out, shape, &elems, &mut next, &print_elem);
}

fn nested(
    out: &mut String,
    shape: &[i64],
    elems: &[Elem],
    next: &mut usize,
    print_elem: &dyn Fn(&mut String, Elem),
) {
    let Some((&d, rest)) = shape.split_first() else {
        if let Some(&e) = elems.get(*next) {
            print_elem(out, e);
        }
        *next += 1;
        return;
    };
    out.push('[');
    for i in 0..d {
        if i > 0 {
            out.push_str(", ");
        }
        nested(out, rest, elems, next, print_elem);
    }
    out.push(']');
}

fn flatten(
    l: &DenseLiteral,
    to_elem: &dyn Fn(&DenseLiteral) -> Option<Elem>,
    out: &mut Vec<Elem>,
) -> bool {
    match l {
        DenseLiteral::List(v) => v.iter().all(|e| flatten(e, to_elem, out)),
        DenseLiteral::Empty => true,
        e => match to_elem(e) {
            Some(x) => {
                out.push(x);
                true
            }
            None => false,
        },
    }
}

/// Decodes `0x...` little-endian element data (one element for a splat).
fn decode_hex(h: &str, width: u32, is_float: bool, out: &mut Vec<Elem>) -> bool {
    let Some(hex) = h.strip_prefix("0x").or_else(|| h.strip_prefix("0X")) else {
        return false;
    };
    if !width.is_multiple_of(8) || width > 64 || !hex.len().is_multiple_of(2) {
        return false;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    let Some(bytes) = bytes else { return false };
    let n = (width / 8) as usize;
    if bytes.is_empty() || !bytes.len().is_multiple_of(n) {
        return false;
    }
    for chunk in bytes.chunks(n) {
        let mut bits = 0u64;
        for (i, b) in chunk.iter().enumerate() {
            bits |= (*b as u64) << (8 * i);
        }
        out.push(if is_float {
            Elem::Float(bits)
        } else {
            Elem::Int(bits as i128)
        });
    }
    true
}

/// The single value of a literal whose leaves are all equal (MLIR stores such dense
/// attributes as splats and prints them as one element).
fn splat_of(l: &DenseLiteral) -> Option<&DenseLiteral> {
    fn first(l: &DenseLiteral) -> Option<&DenseLiteral> {
        match l {
            DenseLiteral::List(v) => v.first().and_then(first),
            DenseLiteral::Hex(_) | DenseLiteral::Empty => None,
            x => Some(x),
        }
    }
    fn all_eq(l: &DenseLiteral, x: &DenseLiteral) -> bool {
        match l {
            DenseLiteral::List(v) => v.iter().all(|e| all_eq(e, x)),
            e => e == x,
        }
    }
    if !matches!(l, DenseLiteral::List(_)) {
        return None;
    }
    let f = first(l)?;
    all_eq(l, f).then_some(f)
}

fn dense_literal(out: &mut String, l: &DenseLiteral, kind: FloatKind) {
    match l {
        DenseLiteral::Int(v) => {
            let _ = write!(out, "{v}");
        }
        DenseLiteral::Float(f) => write_float(out, f.get(), kind),
        DenseLiteral::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        DenseLiteral::Complex(re, im) => {
            out.push('(');
            dense_literal(out, re, kind);
            out.push(',');
            dense_literal(out, im, kind);
            out.push(')');
        }
        DenseLiteral::List(v) => {
            out.push('[');
            for (i, e) in v.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                dense_literal(out, e, kind);
            }
            out.push(']');
        }
        DenseLiteral::Hex(h) => {
            out.push('"');
            out.push_str(h);
            out.push('"');
        }
        DenseLiteral::Str(bytes) => escaped_bytes(out, bytes),
        DenseLiteral::Empty => {}
    }
}
