//! Convolution as an implicit GEMM for tensor cores (Roller §5.1 "Compile on TensorCore":
//! the rTile is aligned to the MMA instruction shape, which needs the operator as a matrix
//! multiply).
//!
//! A 2-D convolution `O[n, f, y, x] = Σ_{c, r, s} D[n, c, y·σ + r − p, x·σ + s − p] ·
//! W[f, c, r, s]` (any data layout, OIHW/OHWI/HWIO-like weights) is the GEMM
//! `O[M, N] = Σ_K A[M, K] · B[K, N]` with
//! - `M` the output pixels: the spatial axes the data reads and the weights do not
//!   (`n*y*x`, in axis order, the last fastest),
//! - `N` the output channels: the one spatial axis the weights read (`f`),
//! - `K` every reduction axis, in the order of the weights' dimensions (`c*r*s` for OIHW,
//!   `r*s*c` for HWIO), so that the weights are a plain `[N, K]` or `[K, N]` matrix (their
//!   reduction dims are consecutive and exact),
//! - `A` the im2col of the data: element `(M, K)` is the data read at the axis values `M`
//!   and `K` delinearise to (gathered, never materialised).
//!
//! The construction tiles this three-axis view with its matmul code path; the programs name
//! its axes (`axes = ["n*y*x", "f", "c*r*s"]`), and `--lower-to-gpu` rebuilds the view from
//! the compute by the same rule.

use super::expr_info::{AffineIndex, Axis, TensorAccess, TensorExprInfo};

/// The implicit GEMM view of a convolution.
#[derive(Clone, Debug, PartialEq)]
pub struct ImplicitGemm {
    /// The three-axis expression `[M, N, K]` the construction tiles; its inputs are the
    /// compute's (same order): the data as an `[M, K]` matrix, the weights as `[N, K]` or
    /// `[K, N]`.
    pub expr: TensorExprInfo,
    /// The compute's axes `M`, `N` and `K` merge, outer to inner.
    pub groups: [Vec<usize>; 3],
    /// Which input is the data (gathered, im2col) and which the weights.
    pub data: usize,
    pub weights: usize,
    /// Whether the weights' output-channel dim is their last (`[K, N]`, HWIO) rather than
    /// their first (`[N, K]`, OIHW).
    pub weights_n_last: bool,
}

/// The implicit GEMM view of `e`, when `e` is a tensor-core candidate
/// ([`TensorExprInfo::mma_inputs`]) that is a convolution-like contraction and not already a
/// plain (batch) matmul: two inputs, the weights indexed by single axes (one spatial axis
/// and every reduction axis, the reduction dims consecutive, whole and first or last after
/// the channel dim), the data by affine indices of the other axes (no division), the output by
/// the spatial axes.
pub fn implicit_gemm(e: &TensorExprInfo) -> Option<ImplicitGemm> {
    e.mma_inputs.as_ref()?;
    if e.inputs.len() != 2 {
        return None;
    }
    [1, 0].into_iter().find_map(|w| view(e, 1 - w, w))
}

fn view(e: &TensorExprInfo, d: usize, w: usize) -> Option<ImplicitGemm> {
    let (data, wt) = (&e.inputs[d], &e.inputs[w]);
    let wax: Vec<usize> = wt
        .indices
        .iter()
        .map(AffineIndex::single_axis)
        .collect::<Option<_>>()?;
    let red: Vec<usize> = (0..e.axes.len()).filter(|&a| e.axes[a].reduction).collect();
    let spatial: Vec<usize> = (0..e.axes.len())
        .filter(|&a| !e.axes[a].reduction)
        .collect();
    // The weights: one spatial axis (N) first or last, then every reduction axis once.
    let (n, k_dims) = match (wax.first(), wax.last()) {
        (Some(&f), _) if !e.axes[f].reduction => (f, 1..wax.len()),
        (_, Some(&f)) if !e.axes[f].reduction => (f, 0..wax.len() - 1),
        _ => return None,
    };
    let k: Vec<usize> = wax[k_dims.clone()].to_vec();
    let mut sorted = k.clone();
    sorted.sort_unstable();
    if sorted != red || red.is_empty() {
        return None;
    }
    if k_dims.clone().any(|i| wt.shape[i] != e.axes[wax[i]].extent) {
        return None;
    }
    // The data: every other spatial axis (M) and every reduction axis, not N; affine.
    let m: Vec<usize> = spatial.iter().copied().filter(|&a| a != n).collect();
    if m.is_empty()
        || data.uses_axis(n)
        || !m.iter().chain(&red).all(|&a| data.uses_axis(a))
        || data.indices.iter().any(|i| i.div > 1)
    {
        return None;
    }
    // The output: the spatial axes, each one dim.
    let out: Vec<usize> = e
        .output
        .indices
        .iter()
        .map(AffineIndex::single_axis)
        .collect::<Option<_>>()?;
    let mut os = out.clone();
    os.sort_unstable();
    if os != spatial {
        return None;
    }
    // A plain matmul (one M axis, one K axis, read as they are) needs no view.
    let plain = data.indices.iter().all(|i| i.single_axis().is_some());
    if m.len() == 1 && k.len() == 1 && plain {
        return None;
    }
    let ext = |g: &[usize]| g.iter().map(|&a| e.axes[a].extent).product::<u64>();
    let name = |g: &[usize]| {
        g.iter()
            .map(|&a| e.axes[a].name.as_str())
            .collect::<Vec<_>>()
            .join("*")
    };
    let (em, en, ek) = (ext(&m), e.axes[n].extent, ext(&k));
    let axes = vec![
        Axis {
            name: name(&m),
            extent: em,
            reduction: false,
        },
        e.axes[n].clone(),
        Axis {
            name: name(&k),
            extent: ek,
            reduction: true,
        },
    ];
    let n_last = wax.last() == Some(&n);
    let matrix = |t: &TensorAccess, dims: [(u64, usize); 2]| TensorAccess {
        name: t.name.clone(),
        shape: dims.iter().map(|x| x.0).collect(),
        elem_bytes: t.elem_bytes,
        indices: dims.iter().map(|x| AffineIndex::axis(x.1)).collect(),
    };
    let a = matrix(data, [(em, 0), (ek, 2)]);
    let b = matrix(
        wt,
        if n_last {
            [(ek, 2), (en, 1)]
        } else {
            [(en, 1), (ek, 2)]
        },
    );
    // The output as a matrix with its contiguous dim's GEMM axis last (channels last: M×N).
    let o = if out.last() == Some(&n) {
        matrix(&e.output, [(em, 0), (en, 1)])
    } else {
        matrix(&e.output, [(en, 1), (em, 0)])
    };
    let mut inputs = vec![a.clone(), a];
    inputs[w] = b;
    Some(ImplicitGemm {
        expr: TensorExprInfo {
            axes,
            inputs,
            output: o,
            flops_per_point: 2.0,
            dtype: e.dtype.clone(),
            mma_inputs: e.mma_inputs.clone(),
        },
        groups: [m, vec![n], k],
        data: d,
        weights: w,
        weights_n_last: n_last,
    })
}

/// The names of the view's axes (what a program over it lists in `axes`).
pub fn axis_names(g: &ImplicitGemm) -> Vec<String> {
    g.expr.axes.iter().map(|a| a.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nchw_conv_is_a_gemm_over_pixels_channels_and_windows() {
        let e =
            TensorExprInfo::conv2d_nchw(2, 8, 9, 9, 16, 3, 3, 2, 1, "f16").with_mma_inputs("f16");
        let g = implicit_gemm(&e).expect("a view");
        assert_eq!(axis_names(&g), ["n*y*x", "f", "c*ry*rx"]);
        // 5x5 outputs per image.
        assert_eq!(g.expr.extents(), [2 * 5 * 5, 16, 8 * 9]);
        assert_eq!(g.groups, [vec![0, 2, 3], vec![1], vec![4, 5, 6]]);
        assert_eq!((g.data, g.weights, g.weights_n_last), (0, 1, false));
        assert_eq!(g.expr.inputs[0].shape, [50, 72]);
        assert_eq!(g.expr.inputs[1].shape, [16, 72]);
        assert_eq!(g.expr.output.shape, [16, 50]);
        g.expr.validate().expect("well formed");
    }

    #[test]
    fn matmuls_and_non_candidates_have_no_view() {
        let mm = TensorExprInfo::matmul(64, 32, 48, "f16").with_mma_inputs("f16");
        assert!(implicit_gemm(&mm).is_none());
        // Without acc(f32) a conv is not a tensor-core candidate.
        let conv = TensorExprInfo::conv2d_nchw(1, 3, 7, 7, 4, 3, 3, 1, 0, "f16");
        assert!(implicit_gemm(&conv).is_none());
    }
}
