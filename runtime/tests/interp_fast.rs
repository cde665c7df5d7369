//! The compiled evaluator (`eval_compute`) against the point-by-point reference
//! (`eval_compute_reference`): bit-identical results, or the same error, in both modes,
//! on random computes with pads (in and out of bounds), strides, broadcasts, negative
//! and floordiv/mod indices, padded domains, every combiner and element type; and a
//! convolution whose rows are longer than one lane block, against a naive loop nest.

use proptest::prelude::*;
use rtile::ir::{AffineExpr, AffineMap};
use rtile_dialects::te::model::{
    Access, Axis, AxisKind, BinOp, CmpOp, Combiner, ElemType, Expr, MayPad, TeCompute, TensorType,
    UnOp,
};
use rtile_runtime::interp::fast;
use rtile_runtime::{Accumulate, SplitMix64, Tensor, eval_compute, eval_compute_reference};

const TYPES: [ElemType; 6] = [
    ElemType::F32,
    ElemType::F16,
    ElemType::BF16,
    ElemType::F64,
    ElemType::I32,
    ElemType::I8,
];

struct Gen(SplitMix64);

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        self.0.next_u64() % n
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        self.0.next_range(lo, hi)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    /// One index: `Σ c·d + k` over a few dims, sometimes floordiv/mod by a constant.
    fn index(&mut self, n: usize) -> AffineExpr {
        let mut e = AffineExpr::Constant(self.range(-2, 2));
        for d in 0..n {
            if self.chance(45) {
                let c = self.pick(&[1, 1, 1, 2, -1, 3]);
                let term = if c == 1 {
                    AffineExpr::Dim(d as u32)
                } else {
                    AffineExpr::Mul(
                        Box::new(AffineExpr::Dim(d as u32)),
                        Box::new(AffineExpr::Constant(c)),
                    )
                };
                e = AffineExpr::Add(Box::new(term), Box::new(e));
            }
        }
        if self.chance(12) {
            let k = Box::new(AffineExpr::Constant(self.range(2, 3)));
            e = if self.chance(50) {
                AffineExpr::FloorDiv(Box::new(e), k)
            } else {
                AffineExpr::Mod(Box::new(e), k)
            };
        }
        e
    }

    /// A value of type `ty` built from accesses of the types in `tys`.
    fn expr(&mut self, ty: ElemType, tys: &[ElemType], depth: u32) -> Expr {
        let same: Vec<usize> = (0..tys.len()).filter(|&i| tys[i] == ty).collect();
        if depth == 0 || self.chance(25) {
            if !same.is_empty() && self.chance(80) {
                return Expr::Access(self.pick(&same));
            }
            if !tys.is_empty() && self.chance(50) {
                let i = self.below(tys.len() as u64) as usize;
                return Expr::Cast(ty, Box::new(Expr::Access(i)));
            }
            let v = if ty.is_float() {
                self.pick(&[0.5, -1.25, 3.0, 0.1, 0.0, 1e-3])
            } else {
                self.range(-5, 5) as f64
            };
            return Expr::Const(v, ty);
        }
        let d = depth - 1;
        match self.below(6) {
            0 | 1 => {
                let op = self.pick(&[
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Mul,
                    BinOp::Div,
                    BinOp::Max,
                    BinOp::Min,
                ]);
                Expr::Binary(
                    op,
                    Box::new(self.expr(ty, tys, d)),
                    Box::new(self.expr(ty, tys, d)),
                )
            }
            2 => {
                let op = if ty.is_float() {
                    self.pick(&[
                        UnOp::Neg,
                        UnOp::Exp,
                        UnOp::Log,
                        UnOp::Sqrt,
                        UnOp::Rsqrt,
                        UnOp::Tanh,
                        UnOp::Erf,
                        UnOp::Abs,
                    ])
                } else {
                    self.pick(&[UnOp::Neg, UnOp::Abs])
                };
                Expr::Unary(op, Box::new(self.expr(ty, tys, d)))
            }
            3 => {
                let ct = self.pick(&TYPES);
                let cmp = self.pick(&[
                    CmpOp::Eq,
                    CmpOp::Ne,
                    CmpOp::Lt,
                    CmpOp::Le,
                    CmpOp::Gt,
                    CmpOp::Ge,
                ]);
                let c = Expr::Cmp(
                    cmp,
                    Box::new(self.expr(ct, tys, d)),
                    Box::new(self.expr(ct, tys, d)),
                );
                if self.chance(20) {
                    // An i1 cast back to the type (uitofp / extui).
                    return Expr::Cast(ty, Box::new(c));
                }
                Expr::Select(
                    Box::new(c),
                    Box::new(self.expr(ty, tys, d)),
                    Box::new(self.expr(ty, tys, d)),
                )
            }
            _ => {
                let from = self.pick(&TYPES);
                Expr::Cast(ty, Box::new(self.expr(from, tys, d)))
            }
        }
    }
}

/// A random compute with its inputs.
/// The largest input [`random_compute`] draws, in elements.
const MAX_INPUT_ELEMS: i64 = 1 << 20;

fn random_compute(seed: u64) -> (TeCompute, Vec<Tensor>) {
    let mut g = Gen(SplitMix64(seed));
    let np = g.below(4) as usize;
    let nr = g.below(3) as usize;
    let mut extents: Vec<i64> = (0..np + nr).map(|_| g.pick(&[1, 2, 3, 4, 5, 7])).collect();
    // Sometimes a long lane axis (more than one lane block).
    if np > 0 && g.chance(10) {
        extents[np - 1] = g.pick(&[257, 300]);
        for e in &mut extents[..np - 1] {
            *e = 1;
        }
    }
    let n = extents.len();
    let axes: Vec<Axis> = extents
        .iter()
        .enumerate()
        .map(|(d, &e)| Axis {
            name: format!("d{d}"),
            extent: e,
            kind: if d < np {
                AxisKind::Parallel
            } else {
                AxisKind::Reduction
            },
        })
        .collect();
    let naccess = 1 + g.below(3) as usize;
    let mut inputs = Vec::new();
    let mut accesses = Vec::new();
    for i in 0..naccess {
        // Drawn again while the tensor would exceed `MAX_INPUT_ELEMS` (a long lane axis
        // in every dim of a rank-3 input is some 50 M elements, seconds of random data
        // for a few hundred reads).
        let (exprs, shape) = loop {
            let rank = g.below(4) as usize;
            let exprs: Vec<AffineExpr> = (0..rank).map(|_| g.index(n)).collect();
            // Sizes around the range the index takes, so some reads leave the tensor.
            let shape: Vec<i64> = exprs
                .iter()
                .map(|e| {
                    let hi = max_over(e, &extents);
                    (hi + 1 - g.range(0, 1)).max(1)
                })
                .collect();
            if shape.iter().product::<i64>() <= MAX_INPUT_ELEMS {
                break (exprs, shape);
            }
        };
        let ty = g.pick(&TYPES);
        inputs.push(TensorType::new(shape, ty));
        let pad = if g.chance(85) {
            Some(g.pick(&[0.0, -1.0, 2.5, f64::NEG_INFINITY]))
        } else {
            None
        };
        accesses.push(Access {
            input: i,
            map: AffineMap::new(n as u32, 0, exprs),
            pad,
        });
    }
    let tys: Vec<ElemType> = inputs.iter().map(|t| t.elem).collect();
    let result_ty = g.pick(&TYPES);
    let depth = g.below(4) as u32;
    let combiner =
        (nr > 0).then(|| g.pick(&[Combiner::Sum, Combiner::Max, Combiner::Min, Combiner::Prod]));
    // Sometimes a mixed-precision reduction: a wider float accumulator (or the result's
    // own type, spelt out), the body yielding it.
    let accumulator = if combiner.is_some() && result_ty.is_float() && g.chance(30) {
        let wider: Vec<ElemType> = [ElemType::F32, ElemType::F64]
            .into_iter()
            .filter(|&a| a == result_ty || a.width() > result_ty.width())
            .collect();
        Some(g.pick(&wider))
    } else {
        None
    };
    let body = g.expr(accumulator.unwrap_or(result_ty), &tys, depth);
    let (padded_from, may_pad) = if g.chance(20) {
        let orig: Vec<i64> = extents
            .iter()
            .map(|&e| (e - g.range(0, 2)).max(1))
            .collect();
        (
            Some(orig),
            Some(MayPad {
                value: g.pick(&[0.0, 1.0, -0.5]),
            }),
        )
    } else {
        (None, None)
    };
    let c = TeCompute {
        axes,
        inputs: inputs.clone(),
        accesses,
        body,
        combiner,
        result: TensorType::new(extents[..np].to_vec(), result_ty),
        may_pad,
        padded_from,
        accumulator,
    };
    let mut values = Tensor::random_inputs(&inputs, seed ^ 0x5eed);
    // Ints in [-8, 8] make i8 products wrap; a few large floats make f16 overflow.
    for t in &mut values {
        if t.dtype.is_float() && g.chance(30) {
            for v in t.data.iter_mut().step_by(3) {
                *v = rtile_runtime::round::round_to(*v * 7.0e4, t.dtype);
            }
        }
    }
    (c, values)
}

/// The largest value of a linear index over the domain (non-linear: its constant part
/// is a fine size hint).
fn max_over(e: &AffineExpr, extents: &[i64]) -> i64 {
    match e.linear_form(extents.len()) {
        Some((coef, k)) => {
            k + coef
                .iter()
                .zip(extents)
                .map(|(&c, &x)| (c * (x - 1)).max(0))
                .sum::<i64>()
        }
        None => 3,
    }
}

fn same(a: &Result<Tensor, String>, b: &Result<Tensor, String>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x.bit_identical(y),
        (Err(x), Err(y)) => x == y,
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn compiled_matches_reference(seed in any::<u64>()) {
        let (c, ins) = random_compute(seed);
        let refs: Vec<&Tensor> = ins.iter().collect();
        for mode in [Accumulate::Native, Accumulate::F64] {
            let want = eval_compute_reference(&c, &ins, mode);
            // The compiled path itself (no fallback): it must compute every case the
            // reference computes, and give up exactly where the reference fails.
            let fast = fast::eval(&c, &refs, mode);
            prop_assert_eq!(want.is_ok(), fast.is_ok(), "{:?} {:?}\nreference {:?}", mode, c, want);
            if let (Ok(w), Ok(f)) = (&want, &fast) {
                prop_assert!(w.bit_identical(f), "{mode:?} {c:?}\nreference {w:?}\ncompiled {f:?}");
            }
            // The public entry point, errors worded by the reference.
            let got = eval_compute(&c, &ins, mode);
            prop_assert!(same(&want, &got), "{mode:?} {c:?}\nreference {want:?}\ncompiled {got:?}");
        }
    }
}

/// The random computes reach every case: successes, errors, pads and masks.
#[test]
fn generator_covers_the_cases() {
    let (mut ok, mut err, mut padded) = (0, 0, 0);
    for seed in 0..400 {
        let (c, ins) = random_compute(seed);
        padded += usize::from(c.padded_from.is_some());
        match eval_compute(&c, &ins, Accumulate::Native) {
            Ok(_) => ok += 1,
            Err(_) => err += 1,
        }
    }
    assert!(
        ok > 200 && err > 10 && padded > 40,
        "ok {ok} err {err} padded {padded}"
    );
}

/// A 3x3 convolution, stride 2, zero padding 1, with output rows of 300 (two lane
/// blocks), against a loop nest written without te, in f32 (native) and f64.
#[test]
fn strided_padded_conv_matches_a_loop_nest() {
    let (ci, co, h, w) = (3i64, 2i64, 5i64, 599i64);
    let (oh, ow) = ((h + 2 - 3) / 2 + 1, (w + 2 - 3) / 2 + 1);
    assert_eq!(ow, 300);
    let dim = |d: u32| AffineExpr::Dim(d);
    let lin = |terms: &[(u32, i64)], k: i64| {
        terms.iter().fold(AffineExpr::Constant(k), |e, &(d, c)| {
            AffineExpr::Add(
                Box::new(AffineExpr::Mul(
                    Box::new(dim(d)),
                    Box::new(AffineExpr::Constant(c)),
                )),
                Box::new(e),
            )
        })
    };
    // Domain: f, y, x | c, ry, rx.
    let ext = [co, oh, ow, ci, 3, 3];
    let axes = ext
        .iter()
        .enumerate()
        .map(|(d, &e)| Axis {
            name: format!("d{d}"),
            extent: e,
            kind: if d < 3 {
                AxisKind::Parallel
            } else {
                AxisKind::Reduction
            },
        })
        .collect();
    let f32t = |s: &[i64]| TensorType::new(s.to_vec(), ElemType::F32);
    let c = TeCompute {
        axes,
        inputs: vec![f32t(&[ci, h, w]), f32t(&[co, ci, 3, 3])],
        accesses: vec![
            Access {
                input: 0,
                map: AffineMap::new(
                    6,
                    0,
                    vec![
                        dim(3),
                        lin(&[(1, 2), (4, 1)], -1),
                        lin(&[(2, 2), (5, 1)], -1),
                    ],
                ),
                pad: Some(0.0),
            },
            Access {
                input: 1,
                map: AffineMap::new(6, 0, vec![dim(0), dim(3), dim(4), dim(5)]),
                pad: None,
            },
        ],
        body: Expr::Binary(
            BinOp::Mul,
            Box::new(Expr::Access(0)),
            Box::new(Expr::Access(1)),
        ),
        combiner: Some(Combiner::Sum),
        result: f32t(&[co, oh, ow]),
        may_pad: None,
        padded_from: None,
        accumulator: None,
    };
    let ins = Tensor::random_inputs(&c.inputs, 11);
    let (d, k) = (&ins[0], &ins[1]);
    let at = |t: &Tensor, i: &[i64]| -> f64 {
        let st = t.strides();
        t.data[i.iter().zip(&st).map(|(a, b)| a * b).sum::<i64>() as usize]
    };
    for (mode, f32_steps) in [(Accumulate::Native, true), (Accumulate::F64, false)] {
        let got = eval_compute(&c, &ins, mode).expect("conv");
        let round = |x: f64| if f32_steps { x as f32 as f64 } else { x };
        let mut want = Vec::new();
        for f in 0..co {
            for y in 0..oh {
                for x in 0..ow {
                    let mut s = 0.0;
                    for cc in 0..ci {
                        for ry in 0..3 {
                            for rx in 0..3 {
                                let (iy, ix) = (2 * y + ry - 1, 2 * x + rx - 1);
                                let dv = if (0..h).contains(&iy) && (0..w).contains(&ix) {
                                    at(d, &[cc, iy, ix])
                                } else {
                                    0.0
                                };
                                s = round(s + round(dv * at(k, &[f, cc, ry, rx])));
                            }
                        }
                    }
                    want.push(s);
                }
            }
        }
        assert_eq!(got.data.len(), want.len());
        for (i, (a, b)) in got.data.iter().zip(&want).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "{mode:?} element {i}: {a} vs {b}");
        }
        let reference = eval_compute_reference(&c, &ins, mode).expect("reference");
        assert!(reference.bit_identical(&got));
    }
}

/// A case proptest found: max(x, rsqrt(-inf)) + sqrt(-inf) is NaN on both paths, but the
/// NaN's sign depended on which operand LLVM kept; results now carry the one quiet NaN.
#[test]
fn nan_results_are_bit_identical() {
    let (c, ins) = random_compute(15227352993603713849);
    let refs: Vec<&Tensor> = ins.iter().collect();
    for mode in [Accumulate::Native, Accumulate::F64] {
        let want = eval_compute_reference(&c, &ins, mode).expect("reference");
        let fast = fast::eval(&c, &refs, mode).expect("compiled");
        assert!(want.data[0].is_nan(), "{want:?}");
        assert!(want.bit_identical(&fast), "{mode:?}\n{want:?}\n{fast:?}");
    }
}
