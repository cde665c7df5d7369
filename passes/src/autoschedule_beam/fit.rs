//! Fitting the cost model's coefficients to measured kernel times (`rtile-bench retrain`).
//!
//! OOPSLA'21 §5 trains a network whose outputs are Appendix B's coefficients; with the
//! features fixed, Appendix B's cost is linear in its coefficients
//! ([`super::cost::stage_terms`]), so this fits them by non-negative least squares (a
//! coefficient is seconds per unit of work: a negative one would make more work cheaper).
//! The residual is relative, `(Σ terms·c − t) / t`, so that short kernels count as much as
//! long ones (the paper's loss is also relative to the measured time).
//!
//! The solver is Lawson and Hanson's active-set NNLS ("Solving Least Squares Problems",
//! 1974, ch. 23) with Householder least squares on the passive set; columns are scaled to
//! unit norm first (the coefficients span seven orders of magnitude).

use super::cost::{Coefficients, NUM_TERMS, TERM_NAMES, stage_cost, stage_terms};
use super::features::featurize;
use super::kernel::{levels, plan_kernel};
use super::pipeline::Pipeline;
use super::space::Loc;
use crate::device::Device;

/// One record: a kernel's cost terms ([`super::cost::stage_terms`], summed over its
/// stages) and its time, seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The terms, [`TERM_NAMES`] order.
    pub terms: [f64; NUM_TERMS],
    /// The measured (or modelled) time, seconds; > 0.
    pub time: f64,
}

/// A fit's result.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The fitted coefficients (unfitted terms keep the base's).
    pub coefficients: Coefficients,
    /// Per term: fitted (false: its column is zero in every record, the base value kept).
    pub fitted: [bool; NUM_TERMS],
    /// Root mean square of the relative residuals of the fit.
    pub rms_rel_err: f64,
    /// The largest relative residual.
    pub max_rel_err: f64,
}

/// Least squares `min ‖A x − b‖` by Householder QR; `cols` are A's columns. `None` when a
/// column is (numerically) dependent on the previous ones.
pub fn lstsq(cols: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let n = cols.len();
    let m = b.len();
    if n > m {
        return None;
    }
    let mut a: Vec<Vec<f64>> = cols.to_vec();
    let mut y = b.to_vec();
    let scale: f64 = cols
        .iter()
        .flatten()
        .fold(0.0_f64, |s, &x| s.max(x.abs()))
        .max(f64::MIN_POSITIVE);
    for k in 0..n {
        let norm = a[k][k..].iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm <= 1e-12 * scale {
            return None;
        }
        let alpha = if a[k][k] > 0.0 { -norm } else { norm };
        let mut v: Vec<f64> = a[k][k..].to_vec();
        v[0] -= alpha;
        let vv: f64 = v.iter().map(|x| x * x).sum();
        if vv == 0.0 {
            continue;
        }
        for col in a.iter_mut().skip(k) {
            let d: f64 = v.iter().zip(&col[k..]).map(|(p, q)| p * q).sum::<f64>() * 2.0 / vv;
            for (c, p) in col[k..].iter_mut().zip(&v) {
                *c -= d * p;
            }
        }
        let d: f64 = v.iter().zip(&y[k..]).map(|(p, q)| p * q).sum::<f64>() * 2.0 / vv;
        for (c, p) in y[k..].iter_mut().zip(&v) {
            *c -= d * p;
        }
    }
    // Back substitution on R (upper triangle of the transformed columns).
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|j| a[j][i] * x[j]).sum();
        x[i] = (y[i] - s) / a[i][i];
    }
    Some(x)
}

/// Non-negative least squares `min ‖A x − b‖, x ≥ 0` (Lawson–Hanson); `rows` are A's rows.
pub fn nnls(rows: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = rows.first().map_or(0, Vec::len);
    let col = |j: usize| rows.iter().map(|r| r[j]).collect::<Vec<f64>>();
    let cols: Vec<Vec<f64>> = (0..n).map(col).collect();
    let mut x = vec![0.0; n];
    let mut passive = vec![false; n];
    let tol = 1e-12
        * b.iter().map(|v| v.abs()).fold(0.0, f64::max).max(1.0)
        * cols
            .iter()
            .map(|c| c.iter().map(|v| v.abs()).fold(0.0, f64::max))
            .fold(0.0, f64::max)
            .max(1.0)
        * rows.len().max(1) as f64;
    let gradient = |x: &[f64]| -> Vec<f64> {
        let r: Vec<f64> = rows
            .iter()
            .zip(b)
            .map(|(row, &bi)| bi - row.iter().zip(x).map(|(a, v)| a * v).sum::<f64>())
            .collect();
        cols.iter()
            .map(|c| c.iter().zip(&r).map(|(a, v)| a * v).sum())
            .collect()
    };
    // Each outer step adds one column; 3n bounds them (the method terminates in finitely
    // many steps; the bound guards against rounding cycles).
    for _ in 0..3 * n + 3 {
        let w = gradient(&x);
        let Some(j) = (0..n)
            .filter(|&j| !passive[j] && w[j] > tol)
            .max_by(|&a, &b| w[a].total_cmp(&w[b]))
        else {
            break;
        };
        passive[j] = true;
        loop {
            let idx: Vec<usize> = (0..n).filter(|&i| passive[i]).collect();
            let sub: Vec<Vec<f64>> = idx.iter().map(|&i| cols[i].clone()).collect();
            let Some(z) = lstsq(&sub, b) else {
                // Dependent column: drop the one just added.
                passive[j] = false;
                break;
            };
            let mut s = vec![0.0; n];
            for (&i, &v) in idx.iter().zip(&z) {
                s[i] = v;
            }
            if idx.iter().all(|&i| s[i] > 0.0) {
                x = s;
                break;
            }
            // Step toward s until the first passive variable reaches 0; move it out.
            let alpha = idx
                .iter()
                .filter(|&&i| s[i] <= 0.0)
                .map(|&i| x[i] / (x[i] - s[i]))
                .fold(f64::INFINITY, f64::min);
            for i in 0..n {
                x[i] += alpha * (s[i] - x[i]);
                if passive[i] && x[i] <= 1e-15 * x.iter().fold(0.0_f64, |m, v| m.max(v.abs())) {
                    x[i] = 0.0;
                    passive[i] = false;
                }
            }
            if !passive.iter().any(|&p| p) {
                break;
            }
        }
    }
    x
}

/// Fits the linear coefficients of `base` to `records` (relative residuals, x ≥ 0);
/// terms whose column is zero everywhere keep `base`'s value.
pub fn fit_coefficients(records: &[Record], base: &Coefficients) -> Result<Fit, String> {
    if let Some(r) = records
        .iter()
        .find(|r| !(r.time > 0.0 && r.time.is_finite()))
    {
        return Err(format!(
            "a record's time must be finite and > 0, not {}",
            r.time
        ));
    }
    let mut fitted = [false; NUM_TERMS];
    for (j, f) in fitted.iter_mut().enumerate() {
        *f = records.iter().any(|r| r.terms[j] != 0.0);
    }
    let idx: Vec<usize> = (0..NUM_TERMS).filter(|&j| fitted[j]).collect();
    if records.len() < idx.len() {
        return Err(format!(
            "{} records cannot determine {} coefficients ({})",
            records.len(),
            idx.len(),
            idx.iter()
                .map(|&j| TERM_NAMES[j])
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    // Rows divided by the time (relative residual), columns scaled to unit norm.
    let rows: Vec<Vec<f64>> = records
        .iter()
        .map(|r| idx.iter().map(|&j| r.terms[j] / r.time).collect())
        .collect();
    let norms: Vec<f64> = (0..idx.len())
        .map(|k| rows.iter().map(|r| r[k] * r[k]).sum::<f64>().sqrt())
        .collect();
    let scaled: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| r.iter().zip(&norms).map(|(v, n)| v / n).collect())
        .collect();
    let ones = vec![1.0; records.len()];
    let z = nnls(&scaled, &ones);
    let mut w = base.weights();
    for (k, &j) in idx.iter().enumerate() {
        w[j] = z[k] / norms[k];
    }
    let coefficients = base.with_weights(w);
    let rel: Vec<f64> = records
        .iter()
        .map(|r| {
            let pred: f64 = r.terms.iter().zip(&w).map(|(a, c)| a * c).sum();
            (pred - r.time) / r.time
        })
        .collect();
    let rms_rel_err = (rel.iter().map(|e| e * e).sum::<f64>() / rel.len().max(1) as f64).sqrt();
    let max_rel_err = rel.iter().map(|e| e.abs()).fold(0.0, f64::max);
    Ok(Fit {
        coefficients,
        fitted,
        rms_rel_err,
        max_rel_err,
    })
}

/// One kernel of a schedule: its root stage, its terms summed over its stages, and the
/// model's cost of it with `coef` (seconds).
#[derive(Clone, Debug)]
pub struct KernelTerms {
    /// The root stage.
    pub root: usize,
    /// The terms ([`TERM_NAMES`] order).
    pub terms: [f64; NUM_TERMS],
    /// `Σ stage_cost` over the kernel's stages.
    pub cost: f64,
}

/// The kernels of the complete schedule `locs` of `p` with their terms (what `rtile-bench
/// records` writes).
pub fn schedule_terms(
    p: &Pipeline,
    locs: &[Loc],
    dev: &Device,
    coef: &Coefficients,
) -> Result<Vec<KernelTerms>, String> {
    let locs: Vec<Option<Loc>> = locs.iter().cloned().map(Some).collect();
    let lv = levels(p, &locs);
    let mut out = Vec::new();
    for r in (0..p.len()).filter(|&r| matches!(locs[r], Some(Loc::Root(_)))) {
        let plan = plan_kernel(p, &locs, &lv, r, dev)
            .map_err(|e| format!("the kernel rooted at stage {r} does not fit: {e:?}"))?;
        let mut terms = [0.0; NUM_TERMS];
        let mut cost = 0.0;
        for f in featurize(p, &plan, &lv, dev) {
            for (t, v) in terms
                .iter_mut()
                .zip(stage_terms(&f, coef.saturating_warps, dev))
            {
                *t += v;
            }
            cost += stage_cost(&f, coef, dev).total();
        }
        out.push(KernelTerms {
            root: r,
            terms,
            cost,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn v100() -> (Device, Coefficients) {
        let d = Device::builtin("v100").unwrap();
        let c = Coefficients::from_device(&d);
        (d, c)
    }

    /// Synthetic records: terms log-uniform over the ranges real kernels give (flops
    /// 1e5..1e10, sectors 1e3..1e8, …, blocks 1..1e6), times from `truth` times (1 +
    /// noise·U(−1, 1)).
    fn synthetic(truth: &[f64; NUM_TERMS], n: usize, noise: f64, seed: u64) -> Vec<Record> {
        let mut rng = Rng(seed);
        let ranges = [
            (5.0, 10.0),
            (3.0, 8.0),
            (0.0, 7.0),
            (4.0, 9.0),
            (0.0, 1.5),
            (0.0, 6.0),
        ];
        (0..n)
            .map(|_| {
                let mut terms = [0.0; NUM_TERMS];
                for (t, (lo, hi)) in terms.iter_mut().zip(ranges) {
                    *t = 10f64.powf(lo + (hi - lo) * rng.unit());
                }
                terms[4] = terms[4].round().max(1.0);
                terms[5] = terms[5].round().max(1.0);
                let t: f64 = terms.iter().zip(truth).map(|(a, c)| a * c).sum();
                let time = t * (1.0 + noise * (2.0 * rng.unit() - 1.0));
                Record { terms, time }
            })
            .collect()
    }

    /// Known coefficients, the block term's 0.6 ns a block (the H200's, PERF.md).
    const TRUTH: [f64; NUM_TERMS] = [3e-13, 2e-11, 8e-12, 1.2e-12, 4e-6, 6e-10];

    #[test]
    fn exact_data_recovers_the_coefficients() {
        let (_, base) = v100();
        let fit = fit_coefficients(&synthetic(&TRUTH, 60, 0.0, 1), &base).unwrap();
        for (got, want) in fit.coefficients.weights().iter().zip(TRUTH) {
            assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want}");
        }
        assert!(fit.rms_rel_err < 1e-12);
        assert_eq!(fit.fitted, [true; NUM_TERMS]);
    }

    /// With ±2% noise on 400 records, each coefficient is recovered within 5% (the
    /// tolerance docs/passes/autoschedule-beam.md states).
    #[test]
    fn noisy_data_recovers_the_coefficients_within_5_percent() {
        let (_, base) = v100();
        for seed in 0..5 {
            let fit = fit_coefficients(&synthetic(&TRUTH, 400, 0.02, seed), &base).unwrap();
            for (j, (got, want)) in fit.coefficients.weights().iter().zip(TRUTH).enumerate() {
                let rel = (got - want).abs() / want;
                assert!(rel < 0.05, "seed {seed} {}: {got} vs {want}", TERM_NAMES[j]);
            }
            assert!(fit.max_rel_err < 0.05);
        }
    }

    /// Pairs of kernels with the same five other terms and different block counts (as
    /// Harris's first stage, greedy and beam): the time difference is the block term's
    /// alone, and the fit recovers it (and the others) from such data.
    #[test]
    fn block_term_is_recovered_from_pairs_differing_only_in_blocks() {
        let (_, base) = v100();
        let mut recs = Vec::new();
        for r in synthetic(&TRUTH, 40, 0.0, 11) {
            for blocks in [20_480.0, 245_760.0] {
                let mut terms = r.terms;
                terms[5] = blocks;
                let time = terms.iter().zip(&TRUTH).map(|(a, c)| a * c).sum();
                recs.push(Record { terms, time });
            }
        }
        let fit = fit_coefficients(&recs, &base).unwrap();
        let w = fit.coefficients.weights();
        for (j, (got, want)) in w.iter().zip(TRUTH).enumerate() {
            assert!(
                (got - want).abs() <= 1e-9 * want,
                "{}: {got} vs {want}",
                TERM_NAMES[j]
            );
        }
        // Without the block column (the five-term model), the same data cannot be fitted.
        let five: Vec<Record> = recs
            .iter()
            .map(|r| Record {
                terms: [
                    r.terms[0], r.terms[1], r.terms[2], r.terms[3], r.terms[4], 0.0,
                ],
                time: r.time,
            })
            .collect();
        let fit5 = fit_coefficients(&five, &base).unwrap();
        assert!(!fit5.fitted[5]);
        assert!(fit5.rms_rel_err > 0.1, "{}", fit5.rms_rel_err);
    }

    /// A term that does not contribute (truth 0) is fitted ≥ 0 (unconstrained least
    /// squares would go negative on the noise), and a zero column keeps the base value.
    #[test]
    fn nonnegative_and_unfitted_terms() {
        let (_, base) = v100();
        let truth = [3e-13, 2e-11, 0.0, 1.2e-12, 0.0, 6e-10];
        let mut recs = synthetic(&truth, 300, 0.03, 7);
        for r in &mut recs {
            r.terms[4] = 0.0;
        }
        let fit = fit_coefficients(&recs, &base).unwrap();
        let w = fit.coefficients.weights();
        assert!(w.iter().all(|&x| x >= 0.0), "{w:?}");
        assert_eq!(fit.fitted, [true, true, true, true, false, true]);
        assert_eq!(w[4], base.launch);
    }

    /// NNLS against an independent reference: the best feasible unconstrained solution
    /// over every subset of columns (the NNLS optimum is one of them).
    #[test]
    fn nnls_matches_exhaustive_active_sets() {
        let mut rng = Rng(42);
        for _ in 0..50 {
            let (m, n) = (8, 4);
            let rows: Vec<Vec<f64>> = (0..m)
                .map(|_| (0..n).map(|_| 2.0 * rng.unit() - 1.0).collect())
                .collect();
            let b: Vec<f64> = (0..m).map(|_| 2.0 * rng.unit() - 1.0).collect();
            let res = |x: &[f64]| -> f64 {
                rows.iter()
                    .zip(&b)
                    .map(|(r, bi)| {
                        let d = r.iter().zip(x).map(|(a, v)| a * v).sum::<f64>() - bi;
                        d * d
                    })
                    .sum()
            };
            let mut best = res(&vec![0.0; n]);
            for mask in 1u32..(1 << n) {
                let idx: Vec<usize> = (0..n).filter(|&j| mask >> j & 1 == 1).collect();
                let cols: Vec<Vec<f64>> = idx
                    .iter()
                    .map(|&j| rows.iter().map(|r| r[j]).collect())
                    .collect();
                if let Some(z) = lstsq(&cols, &b)
                    && z.iter().all(|&v| v >= 0.0)
                {
                    let mut x = vec![0.0; n];
                    for (&j, &v) in idx.iter().zip(&z) {
                        x[j] = v;
                    }
                    best = best.min(res(&x));
                }
            }
            let x = nnls(&rows, &b);
            assert!(x.iter().all(|&v| v >= 0.0));
            assert!(
                (res(&x) - best).abs() <= 1e-9 * best.max(1.0),
                "{} vs {best}",
                res(&x)
            );
        }
    }

    #[test]
    fn lstsq_solves_a_square_system() {
        // [[2, 1], [1, 3]] x = [3, 5] → x = [0.8, 1.4].
        let x = lstsq(&[vec![2.0, 1.0], vec![1.0, 3.0]], &[3.0, 5.0]).unwrap();
        assert!(
            (x[0] - 0.8).abs() < 1e-12 && (x[1] - 1.4).abs() < 1e-12,
            "{x:?}"
        );
        assert!(lstsq(&[vec![1.0, 2.0], vec![2.0, 4.0]], &[1.0, 1.0]).is_none());
    }

    #[test]
    fn fewer_records_than_coefficients_is_an_error() {
        let (_, base) = v100();
        let recs = synthetic(&[1e-13, 1e-11, 1e-11, 1e-12, 1e-6, 1e-9], 3, 0.0, 0);
        let e = fit_coefficients(&recs, &base).unwrap_err();
        assert!(e.contains("3 records cannot determine 6"), "{e}");
    }

    #[test]
    fn weights_files_round_trip_and_are_checked() {
        let (_, base) = v100();
        let c = base.with_weights([1e-13, 2e-11, 3e-11, 4e-12, 5e-6, 6e-10]);
        assert_eq!(Coefficients::from_toml(&c.to_toml(), &base).unwrap(), c);
        let e = Coefficients::from_toml("per_flop = 1.0\n", &base).unwrap_err();
        assert!(e.contains("missing field"), "{e}");
        let neg = c.to_toml().replace("launch = 5e-6", "launch = -5e-6");
        let e = Coefficients::from_toml(&neg, &base).unwrap_err();
        assert!(e.contains("launch = -0.000005"), "{e}");
        let no_block = c.to_toml().replace("block = 6e-10\n", "");
        let e = Coefficients::from_toml(&no_block, &base).unwrap_err();
        assert!(e.contains("missing field `block`"), "{e}");
    }
}
