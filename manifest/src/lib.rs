//! The launch manifest: what `rtile-translate --manifest=FILE` writes beside a PTX (or
//! HIP) file and what `rtile-run` reads to launch it, with no IR or LLVM at run time.
//!
//! ```json
//! {
//!   "version": 1,
//!   "target": "sm_90",
//!   "module": "kernels",
//!   "kernels": [{
//!     "name": "vadd",
//!     "grid": [4, 1, 1], "block": [256, 1, 1], "dynamic_shared_memory": 0,
//!     "args": [
//!       {"name": "arg0", "kind": "memref", "shape": [1024], "dtype": "f32", "role": "input"},
//!       {"name": "arg2", "kind": "memref", "shape": [1024], "dtype": "f32", "role": "output"}
//!     ]
//!   }]
//! }
//! ```
//! Memref arguments are passed as one device pointer to the first element (the
//! bare-pointer convention, row-major dense); scalar arguments by value. `grid`/`block`
//! are `null` when the IR did not say (`rtile.launch`, `known_block_size`,
//! `known_grid_size`); `rtile-run` then needs them on its command line.

use serde::{Deserialize, Serialize};

/// Current manifest format version.
pub const VERSION: u32 = 1;

/// A translated `gpu.module` and how to launch its kernels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// `sm_90`, `gfx90a`, `hip`, `llvmir`.
    pub target: String,
    /// The `gpu.module` symbol.
    pub module: String,
    /// Its kernels, in IR order.
    pub kernels: Vec<KernelManifest>,
}

/// One kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelManifest {
    /// Entry-point symbol.
    pub name: String,
    /// Grid size in blocks, when known.
    pub grid: Option<[u32; 3]>,
    /// Block size in threads, when known.
    pub block: Option<[u32; 3]>,
    /// Dynamic shared memory in bytes.
    pub dynamic_shared_memory: u64,
    /// Static shared memory in bytes (workgroup attributions and allocations).
    #[serde(default)]
    pub static_shared_memory: u64,
    /// Arguments in launch order.
    pub args: Vec<ArgManifest>,
}

/// What a memref argument is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Only read.
    Input,
    /// Written, not read (starts as NaN in rtile-run, so unwritten elements show).
    Output,
    /// Read and written (starts with seeded data, checked like an output).
    Inout,
    /// Neither read nor written by the kernel.
    Unused,
}

/// How an argument is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgKind {
    /// A device pointer to a dense row-major buffer.
    Memref,
    /// A scalar by value.
    Scalar,
}

/// One argument.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArgManifest {
    /// `arg<i>`.
    pub name: String,
    /// Pointer or value.
    pub kind: ArgKind,
    /// Static shape (empty for scalars).
    pub shape: Vec<i64>,
    /// `f32`, `f16`, `bf16`, `f64`, `i8`..`i64`, `i1`.
    pub dtype: String,
    /// Input, output or unused.
    pub role: Role,
}

impl ArgManifest {
    /// Number of elements.
    pub fn num_elements(&self) -> usize {
        self.shape.iter().map(|&d| d.max(0) as usize).product()
    }
}

/// Size in bytes of one element of `dtype`, `None` when unknown.
pub fn dtype_size(dtype: &str) -> Option<usize> {
    Some(match dtype {
        "i1" | "i8" | "u8" => 1,
        "f16" | "bf16" | "i16" | "u16" => 2,
        "f32" | "i32" | "u32" => 4,
        "f64" | "i64" | "u64" => 8,
        _ => return None,
    })
}

impl Manifest {
    /// Parses manifest JSON.
    pub fn from_json(text: &str) -> Result<Manifest, String> {
        let m: Manifest = serde_json::from_str(text).map_err(|e| format!("bad manifest: {e}"))?;
        if m.version != VERSION {
            return Err(format!(
                "manifest version {} is not supported (expected {VERSION})",
                m.version
            ));
        }
        Ok(m)
    }
    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
    /// The kernel called `name`, or the only one.
    pub fn kernel(&self, name: Option<&str>) -> Result<&KernelManifest, String> {
        match name {
            Some(n) => self
                .kernels
                .iter()
                .find(|k| k.name == n)
                .ok_or_else(|| format!("no kernel '{n}' in the manifest")),
            None if self.kernels.len() == 1 => Ok(&self.kernels[0]),
            None => Err(format!(
                "the manifest has {} kernels; choose one with --kernel ({})",
                self.kernels.len(),
                self.kernels
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let m = Manifest {
            version: VERSION,
            target: "sm_90".into(),
            module: "kernels".into(),
            kernels: vec![KernelManifest {
                name: "k".into(),
                grid: Some([2, 1, 1]),
                block: None,
                dynamic_shared_memory: 0,
                static_shared_memory: 256,
                args: vec![ArgManifest {
                    name: "arg0".into(),
                    kind: ArgKind::Memref,
                    shape: vec![4, 8],
                    dtype: "f32".into(),
                    role: Role::Output,
                }],
            }],
        };
        let back = Manifest::from_json(&m.to_json()).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.kernels[0].args[0].num_elements(), 32);
        assert!(back.kernel(None).is_ok());
        assert!(back.kernel(Some("x")).is_err());
        assert!(Manifest::from_json("{\"version\": 9}").is_err());
    }
}

/// Conversions between `f32` and the 16-bit float formats (round to nearest even), shared
/// by the back ends (constants) and the runtime (inputs, checking).
pub mod half {
    /// IEEE binary16 bits of `x`.
    pub fn f32_to_f16_bits(x: f32) -> u16 {
        let b = x.to_bits();
        let sign = ((b >> 16) & 0x8000) as u16;
        let exp = ((b >> 23) & 0xff) as i32;
        let mant = b & 0x7f_ffff;
        if exp == 0xff {
            return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
        }
        let e = exp - 127 + 15;
        if e >= 0x1f {
            return sign | 0x7c00;
        }
        if e <= 0 {
            if e < -10 {
                return sign;
            }
            let m = mant | 0x80_0000;
            let shift = (14 - e) as u32;
            let half = 1u32 << (shift - 1);
            let mut r = m >> shift;
            let rem = m & ((1 << shift) - 1);
            if rem > half || (rem == half && (r & 1) == 1) {
                r += 1;
            }
            return sign | r as u16;
        }
        let mut r = ((e as u32) << 10) | (mant >> 13);
        let rem = mant & 0x1fff;
        if rem > 0x1000 || (rem == 0x1000 && (r & 1) == 1) {
            r += 1;
        }
        sign | r as u16
    }

    /// The `f32` value of IEEE binary16 bits.
    pub fn f16_bits_to_f32(h: u16) -> f32 {
        let sign = ((h as u32) & 0x8000) << 16;
        let exp = ((h >> 10) & 0x1f) as u32;
        let mant = (h & 0x3ff) as u32;
        let bits = if exp == 0 {
            if mant == 0 {
                sign
            } else {
                // Subnormal: value = mant * 2^-24.
                let v = mant as f32 * (1.0 / 16_777_216.0);
                return if sign != 0 { -v } else { v };
            }
        } else if exp == 0x1f {
            sign | 0x7f80_0000 | (mant << 13)
        } else {
            sign | ((exp + 127 - 15) << 23) | (mant << 13)
        };
        f32::from_bits(bits)
    }

    /// bfloat16 bits of `x`.
    pub fn f32_to_bf16_bits(x: f32) -> u16 {
        let b = x.to_bits();
        if x.is_nan() {
            return ((b >> 16) | 0x40) as u16;
        }
        let round = 0x7fff + ((b >> 16) & 1);
        ((b + round) >> 16) as u16
    }

    /// The `f32` value of bfloat16 bits.
    pub fn bf16_bits_to_f32(h: u16) -> f32 {
        f32::from_bits((h as u32) << 16)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn round_trips() {
            for x in [0.0f32, 1.0, -2.5, 65504.0, 6.1035156e-5, 5.9604645e-8, 0.1] {
                let h = f32_to_f16_bits(x);
                let back = f16_bits_to_f32(h);
                assert!((back - x).abs() <= x.abs() * 1e-3 + 6e-8, "{x} -> {back}");
            }
            assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
            assert_eq!(f32_to_f16_bits(f32::INFINITY), 0x7c00);
            assert_eq!(f32_to_bf16_bits(1.0), 0x3f80);
            assert_eq!(bf16_bits_to_f32(0x3f80), 1.0);
        }
    }
}
