//! The file metadata section `{-# dialect_resources: {...}, external_resources: {...} #-}`
//! that MLIR prints after the top-level op: named blobs that `dense_resource<name>`
//! attributes refer to, and opaque external entries kept for the tools that own them.
//! Blobs are added with [`FileResources::add_blob`] and read back as elements with
//! [`FileResources::blob_f64`] / [`FileResources::blob_i64`].

use super::float::FloatFormat;
use super::types::{Signedness, Type, TypeKind};

/// One entry's value: MLIR's resource entries are blobs (hex strings `"0x..."`), other
/// strings, or booleans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceValue {
    /// `true` / `false`.
    Bool(bool),
    /// A string; blobs are `"0x"`, a 4-byte little-endian alignment, then the data.
    String(String),
}

/// The entries of one owner: a dialect (`builtin`) or an external tool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceGroup {
    /// `builtin`, or the external owner's key.
    pub owner: String,
    /// `(key, value)` in file order.
    pub entries: Vec<(String, ResourceValue)>,
}

/// The resources a file carried.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileResources {
    /// `dialect_resources`: by dialect. Builtin blobs are printed only while a
    /// `dense_resource` attribute refers to them, as MLIR does.
    pub dialect: Vec<ResourceGroup>,
    /// `external_resources`: printed back as read.
    pub external: Vec<ResourceGroup>,
}

impl FileResources {
    /// The blob `key` of the builtin dialect, if the file defined it.
    pub fn builtin_blob(&self, key: &str) -> Option<&ResourceValue> {
        self.dialect
            .iter()
            .filter(|g| g.owner == "builtin")
            .flat_map(|g| &g.entries)
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }
}

impl FileResources {
    /// Adds a builtin blob (what `dense_resource<handle>` refers to) with `alignment`
    /// (bytes, a power of two; MLIR writes the element size) and returns its handle:
    /// `preferred` when no builtin entry has that name, else `preferred_N` with the
    /// smallest free `N`, as MLIR's blob manager makes names unique.
    pub fn add_blob(&mut self, preferred: &str, alignment: u32, bytes: &[u8]) -> String {
        let base = if preferred.is_empty() {
            "resource"
        } else {
            preferred
        };
        let mut name = base.to_string();
        let mut n = 0u64;
        while self.builtin_blob(&name).is_some() {
            name = format!("{base}_{n}");
            n += 1;
        }
        let mut hex = String::with_capacity(2 + 2 * (4 + bytes.len()));
        hex.push_str("0x");
        const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
        for b in alignment.to_le_bytes().iter().chain(bytes) {
            hex.push(DIGITS[(b >> 4) as usize] as char);
            hex.push(DIGITS[(b & 15) as usize] as char);
        }
        let entry = (name.clone(), ResourceValue::String(hex));
        match self.dialect.iter_mut().find(|g| g.owner == "builtin") {
            Some(g) => g.entries.push(entry),
            None => self.dialect.push(ResourceGroup {
                owner: "builtin".into(),
                entries: vec![entry],
            }),
        }
        name
    }

    /// The builtin blob `key` decoded: its alignment and data bytes.
    pub fn blob(&self, key: &str) -> Result<Blob, String> {
        match self.builtin_blob(key) {
            None => Err(format!(
                "no blob '{key}' in the file's dialect_resources (builtin)"
            )),
            Some(ResourceValue::Bool(_)) => Err(format!("resource '{key}' is not a blob")),
            Some(ResourceValue::String(s)) => {
                decode_blob(s).map_err(|e| format!("blob '{key}': {e}"))
            }
        }
    }

    /// The elements of blob `key` read as a `dense_resource` of shaped type `ty`, as f64:
    /// floats exactly, integers exactly up to 2^53 (use [`Self::blob_i64`] beyond),
    /// `i1` as 0/1. Errors when the blob is missing, malformed or not the size `ty` needs.
    pub fn blob_f64(&self, key: &str, ty: &Type) -> Result<Vec<f64>, String> {
        let (elem, n) = elements_of(ty)?;
        let data = self.sized_blob(key, ty, n)?;
        let size = element_byte_size(elem).unwrap_or(1);
        let chunks = data.chunks_exact(size.max(1));
        match elem.kind() {
            TypeKind::Float(k) => {
                let f = FloatFormat::of(*k)
                    .ok_or_else(|| format!("cannot read {} elements", type_to_text(elem)))?;
                Ok(chunks.map(|c| f.decode(le_bits(c))).collect())
            }
            _ => Ok(chunks.map(|c| int_of(elem, c) as f64).collect()),
        }
    }

    /// The elements of blob `key` as integers (`ty`'s element type must be an integer or
    /// `index`; signless and signed values are sign-extended, unsigned zero-extended).
    pub fn blob_i64(&self, key: &str, ty: &Type) -> Result<Vec<i64>, String> {
        let (elem, n) = elements_of(ty)?;
        if !elem.is_integer_like() {
            return Err(format!(
                "blob '{key}' holds {} elements, not integers",
                type_to_text(elem)
            ));
        }
        let data = self.sized_blob(key, ty, n)?;
        let size = element_byte_size(elem).unwrap_or(1);
        Ok(data.chunks_exact(size).map(|c| int_of(elem, c)).collect())
    }

    /// Checks that blob `key` exists and holds exactly the bytes a `dense_resource` of
    /// type `ty` needs (what the verifier of ops holding one calls).
    pub fn check_blob(&self, key: &str, ty: &Type) -> Result<(), String> {
        let (_, n) = elements_of(ty)?;
        self.sized_blob(key, ty, n).map(|_| ())
    }

    fn sized_blob(&self, key: &str, ty: &Type, n: usize) -> Result<Vec<u8>, String> {
        let elem = ty.element_type().ok_or("not a shaped type")?;
        let size = element_byte_size(elem).ok_or_else(|| {
            format!(
                "dense_resource elements of type {} are not supported",
                type_to_text(elem)
            )
        })?;
        let blob = self.blob(key)?;
        if blob.data.len() != n * size {
            return Err(format!(
                "blob '{key}' holds {} bytes but {} needs {} ({n} elements of {size} bytes)",
                blob.data.len(),
                type_to_text(ty),
                n * size
            ));
        }
        Ok(blob.data)
    }
}

/// A builtin blob: MLIR's `AsmResourceBlob`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blob {
    /// Alignment of the data in bytes (the blob's first four bytes, little-endian).
    pub alignment: u32,
    /// The element bytes, little-endian.
    pub data: Vec<u8>,
}

/// Bytes per element of a `dense_resource` blob: floats and integers by their width
/// rounded up to bytes (`i1` takes a byte, 0 or 1), `index` 8; `None` for others.
pub fn element_byte_size(elem: &Type) -> Option<usize> {
    match elem.kind() {
        TypeKind::Float(k) => FloatFormat::of(*k).map(|_| k.width().div_ceil(8) as usize),
        TypeKind::Integer { width, .. } if *width <= 64 => Some(width.div_ceil(8).max(1) as usize),
        TypeKind::Index => Some(8),
        _ => None,
    }
}

/// Little-endian bytes of `values` as elements of `elem` (floats rounded to nearest even,
/// integers wrapped; `i1` is 0/1 per byte), for [`FileResources::add_blob`].
pub fn encode_elements(elem: &Type, values: &[f64]) -> Result<Vec<u8>, String> {
    let size = element_byte_size(elem)
        .ok_or_else(|| format!("cannot encode {} elements", type_to_text(elem)))?;
    let mut out = Vec::with_capacity(values.len() * size);
    for &v in values {
        let bits = match elem.kind() {
            TypeKind::Float(k) => FloatFormat::of(*k).map(|f| f.encode(v)).unwrap_or(0),
            TypeKind::Integer { width: 1, .. } => u64::from(v != 0.0),
            _ => v as i64 as u64,
        };
        out.extend_from_slice(&bits.to_le_bytes()[..size]);
    }
    Ok(out)
}

fn elements_of(ty: &Type) -> Result<(&Type, usize), String> {
    let shape = ty
        .shape()
        .filter(|s| s.iter().all(|&d| d >= 0))
        .ok_or_else(|| format!("{} is not a statically shaped type", type_to_text(ty)))?;
    let elem = ty.element_type().ok_or("not a shaped type")?;
    let n = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d as usize))
        .ok_or("too many elements")?;
    Ok((elem, n))
}

fn le_bits(c: &[u8]) -> u64 {
    c.iter()
        .enumerate()
        .fold(0u64, |b, (i, &x)| b | (u64::from(x) << (8 * i)))
}

/// One integer element: `i1` is any nonzero byte; signed/signless sign-extend.
fn int_of(elem: &Type, c: &[u8]) -> i64 {
    let bits = le_bits(c);
    match elem.kind() {
        TypeKind::Integer { width: 1, .. } => i64::from(bits != 0),
        TypeKind::Integer {
            width,
            signedness: Signedness::Unsigned,
        } if *width < 64 => (bits & ((1u64 << width) - 1)) as i64,
        TypeKind::Integer { width, .. } if *width < 64 => {
            let shift = 64 - width;
            ((bits << shift) as i64) >> shift
        }
        _ => bits as i64,
    }
}

/// `"0x" + hex` into alignment and data.
fn decode_blob(s: &str) -> Result<Blob, String> {
    let hex = s
        .strip_prefix("0x")
        .ok_or("a blob is a hex string starting with 0x")?
        .as_bytes();
    if !hex.len().is_multiple_of(2) {
        return Err("odd number of hex digits".into());
    }
    let digit = |c: u8| -> Result<u8, String> {
        (c as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| format!("'{}' is not a hex digit", c as char))
    };
    let bytes = hex
        .chunks_exact(2)
        .map(|p| Ok(digit(p[0])? << 4 | digit(p[1])?))
        .collect::<Result<Vec<u8>, String>>()?;
    if bytes.len() < 4 {
        return Err("shorter than its 4-byte alignment header".into());
    }
    let alignment = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    if !alignment.is_power_of_two() {
        return Err(format!("alignment {alignment} is not a power of two"));
    }
    Ok(Blob {
        alignment,
        data: bytes[4..].to_vec(),
    })
}

fn type_to_text(t: &Type) -> String {
    crate::printer::type_to_string(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::FloatKind;

    fn tensor(shape: &[i64], elem: Type) -> Type {
        Type::new(TypeKind::Tensor {
            shape: shape.to_vec(),
            elem,
            encoding: None,
        })
    }

    #[test]
    fn add_blob_makes_names_unique_and_reads_back() {
        let mut r = FileResources::default();
        let f32t = tensor(&[2], Type::float(FloatKind::F32));
        let bytes = encode_elements(&Type::float(FloatKind::F32), &[1.0, -2.5]).expect("enc");
        assert_eq!(bytes, [0, 0, 0x80, 0x3f, 0, 0, 0x20, 0xc0]);
        assert_eq!(r.add_blob("w", 4, &bytes), "w");
        assert_eq!(r.add_blob("w", 4, &bytes), "w_0");
        assert_eq!(r.add_blob("w", 4, &bytes), "w_1");
        assert_eq!(r.add_blob("", 4, &bytes), "resource");
        assert_eq!(
            r.builtin_blob("w"),
            Some(&ResourceValue::String("0x040000000000803F000020C0".into()))
        );
        assert_eq!(r.blob_f64("w_1", &f32t).expect("read"), vec![1.0, -2.5]);
        assert_eq!(r.blob("w").expect("blob").alignment, 4);
        // The wrong size and a missing handle are errors.
        let e = r.blob_f64("w", &tensor(&[3], Type::float(FloatKind::F32)));
        assert!(e.expect_err("size").contains("holds 8 bytes"));
        assert!(r.check_blob("nope", &f32t).is_err());
        assert!(r.blob_i64("w", &f32t).is_err());
    }

    #[test]
    fn every_element_type_round_trips() {
        let cases: Vec<(Type, Vec<f64>)> = vec![
            (
                Type::float(FloatKind::F64),
                vec![0.1, -1e300, f64::INFINITY],
            ),
            (Type::float(FloatKind::F32), vec![0.5, -3.25, 1e-40]),
            (
                Type::float(FloatKind::F16),
                vec![65504.0, -0.5, 2f64.powi(-24)],
            ),
            (
                Type::float(FloatKind::BF16),
                vec![1.0, -2.0, 3.0e38_f32 as f64],
            ),
            (Type::int(32), vec![-7.0, 2147483647.0, 0.0]),
            (Type::int(8), vec![-128.0, 127.0, -1.0]),
            (Type::int(64), vec![-(1i64 << 52) as f64, 5.0, -5.0]),
            (Type::int(1), vec![1.0, 0.0, 1.0]),
        ];
        for (elem, vals) in cases {
            let mut r = FileResources::default();
            let bytes = encode_elements(&elem, &vals).expect("enc");
            let size = element_byte_size(&elem).expect("size");
            assert_eq!(bytes.len(), 3 * size);
            let h = r.add_blob("b", size as u32, &bytes);
            let t = tensor(&[3], elem);
            let got = r.blob_f64(&h, &t).expect("read");
            let want: Vec<f64> = match elem.kind() {
                TypeKind::Float(k) => vals
                    .iter()
                    .map(|&v| FloatFormat::of(*k).expect("fmt").round(v))
                    .collect(),
                _ => vals.clone(),
            };
            assert_eq!(got, want, "{elem:?}");
            if elem.is_integer_like() {
                let ints = r.blob_i64(&h, &t).expect("ints");
                assert_eq!(ints, vals.iter().map(|&v| v as i64).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn i64_blobs_are_exact_and_unsigned_zero_extends() {
        let mut r = FileResources::default();
        let big = (1i64 << 60) + 1;
        let mut bytes = big.to_le_bytes().to_vec();
        bytes.extend((-3i64).to_le_bytes());
        let h = r.add_blob("i", 8, &bytes);
        let t = tensor(&[2], Type::int(64));
        assert_eq!(r.blob_i64(&h, &t).expect("i64"), vec![big, -3]);
        let u8t = Type::new(TypeKind::Integer {
            width: 8,
            signedness: Signedness::Unsigned,
        });
        let h = r.add_blob("u", 1, &[0xff, 0x01]);
        assert_eq!(
            r.blob_i64(&h, &tensor(&[2], u8t)).expect("u8"),
            vec![255, 1]
        );
        assert_eq!(
            r.blob_i64(&h, &tensor(&[2], Type::int(8))).expect("i8"),
            vec![-1, 1]
        );
        // An i1 byte is true when nonzero.
        let h = r.add_blob("b", 1, &[0, 2]);
        assert_eq!(
            r.blob_f64(&h, &tensor(&[2], Type::int(1))).expect("i1"),
            vec![0.0, 1.0]
        );
    }

    #[test]
    fn malformed_blobs_are_errors() {
        let mut r = FileResources::default();
        r.dialect.push(ResourceGroup {
            owner: "builtin".into(),
            entries: vec![
                ("odd".into(), ResourceValue::String("0x040".into())),
                ("align".into(), ResourceValue::String("0x03000000".into())),
                ("flag".into(), ResourceValue::Bool(true)),
                ("text".into(), ResourceValue::String("hello".into())),
            ],
        });
        for (k, want) in [
            ("odd", "odd number"),
            ("align", "not a power of two"),
            ("flag", "not a blob"),
            ("text", "starting with 0x"),
        ] {
            let e = r.blob(k).expect_err(k);
            assert!(e.contains(want), "{k}: {e}");
        }
    }
}
