//! The element values of `dense<...>` attributes, for clients that compute on constants
//! (the te interpreter, constant folding): splats expanded, hex blobs decoded, floats
//! rounded to the element type.

use super::attributes::DenseLiteral;
use super::float::FloatFormat;
use super::types::{Signedness, Type, TypeKind};

/// The `count` elements of a `dense<literal> : ty` attribute as f64, row-major. Floats
/// are exact in their type; integers are wrapped to their width (exact up to 2^53);
/// `true`/`false` are 1/0. Errors for element types other than ints, floats and index,
/// for literals of the wrong kind, and when the count does not match the shape.
pub fn dense_values_f64(literal: &DenseLiteral, ty: &Type) -> Result<Vec<f64>, String> {
    let shape = ty
        .shape()
        .filter(|s| s.iter().all(|&d| d >= 0))
        .ok_or("dense elements need a static shape")?;
    let count = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d as usize))
        .ok_or("too many elements")?;
    let elem = ty
        .element_type()
        .ok_or("dense elements need a shaped type")?;
    let (float, width) = match elem.kind() {
        TypeKind::Float(k) => (
            Some(FloatFormat::of(*k).ok_or("f80/f128 elements are not supported")?),
            k.width(),
        ),
        TypeKind::Integer { width, .. } if *width <= 64 => (None, *width),
        TypeKind::Index => (None, 64),
        _ => return Err("only integer, index and float elements are supported".into()),
    };
    let unsigned = matches!(
        elem.kind(),
        TypeKind::Integer {
            signedness: Signedness::Unsigned,
            ..
        }
    );
    let int = |bits: u64| -> f64 {
        if width == 1 {
            return (bits & 1) as f64;
        }
        if width >= 64 {
            return if unsigned {
                bits as f64
            } else {
                bits as i64 as f64
            };
        }
        let shift = 64 - width;
        if unsigned {
            ((bits << shift) >> shift) as f64
        } else {
            (((bits << shift) as i64) >> shift) as f64
        }
    };
    let scalar = |l: &DenseLiteral| -> Result<f64, String> {
        match (l, float) {
            (DenseLiteral::Float(f), Some(fmt)) => Ok(fmt.round(f.get())),
            // An integer among float elements is a bit pattern (the parser takes them
            // only from hex).
            (DenseLiteral::Int(v), Some(fmt)) => Ok(fmt.decode(*v as u64)),
            (DenseLiteral::Int(v), None) => Ok(int(*v as u64)),
            (DenseLiteral::Bool(b), None) => Ok(f64::from(u8::from(*b))),
            _ => Err("an element literal does not match the element type".into()),
        }
    };
    let mut out = Vec::with_capacity(count);
    match literal {
        DenseLiteral::Hex(h) => {
            let bytes = hex_bytes(h)?;
            let size = width.div_ceil(8).max(1) as usize;
            if width == 1 || !bytes.len().is_multiple_of(size) || bytes.is_empty() {
                return Err("hex elements do not fit the element type".into());
            }
            for c in bytes.chunks_exact(size) {
                let bits = c
                    .iter()
                    .enumerate()
                    .fold(0u64, |b, (i, &x)| b | (u64::from(x) << (8 * i)));
                out.push(match float {
                    Some(fmt) => fmt.decode(bits),
                    None => int(bits),
                });
            }
        }
        DenseLiteral::List(_) | DenseLiteral::Empty => flatten(literal, &scalar, &mut out)?,
        l => out.push(scalar(l)?),
    }
    let listed = matches!(literal, DenseLiteral::List(_) | DenseLiteral::Empty);
    if out.len() == 1 && count != 1 && !listed {
        // A splat: a scalar, or hex holding one element.
        out = vec![out[0]; count];
    }
    if out.len() != count {
        return Err(format!(
            "{} elements for a shape of {count} elements",
            out.len()
        ));
    }
    Ok(out)
}

fn flatten(
    l: &DenseLiteral,
    scalar: &dyn Fn(&DenseLiteral) -> Result<f64, String>,
    out: &mut Vec<f64>,
) -> Result<(), String> {
    match l {
        DenseLiteral::List(v) => v.iter().try_for_each(|e| flatten(e, scalar, out)),
        DenseLiteral::Empty => Ok(()),
        e => {
            out.push(scalar(e)?);
            Ok(())
        }
    }
}

fn hex_bytes(h: &str) -> Result<Vec<u8>, String> {
    let hex = h
        .strip_prefix("0x")
        .or_else(|| h.strip_prefix("0X"))
        .ok_or("hex elements start with 0x")?;
    if !hex.len().is_multiple_of(2) {
        return Err("odd number of hex digits".into());
    }
    (0..hex.len() / 2)
        .map(|i| {
            hex.get(2 * i..2 * i + 2)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .ok_or_else(|| "not a hex digit".to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FloatBits, FloatKind};

    fn tensor(shape: &[i64], elem: Type) -> Type {
        Type::new(TypeKind::Tensor {
            shape: shape.to_vec(),
            elem,
            encoding: None,
        })
    }

    #[test]
    fn lists_splats_and_hex() {
        let f16 = tensor(&[2, 2], Type::float(FloatKind::F16));
        let lit = DenseLiteral::List(vec![
            DenseLiteral::List(vec![
                DenseLiteral::Float(FloatBits::new(0.1)),
                DenseLiteral::Float(FloatBits::new(2.0)),
            ]),
            DenseLiteral::List(vec![
                DenseLiteral::Float(FloatBits::new(-3.0)),
                DenseLiteral::Float(FloatBits::new(70000.0)),
            ]),
        ]);
        let v = dense_values_f64(&lit, &f16).expect("list");
        assert_eq!(
            v,
            vec![FloatFormat::F16.round(0.1), 2.0, -3.0, f64::INFINITY]
        );
        let splat =
            dense_values_f64(&DenseLiteral::Int(300), &tensor(&[3], Type::int(8))).expect("splat");
        assert_eq!(splat, vec![44.0; 3]);
        let bools = DenseLiteral::List(vec![DenseLiteral::Bool(true), DenseLiteral::Bool(false)]);
        assert_eq!(
            dense_values_f64(&bools, &tensor(&[2], Type::int(1))).expect("i1"),
            vec![1.0, 0.0]
        );
        let hex = DenseLiteral::Hex("0x0000803F000000C0".into());
        assert_eq!(
            dense_values_f64(&hex, &tensor(&[2], Type::float(FloatKind::F32))).expect("hex"),
            vec![1.0, -2.0]
        );
        // A hex splat: one element for many.
        let hex = DenseLiteral::Hex("0xFFFF".into());
        assert_eq!(
            dense_values_f64(&hex, &tensor(&[3], Type::int(16))).expect("hex splat"),
            vec![-1.0; 3]
        );
        assert!(dense_values_f64(&bools, &tensor(&[3], Type::int(1))).is_err());
        let one = DenseLiteral::List(vec![DenseLiteral::Int(5)]);
        assert!(dense_values_f64(&one, &tensor(&[3], Type::int(32))).is_err());
        assert!(dense_values_f64(&bools, &tensor(&[2], Type::float(FloatKind::F32))).is_err());
        let empty = DenseLiteral::List(vec![]);
        assert_eq!(
            dense_values_f64(&empty, &tensor(&[0], Type::int(32))).expect("empty"),
            Vec::<f64>::new()
        );
    }
}
