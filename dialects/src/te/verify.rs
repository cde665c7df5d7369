//! The verifier on the model. Errors name what is wrong and where (`access #1`, `axis
//! %k`), so the IR verifier can attach the op's span (and, for the custom form, the
//! access's span from [`super::expr::ParsedBody::access_spans`]).

use rtile::ir::affine::{AffineExpr, ceil_div, floor_div};

use super::model::{AxisKind, ElemType, TeCompute};

/// A verification failure; `access` is set when one access is at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    pub message: String,
    pub access: Option<usize>,
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn fail<T>(message: String) -> Result<T, VerifyError> {
    Err(VerifyError {
        message,
        access: None,
    })
}

fn fail_at<T>(access: usize, message: String) -> Result<T, VerifyError> {
    Err(VerifyError {
        message: format!("access #{access}: {message}"),
        access: Some(access),
    })
}

/// The most points a domain, or elements a tensor, may have: 2^48 (a 65536³ matmul; a
/// tensor of 2^48 f32 is 1 PiB, beyond any device). The passes' cost models multiply
/// sizes by bytes, instances and flops in 64-bit integers; under this bound they cannot
/// overflow, and a larger size is refused here rather than wrapped there.
pub const MAX_SIZE: i64 = 1 << 48;

/// Fails when the product of `dims` (positive) is over [`MAX_SIZE`].
fn check_size(what: &str, dims: &[i64], unit: &str) -> Result<(), VerifyError> {
    let size = dims
        .iter()
        .try_fold(1i64, |n, &d| n.checked_mul(d.max(0)))
        .filter(|&n| n <= MAX_SIZE);
    match size {
        Some(_) => Ok(()),
        None => fail(format!(
            "{what} has more than 2^48 {unit}, the most rtile's passes model"
        )),
    }
}

/// The range `[lo, hi]` an affine expression takes over the box `0 <= d_i < extents[i]`
/// (interval arithmetic: exact for expressions where each dim occurs once, a sound
/// over-approximation otherwise). `None` for symbols, unknown dims or an empty domain.
pub fn expr_bounds(e: &AffineExpr, extents: &[i64]) -> Option<(i64, i64)> {
    Some(match e {
        AffineExpr::Dim(d) => {
            let n = *extents.get(*d as usize)?;
            if n <= 0 {
                return None;
            }
            (0, n - 1)
        }
        AffineExpr::Symbol(_) => return None,
        AffineExpr::Constant(c) => (*c, *c),
        AffineExpr::Add(a, b) => {
            let (a, b) = (expr_bounds(a, extents)?, expr_bounds(b, extents)?);
            (a.0.checked_add(b.0)?, a.1.checked_add(b.1)?)
        }
        AffineExpr::Mul(a, b) => {
            let (a, b) = (expr_bounds(a, extents)?, expr_bounds(b, extents)?);
            let c = [
                a.0.checked_mul(b.0)?,
                a.0.checked_mul(b.1)?,
                a.1.checked_mul(b.0)?,
                a.1.checked_mul(b.1)?,
            ];
            (*c.iter().min()?, *c.iter().max()?)
        }
        AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) | AffineExpr::Mod(a, b) => {
            let (lo, hi) = expr_bounds(a, extents)?;
            let c = b.as_constant().filter(|c| *c > 0)?;
            match e {
                AffineExpr::FloorDiv(..) => (floor_div(lo, c), floor_div(hi, c)),
                AffineExpr::CeilDiv(..) => (ceil_div(lo, c), ceil_div(hi, c)),
                _ => {
                    // Inside one period the remainder is monotone; otherwise anything.
                    if floor_div(lo, c) == floor_div(hi, c) {
                        (lo - floor_div(lo, c) * c, hi - floor_div(hi, c) * c)
                    } else {
                        (0, c - 1)
                    }
                }
            }
        }
    })
}

/// Verifies a compute.
pub fn verify(c: &TeCompute) -> Result<(), VerifyError> {
    // Domain: parallel axes first, positive extents, distinct names.
    let np = c.num_parallel();
    for (i, a) in c.axes.iter().enumerate() {
        if a.extent <= 0 {
            return fail(format!(
                "axis %{} has extent {}; extents must be positive",
                a.name, a.extent
            ));
        }
        if (i < np) != (a.kind == AxisKind::Parallel) {
            return fail(format!(
                "axis %{} : parallel axes must precede reduction axes",
                a.name
            ));
        }
        if c.axes[..i].iter().any(|b| b.name == a.name) {
            return fail(format!("axis %{} declared twice", a.name));
        }
    }
    let extents = c.extents();
    check_size("the iteration domain", &extents, "points")?;
    for (i, t) in c.inputs.iter().enumerate() {
        check_size(
            &format!("operand #{i} ({})", t.text()),
            &t.shape,
            "elements",
        )?;
    }
    check_size(
        &format!("the result ({})", c.result.text()),
        &c.result.shape,
        "elements",
    )?;
    // A padded domain records its original extents and needs the may_pad permission.
    if let Some(orig) = &c.padded_from {
        if c.may_pad.is_none() {
            return fail("a padded domain (padded_from) needs may_pad".into());
        }
        if orig.len() != extents.len() {
            return fail(format!(
                "padded_from has {} extents for {} axes",
                orig.len(),
                extents.len()
            ));
        }
        for (a, &o) in c.axes.iter().zip(orig) {
            if o <= 0 || o > a.extent {
                return fail(format!(
                    "axis %{} is padded from {o} to {}; the original extent must be in [1, {}]",
                    a.name, a.extent, a.extent
                ));
            }
        }
    }
    let valid = c.valid_extents();
    // Result: indexed by the parallel axes, with their (original) extents.
    if c.result.shape.len() != np {
        return fail(format!(
            "result has rank {} but the domain has {} parallel axes",
            c.result.shape.len(),
            np
        ));
    }
    for (i, (&r, &n)) in c.result.shape.iter().zip(&valid).enumerate() {
        if r != n {
            return fail(format!(
                "result dimension {i} is {r} but parallel axis %{} has extent {n}",
                c.axes[i].name
            ));
        }
    }
    // Combiner legality.
    let has_red = c.axes.len() > np;
    match (c.combiner, has_red) {
        (Some(k), false) => {
            return fail(format!("combiner `{}` without reduction axes", k.keyword()));
        }
        (None, true) => return fail("reduction axes without a combiner".into()),
        _ => {}
    }
    if c.result.elem == ElemType::I1 && c.combiner.is_some() {
        return fail("an i1 result cannot be reduced".into());
    }
    // Inputs all used, accesses well-formed and in bounds.
    for (i, a) in c.accesses.iter().enumerate() {
        let Some(t) = c.inputs.get(a.input) else {
            return fail_at(i, format!("reads input {} of {}", a.input, c.inputs.len()));
        };
        if a.map.num_dims as usize != c.axes.len() || a.map.num_symbols != 0 {
            return fail_at(
                i,
                format!(
                    "indexing map has {} dims and {} symbols; the domain has {} axes and no symbols",
                    a.map.num_dims,
                    a.map.num_symbols,
                    c.axes.len()
                ),
            );
        }
        if a.map.results.len() != t.shape.len() {
            return fail_at(
                i,
                format!(
                    "{} indices for a rank-{} tensor {}",
                    a.map.results.len(),
                    t.shape.len(),
                    t.text()
                ),
            );
        }
        for (j, e) in a.map.results.iter().enumerate() {
            if !e.is_pure_affine() || e.max_positions().0 as usize > c.axes.len() {
                return fail_at(i, format!("index {j} is not affine over the domain"));
            }
            if a.pad.is_some() {
                continue;
            }
            let Some((lo, hi)) = expr_bounds(e, &valid) else {
                return fail_at(i, format!("cannot bound index {j}"));
            };
            if lo < 0 || hi >= t.shape[j] {
                return fail_at(
                    i,
                    format!(
                        "index {j} ranges over [{lo}, {hi}] but dimension {j} of {} has extent {}; declare a pad value (`pad 0.0`) if out-of-bounds reads are intended",
                        t.text(),
                        t.shape[j]
                    ),
                );
            }
        }
        if let Some(p) = a.pad
            && !t.elem.is_float()
            && (p.fract() != 0.0 || !p.is_finite())
        {
            return fail_at(
                i,
                format!("pad value {p} is not a {} value", t.elem.keyword()),
            );
        }
    }
    for (k, _) in c.inputs.iter().enumerate() {
        if !c.accesses.iter().any(|a| a.input == k) {
            return fail(format!("input {k} is never read"));
        }
    }
    let mut used = vec![false; c.accesses.len()];
    let mut bad = None;
    c.body.for_each_access(&mut |i| match used.get_mut(i) {
        Some(u) => *u = true,
        None => bad = Some(i),
    });
    if let Some(i) = bad {
        return fail(format!("body reads access #{i} of {}", c.accesses.len()));
    }
    // Types.
    let Some(t) = c.body.ty(&c.access_types()) else {
        return fail("body is ill-typed (operands of one operation must share a type; math functions need floats)".into());
    };
    if let Some(a) = c.accumulator {
        verify_accumulator(c, a, t)?;
    } else if t != c.result.elem {
        return fail(format!(
            "body yields {} but the result element type is {}",
            t.keyword(),
            c.result.elem.keyword()
        ));
    }
    Ok(())
}

/// The legal mixed-precision reductions: a float accumulator at least as precise as the
/// float result (f32 accumulating f16/bf16 products into an f16, bf16 or f32 result, as
/// tensor cores do; f64 into anything narrower), with the body yielding the accumulator.
fn verify_accumulator(c: &TeCompute, acc: ElemType, body: ElemType) -> Result<(), VerifyError> {
    let (r, ak, rk) = (c.result.elem, acc.keyword(), c.result.elem.keyword());
    if c.combiner.is_none() {
        return fail(format!(
            "accumulator type {ak} without reduction axes; only a reduction accumulates"
        ));
    }
    if !acc.is_float() {
        return fail(format!(
            "accumulator type {ak} is not a float type (f16, bf16, f32 or f64)"
        ));
    }
    if !r.is_float() {
        return fail(format!(
            "a {rk} result cannot take a float accumulator ({ak})"
        ));
    }
    if r != acc && r.width() >= acc.width() {
        return fail(format!(
            "accumulator {ak} is not wider than the {rk} result; accumulate in a wider float type"
        ));
    }
    if body != acc {
        return fail(format!(
            "body yields {} but the accumulator type is {ak}; convert the operands, e.g. `{ak}(%A[...])`",
            body.keyword()
        ));
    }
    Ok(())
}
