//! `rtile-bench connect-profile LOWERED --steps FILE.. --device D -o PROFILE`: a profile of
//! `--connect`'s tile configurations (docs/passes/connect.md, "Profiling") from kernels
//! timed on a GPU.
//!
//! `LOWERED` is the module that ran: `rtile-opt M --connect=device=D --lower-to-gpu`, whose
//! `gpu.func`s carry the configuration key of the `tilegraph.kernel` they were lowered
//! from (`tilegraph.config`). Each steps file is what `rtile-run cuda --model ...
//! --per-kernel FILE` wrote for one host function of it (`{"function", "steps": [{"step",
//! "kernel", "grid", "block", "us"}]}`). The steps must be that function's launches, step
//! by step (kernel, grid, block), or the file is refused at the first difference. A
//! configuration's time is the sum over its `gpu.func`s (a kernel split into one per
//! result runs them one after the other) of each one's mean launch time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use miette::{Report, miette};
use rtile_dialects::tilegraph::CONFIG;
use rtile_passes::connect::profile::ConnectProfile;
use rtile_passes::device::Device;

use crate::measured::{LoweredLaunch, check_steps, gpu_func_attrs, parse_steps};

/// The `gpu.func`s of `text` (a lowered module) and their configuration keys.
fn configs_of(name: &str, text: &str) -> Result<BTreeMap<String, Option<String>>, Report> {
    let attrs = gpu_func_attrs(name, text, CONFIG).map_err(|m| miette!("{m}"))?;
    Ok(attrs
        .into_iter()
        .map(|(f, a)| (f, a.and_then(|a| a.as_str().map(String::from))))
        .collect())
}

/// The profile of the kernels the steps files timed, added to `base` (entries for the same
/// configuration replaced).
pub fn connect_profile(
    lowered: &Path,
    steps: &[PathBuf],
    device: &str,
    base: Option<ConnectProfile>,
) -> Result<ConnectProfile, Report> {
    let dev = Device::builtin(device).map_err(|e| miette!("--device: {}", e.message))?;
    let mut profile = base.unwrap_or_else(|| ConnectProfile {
        device: dev.name.clone(),
        kernel: Vec::new(),
    });
    if !profile.device.eq_ignore_ascii_case(&dev.name) {
        return Err(miette!(
            "the profile to extend was measured on '{}', not on '{}'",
            profile.device,
            dev.name
        ));
    }
    let name = lowered.display().to_string();
    let text = std::fs::read_to_string(lowered).map_err(|e| miette!("{name}: {e}"))?;
    let configs = configs_of(&name, &text)?;
    let seqs = rtile_runtime::sim::launch_sequences_text(&name, &text, None)
        .map_err(|m| miette!("{name}: {m}"))?;
    // (configuration, gpu.func) -> launch times, µs.
    let mut times: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for path in steps {
        let sname = path.display().to_string();
        let stext = std::fs::read_to_string(path).map_err(|e| miette!("{sname}: {e}"))?;
        let s = parse_steps(sname, stext)?;
        let Some(seq) = seqs.iter().find(|q| q.function == s.json.function) else {
            return Err(s.at_key(
                "function",
                0,
                "measured function",
                format!(
                    "{name} has no host function @{} (it has {})",
                    s.json.function,
                    seqs.iter()
                        .map(|q| format!("@{}", q.function))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        };
        let launches: Vec<LoweredLaunch> = seq
            .manifest
            .launches()
            .map(|(_, l)| LoweredLaunch {
                kernel: l.kernel.clone(),
                grid: l.grid,
                block: l.block,
                root: None,
            })
            .collect();
        check_steps(&s, &seq.function, &launches)?;
        for (i, st) in s.json.steps.iter().enumerate() {
            let Some(Some(key)) = configs.get(&st.kernel) else {
                return Err(s.at_key(
                    "kernel",
                    i,
                    "no configuration",
                    format!(
                        "step {i}: gpu.func @{} carries no {CONFIG}: it was not lowered from a kernel of --connect",
                        st.kernel
                    ),
                ));
            };
            times
                .entry((key.clone(), st.kernel.clone()))
                .or_default()
                .push(st.us);
        }
    }
    let mut per_config: BTreeMap<String, f64> = BTreeMap::new();
    for ((key, _), us) in &times {
        *per_config.entry(key.clone()).or_default() += us.iter().sum::<f64>() / us.len() as f64;
    }
    for (key, us) in per_config {
        profile.set(&key, us);
    }
    Ok(profile)
}
