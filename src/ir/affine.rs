//! Affine expressions, maps and integer sets (mlir/IR/AffineExpr.h, AffineMap.h,
//! IntegerSet.h). Constructors apply MLIR's light canonicalisation (constant folding,
//! constants on the right of `+` and `*`, `x + 0` and `x * 1` dropped) so that printing
//! matches what mlir-opt prints for the same map.

/// An affine expression over dims `d0..` and symbols `s0..`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AffineExpr {
    Dim(u32),
    Symbol(u32),
    Constant(i64),
    Add(Box<AffineExpr>, Box<AffineExpr>),
    Mul(Box<AffineExpr>, Box<AffineExpr>),
    FloorDiv(Box<AffineExpr>, Box<AffineExpr>),
    CeilDiv(Box<AffineExpr>, Box<AffineExpr>),
    Mod(Box<AffineExpr>, Box<AffineExpr>),
}

/// Floor division that rounds towards negative infinity, as affine `floordiv`.
pub fn floor_div(a: i64, b: i64) -> i64 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// Ceiling division, as affine `ceildiv`.
pub fn ceil_div(a: i64, b: i64) -> i64 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    }
}

/// Modulo with a non-negative result for a positive divisor, as affine `mod`.
pub fn modulo(a: i64, b: i64) -> i64 {
    let r = a % b;
    if r < 0 { r + b.abs() } else { r }
}

impl AffineExpr {
    /// `dN`.
    pub fn dim(i: u32) -> Self {
        AffineExpr::Dim(i)
    }
    /// `sN`.
    pub fn symbol(i: u32) -> Self {
        AffineExpr::Symbol(i)
    }
    /// A constant.
    pub fn constant(c: i64) -> Self {
        AffineExpr::Constant(c)
    }

    /// The constant value, if this is a constant.
    pub fn as_constant(&self) -> Option<i64> {
        match self {
            AffineExpr::Constant(c) => Some(*c),
            _ => None,
        }
    }

    /// True when the expression is built only from dims, symbols, constants, `+` and `*`
    /// by constants (MLIR's "pure affine" without div/mod).
    pub fn is_pure_affine(&self) -> bool {
        match self {
            AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Constant(_) => true,
            AffineExpr::Add(a, b) => a.is_pure_affine() && b.is_pure_affine(),
            AffineExpr::Mul(a, b) => {
                a.is_pure_affine()
                    && b.is_pure_affine()
                    && (a.as_constant().is_some() || b.as_constant().is_some())
            }
            AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) | AffineExpr::Mod(a, b) => {
                a.is_pure_affine() && b.as_constant().is_some()
            }
        }
    }

    /// `a + b`, folded.
    #[allow(clippy::should_implement_trait)]
    pub fn add(a: AffineExpr, b: AffineExpr) -> AffineExpr {
        match (a.as_constant(), b.as_constant()) {
            (Some(x), Some(y)) => AffineExpr::Constant(x.wrapping_add(y)),
            (Some(0), None) => b,
            (None, Some(0)) => a,
            // Constants go on the right, as MLIR canonicalises them.
            (Some(_), None) => AffineExpr::add(b, a),
            _ => {
                // (x + c1) + c2 -> x + (c1 + c2)
                if let (AffineExpr::Add(x, c1), Some(c2)) = (&a, b.as_constant())
                    && let Some(c1) = c1.as_constant()
                {
                    return AffineExpr::add(
                        (**x).clone(),
                        AffineExpr::Constant(c1.wrapping_add(c2)),
                    );
                }
                AffineExpr::Add(Box::new(a), Box::new(b))
            }
        }
    }

    /// `a * b`, folded.
    #[allow(clippy::should_implement_trait)]
    pub fn mul(a: AffineExpr, b: AffineExpr) -> AffineExpr {
        match (a.as_constant(), b.as_constant()) {
            (Some(x), Some(y)) => AffineExpr::Constant(x.wrapping_mul(y)),
            (Some(1), None) => b,
            (None, Some(1)) => a,
            (Some(_), None) => AffineExpr::mul(b, a),
            _ => AffineExpr::Mul(Box::new(a), Box::new(b)),
        }
    }

    /// `a - b`, as MLIR represents it: `a + b * -1`.
    #[allow(clippy::should_implement_trait)]
    pub fn sub(a: AffineExpr, b: AffineExpr) -> AffineExpr {
        AffineExpr::add(a, AffineExpr::mul(b, AffineExpr::Constant(-1)))
    }

    /// `a floordiv b`, folded when both are constant and b != 0.
    pub fn floordiv(a: AffineExpr, b: AffineExpr) -> AffineExpr {
        match (a.as_constant(), b.as_constant()) {
            (Some(x), Some(y)) if y != 0 => AffineExpr::Constant(floor_div(x, y)),
            (None, Some(1)) => a,
            _ => AffineExpr::FloorDiv(Box::new(a), Box::new(b)),
        }
    }

    /// `a ceildiv b`, folded when both are constant and b != 0.
    pub fn ceildiv(a: AffineExpr, b: AffineExpr) -> AffineExpr {
        match (a.as_constant(), b.as_constant()) {
            (Some(x), Some(y)) if y != 0 => AffineExpr::Constant(ceil_div(x, y)),
            (None, Some(1)) => a,
            _ => AffineExpr::CeilDiv(Box::new(a), Box::new(b)),
        }
    }

    /// `a mod b`, folded when both are constant and b != 0.
    #[allow(clippy::should_implement_trait)]
    pub fn rem(a: AffineExpr, b: AffineExpr) -> AffineExpr {
        match (a.as_constant(), b.as_constant()) {
            (Some(x), Some(y)) if y != 0 => AffineExpr::Constant(modulo(x, y)),
            (None, Some(1)) => AffineExpr::Constant(0),
            _ => AffineExpr::Mod(Box::new(a), Box::new(b)),
        }
    }

    /// Evaluates with concrete dims and symbols; `None` on division by zero or an
    /// out-of-range position.
    pub fn eval(&self, dims: &[i64], syms: &[i64]) -> Option<i64> {
        Some(match self {
            AffineExpr::Dim(i) => *dims.get(*i as usize)?,
            AffineExpr::Symbol(i) => *syms.get(*i as usize)?,
            AffineExpr::Constant(c) => *c,
            AffineExpr::Add(a, b) => a.eval(dims, syms)?.wrapping_add(b.eval(dims, syms)?),
            AffineExpr::Mul(a, b) => a.eval(dims, syms)?.wrapping_mul(b.eval(dims, syms)?),
            AffineExpr::FloorDiv(a, b) => {
                let d = b.eval(dims, syms)?;
                if d == 0 {
                    return None;
                }
                floor_div(a.eval(dims, syms)?, d)
            }
            AffineExpr::CeilDiv(a, b) => {
                let d = b.eval(dims, syms)?;
                if d == 0 {
                    return None;
                }
                ceil_div(a.eval(dims, syms)?, d)
            }
            AffineExpr::Mod(a, b) => {
                let d = b.eval(dims, syms)?;
                if d == 0 {
                    return None;
                }
                modulo(a.eval(dims, syms)?, d)
            }
        })
    }

    /// `Σ coeff·d_i + constant` of the expression over `num_dims` dims, as (one coefficient
    /// per dim, constant), when it is linear in the dims: dims, constants, sums and
    /// products by a constant. `None` for symbols, divisions, `mod`, a dim at or past
    /// `num_dims`, or arithmetic that overflows i64.
    pub fn linear_form(&self, num_dims: usize) -> Option<(Vec<i64>, i64)> {
        Some(match self {
            AffineExpr::Dim(d) => {
                let mut v = vec![0; num_dims];
                *v.get_mut(*d as usize)? = 1;
                (v, 0)
            }
            AffineExpr::Constant(c) => (vec![0; num_dims], *c),
            AffineExpr::Add(a, b) => {
                let (va, ca) = a.linear_form(num_dims)?;
                let (vb, cb) = b.linear_form(num_dims)?;
                let v = va
                    .iter()
                    .zip(&vb)
                    .map(|(x, y)| x.checked_add(*y))
                    .collect::<Option<Vec<_>>>()?;
                (v, ca.checked_add(cb)?)
            }
            AffineExpr::Mul(a, b) => {
                let (va, ca) = a.linear_form(num_dims)?;
                let (vb, cb) = b.linear_form(num_dims)?;
                // Affine: one side is a constant (either side, canonical or not).
                let (v, c, k) = if va.iter().all(|&x| x == 0) {
                    (vb, cb, ca)
                } else if vb.iter().all(|&x| x == 0) {
                    (va, ca, cb)
                } else {
                    return None;
                };
                let v = v
                    .iter()
                    .map(|x| x.checked_mul(k))
                    .collect::<Option<Vec<_>>>()?;
                (v, c.checked_mul(k)?)
            }
            AffineExpr::Symbol(_)
            | AffineExpr::FloorDiv(..)
            | AffineExpr::CeilDiv(..)
            | AffineExpr::Mod(..) => return None,
        })
    }

    /// Every dim occurrence, left to right (a dim used twice is listed twice).
    pub fn dim_occurrences(&self) -> Vec<u32> {
        let mut out = Vec::new();
        self.walk_dims(&mut |d| out.push(d));
        out
    }

    /// Whether dim `d` occurs in the expression.
    pub fn uses_dim(&self, d: u32) -> bool {
        match self {
            AffineExpr::Dim(x) => *x == d,
            AffineExpr::Symbol(_) | AffineExpr::Constant(_) => false,
            AffineExpr::Add(a, b)
            | AffineExpr::Mul(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b)
            | AffineExpr::Mod(a, b) => a.uses_dim(d) || b.uses_dim(d),
        }
    }

    fn walk_dims(&self, f: &mut impl FnMut(u32)) {
        match self {
            AffineExpr::Dim(d) => f(*d),
            AffineExpr::Symbol(_) | AffineExpr::Constant(_) => {}
            AffineExpr::Add(a, b)
            | AffineExpr::Mul(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b)
            | AffineExpr::Mod(a, b) => {
                a.walk_dims(f);
                b.walk_dims(f);
            }
        }
    }

    /// Largest dim position used plus one, and likewise for symbols.
    pub fn max_positions(&self) -> (u32, u32) {
        match self {
            AffineExpr::Dim(i) => (i + 1, 0),
            AffineExpr::Symbol(i) => (0, i + 1),
            AffineExpr::Constant(_) => (0, 0),
            AffineExpr::Add(a, b)
            | AffineExpr::Mul(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b)
            | AffineExpr::Mod(a, b) => {
                let (ad, as_) = a.max_positions();
                let (bd, bs) = b.max_positions();
                (ad.max(bd), as_.max(bs))
            }
        }
    }
}

/// `(d0, ..)[s0, ..] -> (e0, ..)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AffineMap {
    pub num_dims: u32,
    pub num_symbols: u32,
    pub results: Vec<AffineExpr>,
}

impl AffineMap {
    /// A map with the given results.
    pub fn new(num_dims: u32, num_symbols: u32, results: Vec<AffineExpr>) -> Self {
        AffineMap {
            num_dims,
            num_symbols,
            results,
        }
    }
    /// `(d0, .., dn-1) -> (d0, .., dn-1)`.
    pub fn identity(n: u32) -> Self {
        AffineMap::new(n, 0, (0..n).map(AffineExpr::Dim).collect())
    }
    /// Evaluates every result.
    pub fn eval(&self, dims: &[i64], syms: &[i64]) -> Option<Vec<i64>> {
        self.results.iter().map(|e| e.eval(dims, syms)).collect()
    }
    /// True when every result is `d_i` for result position `i` and there are as many
    /// results as dims.
    pub fn is_identity(&self) -> bool {
        self.num_symbols == 0
            && self.results.len() == self.num_dims as usize
            && self
                .results
                .iter()
                .enumerate()
                .all(|(i, e)| *e == AffineExpr::Dim(i as u32))
    }
}

/// `(d0)[s0] : (d0 - s0 >= 0, d0 == 0)`: constraints are `expr >= 0` or `expr == 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IntegerSet {
    pub num_dims: u32,
    pub num_symbols: u32,
    /// Each constraint with `true` for an equality (`== 0`), `false` for `>= 0`.
    pub constraints: Vec<(AffineExpr, bool)>,
}

#[cfg(test)]
mod tests {
    use super::AffineExpr as E;

    fn raw_mul(a: E, b: E) -> E {
        E::Mul(Box::new(a), Box::new(b))
    }

    #[test]
    fn linear_forms() {
        // d0 * 4 + d2 + 3 over 3 dims.
        let e = E::add(
            E::add(E::mul(E::dim(0), E::constant(4)), E::dim(2)),
            E::constant(3),
        );
        assert_eq!(e.linear_form(3), Some((vec![4, 0, 1], 3)));
        // A constant on the left of a product counts too.
        assert_eq!(
            raw_mul(E::constant(2), E::dim(1)).linear_form(2),
            Some((vec![0, 2], 0))
        );
        assert_eq!(raw_mul(E::dim(0), E::dim(1)).linear_form(2), None);
        assert_eq!(E::dim(3).linear_form(2), None);
        assert_eq!(E::floordiv(E::dim(0), E::constant(2)).linear_form(1), None);
        assert_eq!(E::symbol(0).linear_form(1), None);
        let big = raw_mul(E::dim(0), E::constant(i64::MAX));
        assert_eq!(raw_mul(big, E::constant(2)).linear_form(1), None);
    }

    #[test]
    fn dims_used() {
        let e = E::add(
            E::floordiv(E::dim(2), E::constant(4)),
            E::mul(E::dim(0), E::dim(2)),
        );
        assert_eq!(e.dim_occurrences(), vec![2, 0, 2]);
        assert!(e.uses_dim(0) && e.uses_dim(2) && !e.uses_dim(1));
        assert!(!E::symbol(0).uses_dim(0));
    }
}
