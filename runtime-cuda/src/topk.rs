//! `--profile-top-k`: Roller's kernel profiler (§4). Time each compiled candidate, keep
//! the fastest, and cache the choice keyed by the full problem signature and the device,
//! so a second run of the same problem on the same GPU does not time again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rtile_manifest::KernelManifest;
use serde::{Deserialize, Serialize};

/// The cache key: every argument's role, dtype and shape, plus the device.
pub fn signature(k: &KernelManifest, device: &str, cc: (i32, i32)) -> String {
    // TMA tensor-map parameters are how a kernel reads its operands, not part of the
    // problem: a wgmma candidate and a SIMT one of the same operator compare equal.
    let args: Vec<String> = k
        .args
        .iter()
        .filter(|a| a.kind != rtile_manifest::ArgKind::Tensormap)
        .map(|a| {
            let shape: Vec<String> = a.shape.iter().map(|d| d.to_string()).collect();
            format!("{:?}:{}[{}]", a.role, a.dtype, shape.join("x")).to_lowercase()
        })
        .collect();
    format!("{}|sm_{}{}|{}", device, cc.0, cc.1, args.join(","))
}

/// One cached decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// The winning candidate (a PTX path).
    pub candidate: String,
    /// Its median time, ms.
    pub median_ms: f32,
    /// Every candidate's median, ms (in the order given).
    pub all_ms: Vec<(String, f32)>,
}

/// The on-disk cache (JSON object: signature → choice).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    /// Decisions by signature.
    pub entries: BTreeMap<String, Choice>,
}

/// `$RTILE_CACHE_DIR/topk.json`, else `$XDG_CACHE_HOME/rtile/topk.json`, else
/// `~/.cache/rtile/topk.json`.
pub fn default_cache_path() -> PathBuf {
    if let Some(d) = std::env::var_os("RTILE_CACHE_DIR") {
        return PathBuf::from(d).join("topk.json");
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("rtile").join("topk.json")
}

impl Cache {
    /// Loads the cache (empty when absent or unreadable).
    pub fn load(path: &Path) -> Cache {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }
    /// Writes the cache.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The fastest of `(candidate, median_ms)`.
pub fn fastest(all: &[(String, f32)]) -> Option<&(String, f32)> {
    all.iter().min_by(|a, b| a.1.total_cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile_manifest::{ArgKind, ArgManifest, Role};

    #[test]
    fn signature_cache_round_trip() {
        let k = KernelManifest {
            name: "k".into(),
            grid: None,
            block: None,
            dynamic_shared_memory: 0,
            static_shared_memory: 0,
            args: vec![ArgManifest {
                name: "arg0".into(),
                kind: ArgKind::Memref,
                shape: vec![64, 32],
                dtype: "f32".into(),
                role: Role::Input,
                tensor_map: None,
            }],
        };
        let s = signature(&k, "NVIDIA H100", (9, 0));
        assert_eq!(s, "NVIDIA H100|sm_90|input:f32[64x32]");
        // A wgmma candidate's tensor-map parameters leave the problem unchanged.
        let mut tma = k.clone();
        tma.args.push(ArgManifest {
            name: "map0".into(),
            kind: ArgKind::Tensormap,
            shape: vec![],
            dtype: "f32".into(),
            role: Role::Input,
            tensor_map: Some(rtile_manifest::TensorMapArg {
                of: 0,
                box_shape: vec![64, 32],
                swizzle: 128,
            }),
        });
        assert_eq!(signature(&tma, "NVIDIA H100", (9, 0)), s);
        // A different shape is a different problem.
        let mut other = k.clone();
        other.args[0].shape = vec![64, 33];
        assert_ne!(signature(&other, "NVIDIA H100", (9, 0)), s);
        let all = vec![("a.ptx".to_string(), 2.0), ("b.ptx".to_string(), 1.5)];
        assert_eq!(fastest(&all).unwrap().0, "b.ptx");
        let dir = std::env::temp_dir().join(format!("rtile-topk-test-{}", std::process::id()));
        let path = dir.join("topk.json");
        let mut c = Cache::default();
        c.entries.insert(
            s.clone(),
            Choice {
                candidate: "b.ptx".into(),
                median_ms: 1.5,
                all_ms: all,
            },
        );
        c.save(&path).unwrap();
        assert_eq!(Cache::load(&path), c);
        let _ = std::fs::remove_dir_all(dir);
    }
}
