//! `rtile-bench records` and `rtile-bench retrain`: the Halide autoscheduler's cost model
//! fitted to kernel times (OOPSLA'21 §5; docs/passes/autoschedule-beam.md, "Retraining").
//!
//! `records` schedules pipelines with `--autoschedule-beam`'s search (greedy and k = 32)
//! and writes, per kernel, the five cost terms of Appendix B
//! (`rtile_passes::autoschedule_beam::cost::stage_terms`, summed over the kernel's stages)
//! and a time: the model's own prediction (`source = model`; no GPU is needed, and a fit of
//! these recovers the coefficients the model ran with). `retrain` reads such a file (or one
//! with measured times in the same layout) and fits the coefficients by non-negative least
//! squares (`autoschedule_beam::fit`), writing a weights file that
//! `--autoschedule-beam="weights=FILE"` loads.

use std::fmt::Write as _;
use std::sync::Arc;

use miette::{LabeledSpan, NamedSource, Report, miette};
use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile_passes::autoschedule_beam::cost::{Coefficients, TERM_NAMES};
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

/// Writes the records of `pipelines` (name, text) scheduled on `device` with beam sizes
/// `beams` (the model's predicted time as the time).
pub fn write_records(
    pipelines: &[(String, String)],
    device: &str,
    beams: &[usize],
) -> Result<String, String> {
    let dev = Device::builtin(device).map_err(|e| e.message)?;
    let coef = Coefficients::from_device(&dev);
    let mut out = format!(
        "# rtile-bench records: per kernel, the cost terms of OOPSLA'21 Appendix B and a time\n\
         # device = {device}, source = model (time_s is the model's prediction)\n{}\n",
        header()
    );
    for (name, text) in pipelines {
        for (fname, p) in pipelines_of(name, text)? {
            for &k in beams {
                let opts = SearchOptions {
                    beam: k,
                    ..SearchOptions::default()
                };
                let o = search(&p, &dev, &opts).map_err(|m| format!("{name}: {m}"))?;
                for kt in schedule_terms(&p, &o.locs, &dev, &coef)? {
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

/// Parses a records file: `#` comments and blank lines, then the [`header`] line, then one
/// record per line (a name and six numbers: five terms ≥ 0 and a time > 0, all finite).
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
        if toks.len() != 7 {
            return Err(at(
                name,
                text,
                (start, body.len()),
                &format!("{} fields", toks.len()),
                format!(
                    "a record has 7 fields (kernel, {}, time_s), this line has {}",
                    TERM_NAMES.join(", "),
                    toks.len()
                ),
            ));
        }
        let mut vals = [0.0; 6];
        for (j, &(t, o)) in toks[1..].iter().enumerate() {
            let col = if j < 5 { TERM_NAMES[j] } else { "time_s" };
            let v: f64 = t.parse().map_err(|_| {
                at(
                    name,
                    text,
                    (o, t.len()),
                    "not a number",
                    format!("{col}: `{t}` is not a number"),
                )
            })?;
            let ok = v.is_finite() && if j < 5 { v >= 0.0 } else { v > 0.0 };
            if !ok {
                let need = if j < 5 {
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
                terms: [vals[0], vals[1], vals[2], vals[3], vals[4]],
                time: vals[5],
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

/// The device-derived coefficients of `device`.
pub fn base_coefficients(device: &str) -> Result<Coefficients, String> {
    let dev = Device::builtin(device).map_err(|e| e.message)?;
    Ok(Coefficients::from_device(&dev))
}

/// Fits `records` for `device`; the fit.
pub fn retrain(records: &[NamedRecord], device: &str) -> Result<Fit, String> {
    let dev = Device::builtin(device).map_err(|e| e.message)?;
    let base = Coefficients::from_device(&dev);
    let recs: Vec<Record> = records.iter().map(|r| r.record.clone()).collect();
    fit_coefficients(&recs, &base)
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

/// The summary table: each coefficient's device default and fitted value.
pub fn summary(fit: &Fit, device: &str) -> Result<String, String> {
    let dev = Device::builtin(device).map_err(|e| e.message)?;
    let base = Coefficients::from_device(&dev).weights();
    let got = fit.coefficients.weights();
    let mut s = format!(
        "{:<20} {:>12} {:>12} {:>8}\n",
        "coefficient", "default", "fitted", "ratio"
    );
    for j in 0..5 {
        let note = if fit.fitted[j] { "" } else { "  (no data)" };
        let _ = writeln!(
            s,
            "{:<20} {:>12.4e} {:>12.4e} {:>8.4}{note}",
            TERM_NAMES[j],
            base[j],
            got[j],
            got[j] / base[j]
        );
    }
    let _ = writeln!(
        s,
        "relative error of the fit: rms {:.3e}, max {:.3e}",
        fit.rms_rel_err, fit.max_rel_err
    );
    Ok(s)
}
