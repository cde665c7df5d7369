//! `rtile-bench retrain --hold-out P,Q` and `--leave-one-out`: the cost model's accuracy on
//! pipelines the fit did not see, with the device-derived coefficients and with the fitted
//! ones (docs/passes/autoschedule-beam.md, "Retraining").
//!
//! Records are grouped by pipeline: the file stem of a kernel name's first `:`-field
//! (`bench/pipelines/harris.mlir:@harris:k3:beam32` → `harris`). Holding whole pipelines
//! back (not random kernels) keeps a pipeline's greedy and beam schedules, which often
//! share kernels, on the same side of the split.
//!
//! Accuracy of predictions `p` against measured times `m` over n kernels:
//! - the **geomean error factor** `exp(mean |ln(p/m)|)`, the geometric mean of
//!   `max(p/m, m/p)` (1 = exact; 2 = off by 2× on a typical kernel);
//! - the **Spearman rank correlation** of `p` and `m` (Pearson's on their ranks, ties
//!   given their average rank): what a search needs is the order of its candidates.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use rtile_passes::autoschedule_beam::cost::{Coefficients, NUM_TERMS, TERM_NAMES};
use rtile_passes::autoschedule_beam::fit::{Fit, Record, fit_coefficients};

use crate::retrain::NamedRecord;

/// The pipeline a record's kernel belongs to (see the module doc).
pub fn pipeline_of(kernel: &str) -> String {
    let file = kernel.split(':').next().unwrap_or(kernel);
    Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_string())
}

/// The model's time for `r` with linear coefficients `w`, seconds.
pub fn predict(r: &Record, w: &[f64; NUM_TERMS]) -> f64 {
    r.terms.iter().zip(w).map(|(a, c)| a * c).sum()
}

/// Average ranks (1-based) of `v`, ties sharing the mean of their ranks.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation of `x` and `y` (same length); NaN when fewer than 3 points
/// or either is constant (no order to compare).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    if n < 3 {
        return f64::NAN;
    }
    let (rx, ry) = (ranks(&x[..n]), ranks(&y[..n]));
    let mean = (n as f64 + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mean) * (b - mean);
        sxx += (a - mean) * (a - mean);
        syy += (b - mean) * (b - mean);
    }
    if sxx == 0.0 || syy == 0.0 {
        return f64::NAN;
    }
    sxy / (sxx * syy).sqrt()
}

/// The geometric mean of `max(p/m, m/p)` over pairs (predicted, measured).
pub fn geomean_error_factor(pred: &[f64], meas: &[f64]) -> f64 {
    let n = pred.len().min(meas.len());
    if n == 0 {
        return f64::NAN;
    }
    let s: f64 = pred.iter().zip(meas).map(|(p, m)| (p / m).ln().abs()).sum();
    (s / n as f64).exp()
}

/// The accuracy of a set of predictions.
#[derive(Clone, Debug, PartialEq)]
pub struct Accuracy {
    /// Kernels.
    pub n: usize,
    /// [`geomean_error_factor`].
    pub geomean_factor: f64,
    /// [`spearman`].
    pub spearman: f64,
}

impl Accuracy {
    /// Of predictions `pred` against `meas`.
    pub fn of(pred: &[f64], meas: &[f64]) -> Accuracy {
        Accuracy {
            n: pred.len(),
            geomean_factor: geomean_error_factor(pred, meas),
            spearman: spearman(pred, meas),
        }
    }

    /// Of `w`'s predictions of `recs`.
    pub fn with(recs: &[&Record], w: &[f64; NUM_TERMS]) -> Accuracy {
        let pred: Vec<f64> = recs.iter().map(|r| predict(r, w)).collect();
        let meas: Vec<f64> = recs.iter().map(|r| r.time).collect();
        Accuracy::of(&pred, &meas)
    }
}

/// The pipelines of `records`, sorted.
pub fn pipelines(records: &[NamedRecord]) -> Vec<String> {
    let s: BTreeSet<String> = records.iter().map(|r| pipeline_of(&r.kernel)).collect();
    s.into_iter().collect()
}

/// A fit on the records outside `held` and the accuracies around it.
#[derive(Clone, Debug)]
pub struct HoldOut {
    /// The held-back pipelines.
    pub held: Vec<String>,
    /// The fit on the others.
    pub fit: Fit,
    /// Fitted on: (kernels, pipelines).
    pub train: (usize, usize),
    /// Held-back accuracy with the device-derived coefficients.
    pub before: Accuracy,
    /// Held-back accuracy with the fitted ones.
    pub after: Accuracy,
    /// The same two on the records fitted (in-sample).
    pub train_before: Accuracy,
    /// See `train_before`.
    pub train_after: Accuracy,
}

/// Fits on the records whose pipeline is not in `held` and measures both coefficient sets
/// on the held-back ones. An error for a name that no record has or when nothing is left
/// on either side.
pub fn hold_out(
    records: &[NamedRecord],
    held: &[String],
    base: &Coefficients,
) -> Result<HoldOut, String> {
    let all = pipelines(records);
    let mut held: Vec<String> = held.to_vec();
    held.sort();
    held.dedup();
    if let Some(h) = held.iter().find(|h| !all.contains(h)) {
        return Err(format!(
            "--hold-out: no record of pipeline `{h}` (the records' pipelines: {})",
            all.join(", ")
        ));
    }
    let (test, train): (Vec<&NamedRecord>, Vec<&NamedRecord>) = records
        .iter()
        .partition(|r| held.contains(&pipeline_of(&r.kernel)));
    if test.is_empty() {
        return Err("--hold-out: no pipeline held back".into());
    }
    if train.is_empty() {
        return Err(format!(
            "--hold-out holds back every pipeline ({}): nothing is left to fit",
            all.join(", ")
        ));
    }
    let train_recs: Vec<Record> = train.iter().map(|r| r.record.clone()).collect();
    let fit = fit_coefficients(&train_recs, base)?;
    let w0 = base.weights();
    let w1 = fit.coefficients.weights();
    let test_r: Vec<&Record> = test.iter().map(|r| &r.record).collect();
    let train_r: Vec<&Record> = train.iter().map(|r| &r.record).collect();
    Ok(HoldOut {
        train: (train.len(), all.len() - held.len()),
        held,
        before: Accuracy::with(&test_r, &w0),
        after: Accuracy::with(&test_r, &w1),
        train_before: Accuracy::with(&train_r, &w0),
        train_after: Accuracy::with(&train_r, &w1),
        fit,
    })
}

/// One pipeline of a leave-one-pipeline-out run: its accuracy with the device-derived
/// coefficients and with those fitted on every other pipeline, and the predictions.
#[derive(Clone, Debug)]
pub struct LooRow {
    /// The pipeline held back.
    pub pipeline: String,
    /// See [`HoldOut::before`].
    pub before: Accuracy,
    /// See [`HoldOut::after`].
    pub after: Accuracy,
    /// The fitted coefficients (without this pipeline).
    pub weights: [f64; NUM_TERMS],
}

/// Leave-one-pipeline-out: per pipeline, a [`hold_out`] of it alone; and pooled over every
/// kernel (each predicted by the fit that did not see its pipeline): (rows, before, after).
pub fn leave_one_out(
    records: &[NamedRecord],
    base: &Coefficients,
) -> Result<(Vec<LooRow>, Accuracy, Accuracy), String> {
    let all = pipelines(records);
    if all.len() < 2 {
        return Err(format!(
            "--leave-one-out needs records of at least 2 pipelines, these have {}",
            all.len()
        ));
    }
    let w0 = base.weights();
    let (mut p0, mut p1, mut meas) = (Vec::new(), Vec::new(), Vec::new());
    let mut rows = Vec::new();
    for p in &all {
        let h = hold_out(records, std::slice::from_ref(p), base)
            .map_err(|m| format!("leaving out {p}: {m}"))?;
        let w1 = h.fit.coefficients.weights();
        for r in records.iter().filter(|r| pipeline_of(&r.kernel) == *p) {
            p0.push(predict(&r.record, &w0));
            p1.push(predict(&r.record, &w1));
            meas.push(r.record.time);
        }
        rows.push(LooRow {
            pipeline: p.clone(),
            before: h.before,
            after: h.after,
            weights: w1,
        });
    }
    Ok((rows, Accuracy::of(&p0, &meas), Accuracy::of(&p1, &meas)))
}

fn fmt_rho(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else {
        format!("{x:.3}")
    }
}

/// The report of a [`hold_out`].
pub fn format_hold_out(h: &HoldOut) -> String {
    let mut s = format!(
        "fitted on {} kernels of {} pipelines; held back: {}\n{:<34} {:>7} {:>16} {:>9}\n",
        h.train.0,
        h.train.1,
        h.held.join(", "),
        "accuracy",
        "kernels",
        "geomean error ×",
        "Spearman"
    );
    for (what, a) in [
        ("held back, device-derived", &h.before),
        ("held back, retrained", &h.after),
        ("fitted (in-sample), device-derived", &h.train_before),
        ("fitted (in-sample), retrained", &h.train_after),
    ] {
        let _ = writeln!(
            s,
            "{what:<34} {:>7} {:>16.3} {:>9}",
            a.n,
            a.geomean_factor,
            fmt_rho(a.spearman)
        );
    }
    s
}

/// The report of a [`leave_one_out`].
pub fn format_leave_one_out(rows: &[LooRow], before: &Accuracy, after: &Accuracy) -> String {
    let mut s = format!(
        "leave-one-pipeline-out: each pipeline predicted by the fit on the others\n\
         {:<16} {:>7} {:>12} {:>12} {:>10} {:>10}  fitted {}\n",
        "held back",
        "kernels",
        "geo× device",
        "geo× fitted",
        "ρ device",
        "ρ fitted",
        TERM_NAMES.join(" ")
    );
    for r in rows {
        let w: Vec<String> = r.weights.iter().map(|x| format!("{x:.3e}")).collect();
        let _ = writeln!(
            s,
            "{:<16} {:>7} {:>12.3} {:>12.3} {:>10} {:>10}  {}",
            r.pipeline,
            r.before.n,
            r.before.geomean_factor,
            r.after.geomean_factor,
            fmt_rho(r.before.spearman),
            fmt_rho(r.after.spearman),
            w.join(" ")
        );
    }
    let _ = writeln!(
        s,
        "{:<16} {:>7} {:>12.3} {:>12.3} {:>10} {:>10}",
        "pooled",
        before.n,
        before.geomean_factor,
        after.geomean_factor,
        fmt_rho(before.spearman),
        fmt_rho(after.spearman)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile_passes::device::Device;

    /// splitmix64 (test data only).
    struct Rng(u64);
    impl Rng {
        fn unit(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// The six-term device-derived coefficients (the block term's derived value).
    fn h100() -> Coefficients {
        Coefficients::from_device_with_blocks(&Device::builtin("h100").unwrap())
    }

    /// `pipes` pipelines of `per` kernels each: terms log-uniform over real kernels'
    /// ranges, times from `truth` × (1 + noise·U(−1, 1)).
    fn synthetic(
        truth: &[f64; NUM_TERMS],
        pipes: usize,
        per: usize,
        noise: f64,
    ) -> Vec<NamedRecord> {
        let mut rng = Rng(11);
        let ranges = [
            (5.0, 10.0),
            (3.0, 8.0),
            (0.0, 7.0),
            (4.0, 9.0),
            (0.0, 0.5),
            (0.0, 6.0),
        ];
        let mut out = Vec::new();
        for p in 0..pipes {
            for k in 0..per {
                let mut terms = [0.0; NUM_TERMS];
                for (t, (lo, hi)) in terms.iter_mut().zip(ranges) {
                    *t = 10f64.powf(lo + (hi - lo) * rng.unit());
                }
                terms[4] = terms[4].round().max(1.0);
                terms[5] = terms[5].round().max(1.0);
                let t: f64 = terms.iter().zip(truth).map(|(a, c)| a * c).sum();
                out.push(NamedRecord {
                    kernel: format!("bench/p{p}.mlir:@p{p}:k{k}:beam1"),
                    record: Record {
                        terms,
                        time: t * (1.0 + noise * (2.0 * rng.unit() - 1.0)),
                    },
                });
            }
        }
        out
    }

    /// Known coefficients, not the device's: each default scaled by its own factor.
    fn truth() -> [f64; NUM_TERMS] {
        let w = h100().weights();
        [
            w[0] * 3.0,
            w[1] * 0.25,
            w[2] * 2.0,
            w[3] * 4.0,
            w[4] * 0.5,
            w[5] * 1.5,
        ]
    }

    #[test]
    fn spearman_and_error_factor_by_hand() {
        // Ranks of y with a tie: [1, 2, 3.5, 5, 3.5]; ρ = 8 / sqrt(10 · 9.5).
        let rho = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]);
        assert!((rho - 8.0 / 95f64.sqrt()).abs() < 1e-12, "{rho}");
        assert_eq!(spearman(&[3.0, 2.0, 1.0], &[10.0, 20.0, 30.0]), -1.0);
        assert!(spearman(&[1.0, 2.0], &[1.0, 2.0]).is_nan());
        assert!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).is_nan());
        // Factors 2 and 4: geomean sqrt(8).
        let g = geomean_error_factor(&[2.0, 1.0], &[1.0, 4.0]);
        assert!((g - 8f64.sqrt()).abs() < 1e-12, "{g}");
        assert_eq!(
            pipeline_of("bench/pipelines/harris.mlir:@harris:k3:beam32"),
            "harris"
        );
    }

    /// Fitted on four synthetic pipelines whose times follow known coefficients (±2 %
    /// noise), the two held back are predicted to within the noise and in order, while the
    /// device-derived coefficients (off by 0.25–4× per term) are far off.
    #[test]
    fn held_back_pipelines_are_predicted_by_the_fit() {
        let base = h100();
        let truth = truth();
        let recs = synthetic(&truth, 6, 40, 0.02);
        let held = vec!["p4".to_string(), "p5".to_string()];
        let h = hold_out(&recs, &held, &base).unwrap();
        assert_eq!(h.train, (160, 4));
        assert_eq!((h.before.n, h.after.n), (80, 80));
        for (j, (got, want)) in h.fit.coefficients.weights().iter().zip(truth).enumerate() {
            assert!(
                (got - want).abs() < 0.05 * want,
                "{}: {got} vs {want}",
                TERM_NAMES[j]
            );
        }
        assert!(h.after.geomean_factor < 1.02, "{:?}", h.after);
        assert!(h.after.spearman > 0.99, "{:?}", h.after);
        assert!(h.before.geomean_factor > 1.5, "{:?}", h.before);
        assert!(h.train_after.geomean_factor < 1.02, "{:?}", h.train_after);
    }

    #[test]
    fn leave_one_out_pools_out_of_sample_predictions() {
        let base = h100();
        let recs = synthetic(&truth(), 5, 30, 0.02);
        let (rows, before, after) = leave_one_out(&recs, &base).unwrap();
        assert_eq!(rows.len(), 5);
        assert_eq!((before.n, after.n), (150, 150));
        assert!(
            rows.iter().all(|r| r.after.geomean_factor < 1.02),
            "{rows:?}"
        );
        assert!(
            after.geomean_factor < 1.02 && after.spearman > 0.99,
            "{after:?}"
        );
        assert!(before.geomean_factor > 1.5, "{before:?}");
        // Exact data: every fold recovers the truth, so the pooled error is 1.
        let exact = synthetic(&truth(), 3, 20, 0.0);
        let (_, _, a) = leave_one_out(&exact, &base).unwrap();
        assert!((a.geomean_factor - 1.0).abs() < 1e-9, "{a:?}");
    }

    #[test]
    fn bad_splits_are_errors() {
        let base = h100();
        let recs = synthetic(&truth(), 2, 10, 0.0);
        let e = hold_out(&recs, &["nope".to_string()], &base).unwrap_err();
        assert!(
            e.contains("no record of pipeline `nope`") && e.contains("p0, p1"),
            "{e}"
        );
        let both = ["p0".to_string(), "p1".to_string()];
        let e = hold_out(&recs, &both, &base).unwrap_err();
        assert!(e.contains("nothing is left to fit"), "{e}");
        let one = synthetic(&truth(), 1, 10, 0.0);
        let e = leave_one_out(&one, &base).unwrap_err();
        assert!(e.contains("at least 2 pipelines"), "{e}");
    }
}
