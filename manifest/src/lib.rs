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
//!
//! A `tensormap` argument (an sm_90a kernel's `!nvgpu.tensormap.descriptor` parameter) is
//! the device address of a 128-byte `CUtensorMap` that `rtile-run` encodes with the
//! driver's `cuTensorMapEncodeTiled` over the memref argument it describes:
//! ```json
//! {"name": "arg0", "kind": "tensormap", "shape": [], "dtype": "f16", "role": "input",
//!  "tensor_map": {"of": 2, "box_shape": [128, 64], "swizzle": 128}}
//! ```

pub mod model;

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
    /// A TMA tensor map ([`TensorMapArg`]): a device pointer to a 128-byte, 64-byte
    /// aligned `CUtensorMap` in global memory.
    Tensormap,
}

/// What a `tensormap` argument describes (rtile's convention, from the kernel's
/// `rtile.tensor_map_of` attribute and the `!nvgpu.tensormap.descriptor` type): the whole
/// of memref argument `of` (static, row-major, dense), copied in boxes of `box_shape`
/// elements (outermost first), out-of-bounds elements read as zero.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorMapArg {
    /// Index of the memref argument the map covers.
    pub of: usize,
    /// The box one TMA load copies, in elements, outermost dimension first.
    pub box_shape: Vec<i64>,
    /// Shared-memory swizzle span in bytes: 0 (none), 32, 64 or 128.
    pub swizzle: u32,
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
    /// For a `tensormap` argument: the memref it maps and how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tensor_map: Option<TensorMapArg>,
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
                    tensor_map: None,
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

    #[test]
    fn tensor_map_arguments_round_trip_and_old_manifests_still_read() {
        let json = r#"{"version": 1, "target": "sm_90a", "module": "k", "kernels": [{
            "name": "gemm", "grid": [1, 1, 1], "block": [128, 1, 1], "dynamic_shared_memory": 0,
            "args": [
              {"name": "arg0", "kind": "tensormap", "shape": [], "dtype": "f16", "role": "input",
               "tensor_map": {"of": 1, "box_shape": [128, 64], "swizzle": 128}},
              {"name": "arg1", "kind": "memref", "shape": [128, 64], "dtype": "f16", "role": "input"}
            ]}]}"#;
        let m = Manifest::from_json(json).unwrap();
        let a = &m.kernels[0].args;
        assert_eq!(a[0].kind, ArgKind::Tensormap);
        assert_eq!(
            a[0].tensor_map,
            Some(TensorMapArg {
                of: 1,
                box_shape: vec![128, 64],
                swizzle: 128
            })
        );
        // A memref argument has no `tensor_map` and writes none.
        assert_eq!(a[1].tensor_map, None);
        assert!(!m.to_json().contains("\"tensor_map\": null"));
        assert_eq!(Manifest::from_json(&m.to_json()).unwrap(), m);
    }
}
