//! The rounding floor of a check: how far from the f64 oracle *any* evaluation in the
//! element types can land, estimated by Monte Carlo arithmetic (Parker, Pierce, Eggert,
//! "Monte Carlo Arithmetic", 2000): the oracle runs again with every te op's operands and
//! result perturbed by a random relative error of at most the unit roundoff of their
//! element type, and the floor is the largest normwise error of those runs.
//!
//! A well-conditioned computation has a floor near the unit roundoff (≈ 6e-8 in f32), far
//! under the default tolerance, and nothing changes. An ill-conditioned one (a value that
//! cancels, such as a dot product of a centred row) has a floor that can pass the
//! tolerance: a kernel then is held to the floor (times [`FLOOR_MARGIN`]) instead, since no
//! f32 kernel, fused or not, can do better. A wrong kernel is off by O(1) and still fails.

use rtile_dialects::te::model::{ElemType, TeCompute};

use super::check::rel_err;
use crate::interp::{Accumulate, eval_compute};
use crate::tensor::{SplitMix64, Tensor};

/// Perturbed oracle runs behind one floor.
pub const FLOOR_TRIALS: u64 = 3;

/// How far past the estimated floor an error is still rounding: the estimate perturbs each
/// op once, while a reduction over `n` terms rounds `n` times (growing as √n on average).
pub const FLOOR_MARGIN: f64 = 16.0;

/// The floor past which an output counts as ill-conditioned: 16 unit roundoffs of f32.
/// Below it the tolerance alone decides (so `--tolerance 1e-30` still fails a correct
/// f32 kernel); above it the floor may decide too.
pub const ILL_CONDITIONED: f64 = 16.0 * (f32::EPSILON as f64 / 2.0);

/// Whether `err` passes `tolerance` or, for an ill-conditioned output, its rounding floor.
/// An error at or under [`ILL_CONDITIONED`] is held to the tolerance alone, whatever the
/// floor: so a check needs floors only past it ([`needs_floors`]).
pub fn within(err: f64, floor: f64, tolerance: f64) -> bool {
    err <= tolerance
        || (err > ILL_CONDITIONED && floor > ILL_CONDITIONED && err <= FLOOR_MARGIN * floor)
}

/// Whether a check with these output errors needs their rounding floors: an error past
/// [`ILL_CONDITIONED`]. Most checks of f32 kernels stay under it and skip the
/// [`FLOOR_TRIALS`] perturbed oracle runs.
pub fn needs_floors(errors: &[f64]) -> bool {
    errors.iter().any(|&e| e > ILL_CONDITIONED)
}

/// The rounding floor of each output with these `errors`: from `floors` when an error needs
/// them ([`needs_floors`]), zeros otherwise (so the perturbed oracle runs are skipped).
pub fn floors_if_needed<E>(
    errors: &[f64],
    floors: impl FnOnce() -> Result<Vec<f64>, E>,
) -> Result<Vec<f64>, E> {
    if needs_floors(errors) {
        floors()
    } else {
        Ok(vec![0.0; errors.len()])
    }
}

/// What a report line adds for an ill-conditioned output: `, rounding floor F` (the
/// largest floor over `outputs`, pairs of error and floor).
pub fn floor_note(outputs: &[(f64, f64)]) -> String {
    let floor = outputs.iter().map(|o| o.1).fold(0.0, f64::max);
    if floor > ILL_CONDITIONED {
        format!(", rounding floor {floor:.3e}")
    } else {
        String::new()
    }
}

/// The unit roundoff of an element type (0 for integers, which are exact).
fn unit_roundoff(t: ElemType) -> f64 {
    match t {
        ElemType::F64 => f64::EPSILON / 2.0,
        ElemType::F32 => f32::EPSILON as f64 / 2.0,
        ElemType::F16 => 2f64.powi(-11),
        ElemType::BF16 => 2f64.powi(-8),
        ElemType::I32 | ElemType::I8 | ElemType::I1 => 0.0,
    }
}

/// The random relative perturbations of one trial.
pub(crate) struct Noise(SplitMix64);

impl Noise {
    /// Trial `trial` of the floor of a check seeded with `seed`.
    pub(crate) fn new(seed: u64, trial: u64) -> Noise {
        Noise(SplitMix64(
            seed ^ (trial + 1).wrapping_mul(0xd1b5_4a32_d192_ed03),
        ))
    }

    /// `t` with every element scaled by `1 + δ`, `|δ| ≤ u`, `u` the unit roundoff of `as_type`.
    pub(crate) fn perturb(&mut self, mut t: Tensor, as_type: ElemType) -> Tensor {
        let u = unit_roundoff(as_type);
        if u > 0.0 {
            for x in &mut t.data {
                *x *= 1.0 + u * (2.0 * self.0.next_f64() - 1.0);
            }
        }
        t
    }

    /// `c` on perturbed inputs, in f64, its result perturbed as its element type rounds.
    pub(crate) fn compute(&mut self, c: &TeCompute, inputs: &[Tensor]) -> Result<Tensor, String> {
        let ins: Vec<Tensor> = inputs
            .iter()
            .zip(&c.inputs)
            .map(|(x, t)| self.perturb(x.clone(), t.elem))
            .collect();
        let out = eval_compute(c, &ins, Accumulate::F64)?;
        Ok(self.perturb(out, c.result.elem))
    }
}

/// Per output, the largest normwise error against `want` of [`FLOOR_TRIALS`] runs of
/// `perturbed` (one per [`Noise`] trial).
pub(crate) fn floors(
    seed: u64,
    want: &[Vec<f64>],
    mut perturbed: impl FnMut(&mut Noise) -> Result<Vec<Vec<f64>>, String>,
) -> Result<Vec<f64>, String> {
    let mut worst = vec![0.0f64; want.len()];
    for trial in 0..FLOOR_TRIALS {
        let got = perturbed(&mut Noise::new(seed, trial))?;
        for ((w, g), r) in worst.iter_mut().zip(&got).zip(want) {
            *w = w.max(rel_err(g, r));
        }
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compute(text: &str) -> TeCompute {
        let scanned = rtile_dialects::te::module::parse_computes("t", text).expect("parses");
        scanned[0].compute.clone()
    }

    /// A dot product whose terms cancel has a floor far above f32's unit roundoff; one
    /// whose terms all have one sign stays near it.
    #[test]
    fn cancellation_raises_the_floor() {
        let c = compute(
            "func.func @d(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1xf32> {\n\
             %r = te.compute (%i) reduce (%k) in [1, 4] : (tensor<4xf32>, tensor<4xf32>) -> tensor<1xf32> { te.sum(%a[%k] * %b[%k]) }\n\
             func.return %r : tensor<1xf32>\n}",
        );
        let ones = Tensor::from_data(vec![4], ElemType::F32, vec![1.0; 4]).unwrap();
        let floor_of = |a: Vec<f64>| {
            let a = Tensor::from_data(vec![4], ElemType::F32, a).unwrap();
            let want = eval_compute(&c, &[a.clone(), ones.clone()], Accumulate::F64).unwrap();
            floors(7, &[want.data], |n| {
                Ok(vec![n.compute(&c, &[a.clone(), ones.clone()])?.data])
            })
            .unwrap()[0]
        };
        let same_sign = floor_of(vec![1.0, 2.0, 3.0, 4.0]);
        let cancelling = floor_of(vec![1000.0, -1000.0, 1000.0, -999.999]);
        let u = f32::EPSILON as f64 / 2.0;
        assert!(same_sign > 0.0 && same_sign < 4.0 * u, "{same_sign}");
        assert!(cancelling > 1e3 * u, "{cancelling}");
        assert!(within(cancelling * 10.0, cancelling, 1e-30));
        assert!(!within(cancelling * 20.0, cancelling, 1e-30));
        assert!(!within(0.5, same_sign, 1e-5));
        assert!(
            !within(1e-7, same_sign, 1e-30),
            "well-conditioned: the tolerance decides"
        );
        assert!(
            !within(ILL_CONDITIONED, cancelling, 1e-30),
            "an error under the ill-conditioning bound: the tolerance decides"
        );
        assert!(within(ILL_CONDITIONED, cancelling, ILL_CONDITIONED));
        assert!(!needs_floors(&[0.0, ILL_CONDITIONED]));
        assert!(needs_floors(&[0.0, 2.0 * ILL_CONDITIONED]));
    }
}
