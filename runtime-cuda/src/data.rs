//! Host-side data: seeded random inputs, element conversion, output comparison, medians.
//! Pure Rust, testable without a GPU.

use rtile::ir::float::{bf16_bits_to_f32, f16_bits_to_f32, f32_to_bf16_bits, f32_to_f16_bits};
use rtile_manifest::{ArgKind, ArgManifest, dtype_size};

/// A dense host buffer of one argument.
#[derive(Clone, Debug, PartialEq)]
pub struct HostBuffer {
    /// Element type name (`f32`, ...).
    pub dtype: String,
    /// Shape.
    pub shape: Vec<i64>,
    /// Little-endian element bytes, row-major.
    pub bytes: Vec<u8>,
}

/// splitmix64: a small, well-mixed, seedable generator (no dependency, stable across
/// versions, so a seed names the same inputs forever).
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator for argument `index` under `seed`.
    pub fn new(seed: u64, index: u64) -> Self {
        SplitMix64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

/// Seeded inputs for argument `index`: floats uniform in [-1, 1), integers in [-4, 4],
/// `i1` 0/1. The same (seed, index, dtype, shape) always gives the same bytes.
/// A `tensormap` argument has no data of its own (the runtime encodes it): an empty buffer.
pub fn seeded_input(arg: &ArgManifest, seed: u64, index: usize) -> Result<HostBuffer, String> {
    if arg.kind == ArgKind::Tensormap {
        return Ok(HostBuffer {
            dtype: arg.dtype.clone(),
            shape: Vec::new(),
            bytes: Vec::new(),
        });
    }
    let n = arg.num_elements();
    let size = dtype_size(&arg.dtype).ok_or_else(|| format!("unsupported dtype {}", arg.dtype))?;
    let mut rng = SplitMix64::new(seed, index as u64);
    let mut bytes = Vec::with_capacity(n * size);
    for _ in 0..n {
        let u = rng.next_unit();
        let int = (rng.next_u64() % 9) as i64 - 4;
        match arg.dtype.as_str() {
            "f32" => bytes.extend_from_slice(&(u as f32).to_le_bytes()),
            "f64" => bytes.extend_from_slice(&u.to_le_bytes()),
            "f16" => bytes.extend_from_slice(&f32_to_f16_bits(u as f32).to_le_bytes()),
            "bf16" => bytes.extend_from_slice(&f32_to_bf16_bits(u as f32).to_le_bytes()),
            "i1" => bytes.push((int & 1) as u8),
            "i8" | "u8" => bytes.push(int as i8 as u8),
            "i16" | "u16" => bytes.extend_from_slice(&(int as i16).to_le_bytes()),
            "i32" | "u32" => bytes.extend_from_slice(&(int as i32).to_le_bytes()),
            "i64" | "u64" => bytes.extend_from_slice(&int.to_le_bytes()),
            other => return Err(format!("unsupported dtype {other}")),
        }
    }
    Ok(HostBuffer {
        dtype: arg.dtype.clone(),
        shape: arg.shape.clone(),
        bytes,
    })
}

impl HostBuffer {
    /// The elements as f64.
    pub fn to_f64(&self) -> Vec<f64> {
        let size = dtype_size(&self.dtype).unwrap_or(4);
        self.bytes
            .chunks_exact(size)
            .map(|c| match self.dtype.as_str() {
                "f32" => f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
                "f64" => f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
                "f16" => f16_bits_to_f32(u16::from_le_bytes([c[0], c[1]])) as f64,
                "bf16" => bf16_bits_to_f32(u16::from_le_bytes([c[0], c[1]])) as f64,
                "i1" | "u8" => c[0] as f64,
                "i8" => c[0] as i8 as f64,
                "i16" => i16::from_le_bytes([c[0], c[1]]) as f64,
                "u16" => u16::from_le_bytes([c[0], c[1]]) as f64,
                "i32" => i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
                "u32" => u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64,
                "i64" => {
                    i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f64
                }
                _ => u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f64,
            })
            .collect()
    }
}

/// The result of comparing an output with its reference.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Elements compared.
    pub n: usize,
    /// Elements outside `atol + rtol·|expected|` (NaN where a number was expected counts).
    pub mismatches: usize,
    /// Largest absolute difference.
    pub max_abs: f64,
    /// Largest relative difference (|a−e| / max(|e|, tiny)).
    pub max_rel: f64,
    /// First mismatch: (linear index, actual, expected).
    pub first: Option<(usize, f64, f64)>,
}

impl Comparison {
    /// True when nothing mismatched.
    pub fn ok(&self) -> bool {
        self.mismatches == 0
    }
}

/// Compares `actual` with `expected` elementwise (numpy's `isclose` rule; NaNs match NaNs).
pub fn compare(actual: &[f64], expected: &[f64], rtol: f64, atol: f64) -> Comparison {
    let mut c = Comparison {
        n: actual.len().min(expected.len()),
        ..Default::default()
    };
    if actual.len() != expected.len() {
        c.mismatches = actual.len().abs_diff(expected.len());
    }
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        if a.is_nan() && e.is_nan() {
            continue;
        }
        let d = (a - e).abs();
        // NaN differences count as mismatches: `d <= tol` is false for NaN.
        let within = d <= atol + rtol * e.abs() || a == e;
        let bad = !within;
        if d.is_finite() {
            c.max_abs = c.max_abs.max(d);
            c.max_rel = c.max_rel.max(d / e.abs().max(f64::MIN_POSITIVE));
        }
        if bad {
            c.mismatches += 1;
            if c.first.is_none() {
                c.first = Some((i, a, e));
            }
        }
    }
    c
}

/// Median of the samples (mean of the middle two for even counts); 0 for none.
pub fn median(samples: &[f32]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut s = samples.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile_manifest::Role;

    fn arg(dtype: &str, shape: Vec<i64>) -> ArgManifest {
        ArgManifest {
            name: "a".into(),
            kind: ArgKind::Memref,
            shape,
            dtype: dtype.into(),
            role: Role::Input,
            tensor_map: None,
        }
    }

    #[test]
    fn seeded_inputs_are_deterministic_and_in_range() {
        let a = arg("f32", vec![8, 16]);
        let x = seeded_input(&a, 42, 0).unwrap();
        assert_eq!(x, seeded_input(&a, 42, 0).unwrap());
        assert_ne!(x, seeded_input(&a, 42, 1).unwrap());
        assert_ne!(x, seeded_input(&a, 43, 0).unwrap());
        let v = x.to_f64();
        assert_eq!(v.len(), 128);
        assert!(v.iter().all(|x| (-1.0..1.0).contains(x)));
        let h = seeded_input(&arg("f16", vec![4]), 1, 0).unwrap();
        assert_eq!(h.bytes.len(), 8);
        let i = seeded_input(&arg("i32", vec![100]), 1, 0).unwrap().to_f64();
        assert!(i.iter().all(|x| (-4.0..=4.0).contains(x)));
        assert!(seeded_input(&arg("c64", vec![1]), 1, 0).is_err());
        let mut tm = arg("f16", vec![]);
        tm.kind = ArgKind::Tensormap;
        assert!(seeded_input(&tm, 1, 0).unwrap().bytes.is_empty());
    }

    #[test]
    fn comparison_and_median() {
        let c = compare(
            &[1.0, 2.0, f64::NAN],
            &[1.0, 2.0 + 1e-7, f64::NAN],
            1e-5,
            1e-6,
        );
        assert!(c.ok(), "{c:?}");
        let c = compare(&[1.0, 3.0, f64::NAN], &[1.0, 2.0, 0.0], 1e-5, 1e-6);
        assert_eq!(c.mismatches, 2);
        assert_eq!(c.first, Some((1, 3.0, 2.0)));
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }
}
