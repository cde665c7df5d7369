//! `time()` from GPU profiles (`--wavefront-pack="profile=<file>"`): measured rKernel times
//! that replace the micro-performance model's estimate for the variants they name.
//!
//! Rammer's profiler (OSDI'20 §3.3, "the profiler ... measures the execution time of each
//! rTask") feeds `time()` with measured numbers; rtile's default is the model
//! (docs/passes/wavefront-pack.md). A profile is a TOML file, one entry per rKernel timed
//! alone on the GPU:
//!
//! ```toml
//! device = "h100"            # the device the times were measured on (must match device=)
//!
//! [[rkernel]]
//! op = "lstm_3"              # the rOperator: <function>_<index of its te.compute>
//! block = [1, 256, 64]       # the variant's rProgram tiles (rtile.program's `tiles`)
//! thread = [1, 8, 1]
//! us = 480.0                 # one launch of the whole kernel, launch overhead excluded
//! ```
//!
//! A variant's per-rTask time is `us / waves`, with the waves the model uses for its own
//! estimate (`⌈rTasks / (cores × resident blocks)⌉`), so a measured kernel and a modelled
//! one split into rTasks alike. Variants the profile does not name keep the model's time;
//! entries whose tiles match no constructed variant are counted, not used (the pass's
//! `profile-unmatched` statistic), since a different `top-k` or model may construct other
//! variants; an entry naming an rOperator the input does not have is an error.

use serde::Deserialize;

/// One measured rKernel.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProfiledKernel {
    /// The rOperator, `<function>_<index>`.
    pub op: String,
    /// The rProgram's block tile.
    pub block: Vec<u64>,
    /// The rProgram's thread tile.
    pub thread: Vec<u64>,
    /// Measured time of one launch, µs.
    pub us: f64,
}

/// A profile file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The device the times were measured on (a built-in device name).
    pub device: String,
    /// The measured rKernels.
    #[serde(default)]
    pub rkernel: Vec<ProfiledKernel>,
}

impl Profile {
    /// Parses and checks a profile's text (`path` only names it in messages).
    pub fn parse(text: &str, path: &str) -> Result<Profile, String> {
        let p: Profile = toml::from_str(text).map_err(|e| toml_error(text, path, &e))?;
        for (i, k) in p.rkernel.iter().enumerate() {
            if !(k.us.is_finite() && k.us > 0.0) {
                return Err(format!(
                    "{path}: rkernel #{i} ({}): 'us' must be a positive time, not {}",
                    k.op, k.us
                ));
            }
            if k.block.is_empty() || k.block.len() != k.thread.len() {
                return Err(format!(
                    "{path}: rkernel #{i} ({}): 'block' and 'thread' must be tiles of the same rank",
                    k.op
                ));
            }
        }
        Ok(p)
    }

    /// Reads and checks the profile at `path`.
    pub fn load(path: &str) -> Result<Profile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        Profile::parse(&text, path)
    }

    /// The measured launch time of `op`'s variant with these tiles, if profiled.
    pub fn time(&self, op: &str, block: &[u64], thread: &[u64]) -> Option<f64> {
        self.rkernel
            .iter()
            .find(|k| k.op == op && k.block == block && k.thread == thread)
            .map(|k| k.us)
    }

    /// The entries whose rOperator is not one of `ops`.
    pub fn unknown_ops<'a>(&'a self, ops: &[String]) -> Vec<&'a str> {
        self.rkernel
            .iter()
            .map(|k| k.op.as_str())
            .filter(|o| !ops.iter().any(|n| n == o))
            .collect()
    }
}

/// `Err` unless a profile file `path` measured on `measured_on` may serve the pass's
/// `device` (device names compare as `Device::builtin` reads them, case-insensitively).
/// Shared by the profiles of `--wavefront-pack` and `--connect`.
pub(crate) fn same_device(path: &str, measured_on: &str, device: &str) -> Result<(), String> {
    if measured_on.eq_ignore_ascii_case(device) {
        return Ok(());
    }
    Err(format!(
        "profile '{path}' was measured on '{measured_on}', not on device '{device}'"
    ))
}

/// `path: line L, column C: message` for a TOML error in `text` (the line and column
/// where the error's span starts, when it has one). Shared by the profile files of
/// `--wavefront-pack` and `--connect`.
pub(crate) fn toml_error(text: &str, path: &str, e: &toml::de::Error) -> String {
    let at = e.span().map_or(String::new(), |s| {
        let mut end = s.start.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let before = &text[..end];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        format!("line {line}, column {col}: ")
    });
    format!("{path}: {at}{}", e.message())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"
device = "h100"
[[rkernel]]
op = "f_0"
block = [1, 64, 32]
thread = [1, 4, 1]
us = 12.5
[[rkernel]]
op = "f_1"
block = [8, 8]
thread = [1, 1]
us = 3.0
"#;

    #[test]
    fn lookup_by_op_and_tiles() {
        let p = Profile::parse(TEXT, "t.toml").unwrap();
        assert_eq!(p.device, "h100");
        assert_eq!(p.time("f_0", &[1, 64, 32], &[1, 4, 1]), Some(12.5));
        assert_eq!(p.time("f_0", &[1, 64, 32], &[1, 2, 1]), None);
        assert_eq!(p.time("f_1", &[1, 64, 32], &[1, 4, 1]), None);
        assert_eq!(p.unknown_ops(&["f_0".into()]), ["f_1"]);
    }

    #[test]
    fn bad_profiles_say_why() {
        let e = Profile::parse("device = 3", "p.toml").unwrap_err();
        assert!(
            e.starts_with("p.toml: line 1, column 10: invalid type"),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
        let e = Profile::parse("device = \"h100\"\n# µs\nop = \"µ\" 3", "p.toml").unwrap_err();
        assert!(e.starts_with("p.toml: line 3, column 10: "), "{e}");
        let e = Profile::parse(&TEXT.replace("12.5", "-1.0"), "p.toml").unwrap_err();
        assert!(e.contains("'us' must be a positive time"), "{e}");
        let e = Profile::parse(&TEXT.replace("[1, 4, 1]", "[1, 4]"), "p.toml").unwrap_err();
        assert!(e.contains("same rank"), "{e}");
        let e = Profile::parse(&TEXT.replace("us = 3.0", "ms = 3.0"), "p.toml").unwrap_err();
        assert!(e.contains("unknown field"), "{e}");
        assert!(Profile::load("/nonexistent/p.toml").is_err());
    }
}
