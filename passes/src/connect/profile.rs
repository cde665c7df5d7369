//! Measured kernel times for `--connect` (`profile=<file>`): Welder's profiler (OSDI'23
//! Fig. 7, `Profile` on the top-K of each sub-graph) fed from a file, its results cached by
//! sub-graph signature (§4.2) across runs.
//!
//! Every tile configuration `--connect` costs has a **config key**: a 64-bit FNV-1a hash,
//! in hex, of the sub-graph's canonical text (each member's te compute with its inputs
//! named by position, the level of each of its reads, whether its value leaves the
//! kernel) and the configuration's tiles per layer. The key is written on each
//! `tilegraph.kernel` (`tilegraph.config`) and carried by `--lower-to-gpu` to the kernel's
//! `gpu.func`s, so a kernel timed on a GPU names its configuration; `rtile-bench
//! connect-profile` turns per-kernel GPU times into a profile file:
//!
//! ```toml
//! device = "h100"           # the device the times were measured on (must match device=)
//!
//! [[kernel]]
//! config = "9c0f3e5d2a7b6e41"
//! us = 12.5                 # one launch, launch overhead excluded
//! ```
//!
//! A configuration the profile names is ranked by its measured time plus the device's
//! launch cost, instead of the model's estimate; the others keep the model's. So a profile
//! of the kernels one run chose moves the next run's choices where the model was wrong, and
//! the kernels it then chooses can be timed in turn (the cache grows with each round).

use serde::{Deserialize, Serialize};

use super::graph::Graph;
use super::propagate::SubGraph;
use super::tiling::Levels;
use rtile_dialects::te::expr::{print_body, print_header};
use rtile_dialects::tilegraph::LayerTiles;

/// One measured kernel.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProfiledConfig {
    /// The configuration's key ([`config_key`]).
    pub config: String,
    /// Measured time of one launch, µs.
    pub us: f64,
}

/// A profile file.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConnectProfile {
    /// The device the times were measured on (a built-in device name).
    pub device: String,
    /// The measured kernels.
    #[serde(default)]
    pub kernel: Vec<ProfiledConfig>,
}

impl ConnectProfile {
    /// Parses and checks a profile's text (`path` only names it in messages).
    pub fn parse(text: &str, path: &str) -> Result<ConnectProfile, String> {
        let p: ConnectProfile = toml::from_str(text)
            .map_err(|e| crate::wavefront_pack::profile::toml_error(text, path, &e))?;
        for (i, k) in p.kernel.iter().enumerate() {
            if !(k.us.is_finite() && k.us > 0.0) {
                return Err(format!(
                    "{path}: kernel #{i} ({}): 'us' must be a positive time, not {}",
                    k.config, k.us
                ));
            }
            if k.config.len() != 16 || !k.config.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(format!(
                    "{path}: kernel #{i}: 'config' must be the 16 hex digits of a tilegraph.config, not '{}'",
                    k.config
                ));
            }
        }
        Ok(p)
    }

    /// Reads and checks the profile at `path`.
    pub fn load(path: &str) -> Result<ConnectProfile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        ConnectProfile::parse(&text, path)
    }

    /// The measured time of configuration `config`, if profiled (the last entry wins).
    pub fn time(&self, config: &str) -> Option<f64> {
        self.kernel
            .iter()
            .rev()
            .find(|k| k.config == config)
            .map(|k| k.us)
    }

    /// Adds or replaces the time of `config`.
    pub fn set(&mut self, config: &str, us: f64) {
        self.kernel.retain(|k| k.config != config);
        self.kernel.push(ProfiledConfig {
            config: config.to_string(),
            us,
        });
    }

    /// The profile as TOML text.
    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|e| format!("cannot write the profile: {e}"))
    }
}

/// 64-bit FNV-1a: a hash that is the same on every platform and release (the std hashers
/// promise neither), so profile files stay valid across builds.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The sub-graph `sg`'s canonical text under `levels`, its configuration `tiles` (per
/// member) appended: each member's compute with its inputs named `%m<k>` (member `k`'s
/// value) or `%x<j>` (the `j`-th value from outside, in order of first read), the levels
/// of its reads, and `out` when its value leaves the kernel.
pub fn config_text(g: &Graph, sg: &SubGraph<'_>, levels: &Levels, tiles: &[LayerTiles]) -> String {
    let mut outer: Vec<rtile::ir::Value> = Vec::new();
    let mut text = String::new();
    for (k, &n) in sg.members.iter().enumerate() {
        let node = &g.nodes[n];
        let name = |v: rtile::ir::Value, outer: &mut Vec<rtile::ir::Value>| match sg
            .members
            .iter()
            .position(|&m| g.nodes[m].result == v)
        {
            Some(m) => format!("%m{m}"),
            None => {
                let j = outer.iter().position(|&o| o == v).unwrap_or_else(|| {
                    outer.push(v);
                    outer.len() - 1
                });
                format!("%x{j}")
            }
        };
        let body = match &node.compute {
            Some((c, vals)) => {
                let names: Vec<String> = vals.iter().map(|&v| name(v, &mut outer)).collect();
                format!("{} {{ {} }}", print_header(c), print_body(c, &names))
            }
            // A reshape is never in a kernel with another op; its shapes say what it is.
            None => {
                let src = node.inputs.first().map(|i| name(i.value, &mut outer));
                format!(
                    "view {src:?} {:?} -> {:?}",
                    node.inputs.first().map(|i| &i.shape),
                    node.out_shape
                )
            }
        };
        let lv: Vec<&str> = levels[n].iter().map(|l| l.name()).collect();
        let t = tiles.get(k);
        text.push_str(&format!(
            "m{k} = {body} levels {lv:?}{} shared {:?} register {:?}\n",
            if sg.is_output(n) { " out" } else { "" },
            t.and_then(|t| t.shared.as_ref()),
            t.and_then(|t| t.register.as_ref()),
        ));
    }
    text
}

/// The config key of [`config_text`]: its FNV-1a hash as 16 hex digits.
pub fn config_key(g: &Graph, sg: &SubGraph<'_>, levels: &Levels, tiles: &[LayerTiles]) -> String {
    format!("{:016x}", fnv1a(&config_text(g, sg, levels, tiles)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_is_the_reference_hash() {
        // FNV-1a 64 test vectors (Fowler, Noll, Vo).
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn profiles_parse_look_up_and_round_trip() {
        let text = "device = \"h100\"\n[[kernel]]\nconfig = \"0123456789abcdef\"\nus = 12.5\n";
        let mut p = ConnectProfile::parse(text, "p.toml").unwrap();
        assert_eq!(p.time("0123456789abcdef"), Some(12.5));
        assert_eq!(p.time("fedcba9876543210"), None);
        p.set("0123456789abcdef", 3.0);
        p.set("fedcba9876543210", 4.0);
        let again = ConnectProfile::parse(&p.to_toml().unwrap(), "q.toml").unwrap();
        assert_eq!(again.time("0123456789abcdef"), Some(3.0));
        assert_eq!(again.time("fedcba9876543210"), Some(4.0));
        assert_eq!(again.kernel.len(), 2);
    }

    #[test]
    fn bad_profiles_say_why() {
        let e = ConnectProfile::parse(
            "device = \"h100\"\n[[kernel]]\nconfig = \"xyz\"\nus = 1.0\n",
            "p.toml",
        )
        .unwrap_err();
        assert!(e.contains("16 hex digits"), "{e}");
        let e = ConnectProfile::parse(
            "device = \"h100\"\n[[kernel]]\nconfig = \"0123456789abcdef\"\nus = -1.0\n",
            "p.toml",
        )
        .unwrap_err();
        assert!(e.contains("positive time"), "{e}");
        let e = ConnectProfile::parse(
            "device = \"h100\"\n[[kernel]]\nus = 1.0\nwho = 2\n",
            "p.toml",
        )
        .unwrap_err();
        assert!(e.starts_with("p.toml: line 4"), "{e}");
    }
}
