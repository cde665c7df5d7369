//! `rtile-bench records` and `rtile-bench retrain`: the Halide autoscheduler's cost model
//! fitted to kernel times (OOPSLA'21 §5; docs/passes/autoschedule-beam.md, "Retraining").
//!
//! `records` schedules pipelines with `--autoschedule-beam`'s search (greedy and k = 32)
//! and writes, per kernel, the six cost terms (Appendix B's five and blocks launched,
//! `rtile_passes::autoschedule_beam::cost::stage_terms`, summed over the kernel's stages)
//! and a time: the model's own prediction (`source = model`; no GPU is needed, and a fit of
//! these recovers the coefficients the model ran with). `retrain` reads such a file (or one
//! with measured times in the same layout) and fits the coefficients by non-negative least
//! squares (`autoschedule_beam::fit`), writing a weights file that
//! `--autoschedule-beam="weights=FILE"` loads.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use miette::{LabeledSpan, NamedSource, Report, miette};
use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile_passes::autoschedule_beam::cost::{Coefficients, NUM_TERMS, TERM_NAMES};
use rtile_passes::autoschedule_beam::fit::{Fit, Record, fit_coefficients, schedule_terms};
use rtile_passes::autoschedule_beam::pipeline::Pipeline;
use rtile_passes::autoschedule_beam::search::{SearchOptions, search};
use rtile_passes::device::Device;

use crate::dialect_registry;

/// The header line of a records file: the kernel's name, the terms, the time in seconds.
pub fn header() -> String {
    format!("kernel {} time_s", TERM_NAMES.join(" "))
}

/// One parsed record and its kernel's name.
#[derive(Clone, Debug)]
pub struct NamedRecord {
    /// `pipeline:@function:k<root stage>:beam<k>`, or whatever the file says.
    pub kernel: String,
    /// Terms and time.
    pub record: Record,
}

/// The coefficients the search runs with: the weights file `weights` (read as
/// `--autoschedule-beam="weights=FILE"` reads it) or, without one, `device`'s defaults.
/// A missing or malformed file is a diagnostic (at the offending key where it names one).
pub fn search_coefficients(device: &str, weights: Option<&Path>) -> Result<Coefficients, Report> {
    let dev = Device::builtin(device).map_err(|e| miette!("--device: {}", e.message))?;
    let base = Coefficients::from_device(&dev);
    let Some(path) = weights else {
        return Ok(base);
    };
    let name = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| miette!("--weights: cannot read {name}: {e}"))?;
    Coefficients::from_toml(&text, &base).map_err(|m| {
        // The checks name the key first (`launch = -5e-6: …`); TOML errors say where.
        let key = m.split([' ', ':']).next().unwrap_or("");
        let span = text
            .lines()
            .scan(0, |o, l| {
                let start = *o;
                *o += l.len() + 1;
                Some((start, l))
            })
            .find(|(_, l)| !key.is_empty() && l.trim_start().starts_with(key))
            .map_or((0, 0), |(start, l)| (start, l.len()));
        at(&name, &text, span, "here", format!("--weights: {m}"))
    })
}

/// Writes the records of `pipelines` (name, text) scheduled on `device` with beam sizes
/// `beams` (the model's predicted time as the time), searched with `weights` (a weights
/// file) or the device's coefficients.
pub fn write_records(
    pipelines: &[(String, String)],
    device: &str,
    beams: &[usize],
    weights: Option<&Path>,
) -> Result<String, Report> {
    let dev = Device::builtin(device).map_err(|e| miette!("--device: {}", e.message))?;
    let coef = search_coefficients(device, weights)?;
    let mut out = format!(
        "# rtile-bench records: per kernel, the cost terms of OOPSLA'21 Appendix B and blocks \
         launched, and a time\n\
         # device = {device}, source = model (time_s is the model's prediction){}\n{}\n",
        weights_note(weights),
        header()
    );
    for (name, text) in pipelines {
        for (fname, p) in pipelines_of(name, text).map_err(|m| miette!("{m}"))? {
            for &k in beams {
                let opts = SearchOptions {
                    beam: k,
                    coefficients: Some(coef.clone()),
                    ..SearchOptions::default()
                };
                let o = search(&p, &dev, &opts).map_err(|m| miette!("{name}: {m}"))?;
                for kt in schedule_terms(&p, &o.locs, &dev, &coef).map_err(|m| miette!("{m}"))? {
                    let _ = write!(out, "{name}:@{fname}:k{}:beam{k}", kt.root);
                    for t in kt.terms {
                        let _ = write!(out, " {t:e}");
                    }
                    let _ = writeln!(out, " {:e}", kt.cost);
                }
            }
        }
    }
    Ok(out)
}

/// The records header's note on the coefficients searched with: empty for the device's.
pub(crate) fn weights_note(weights: Option<&Path>) -> String {
    weights.map_or(String::new(), |w| {
        format!(", searched with the weights {}", w.display())
    })
}

/// The te functions of pipeline file `name` (its text), each with its stages; functions
/// holding no te compute are left out.
pub fn pipelines_of(name: &str, text: &str) -> Result<Vec<(String, Pipeline)>, String> {
    let mut ctx = Context::new(Arc::new(dialect_registry()));
    let module = parse_str(&mut ctx, name, text)
        .map_err(|_| format!("{name}: does not parse"))?
        .module;
    let mut found = Vec::new();
    for f in ctx.collect_ops(module) {
        if ctx.op_name(f) != "func.func" {
            continue;
        }
        let Some(b) = ctx
            .regions(f)
            .first()
            .and_then(|&r| ctx.region_blocks(r).first().copied())
        else {
            continue;
        };
        let ops: Vec<_> = ctx.block_ops(b).collect();
        let p = Pipeline::build(&ctx, &ops).map_err(|m| format!("{name}: {m}"))?;
        if !p.is_empty() {
            let fname = rtile_dialects::func::sym_name(&ctx, f).unwrap_or_default();
            found.push((fname.to_string(), p));
        }
    }
    Ok(found)
}

/// A diagnostic at `span` (byte offset, length) of the records file.
pub(crate) fn at(name: &str, text: &str, span: (usize, usize), label: &str, msg: String) -> Report {
    miette!(
        labels = vec![LabeledSpan::at(span.0..span.0 + span.1, label.to_string())],
        "{msg}"
    )
    .with_source_code(NamedSource::new(name, text.to_string()))
}

/// The header of records files written before the block term (five terms): refused with
/// a diagnostic that says to regenerate them (their kernels' block counts are not in them).
const FIVE_TERM_HEADER: &str =
    "kernel per_flop global_transaction shared_transaction global_byte launch time_s";

/// Parses a records file: `#` comments and blank lines, then the [`header`] line, then one
/// record per line (a name and seven numbers: six terms ≥ 0 and a time > 0, all finite).
pub fn parse_records(name: &str, text: &str) -> Result<Vec<NamedRecord>, Report> {
    let want = header();
    let mut seen_header = false;
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        // Tokens with their byte offsets.
        let mut toks = Vec::new();
        let mut pos = 0;
        for t in body.split_whitespace() {
            let i = body[pos..].find(t).map_or(pos, |i| pos + i);
            toks.push((t, start + i));
            pos = i + t.len();
        }
        if !seen_header {
            let names: Vec<&str> = toks.iter().map(|t| t.0).collect();
            if names.join(" ") == FIVE_TERM_HEADER {
                return Err(at(
                    name,
                    text,
                    (start, body.len()),
                    "five terms, no `block`",
                    format!(
                        "a records file from before the block term (five terms); \
                         regenerate it with `rtile-bench records` (header `{want}`)"
                    ),
                ));
            }
            if names.join(" ") != want {
                return Err(at(
                    name,
                    text,
                    (start, body.len()),
                    "expected the header",
                    format!("a records file starts with the header line `{want}`"),
                ));
            }
            seen_header = true;
            continue;
        }
        if toks.len() != NUM_TERMS + 2 {
            return Err(at(
                name,
                text,
                (start, body.len()),
                &format!("{} fields", toks.len()),
                format!(
                    "a record has {} fields (kernel, {}, time_s), this line has {}",
                    NUM_TERMS + 2,
                    TERM_NAMES.join(", "),
                    toks.len()
                ),
            ));
        }
        let mut vals = [0.0; NUM_TERMS + 1];
        for (j, &(t, o)) in toks[1..].iter().enumerate() {
            let is_term = j < NUM_TERMS;
            let col = if is_term { TERM_NAMES[j] } else { "time_s" };
            let v: f64 = t.parse().map_err(|_| {
                at(
                    name,
                    text,
                    (o, t.len()),
                    "not a number",
                    format!("{col}: `{t}` is not a number"),
                )
            })?;
            let ok = v.is_finite() && if is_term { v >= 0.0 } else { v > 0.0 };
            if !ok {
                let need = if is_term {
                    "finite and >= 0"
                } else {
                    "finite and > 0"
                };
                return Err(at(
                    name,
                    text,
                    (o, t.len()),
                    &format!("must be {need}"),
                    format!("{col} must be {need}, not {t}"),
                ));
            }
            vals[j] = v;
        }
        out.push(NamedRecord {
            kernel: toks[0].0.to_string(),
            record: Record {
                terms: std::array::from_fn(|j| vals[j]),
                time: vals[NUM_TERMS],
            },
        });
    }
    if out.is_empty() {
        return Err(at(
            name,
            text,
            (text.len(), 0),
            "no records",
            "the records file holds no records".to_string(),
        ));
    }
    Ok(out)
}

/// The coefficients fits are compared with and that fill what the records do not
/// determine: `device`'s shipped defaults, or with `derived_block` the six-term
/// device-derived model (the block term at its derived value,
/// `Coefficients::from_device_with_blocks`).
pub fn base_coefficients(device: &str, derived_block: bool) -> Result<Coefficients, String> {
    let dev = Device::builtin(device).map_err(|e| e.message)?;
    Ok(if derived_block {
        Coefficients::from_device_with_blocks(&dev)
    } else {
        Coefficients::from_device(&dev)
    })
}

/// Fits `records`; coefficients they do not determine keep `base`'s.
pub fn retrain(records: &[NamedRecord], base: &Coefficients) -> Result<Fit, String> {
    let recs: Vec<Record> = records.iter().map(|r| r.record.clone()).collect();
    fit_coefficients(&recs, base)
}

/// The weights file of `fit` (TOML, with the fit's summary as comments).
pub fn weights_file(fit: &Fit, records: usize, device: &str) -> String {
    let mut s = format!(
        "# rtile-bench retrain: {records} records, device = {device}\n\
         # relative error of the fit: rms {:.3e}, max {:.3e}\n",
        fit.rms_rel_err, fit.max_rel_err
    );
    for (j, name) in TERM_NAMES.iter().enumerate() {
        if !fit.fitted[j] {
            let _ = writeln!(s, "# {name}: zero in every record, the device default kept");
        }
    }
    s + &fit.coefficients.to_toml()
}

/// The summary table: each coefficient's default (`base`) and fitted value; the ratio is
/// `-` where the default is 0.
pub fn summary(fit: &Fit, base: &Coefficients) -> String {
    let base = base.weights();
    let got = fit.coefficients.weights();
    let mut s = format!(
        "{:<20} {:>12} {:>12} {:>8}\n",
        "coefficient", "default", "fitted", "ratio"
    );
    for j in 0..NUM_TERMS {
        let note = if fit.fitted[j] { "" } else { "  (no data)" };
        let ratio = if base[j] == 0.0 {
            "-".to_string()
        } else {
            format!("{:.4}", got[j] / base[j])
        };
        let _ = writeln!(
            s,
            "{:<20} {:>12.4e} {:>12.4e} {:>8}{note}",
            TERM_NAMES[j], base[j], got[j], ratio
        );
    }
    let _ = writeln!(
        s,
        "relative error of the fit: rms {:.3e}, max {:.3e}",
        fit.rms_rel_err, fit.max_rel_err
    );
    s
}
