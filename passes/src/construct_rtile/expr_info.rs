//! The operator as the construction sees it: Roller's tensor expression (§3.1) reduced to what
//! rTile analysis needs — the loop axes, and for every tensor its shape and an affine index per
//! dimension. A thin adapter turns a `te.compute` into this; tests build it directly.

/// One loop axis of the expression (§3.1: spatial axes of the output, reduction axes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Axis {
    /// Axis name, e.g. `m`, `k`, or `h*w` after axis fusion.
    pub name: String,
    /// Iteration count.
    pub extent: u64,
    /// Whether this is a reduction axis.
    pub reduction: bool,
}

/// One tensor dimension's index: `⌊(Σ coeff·axis + constant) / div⌋`, `div` = 1 for the plain
/// affine form. Enough for strided and halo accesses of convolutions and pooling
/// (`y * 2 + ry - 1`) and for channel multipliers (`o floordiv 4`). A `halo` widens it to
/// the union of the reads `Σ coeff·axis + constant + o` for offsets `o` in `0..=halo`: the
/// taps of a stencil, one data tile of the tensor (Roller §3.1's data tile of an rTile is
/// what the tile touches; see `rtile_dialects::rtile::reads`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AffineIndex {
    /// `(axis position, coefficient)` pairs, coefficients non-zero.
    pub terms: Vec<(usize, i64)>,
    /// Constant offset.
    pub constant: i64,
    /// Positive divisor of the whole sum (floor division); 1 = none.
    pub div: u64,
    /// Constant span of merged reads: the index covers `constant ..= constant + halo` on top
    /// of the axes' terms (0 for a single read; only with `div` = 1).
    pub halo: u64,
}

impl Default for AffineIndex {
    fn default() -> Self {
        AffineIndex::constant(0)
    }
}

impl AffineIndex {
    /// The index `axis`.
    pub fn axis(a: usize) -> Self {
        AffineIndex {
            terms: vec![(a, 1)],
            constant: 0,
            div: 1,
            halo: 0,
        }
    }

    /// `Σ coeff·axis + constant`.
    pub fn affine(terms: &[(usize, i64)], constant: i64) -> Self {
        AffineIndex {
            terms: terms.iter().copied().filter(|t| t.1 != 0).collect(),
            constant,
            div: 1,
            halo: 0,
        }
    }

    /// `⌊(Σ coeff·axis + constant) / div⌋` (`div` 0 is read as 1).
    pub fn floor_div(terms: &[(usize, i64)], constant: i64, div: u64) -> Self {
        AffineIndex {
            div: div.max(1),
            ..AffineIndex::affine(terms, constant)
        }
    }

    /// A constant index (broadcast dimension).
    pub fn constant(c: i64) -> Self {
        AffineIndex {
            terms: vec![],
            constant: c,
            div: 1,
            halo: 0,
        }
    }

    /// The same index widened by a constant span `halo` (merged reads at offsets
    /// `0..=halo`, a stencil's taps).
    pub fn with_halo(self, halo: u64) -> Self {
        AffineIndex { halo, ..self }
    }

    /// The axis when the index is exactly one axis with coefficient 1 (no division, no
    /// halo: a tile along it then touches exactly its own extent).
    pub fn single_axis(&self) -> Option<usize> {
        match self.terms.as_slice() {
            [(a, 1)] if self.div <= 1 && self.halo == 0 => Some(*a),
            _ => None,
        }
    }

    /// Extent of the data touched along this dimension when each axis `a` spans `tile[a]`
    /// consecutive values: `Σ |c|·(tile[a] − 1) + 1 + halo` (the window of a convolution, the
    /// stride gaps, the merged taps of a stencil); with a divisor `d`, `s` consecutive values
    /// of the sum touch at most `⌈(s − 1)/d⌉ + 1` (a bound: a tile aligned to `d` touches
    /// one fewer).
    pub fn span(&self, tile: &[u64]) -> u64 {
        let s = 1
            + self.halo
            + self
                .terms
                .iter()
                .map(|&(a, c)| c.unsigned_abs() * tile[a].saturating_sub(1))
                .sum::<u64>();
        if self.div <= 1 {
            s
        } else {
            (s - 1).div_ceil(self.div) + 1
        }
    }
}

/// One tensor read or written by the expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorAccess {
    /// Name for diagnostics (`A`, `%arg0`).
    pub name: String,
    /// Tensor shape, row-major (the last dimension is the leading, contiguous one).
    pub shape: Vec<u64>,
    /// Bytes per element.
    pub elem_bytes: u64,
    /// One index per dimension.
    pub indices: Vec<AffineIndex>,
}

impl TensorAccess {
    /// Axes this tensor's indices use.
    pub fn uses_axis(&self, a: usize) -> bool {
        self.indices
            .iter()
            .any(|i| i.terms.iter().any(|&(x, _)| x == a))
    }
}

/// A tensor expression, independent of the IR (§3.1).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorExprInfo {
    /// Loop axes; spatial and reduction axes may be interleaved.
    pub axes: Vec<Axis>,
    /// Input tensors.
    pub inputs: Vec<TensorAccess>,
    /// Output tensor (indexed by the spatial axes).
    pub output: TensorAccess,
    /// Arithmetic operations per iteration point (2 for multiply-add).
    pub flops_per_point: f64,
    /// Element type of the computation (`f32`, `f16`, `bf16`, `i8`, …), for MaxComputePerf.
    pub dtype: String,
    /// The input element type (`f16`, `bf16`) when the operator multiplies such inputs into
    /// an f32 accumulator (`acc(f32)`): what runs on tensor cores (Roller §5.1).
    pub mma_inputs: Option<String>,
}

/// Bytes of an element type name; unknown names count as 4 bytes.
pub fn dtype_bytes(dtype: &str) -> u64 {
    match dtype {
        "f64" | "i64" => 8,
        "f16" | "bf16" | "i16" => 2,
        "i8" | "u8" | "f8" | "f8e4m3" | "f8e5m2" => 1,
        _ => 4,
    }
}

impl TensorExprInfo {
    /// Checks the expression is well formed (indices in range, shapes positive).
    pub fn validate(&self) -> Result<(), String> {
        if self.axes.is_empty() {
            return Err("expression has no axes".into());
        }
        for a in &self.axes {
            if a.extent == 0 {
                return Err(format!("axis '{}' has extent 0", a.name));
            }
        }
        for t in self.inputs.iter().chain(std::iter::once(&self.output)) {
            if t.shape.len() != t.indices.len() {
                return Err(format!("tensor '{}': rank and index count differ", t.name));
            }
            if t.shape.contains(&0) || t.elem_bytes == 0 {
                return Err(format!("tensor '{}': zero size", t.name));
            }
            for i in &t.indices {
                if i.terms.iter().any(|&(a, _)| a >= self.axes.len()) {
                    return Err(format!("tensor '{}': index uses an unknown axis", t.name));
                }
            }
        }
        Ok(())
    }

    /// The same expression marked as a tensor-core candidate with `t` inputs (`f16`,
    /// `bf16`) and an f32 accumulator (tests and hand-built expressions).
    pub fn with_mma_inputs(mut self, t: &str) -> Self {
        self.mma_inputs = Some(t.into());
        self
    }

    /// Extents of all axes.
    pub fn extents(&self) -> Vec<u64> {
        self.axes.iter().map(|a| a.extent).collect()
    }

    /// Total iteration points.
    pub fn points(&self) -> f64 {
        self.axes.iter().map(|a| a.extent as f64).product()
    }

    /// Whether the expression has a reduction axis.
    pub fn has_reduction(&self) -> bool {
        self.axes.iter().any(|a| a.reduction)
    }

    /// `C[m, n] = Σ_k A[m, k] · B[k, n]` with axes `[m, n, k]` (Roller §3.1's example).
    pub fn matmul(m: u64, n: u64, k: u64, dtype: &str) -> Self {
        let e = dtype_bytes(dtype);
        let ax = |name: &str, extent, reduction| Axis {
            name: name.into(),
            extent,
            reduction,
        };
        TensorExprInfo {
            axes: vec![ax("m", m, false), ax("n", n, false), ax("k", k, true)],
            inputs: vec![
                TensorAccess {
                    name: "A".into(),
                    shape: vec![m, k],
                    elem_bytes: e,
                    indices: vec![AffineIndex::axis(0), AffineIndex::axis(2)],
                },
                TensorAccess {
                    name: "B".into(),
                    shape: vec![k, n],
                    elem_bytes: e,
                    indices: vec![AffineIndex::axis(2), AffineIndex::axis(1)],
                },
            ],
            output: TensorAccess {
                name: "C".into(),
                shape: vec![m, n],
                elem_bytes: e,
                indices: vec![AffineIndex::axis(0), AffineIndex::axis(1)],
            },
            flops_per_point: 2.0,
            dtype: dtype.into(),
            mma_inputs: None,
        }
    }

    /// NCHW conv2d, `O[n, f, y, x] = Σ_{c, ry, rx} D[n, c, y·s + ry − p, x·s + rx − p] · K[f, c, ry, rx]`
    /// with `D` of shape `[n, c, h, w]` (already padded logically by `pad`) and `K` `[f, c, kh, kw]`.
    #[allow(clippy::too_many_arguments)]
    pub fn conv2d_nchw(
        n: u64,
        c: u64,
        h: u64,
        w: u64,
        f: u64,
        kh: u64,
        kw: u64,
        stride: u64,
        pad: u64,
        dtype: &str,
    ) -> Self {
        let e = dtype_bytes(dtype);
        let oh = ((h + 2 * pad).saturating_sub(kh)) / stride + 1;
        let ow = ((w + 2 * pad).saturating_sub(kw)) / stride + 1;
        let ax = |name: &str, extent, reduction| Axis {
            name: name.into(),
            extent,
            reduction,
        };
        let s = stride as i64;
        let p = -(pad as i64);
        TensorExprInfo {
            axes: vec![
                ax("n", n, false),
                ax("f", f, false),
                ax("y", oh, false),
                ax("x", ow, false),
                ax("c", c, true),
                ax("ry", kh, true),
                ax("rx", kw, true),
            ],
            inputs: vec![
                TensorAccess {
                    name: "D".into(),
                    shape: vec![n, c, h, w],
                    elem_bytes: e,
                    indices: vec![
                        AffineIndex::axis(0),
                        AffineIndex::axis(4),
                        AffineIndex::affine(&[(2, s), (5, 1)], p),
                        AffineIndex::affine(&[(3, s), (6, 1)], p),
                    ],
                },
                TensorAccess {
                    name: "K".into(),
                    shape: vec![f, c, kh, kw],
                    elem_bytes: e,
                    indices: vec![
                        AffineIndex::axis(1),
                        AffineIndex::axis(4),
                        AffineIndex::axis(5),
                        AffineIndex::axis(6),
                    ],
                },
            ],
            output: TensorAccess {
                name: "O".into(),
                shape: vec![n, f, oh, ow],
                elem_bytes: e,
                indices: (0..4).map(AffineIndex::axis).collect(),
            },
            flops_per_point: 2.0,
            dtype: dtype.into(),
            mma_inputs: None,
        }
    }

    /// Element-wise unary op (e.g. relu) over `shape`.
    pub fn elementwise(shape: &[u64], dtype: &str) -> Self {
        let e = dtype_bytes(dtype);
        let axes = shape
            .iter()
            .enumerate()
            .map(|(i, &x)| Axis {
                name: format!("i{i}"),
                extent: x,
                reduction: false,
            })
            .collect();
        let idx: Vec<_> = (0..shape.len()).map(AffineIndex::axis).collect();
        let t = |name: &str| TensorAccess {
            name: name.into(),
            shape: shape.to_vec(),
            elem_bytes: e,
            indices: idx.clone(),
        };
        TensorExprInfo {
            axes,
            inputs: vec![t("I")],
            output: t("O"),
            flops_per_point: 1.0,
            dtype: dtype.into(),
            mma_inputs: None,
        }
    }

    /// Reduction of `shape` over the dimensions in `reduce` (e.g. ReduceMean).
    pub fn reduce(shape: &[u64], reduce: &[usize], dtype: &str) -> Self {
        let e = dtype_bytes(dtype);
        // Spatial axes first, then reduction axes, as in te.compute.
        let mut order: Vec<usize> = (0..shape.len()).filter(|d| !reduce.contains(d)).collect();
        order.extend((0..shape.len()).filter(|d| reduce.contains(d)));
        let axes = order
            .iter()
            .map(|&d| Axis {
                name: format!("i{d}"),
                extent: shape[d],
                reduction: reduce.contains(&d),
            })
            .collect();
        let pos = |d: usize| order.iter().position(|&x| x == d).unwrap_or(0);
        let spatial: Vec<usize> = (0..shape.len()).filter(|d| !reduce.contains(d)).collect();
        let (oshape, oidx) = if spatial.is_empty() {
            (vec![1], vec![AffineIndex::constant(0)])
        } else {
            (
                spatial.iter().map(|&d| shape[d]).collect(),
                spatial.iter().map(|&d| AffineIndex::axis(pos(d))).collect(),
            )
        };
        TensorExprInfo {
            axes,
            inputs: vec![TensorAccess {
                name: "I".into(),
                shape: shape.to_vec(),
                elem_bytes: e,
                indices: (0..shape.len())
                    .map(|d| AffineIndex::axis(pos(d)))
                    .collect(),
            }],
            output: TensorAccess {
                name: "O".into(),
                shape: oshape,
                elem_bytes: e,
                indices: oidx,
            },
            flops_per_point: 1.0,
            dtype: dtype.into(),
            mma_inputs: None,
        }
    }

    /// NCHW average pooling with a `k×k` window and stride `s` (VALID).
    pub fn avgpool_nchw(n: u64, c: u64, h: u64, w: u64, k: u64, s: u64, dtype: &str) -> Self {
        let e = dtype_bytes(dtype);
        let oh = h.saturating_sub(k) / s + 1;
        let ow = w.saturating_sub(k) / s + 1;
        let ax = |name: &str, extent, reduction| Axis {
            name: name.into(),
            extent,
            reduction,
        };
        let si = s as i64;
        TensorExprInfo {
            axes: vec![
                ax("n", n, false),
                ax("c", c, false),
                ax("y", oh, false),
                ax("x", ow, false),
                ax("ry", k, true),
                ax("rx", k, true),
            ],
            inputs: vec![TensorAccess {
                name: "I".into(),
                shape: vec![n, c, h, w],
                elem_bytes: e,
                indices: vec![
                    AffineIndex::axis(0),
                    AffineIndex::axis(1),
                    AffineIndex::affine(&[(2, si), (4, 1)], 0),
                    AffineIndex::affine(&[(3, si), (5, 1)], 0),
                ],
            }],
            output: TensorAccess {
                name: "O".into(),
                shape: vec![n, c, oh, ow],
                elem_bytes: e,
                indices: (0..4).map(AffineIndex::axis).collect(),
            },
            flops_per_point: 1.0,
            dtype: dtype.into(),
            mma_inputs: None,
        }
    }

    /// Roller §3.2 axis fusion: two axes `a`, `a+1` of the same kind merge when, in every tensor,
    /// they are either both indexed plainly by adjacent full dimensions (in that order) or both
    /// absent. Returns the fused expression and, per new axis, the original axes it covers
    /// (outermost first); `None` when nothing fuses.
    pub fn fuse_axes(&self) -> Option<(TensorExprInfo, Vec<Vec<usize>>)> {
        let mut cur = self.clone();
        let mut groups: Vec<Vec<usize>> = (0..self.axes.len()).map(|a| vec![a]).collect();
        let mut changed = false;
        'outer: loop {
            for a in 0..cur.axes.len().saturating_sub(1) {
                if cur.can_fuse(a) {
                    cur = cur.fuse_pair(a);
                    let g = groups.remove(a + 1);
                    groups[a].extend(g);
                    changed = true;
                    continue 'outer;
                }
            }
            break;
        }
        changed.then_some((cur, groups))
    }

    fn can_fuse(&self, a: usize) -> bool {
        let b = a + 1;
        if self.axes[a].reduction != self.axes[b].reduction {
            return false;
        }
        let mut seen = false;
        for t in self.inputs.iter().chain(std::iter::once(&self.output)) {
            let (ua, ub) = (t.uses_axis(a), t.uses_axis(b));
            if !ua && !ub {
                continue;
            }
            let pa = t.indices.iter().position(|i| i.single_axis() == Some(a));
            let pb = t.indices.iter().position(|i| i.single_axis() == Some(b));
            match (pa, pb) {
                (Some(i), Some(j))
                    if j == i + 1
                        && t.shape[i] == self.axes[a].extent
                        && t.shape[j] == self.axes[b].extent
                        && t.indices
                            .iter()
                            .filter(|x| x.terms.iter().any(|&(y, _)| y == a || y == b))
                            .count()
                            == 2 =>
                {
                    seen = true
                }
                _ => return false,
            }
        }
        seen
    }

    fn fuse_pair(&self, a: usize) -> TensorExprInfo {
        let b = a + 1;
        let remap = |x: usize| if x > b { x - 1 } else { x };
        let mut axes = self.axes.clone();
        let ab = axes.remove(b);
        axes[a].name = format!("{}*{}", axes[a].name, ab.name);
        axes[a].extent *= ab.extent;
        let fix = |t: &TensorAccess| {
            let mut shape = Vec::new();
            let mut indices = Vec::new();
            let mut d = 0;
            while d < t.indices.len() {
                if t.indices[d].single_axis() == Some(a) {
                    shape.push(t.shape[d] * t.shape[d + 1]);
                    indices.push(AffineIndex::axis(a));
                    d += 2;
                } else {
                    shape.push(t.shape[d]);
                    let mut i = t.indices[d].clone();
                    for term in &mut i.terms {
                        term.0 = remap(term.0);
                    }
                    indices.push(i);
                    d += 1;
                }
            }
            TensorAccess {
                name: t.name.clone(),
                shape,
                elem_bytes: t.elem_bytes,
                indices,
            }
        };
        TensorExprInfo {
            axes,
            inputs: self.inputs.iter().map(fix).collect(),
            output: fix(&self.output),
            flops_per_point: self.flops_per_point,
            dtype: self.dtype.clone(),
            mma_inputs: self.mma_inputs.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_of_elementwise_17_11_3() {
        // Roller §3.2: [17, 11, 3] element-wise becomes [561].
        let e = TensorExprInfo::elementwise(&[17, 11, 3], "f32");
        let (f, groups) = e.fuse_axes().unwrap();
        assert_eq!(f.extents(), vec![561]);
        assert_eq!(groups, vec![vec![0, 1, 2]]);
        assert_eq!(f.inputs[0].shape, vec![561]);
        f.validate().unwrap();
    }

    #[test]
    fn matmul_does_not_fuse_and_conv_spatial_does_not_fuse() {
        assert!(
            TensorExprInfo::matmul(64, 64, 64, "f32")
                .fuse_axes()
                .is_none()
        );
        let c = TensorExprInfo::conv2d_nchw(8, 16, 14, 14, 32, 3, 3, 1, 1, "f32");
        // y/x appear in strided/halo indices of D, so only nothing plain fuses there.
        if let Some((f, _)) = c.fuse_axes() {
            f.validate().unwrap();
            assert!(f.axes.iter().all(|a| a.name != "y*x"));
        }
    }

    #[test]
    fn halo_span() {
        let i = AffineIndex::affine(&[(0, 2), (1, 1)], -1);
        // 4 output rows with stride 2 and a 3-tap window touch 2·3 + 2 + 1 = 9 rows.
        assert_eq!(i.span(&[4, 3]), 9);
    }
}
