//! `rtile-bench records --measured DIR`: records whose time is a kernel's time measured on
//! a GPU (docs/passes/autoschedule-beam.md, "Retraining").
//!
//! The GPU run (`bench/gpu/prepare-models.sh`, then `models.py --per-kernel`) timed every
//! kernel of the lowered module `rtile-opt P --autoschedule-beam=device=D [beam-size=1]
//! --lower-to-gpu` alone and wrote `DIR/<stem of P>.<variant>.steps.json`:
//! `{"function", "steps": [{"step", "kernel", "grid", "block", "us"}]}`, one step per launch
//! in launch order, `us` the mean time of one launch. The variant names the beam size
//! ([`variant_of`]: 1 is `halide-greedy`, 32 `halide-beam`).
//!
//! The search's kernels are matched to the timed ones through the lowering itself: this
//! lowers P again in-process with the same passes and reads, for each `gpu.func`, the
//! search's root stage that `--lower-to-gpu` carries to it from the `tilegraph.kernel`
//! (`beam.root`). Before a time is used, the lowered launch sequence must equal the measured
//! one step by step (kernel name, grid, block): a module that differs from the one that
//! ran (another compiler version, another device) is refused, never silently re-attributed.
//! A search kernel that the lowering splits into several `gpu.func`s (one per result,
//! `rtile.split_result`) gets the sum of their times: they run one after the other and the
//! model costs them as one kernel.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use miette::{Report, miette};
use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile_passes::autoschedule_beam::fit::{KernelTerms, schedule_terms};
use rtile_passes::autoschedule_beam::pass::ROOT;
use rtile_passes::autoschedule_beam::pipeline::Pipeline;
use rtile_passes::autoschedule_beam::search::{SearchOptions, search};
use rtile_passes::device::Device;
use serde::Deserialize;

use crate::retrain::{at, header, search_coefficients, weights_note};
use crate::{OptOptions, dialect_registry};

/// The measured variant (`bench/gpu/prepare-models.sh`) a beam size's schedule was timed
/// as: 1 → `halide-greedy`, 32 (the pass's default) → `halide-beam`; others were not run.
pub fn variant_of(beam: usize) -> Option<&'static str> {
    match beam {
        1 => Some("halide-greedy"),
        32 => Some("halide-beam"),
        _ => None,
    }
}

/// One measured launch (the JSON's step) and where its `"kernel"` key is in the file.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Step {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub us: f64,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct StepsJson {
    pub function: String,
    pub steps: Vec<Step>,
}

/// A parsed steps file with its text (for diagnostics).
pub(crate) struct StepsFile {
    pub name: String,
    pub text: String,
    pub json: StepsJson,
}

impl StepsFile {
    /// A diagnostic at the `n`-th occurrence of `key` (`"kernel"`, `"steps"`, …).
    pub(crate) fn at_key(&self, key: &str, n: usize, label: &str, msg: String) -> Report {
        let pat = format!("\"{key}\"");
        let off = self
            .text
            .match_indices(&pat)
            .nth(n)
            .map_or((0, 0), |(o, _)| (o, pat.len()));
        at(&self.name, &self.text, off, label, msg)
    }
}

/// Reads and parses `path`, the times of beam size `beam` (`variant`); a JSON or layout
/// error points at its line and column.
fn read_steps(path: &Path, beam: usize, variant: &str) -> Result<StepsFile, Report> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        miette!(
            help = "--measured DIR holds <pipeline>.<variant>.steps.json per pipeline and beam size (bench/results/*/perkernel)",
            "no measured times for beam {beam} (variant {variant}): {e}: {name}"
        )
    })?;
    parse_steps(name, text)
}

/// Parses the steps file `name` (its `text`); a JSON or layout error points at its line
/// and column.
pub(crate) fn parse_steps(name: String, text: String) -> Result<StepsFile, Report> {
    match serde_json::from_str::<StepsJson>(&text) {
        Ok(json) => Ok(StepsFile { name, text, json }),
        Err(e) => {
            // serde_json's line and column are 1-based; the column counts bytes.
            let line_start: usize = text
                .split_inclusive('\n')
                .take(e.line().saturating_sub(1))
                .map(str::len)
                .sum();
            let off = (line_start + e.column().saturating_sub(1)).min(text.len());
            Err(at(
                &name,
                &text,
                (off, 0),
                "here",
                format!("not a per-kernel steps file: {e}"),
            ))
        }
    }
}

/// One launch of the module lowered here: its kernel, grid, block and the search's root
/// stage of the kernel (`beam.root`; `None` when the `gpu.func` has none).
#[derive(Clone, Debug)]
pub struct LoweredLaunch {
    /// The `gpu.func`'s name.
    pub kernel: String,
    /// Grid size.
    pub grid: [u32; 3],
    /// Block size.
    pub block: [u32; 3],
    /// The search's root stage.
    pub root: Option<usize>,
}

/// Lowers `text` (`name`) with `--autoschedule-beam=device=D beam-size=K --lower-to-gpu`
/// (what `prepare-models.sh` ran) and returns its host function's name and launches.
pub fn lowered_launches(
    name: &str,
    text: &str,
    device: &str,
    beam: usize,
    weights: Option<&Path>,
) -> Result<(String, Vec<LoweredLaunch>), String> {
    let mut beam_opts = format!("device={device} beam-size={beam}");
    if let Some(w) = weights {
        beam_opts += &format!(" weights={}", w.display());
    }
    let opts = OptOptions {
        pipeline: crate::Pipeline::Flags(vec![
            ("autoschedule-beam".into(), beam_opts.clone()),
            ("lower-to-gpu".into(), String::new()),
        ]),
        color: Some(false),
        ..OptOptions::default()
    };
    let out = crate::run_opt(&opts, name, text.to_string());
    if !out.success {
        return Err(format!(
            "{name}: does not lower with --autoschedule-beam=\"{beam_opts}\" --lower-to-gpu:\n{}",
            out.log
        ));
    }
    let seqs = rtile_runtime::sim::launch_sequences_text(name, &out.output, None)?;
    let [seq] = &seqs[..] else {
        return Err(format!(
            "{name}: the lowered module has {} host functions; a measured pipeline has one",
            seqs.len()
        ));
    };
    // gpu.func name -> beam.root.
    let roots: BTreeMap<String, Option<usize>> = gpu_func_attrs(name, &out.output, ROOT)?
        .into_iter()
        .map(|(f, a)| {
            let root = a
                .and_then(|a| a.as_int())
                .and_then(|r| usize::try_from(r).ok());
            (f, root)
        })
        .collect();
    let launches = seq
        .manifest
        .launches()
        .map(|(_, s)| LoweredLaunch {
            kernel: s.kernel.clone(),
            grid: s.grid,
            block: s.block,
            root: roots.get(&s.kernel).copied().flatten(),
        })
        .collect();
    Ok((seq.function.clone(), launches))
}

/// Every `gpu.func` of the lowered module `text` (`name`) and its attribute `attr`, if it
/// has one.
pub(crate) fn gpu_func_attrs(
    name: &str,
    text: &str,
    attr: &str,
) -> Result<BTreeMap<String, Option<rtile::ir::Attribute>>, String> {
    let mut ctx = Context::new(Arc::new(dialect_registry()));
    let module = parse_str(&mut ctx, name, text)
        .map_err(|_| format!("{name}: the lowered module does not parse"))?
        .module;
    let mut out = BTreeMap::new();
    for op in ctx.collect_ops(module) {
        if ctx.op_name(op) != "gpu.func" {
            continue;
        }
        let fname = ctx
            .inherent_attr(op, "sym_name")
            .and_then(|a| a.as_str())
            .unwrap_or_default()
            .to_string();
        out.insert(fname, ctx.attr(op, attr).cloned());
    }
    Ok(out)
}

/// Checks the measured `steps` against the lowered `launches` of `function` step by step:
/// the same kernels in the same order with the same grid and block, each time finite and
/// positive; a difference is refused at the offending step.
pub(crate) fn check_steps(
    steps: &StepsFile,
    function: &str,
    launches: &[LoweredLaunch],
) -> Result<(), Report> {
    let j = &steps.json;
    if j.function != function {
        return Err(steps.at_key(
            "function",
            0,
            "measured function",
            format!(
                "the steps file times @{}, the lowered function is @{function}",
                j.function
            ),
        ));
    }
    if j.steps.len() != launches.len() {
        return Err(steps.at_key(
            "steps",
            0,
            &format!("{} steps", j.steps.len()),
            format!(
                "the lowered module launches {} kernels, the steps file times {}: it was measured on another lowering",
                launches.len(),
                j.steps.len()
            ),
        ));
    }
    for (i, (s, l)) in j.steps.iter().zip(launches).enumerate() {
        if s.kernel != l.kernel || s.grid != l.grid || s.block != l.block {
            return Err(steps.at_key(
                "kernel",
                i,
                "differs",
                format!(
                    "step {i}: measured {} grid {:?} block {:?}, the lowered module launches {} grid {:?} block {:?}: it was measured on another lowering",
                    s.kernel, s.grid, s.block, l.kernel, l.grid, l.block
                ),
            ));
        }
        if !(s.us.is_finite() && s.us > 0.0) {
            return Err(steps.at_key(
                "kernel",
                i,
                "this step",
                format!(
                    "step {i} ({}): a measured time must be finite and > 0, not {} us",
                    s.kernel, s.us
                ),
            ));
        }
    }
    Ok(())
}

/// Checks the measured `steps` against the lowered `launches` ([`check_steps`]) and sums
/// the measured time per root stage, seconds.
fn times_by_root(
    steps: &StepsFile,
    function: &str,
    launches: &[LoweredLaunch],
) -> Result<BTreeMap<usize, (f64, Vec<String>)>, Report> {
    check_steps(steps, function, launches)?;
    let mut by_root: BTreeMap<usize, (f64, Vec<String>)> = BTreeMap::new();
    for (i, (s, l)) in steps.json.steps.iter().zip(launches).enumerate() {
        let Some(root) = l.root else {
            return Err(steps.at_key(
                "kernel",
                i,
                "no root",
                format!(
                    "step {i}: gpu.func @{} carries no {ROOT}: it was not lowered from a kernel of --autoschedule-beam",
                    l.kernel
                ),
            ));
        };
        let e = by_root.entry(root).or_default();
        e.0 += s.us * 1e-6;
        if !e.1.contains(&s.kernel) {
            e.1.push(s.kernel.clone());
        }
    }
    Ok(by_root)
}

/// The one te function of a pipeline file (name, stages); an error unless exactly one.
fn only_function(name: &str, text: &str) -> Result<(String, Pipeline), String> {
    let mut found = crate::retrain::pipelines_of(name, text)?;
    match found.len() {
        1 => Ok(found.remove(0)),
        n => Err(format!(
            "{name}: {n} te functions; --measured takes pipelines of one function (one measured launch sequence each)"
        )),
    }
}

/// The records of `pipelines` (path, text) scheduled on `device` with beam sizes `beams`,
/// each kernel's time the one measured in `dir` (see the module doc). `weights`: the
/// weights file the measured modules were searched with (`None`: the device's defaults);
/// the search and the relowering both use it.
pub fn write_measured_records(
    pipelines: &[(String, String)],
    device: &str,
    beams: &[usize],
    dir: &Path,
    weights: Option<&Path>,
) -> Result<String, Report> {
    let dev = Device::builtin(device).map_err(|e| miette!("--device: {}", e.message))?;
    let coef = search_coefficients(device, weights)?;
    let mut out = format!(
        "# rtile-bench records: per kernel, the cost terms of OOPSLA'21 Appendix B and blocks \
         launched, and a time\n\
         # device = {device}, source = measured (time_s: the kernel's time on a GPU, {}){}\n\
         # per kernel, a comment: the gpu.funcs timed (summed), the model's prediction with the coefficients searched with\n{}\n",
        dir.display(),
        weights_note(weights),
        header()
    );
    for (name, text) in pipelines {
        let stem = Path::new(name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| name.clone());
        let (fname, p) = only_function(name, text).map_err(|m| miette!("{m}"))?;
        for &k in beams {
            let variant = variant_of(k).ok_or_else(|| {
                miette!(
                    help = "the measured variants are halide-greedy (beam 1) and halide-beam (beam 32): pass --beam 1,32",
                    "--beam {k}: no measured variant for this beam size"
                )
            })?;
            let opts = SearchOptions {
                beam: k,
                coefficients: Some(coef.clone()),
                ..SearchOptions::default()
            };
            let o = search(&p, &dev, &opts).map_err(|m| miette!("{name}: {m}"))?;
            let terms = schedule_terms(&p, &o.locs, &dev, &coef).map_err(|m| miette!("{m}"))?;
            let (host, launches) =
                lowered_launches(name, text, device, k, weights).map_err(|m| miette!("{m}"))?;
            if host != fname {
                return Err(miette!(
                    "{name}: the lowered host function is @{host}, the te function @{fname}"
                ));
            }
            let steps = read_steps(
                &dir.join(format!("{stem}.{variant}.steps.json")),
                k,
                variant,
            )?;
            let times = times_by_root(&steps, &fname, &launches)?;
            write_kernels(&mut out, (name, &fname, k), &terms, &times, &steps)?;
        }
    }
    Ok(out)
}

/// Appends the records of one schedule; its kernels' roots must be the timed ones.
fn write_kernels(
    out: &mut String,
    (name, fname, k): (&str, &str, usize),
    terms: &[KernelTerms],
    times: &BTreeMap<usize, (f64, Vec<String>)>,
    steps: &StepsFile,
) -> Result<(), Report> {
    let searched: Vec<usize> = terms.iter().map(|t| t.root).collect();
    let timed: Vec<usize> = times.keys().copied().collect();
    let mut sorted = searched.clone();
    sorted.sort_unstable();
    if sorted != timed {
        return Err(steps.at_key(
            "steps",
            0,
            "timed kernels",
            format!(
                "the search's kernels have root stages {searched:?}, the measured launches {timed:?}"
            ),
        ));
    }
    for kt in terms {
        let (time, funcs) = &times[&kt.root];
        let _ = writeln!(
            out,
            "# {} predicted {:.3} us, measured {:.3} us",
            funcs.join(" + "),
            kt.cost * 1e6,
            time * 1e6
        );
        let _ = write!(out, "{name}:@{fname}:k{}:beam{k}", kt.root);
        for t in kt.terms {
            let _ = write!(out, " {t:e}");
        }
        let _ = writeln!(out, " {time:e}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(json: &str) -> StepsFile {
        StepsFile {
            name: "x.steps.json".into(),
            text: json.into(),
            json: serde_json::from_str(json).unwrap(),
        }
    }

    fn launch(kernel: &str, grid: u32, root: Option<usize>) -> LoweredLaunch {
        LoweredLaunch {
            kernel: kernel.into(),
            grid: [grid, 1, 1],
            block: [64, 1, 1],
            root,
        }
    }

    const TWO: &str = r#"{"function": "f", "steps": [
        {"step": 0, "kernel": "f_0", "grid": [8, 1, 1], "block": [64, 1, 1], "us": 2.5},
        {"step": 1, "kernel": "f_1", "grid": [4, 1, 1], "block": [64, 1, 1], "us": 1.5},
        {"step": 2, "kernel": "f_2", "grid": [4, 1, 1], "block": [64, 1, 1], "us": 4.0}]}"#;

    /// A search kernel split into two launches (one per result) gets their summed time.
    #[test]
    fn split_kernels_sum_their_launches() {
        let l = [
            launch("f_0", 8, Some(3)),
            launch("f_1", 4, Some(5)),
            launch("f_2", 4, Some(5)),
        ];
        let t = times_by_root(&steps(TWO), "f", &l).unwrap();
        assert_eq!(t.len(), 2);
        assert!((t[&3].0 - 2.5e-6).abs() < 1e-18);
        assert!((t[&5].0 - 5.5e-6).abs() < 1e-18);
        assert_eq!(t[&5].1, ["f_1", "f_2"]);
    }

    fn err(r: Result<BTreeMap<usize, (f64, Vec<String>)>, Report>) -> String {
        format!("{:?}", r.unwrap_err())
    }

    #[test]
    fn another_lowering_is_refused() {
        let s = steps(TWO);
        let ok = [launch("f_0", 8, Some(0)), launch("f_1", 4, Some(1))];
        let e = err(times_by_root(&s, "f", &ok));
        assert!(
            e.contains("launches 2 kernels, the steps file times 3"),
            "{e}"
        );
        let grid = [
            launch("f_0", 8, Some(0)),
            launch("f_1", 5, Some(1)),
            launch("f_2", 4, Some(2)),
        ];
        let e = err(times_by_root(&s, "f", &grid));
        assert!(e.contains("step 1: measured f_1 grid [4, 1, 1]"), "{e}");
        assert!(e.contains("grid [5, 1, 1]"), "{e}");
        let e = err(times_by_root(&s, "g", &grid));
        assert!(e.contains("times @f, the lowered function is @g"), "{e}");
        let unrooted = [
            launch("f_0", 8, Some(0)),
            launch("f_1", 4, None),
            launch("f_2", 4, Some(2)),
        ];
        let e = err(times_by_root(&s, "f", &unrooted));
        assert!(e.contains("gpu.func @f_1 carries no beam.root"), "{e}");
    }

    #[test]
    fn variants_follow_prepare_models() {
        assert_eq!(variant_of(1), Some("halide-greedy"));
        assert_eq!(variant_of(32), Some("halide-beam"));
        assert_eq!(variant_of(8), None);
    }
}
