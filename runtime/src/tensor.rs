//! Host tensors: a static shape, an element type and row-major values held as f64 (every
//! supported element type embeds exactly in f64, so one storage serves all).

use rtile_dialects::te::model::{ElemType, TensorType};

use crate::round::round_to;

/// A dense row-major host tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub shape: Vec<i64>,
    pub dtype: ElemType,
    /// Row-major values, each representable in `dtype`.
    pub data: Vec<f64>,
}

/// splitmix64 (Steele, Lea, Flood 2014): a tiny deterministic generator, so fills are
/// reproducible across platforms and crate versions.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Uniform integer in `[lo, hi]`.
    pub fn next_range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo + 1) as u64;
        lo + (self.next_u64() % span) as i64
    }
}

impl Tensor {
    /// A tensor of zeros.
    pub fn zeros(t: &TensorType) -> Tensor {
        Tensor {
            shape: t.shape.clone(),
            dtype: t.elem,
            data: vec![0.0; t.num_elements().max(0) as usize],
        }
    }

    /// A tensor from values, rounded to the element type.
    pub fn from_data(shape: Vec<i64>, dtype: ElemType, data: Vec<f64>) -> Result<Tensor, String> {
        let n: i64 = shape.iter().product();
        if n < 0 || n as usize != data.len() {
            return Err(format!(
                "{} values for shape {:?} ({} elements)",
                data.len(),
                shape,
                n
            ));
        }
        Ok(Tensor {
            shape,
            dtype,
            data: data.into_iter().map(|v| round_to(v, dtype)).collect(),
        })
    }

    /// Fills from the generator: floats uniform in `[-1, 1)` rounded to the type,
    /// integers uniform in `[-8, 8]` (i1: 0 or 1), so products and sums stay small.
    pub fn random(t: &TensorType, rng: &mut SplitMix64) -> Tensor {
        let n = t.num_elements().max(0) as usize;
        let data = (0..n)
            .map(|_| match t.elem {
                e if e.is_float() => round_to(rng.next_f64() * 2.0 - 1.0, e),
                ElemType::I1 => rng.next_range(0, 1) as f64,
                _ => rng.next_range(-8, 8) as f64,
            })
            .collect();
        Tensor {
            shape: t.shape.clone(),
            dtype: t.elem,
            data,
        }
    }

    /// Random inputs for a list of types from one seed (input `i` gets its own stream, so
    /// adding an input does not change the others).
    pub fn random_inputs(types: &[TensorType], seed: u64) -> Vec<Tensor> {
        types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut rng =
                    SplitMix64(seed ^ ((i as u64 + 1).wrapping_mul(0xa076_1d64_78bd_642f)));
                Tensor::random(t, &mut rng)
            })
            .collect()
    }

    /// The tensor type.
    pub fn ty(&self) -> TensorType {
        TensorType::new(self.shape.clone(), self.dtype)
    }

    /// Row-major strides.
    pub fn strides(&self) -> Vec<i64> {
        let mut s = vec![1i64; self.shape.len()];
        for i in (0..self.shape.len().saturating_sub(1)).rev() {
            s[i] = s[i + 1] * self.shape[i + 1];
        }
        s
    }

    /// The same data under another shape with as many elements (a reshape).
    pub fn reshaped(&self, shape: Vec<i64>) -> Result<Tensor, String> {
        Tensor::from_data(shape, self.dtype, self.data.clone())
    }

    /// A checksum that is stable across runs: sum, sum of absolute values and a
    /// position-weighted sum, all in f64.
    pub fn checksum(&self) -> (f64, f64, f64) {
        let mut s = 0.0;
        let mut a = 0.0;
        let mut w = 0.0;
        for (i, v) in self.data.iter().enumerate() {
            s += v;
            a += v.abs();
            w += v * ((i % 1024) as f64 + 1.0);
        }
        (s, a, w)
    }

    /// True when both have the same shape, type and bit-identical values (NaNs compared by
    /// bits too).
    pub fn bit_identical(&self, other: &Tensor) -> bool {
        self.shape == other.shape
            && self.dtype == other.dtype
            && self.data.len() == other.data.len()
            && self
                .data
                .iter()
                .zip(&other.data)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}
