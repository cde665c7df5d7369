//! `.npy` files (NumPy format 1.0/2.0/3.0): little-endian `<f8 <f4 <f2 <i4 |i1 |b1`,
//! C order. bf16 has no NumPy dtype: it is written as `<f4` (exact) and read back with
//! the caller's type.

use rtile_dialects::te::model::ElemType;

use rtile::ir::float::{f16_bits_to_f64, f64_to_f16_bits};

use crate::round::round_to;

use crate::tensor::Tensor;

fn descr(t: ElemType) -> &'static str {
    match t {
        ElemType::F64 => "<f8",
        ElemType::F32 | ElemType::BF16 => "<f4",
        ElemType::F16 => "<f2",
        ElemType::I32 => "<i4",
        ElemType::I8 => "|i1",
        ElemType::I1 => "|b1",
    }
}

/// Serialises a tensor as `.npy` version 1.0.
pub fn to_npy(t: &Tensor) -> Vec<u8> {
    let shape = match t.shape.len() {
        0 => "()".to_string(),
        1 => format!("({},)", t.shape[0]),
        _ => format!(
            "({})",
            t.shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
        descr(t.dtype),
        shape
    );
    // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for &v in &t.data {
        match t.dtype {
            ElemType::F64 => out.extend_from_slice(&v.to_le_bytes()),
            ElemType::F32 | ElemType::BF16 => out.extend_from_slice(&(v as f32).to_le_bytes()),
            ElemType::F16 => out.extend_from_slice(&f64_to_f16_bits(v).to_le_bytes()),
            ElemType::I32 => out.extend_from_slice(&(v as i32).to_le_bytes()),
            ElemType::I8 => out.push(v as i8 as u8),
            ElemType::I1 => out.push(u8::from(v != 0.0)),
        }
    }
    out
}

fn header_field<'a>(h: &'a str, key: &str) -> Option<&'a str> {
    let k = format!("'{key}':");
    let at = h.find(&k)? + k.len();
    Some(h[at..].trim_start())
}

/// Parses a `.npy` file; `want` is the element type the caller expects (the file's dtype
/// must store it exactly: bf16 accepts `<f4`, then rounds).
pub fn from_npy(bytes: &[u8], want: ElemType) -> Result<Tensor, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (bad magic)".into());
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = bytes
        .get(start..start + hlen)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or("truncated .npy header")?;
    let d = header_field(header, "descr").ok_or("no descr in .npy header")?;
    let d = d.trim_start_matches(['\'', '"']);
    let d = &d[..d.find(['\'', '"']).unwrap_or(d.len())];
    if header_field(header, "fortran_order").is_some_and(|f| f.starts_with("True")) {
        return Err("Fortran-order .npy files are not supported".into());
    }
    let s = header_field(header, "shape").ok_or("no shape in .npy header")?;
    let s = s
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or("bad shape in .npy header")?;
    let shape = s
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| x.parse::<i64>().map_err(|_| format!("bad extent `{x}`")))
        .collect::<Result<Vec<_>, _>>()?;
    let n: i64 = shape.iter().product();
    let body = &bytes[start + hlen..];
    let (width, read): (usize, fn(&[u8]) -> f64) = match d {
        "<f8" => (8, |b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
        "<f4" => (4, |b| {
            f32::from_le_bytes(b.try_into().unwrap_or([0; 4])) as f64
        }),
        "<f2" => (2, |b| f16_bits_to_f64(u16::from_le_bytes([b[0], b[1]]))),
        "<i4" => (4, |b| {
            i32::from_le_bytes(b.try_into().unwrap_or([0; 4])) as f64
        }),
        "|i1" => (1, |b| b[0] as i8 as f64),
        "|b1" | "|u1" => (1, |b| b[0] as f64),
        other => return Err(format!("unsupported .npy dtype `{other}`")),
    };
    if body.len() < n as usize * width {
        return Err(format!(
            ".npy data has {} bytes, need {}",
            body.len(),
            n as usize * width
        ));
    }
    let data: Vec<f64> = body
        .chunks_exact(width)
        .take(n as usize)
        .map(read)
        .collect();
    if let Some(v) = data
        .iter()
        .find(|&&v| round_to(v, want).to_bits() != v.to_bits() && !v.is_nan())
    {
        return Err(format!(
            ".npy dtype `{d}` holds {v}, which is not a {} value",
            want.keyword()
        ));
    }
    Tensor::from_data(shape, want, data)
}

/// Writes a tensor to a `.npy` file.
pub fn write_npy(path: &std::path::Path, t: &Tensor) -> Result<(), String> {
    std::fs::write(path, to_npy(t)).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a `.npy` file.
pub fn read_npy(path: &std::path::Path, want: ElemType) -> Result<Tensor, String> {
    let b = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    from_npy(&b, want).map_err(|m| format!("{}: {m}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::SplitMix64;
    use rtile_dialects::te::model::TensorType;

    #[test]
    fn round_trip_every_type() {
        for t in [
            ElemType::F64,
            ElemType::F32,
            ElemType::F16,
            ElemType::BF16,
            ElemType::I32,
            ElemType::I8,
            ElemType::I1,
        ] {
            let mut rng = SplitMix64(3);
            let x = Tensor::random(&TensorType::new(vec![3, 5, 2], t), &mut rng);
            let y = from_npy(&to_npy(&x), t).expect("parse");
            assert!(x.bit_identical(&y), "{t:?}");
        }
    }

    #[test]
    fn header_alignment_and_scalars() {
        let x = Tensor::from_data(vec![], ElemType::F32, vec![2.5]).expect("scalar");
        let b = to_npy(&x);
        let hlen = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        assert_eq!(from_npy(&b, ElemType::F32).expect("parse"), x);
        assert!(from_npy(b"nope", ElemType::F32).is_err());
    }

    #[test]
    fn f16_bits_exact() {
        for b in [0u16, 1, 0x3c00, 0x7bff, 0x8001, 0xfc00, 0x0400, 0x3555] {
            assert_eq!(f64_to_f16_bits(f16_bits_to_f64(b)), b);
        }
    }
}
