//! Simplification of affine expressions over dims with known ranges `0 ≤ dᵢ < extentᵢ`
//! (an iteration domain): MLIR's `floordiv`/`mod` folding by multiples
//! (`simplifyFloorDiv`, `simplifyMod`) made range-aware, as `affine::simplifyAffineExpr`
//! is with a `FlatAffineValueConstraints`.
//!
//! An expression is read as a sum of terms `c · atom + k`, an atom being a dim or a
//! `floordiv`/`mod` by a positive constant of a simplified sum. Three rules apply:
//! - `(H + L) floordiv q = H / q + m` when every coefficient of `H` is a multiple of `q`
//!   and the range of `L` lies in `[m·q, (m+1)·q)`;
//! - `(H + L) mod q = L - m·q` under the same condition;
//! - `q · (x floordiv q) + x mod q = x` (a reshape's collapse read back through its expand).
//!
//! Anything else (symbols, `ceildiv`, products of dims, an unknown range) is kept as
//! written, its children simplified.

use super::affine::{AffineExpr, floor_div};
use std::collections::BTreeMap;

/// `e` simplified over dims `0 ≤ dᵢ < extents[i]`; equal to `e` at every point of that
/// domain.
pub fn simplify_in_domain(e: &AffineExpr, extents: &[i64]) -> AffineExpr {
    match Sum::of(e, extents) {
        Some(s) => s.to_expr(),
        None => simplify_children(e, extents),
    }
}

fn simplify_children(e: &AffineExpr, extents: &[i64]) -> AffineExpr {
    let s = |x: &AffineExpr| simplify_in_domain(x, extents);
    match e {
        AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Constant(_) => e.clone(),
        AffineExpr::Add(a, b) => AffineExpr::add(s(a), s(b)),
        AffineExpr::Mul(a, b) => AffineExpr::mul(s(a), s(b)),
        AffineExpr::FloorDiv(a, b) => AffineExpr::floordiv(s(a), s(b)),
        AffineExpr::CeilDiv(a, b) => AffineExpr::ceildiv(s(a), s(b)),
        AffineExpr::Mod(a, b) => AffineExpr::rem(s(a), s(b)),
    }
}

/// `Σ coef · atom + constant`; atoms are `Dim`, or `FloorDiv`/`Mod` of a simplified sum by
/// a positive constant.
#[derive(Clone, Debug, Default, PartialEq)]
struct Sum {
    terms: BTreeMap<AffineExpr, i64>,
    constant: i64,
}

impl Sum {
    /// The sum form of `e`, simplified; `None` when `e` has a symbol, a `ceildiv`, a
    /// product of two non-constants, a division by a non-positive or non-constant, or
    /// overflows.
    fn of(e: &AffineExpr, extents: &[i64]) -> Option<Sum> {
        Some(match e {
            AffineExpr::Dim(d) => {
                extents.get(*d as usize)?;
                Sum::atom(e.clone())
            }
            AffineExpr::Constant(c) => Sum {
                terms: BTreeMap::new(),
                constant: *c,
            },
            AffineExpr::Add(a, b) => Sum::of(a, extents)?.plus(&Sum::of(b, extents)?, 1)?,
            AffineExpr::Mul(a, b) => {
                let (sa, sb) = (Sum::of(a, extents)?, Sum::of(b, extents)?);
                match (sa.as_constant(), sb.as_constant()) {
                    (_, Some(k)) => sa.scaled(k)?,
                    (Some(k), None) => sb.scaled(k)?,
                    (None, None) => return None,
                }
            }
            AffineExpr::FloorDiv(a, b) => {
                let q = b.as_constant().filter(|&q| q > 0)?;
                Sum::of(a, extents)?.floordiv(q, extents)?
            }
            AffineExpr::Mod(a, b) => {
                let q = b.as_constant().filter(|&q| q > 0)?;
                Sum::of(a, extents)?.modulo(q, extents)?
            }
            AffineExpr::Symbol(_) | AffineExpr::CeilDiv(..) => return None,
        })
    }

    fn atom(a: AffineExpr) -> Sum {
        Sum {
            terms: BTreeMap::from([(a, 1)]),
            constant: 0,
        }
    }

    fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// `self + k · other`, with the recombination rule applied.
    fn plus(mut self, other: &Sum, k: i64) -> Option<Sum> {
        for (a, &c) in &other.terms {
            let e = self.terms.entry(a.clone()).or_insert(0);
            *e = e.checked_add(c.checked_mul(k)?)?;
        }
        self.terms.retain(|_, c| *c != 0);
        self.constant = self.constant.checked_add(other.constant.checked_mul(k)?)?;
        self.recombine()
    }

    fn scaled(&self, k: i64) -> Option<Sum> {
        Sum::default().plus(self, k)
    }

    /// Applies `q · (x floordiv q) + x mod q = x` while a pair is present:
    /// `c·q · (x floordiv q) + c · (x mod q)` becomes `c · x`.
    fn recombine(mut self) -> Option<Sum> {
        loop {
            let pair = self.terms.iter().find_map(|(a, &c)| {
                let AffineExpr::Mod(x, q) = a else {
                    return None;
                };
                let fd = AffineExpr::FloorDiv(x.clone(), q.clone());
                let cq = c.checked_mul(q.as_constant()?)?;
                (self.terms.get(&fd) == Some(&cq)).then(|| (a.clone(), fd, (**x).clone(), c))
            });
            let Some((m, fd, x, c)) = pair else {
                return Some(self);
            };
            self.terms.remove(&m);
            self.terms.remove(&fd);
            // `x` came from a simplified sum: its atoms are read back as they are.
            self = self.plus(&Sum::of_atoms(&x)?, c)?;
        }
    }

    /// `x` as a sum whose atoms are taken as they are (no dim bound check): `x` came
    /// from [`Sum::to_expr`].
    fn of_atoms(x: &AffineExpr) -> Option<Sum> {
        match x {
            AffineExpr::Add(a, b) => Sum::of_atoms(a)?.plus(&Sum::of_atoms(b)?, 1),
            AffineExpr::Mul(a, b) => {
                let k = b.as_constant()?;
                Sum::of_atoms(a)?.scaled(k)
            }
            AffineExpr::Constant(c) => Some(Sum {
                terms: BTreeMap::new(),
                constant: *c,
            }),
            _ => Some(Sum::atom(x.clone())),
        }
    }

    /// The sum split into the terms whose coefficients are multiples of `q` (divided by
    /// `q`) and the rest (with the constant).
    fn split(&self, q: i64) -> (Sum, Sum) {
        let (mut high, mut low) = (Sum::default(), Sum::default());
        for (a, &c) in &self.terms {
            if c % q == 0 {
                high.terms.insert(a.clone(), c / q);
            } else {
                low.terms.insert(a.clone(), c);
            }
        }
        low.constant = self.constant;
        (high, low)
    }

    /// The quotient bucket `m` with `low ∈ [m·q, (m+1)·q)` on the whole domain, if one.
    fn bucket(low: &Sum, q: i64, extents: &[i64]) -> Option<i64> {
        let (lo, hi) = low.range(extents)?;
        let m = floor_div(lo, q);
        (floor_div(hi, q) == m).then_some(m)
    }

    fn floordiv(&self, q: i64, extents: &[i64]) -> Option<Sum> {
        let (mut high, low) = self.split(q);
        match Sum::bucket(&low, q, extents) {
            Some(m) => {
                high.constant = m;
                Some(high)
            }
            // `(q·H + L) floordiv q = H + L floordiv q`: the same `L` as `mod q` keeps, so
            // that the recombination rule sees the pair.
            None => high.plus(
                &Sum::atom(AffineExpr::FloorDiv(
                    Box::new(low.to_expr()),
                    Box::new(AffineExpr::Constant(q)),
                )),
                1,
            ),
        }
    }

    fn modulo(&self, q: i64, extents: &[i64]) -> Option<Sum> {
        let (_, low) = self.split(q);
        match Sum::bucket(&low, q, extents) {
            Some(m) => low.plus(
                &Sum {
                    terms: BTreeMap::new(),
                    constant: m.checked_mul(q)?,
                },
                -1,
            ),
            // The multiples of `q` drop out of a `mod q`.
            None => Some(Sum::atom(AffineExpr::Mod(
                Box::new(low.to_expr()),
                Box::new(AffineExpr::Constant(q)),
            ))),
        }
    }

    /// `[min, max]` of the sum over the domain; `None` when an atom's range is unknown.
    fn range(&self, extents: &[i64]) -> Option<(i64, i64)> {
        let (mut lo, mut hi) = (self.constant, self.constant);
        for (a, &c) in &self.terms {
            let (alo, ahi) = atom_range(a, extents)?;
            let (x, y) = (alo.checked_mul(c)?, ahi.checked_mul(c)?);
            lo = lo.checked_add(x.min(y))?;
            hi = hi.checked_add(x.max(y))?;
        }
        Some((lo, hi))
    }

    fn to_expr(&self) -> AffineExpr {
        let mut e = AffineExpr::Constant(0);
        for (a, &c) in &self.terms {
            e = AffineExpr::add(e, AffineExpr::mul(a.clone(), AffineExpr::Constant(c)));
        }
        AffineExpr::add(e, AffineExpr::Constant(self.constant))
    }
}

/// `[min, max]` of an atom over the domain.
fn atom_range(a: &AffineExpr, extents: &[i64]) -> Option<(i64, i64)> {
    match a {
        AffineExpr::Dim(d) => {
            let &n = extents.get(*d as usize)?;
            (n > 0).then_some((0, n - 1))
        }
        AffineExpr::FloorDiv(x, q) => {
            let q = q.as_constant()?;
            let (lo, hi) = Sum::of_atoms(x)?.range(extents)?;
            Some((floor_div(lo, q), floor_div(hi, q)))
        }
        AffineExpr::Mod(_, q) => Some((0, q.as_constant()? - 1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(i: u32) -> AffineExpr {
        AffineExpr::dim(i)
    }
    fn k(c: i64) -> AffineExpr {
        AffineExpr::constant(c)
    }
    fn lin(a: AffineExpr, c: i64, b: AffineExpr) -> AffineExpr {
        AffineExpr::add(AffineExpr::mul(a, k(c)), b)
    }

    #[test]
    fn a_collapse_read_through_its_expand_is_the_index() {
        // (i*16 + j) floordiv 16 = i and mod 16 = j for j < 16.
        let flat = lin(d(0), 16, d(1));
        let ext = [8, 16];
        let fd = AffineExpr::floordiv(flat.clone(), k(16));
        let md = AffineExpr::rem(flat.clone(), k(16));
        assert_eq!(simplify_in_domain(&fd, &ext), d(0));
        assert_eq!(simplify_in_domain(&md, &ext), d(1));
        // With j up to 31, the multiple of 16 still leaves the division.
        assert_eq!(
            simplify_in_domain(&fd, &[8, 32]),
            AffineExpr::add(d(0), AffineExpr::floordiv(d(1), k(16)))
        );
        assert_eq!(
            simplify_in_domain(&md, &[8, 32]),
            AffineExpr::rem(d(1), k(16))
        );
    }

    #[test]
    fn an_expand_read_through_its_collapse_is_the_index() {
        // (x floordiv 16) * 16 + x mod 16 = x, whatever x's range.
        let x = d(0);
        let e = lin(
            AffineExpr::floordiv(x.clone(), k(16)),
            16,
            AffineExpr::rem(x.clone(), k(16)),
        );
        assert_eq!(simplify_in_domain(&e, &[100]), x);
        // Nested groups: ((x floordiv 4) mod 8) * 4 + x mod 4 stays (it is x mod 32).
        let e = lin(
            AffineExpr::rem(AffineExpr::floordiv(x.clone(), k(4)), k(8)),
            4,
            AffineExpr::rem(x.clone(), k(4)),
        );
        let s = simplify_in_domain(&e, &[32]);
        assert_eq!(s, x, "x < 32: (x floordiv 4) mod 8 = x floordiv 4");
    }

    #[test]
    fn offsets_pick_their_bucket() {
        // (i*16 + j + 32) floordiv 16 = i + 2; (i*16 + j + 32) mod 16 = j.
        let e = AffineExpr::add(lin(d(0), 16, d(1)), k(32));
        assert_eq!(
            simplify_in_domain(&AffineExpr::floordiv(e.clone(), k(16)), &[4, 16]),
            AffineExpr::add(d(0), k(2))
        );
        assert_eq!(
            simplify_in_domain(&AffineExpr::rem(e, k(16)), &[4, 16]),
            d(1)
        );
    }

    #[test]
    fn what_it_cannot_read_is_kept() {
        let e = AffineExpr::floordiv(AffineExpr::symbol(0), k(4));
        assert_eq!(simplify_in_domain(&e, &[4]), e);
        let e = AffineExpr::ceildiv(d(0), k(4));
        assert_eq!(simplify_in_domain(&e, &[4]), e);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// The simplified expression equals the original at every point of the domain.
        #[test]
        fn simplification_keeps_every_value(
            ext in proptest::collection::vec(1i64..12, 2),
            c in proptest::collection::vec(-3i64..20, 2),
            off in -5i64..40,
            q1 in 1i64..20,
            q2 in 1i64..20,
            shape in 0u8..4,
        ) {
            let base = AffineExpr::add(lin(d(0), c[0], AffineExpr::mul(d(1), k(c[1]))), k(off));
            let e = match shape {
                0 => AffineExpr::floordiv(base, k(q1)),
                1 => AffineExpr::rem(base, k(q1)),
                2 => AffineExpr::rem(AffineExpr::floordiv(base, k(q1)), k(q2)),
                _ => lin(
                    AffineExpr::floordiv(base.clone(), k(q1)),
                    q1,
                    AffineExpr::rem(base, k(q1)),
                ),
            };
            let s = simplify_in_domain(&e, &ext);
            for i in 0..ext[0] {
                for j in 0..ext[1] {
                    prop_assert_eq!(s.eval(&[i, j], &[]), e.eval(&[i, j], &[]), "{:?} vs {:?}", s, e);
                }
            }
        }
    }
}
