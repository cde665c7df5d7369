//! Conv and ConvTranspose (ONNX opsets 1/11/22 and 1/11/22), and the sliding-window
//! geometry (kernel, strides, dilations, pads, auto_pad) they share with pooling.

use rtile::ir::affine::AffineExpr;
use rtile_dialects::te::model::{CmpOp, Combiner};

use super::Node;
use super::build::{Builder, Reads, Val, add, cmp, k, mul, select};
use crate::ops::{Expansion, OpError};

/// ONNX's `auto_pad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoPad {
    NotSet,
    SameUpper,
    SameLower,
    Valid,
}

impl AutoPad {
    /// Reads the `auto_pad` attribute (default `NOTSET`).
    pub fn of(node: &Node) -> Result<AutoPad, OpError> {
        match node.string("auto_pad", "NOTSET").as_str() {
            "NOTSET" => Ok(AutoPad::NotSet),
            "SAME_UPPER" => Ok(AutoPad::SameUpper),
            "SAME_LOWER" => Ok(AutoPad::SameLower),
            "VALID" => Ok(AutoPad::Valid),
            s => Err(OpError(format!(
                "auto_pad '{s}' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID"
            ))),
        }
    }
}

/// The geometry of a sliding window over the spatial dims: output position `o` reads
/// input positions `o * stride - pad_begin + j * dilation` for `j < kernel`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub kernel: Vec<i64>,
    pub strides: Vec<i64>,
    pub dilations: Vec<i64>,
    pub pad_begin: Vec<i64>,
    pub pad_end: Vec<i64>,
    pub out: Vec<i64>,
}

impl Window {
    /// The window of a Conv or pooling node over input spatial dims `input`, with the
    /// kernel shape `kernel`: strides, dilations, pads and auto_pad from the attributes,
    /// the output size as the Conv/MaxPool/AveragePool specifications give it (with
    /// `ceil_mode`, the last window must start inside the input or its begin padding).
    pub fn new(
        node: &Node,
        input: &[i64],
        kernel: Vec<i64>,
        ceil_mode: bool,
    ) -> Result<Window, OpError> {
        let n = input.len();
        let strides = node.ints_n("strides", n, 1)?;
        let dilations = node.ints_n("dilations", n, 1)?;
        let pads = node.ints_n("pads", 2 * n, 0)?;
        if let Some(s) = strides.iter().chain(&dilations).find(|&&s| s < 1) {
            return Err(OpError(format!(
                "strides and dilations must be positive, got {s}"
            )));
        }
        if kernel.iter().any(|&x| x < 1) {
            return Err(OpError(format!("kernel_shape {kernel:?} is not positive")));
        }
        let auto_pad = AutoPad::of(node)?;
        if auto_pad != AutoPad::NotSet && pads.iter().any(|&p| p != 0) {
            return Err(OpError(format!(
                "pads {pads:?} cannot be used together with auto_pad"
            )));
        }
        if pads.iter().any(|&p| p < 0) {
            return Err(OpError(format!("pads {pads:?} must be non-negative")));
        }
        let mut w = Window {
            kernel,
            strides,
            dilations,
            pad_begin: pads[..n].to_vec(),
            pad_end: pads[n..].to_vec(),
            out: vec![0; n],
        };
        for (i, &x) in input.iter().enumerate() {
            let s = w.strides[i];
            let eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
            match auto_pad {
                AutoPad::SameUpper | AutoPad::SameLower => {
                    let out = (x + s - 1) / s;
                    let total = ((out - 1) * s + eff - x).max(0);
                    let lo = if auto_pad == AutoPad::SameUpper {
                        total / 2
                    } else {
                        total - total / 2
                    };
                    w.out[i] = out;
                    w.pad_begin[i] = lo;
                    w.pad_end[i] = total - lo;
                }
                AutoPad::Valid | AutoPad::NotSet => {
                    let span = x + w.pad_begin[i] + w.pad_end[i] - eff;
                    if span < 0 {
                        return Err(OpError(format!(
                            "the window (kernel {}, dilation {}) is larger than spatial dim {i} ({x} with padding {} + {})",
                            w.kernel[i], w.dilations[i], w.pad_begin[i], w.pad_end[i]
                        )));
                    }
                    let mut out = if ceil_mode {
                        (span + s - 1) / s + 1
                    } else {
                        span / s + 1
                    };
                    if ceil_mode && (out - 1) * s >= x + w.pad_begin[i] {
                        out -= 1;
                    }
                    w.out[i] = out;
                }
            }
        }
        Ok(w)
    }

    /// The input index of spatial dim `i` for output axis `o` and kernel axis `r`.
    pub fn index(&self, i: usize, o: AffineExpr, r: AffineExpr) -> AffineExpr {
        AffineExpr::add(
            AffineExpr::add(
                AffineExpr::mul(o, AffineExpr::constant(self.strides[i])),
                AffineExpr::mul(r, AffineExpr::constant(self.dilations[i])),
            ),
            AffineExpr::constant(-self.pad_begin[i]),
        )
    }

    /// True when some window of spatial dim `i` reads outside `0..input`.
    pub fn reads_outside(&self, i: usize, input: i64) -> bool {
        let last = (self.out[i] - 1) * self.strides[i] + (self.kernel[i] - 1) * self.dilations[i]
            - self.pad_begin[i];
        self.pad_begin[i] > 0 || last >= input
    }
}

/// The kernel shape: the `kernel_shape` attribute if present (it must agree with
/// `w_spatial` when a weight gives one), else `w_spatial`.
fn kernel_shape(node: &Node, w_spatial: &[i64]) -> Result<Vec<i64>, OpError> {
    match node.attrs.ints("kernel_shape") {
        Some(k) if k != w_spatial => Err(OpError(format!(
            "kernel_shape {k:?} does not match the weight's spatial shape {w_spatial:?}"
        ))),
        _ => Ok(w_spatial.to_vec()),
    }
}

/// Checks X (N x C x D1..Dn, n >= 1) and W (rank n + 2) and returns n.
fn check_ranks(x: &Val, w: &Val) -> Result<usize, OpError> {
    if x.rank() < 3 || w.rank() != x.rank() || x.elem() != w.elem() {
        return Err(OpError(format!(
            "X {:?} and W {:?} must be N x C x D1.. and of one float type",
            x.ty.text(),
            w.ty.text()
        )));
    }
    Ok(x.rank() - 2)
}

/// Adds the optional bias `B` (shape `[M]`) along dim 1 of `y`.
fn add_bias(b: &mut Builder, node: &Node, y: Val, idx: usize) -> Result<Val, OpError> {
    let Some(bias) = node.opt_input(idx)? else {
        return Ok(y);
    };
    let m = y.shape()[1];
    if bias.shape() != [m] || bias.elem() != y.elem() {
        return Err(OpError(format!(
            "bias B is {} but must be a {m}-element vector of X's type",
            bias.ty.text()
        )));
    }
    let shape = y.shape().to_vec();
    let dims = super::build::all_dims(shape.len());
    b.map(&shape, y.elem(), |r| {
        let s = r.read_dims(&y, &dims);
        let c = r.read_dims(&bias, &[1]);
        add(s, c)
    })
}

/// `Conv` (opsets 1, 11, 22):
/// `Y[n, m, o..] = B[m] + Σ_{c, j..} X[n, g·C/G + c, o·s - pad + j·d ..] · W[m, c, j..]`
/// with `g = m div (M/G)`; zero padding is a `pad 0.0` read.
pub fn conv(node: &Node) -> Result<Expansion, OpError> {
    node.check_attrs(&[
        "auto_pad",
        "dilations",
        "group",
        "kernel_shape",
        "pads",
        "strides",
    ])?;
    let x = node.float_input(0)?;
    let w = node.float_input(1)?;
    let n = check_ranks(&x, &w)?;
    let group = node.int("group", 1);
    let (c, m, cg) = (x.shape()[1], w.shape()[0], w.shape()[1]);
    if group < 1 || c != cg * group || m % group != 0 {
        return Err(OpError(format!(
            "group {group} does not fit X's {c} channels and W {}",
            w.ty.text()
        )));
    }
    let kernel = kernel_shape(node, &w.shape()[2..])?;
    let win = Window::new(node, &x.shape()[2..], kernel, false)?;
    let mg = m / group;
    let mut par = vec![x.shape()[0], m];
    par.extend(&win.out);
    let mut red = vec![cg];
    red.extend(&win.kernel);
    let np = par.len();
    let mut b = Builder::new();
    let y = b.stage(
        &par,
        &red,
        Some(Combiner::Sum),
        x.elem(),
        |r: &mut Reads| {
            let chan = group_channel(r.ax(1), group, mg, cg, r.ax(np));
            let mut xi = vec![r.ax(0), chan];
            let mut pad = None;
            for i in 0..n {
                xi.push(win.index(i, r.ax(2 + i), r.ax(np + 1 + i)));
                if win.reads_outside(i, x.shape()[2 + i]) {
                    pad = Some(0.0);
                }
            }
            let mut wi = vec![r.ax(1), r.ax(np)];
            wi.extend((0..n).map(|i| r.ax(np + 1 + i)));
            let xv = r.read(&x, xi, pad);
            let wv = r.read(&w, wi, None);
            mul(xv, wv)
        },
    )?;
    let y = add_bias(&mut b, node, y, 2)?;
    Ok(b.finish(vec![y]))
}

/// The input channel `(m div per_group_out) * per_group_in + c` of group-relative
/// channel `c` for output channel `m` (just `c` with one group).
fn group_channel(
    m: AffineExpr,
    group: i64,
    per_group_out: i64,
    per_group_in: i64,
    c: AffineExpr,
) -> AffineExpr {
    if group == 1 {
        return c;
    }
    let g = AffineExpr::floordiv(m, AffineExpr::constant(per_group_out));
    AffineExpr::add(AffineExpr::mul(g, AffineExpr::constant(per_group_in)), c)
}

/// The pads and output size of ConvTranspose along one spatial dim: `(pad_begin, out)`
/// (ONNX ConvTranspose: `out = s·(in-1) + output_padding + (k-1)·d + 1 - pads`, or an
/// explicit `output_shape` / SAME auto_pad with the pads split from the total).
fn transpose_dim(
    auto_pad: AutoPad,
    input: i64,
    s: i64,
    eff: i64,
    output_padding: i64,
    pads: (i64, i64),
    output_shape: Option<i64>,
) -> (i64, i64) {
    let full = s * (input - 1) + output_padding + eff;
    let target = match (output_shape, auto_pad) {
        (Some(o), _) => o,
        (None, AutoPad::SameUpper | AutoPad::SameLower) => input * s,
        (None, _) => return (pads.0, full - pads.0 - pads.1),
    };
    let total = full - target;
    if total < 0 {
        // The output is longer than every input reaches: the extra positions at the end
        // are zero (what the ONNX reference and its output_shape test do).
        return (0, target);
    }
    let begin = if auto_pad == AutoPad::SameUpper {
        total / 2
    } else {
        total - total / 2
    };
    (begin, target)
}

/// `ConvTranspose` (opsets 1, 11, 22) as a gather: `Y[n, m, o..] = B[m] + Σ_{c, j..}
/// X[n, g·C/G + c, i..] · W[g·C/G + c, m mod (M/G), j..]` over the `j` with
/// `o + pad_begin - j·d = i·s`; the divisibility is a read of a constant mask
/// `[(o + pad_begin - j·d) mod s ..]` that is 1 only at the origin.
pub fn conv_transpose(node: &Node) -> Result<Expansion, OpError> {
    node.check_attrs(&[
        "auto_pad",
        "dilations",
        "group",
        "kernel_shape",
        "output_padding",
        "output_shape",
        "pads",
        "strides",
    ])?;
    let x = node.float_input(0)?;
    let w = node.float_input(1)?;
    let n = check_ranks(&x, &w)?;
    let group = node.int("group", 1);
    let c = x.shape()[1];
    if group < 1 || w.shape()[0] != c || c % group != 0 {
        return Err(OpError(format!(
            "group {group} does not fit X's {c} channels and W {} (C x M/group x k..)",
            w.ty.text()
        )));
    }
    let (cg, mg) = (c / group, w.shape()[1]);
    let m = mg * group;
    let kernel = kernel_shape(node, &w.shape()[2..])?;
    let strides = node.ints_n("strides", n, 1)?;
    let dil = node.ints_n("dilations", n, 1)?;
    let pads = node.ints_n("pads", 2 * n, 0)?;
    let out_pad = node.ints_n("output_padding", n, 0)?;
    let auto_pad = AutoPad::of(node)?;
    if strides.iter().chain(&dil).any(|&s| s < 1) || pads.iter().any(|&p| p < 0) {
        return Err(OpError(
            "strides and dilations must be positive and pads non-negative".into(),
        ));
    }
    let out_shape = match node.attrs.ints("output_shape") {
        None => None,
        Some(v) if v.len() == n => Some(v),
        Some(v) if v.len() == n + 2 => Some(v[2..].to_vec()),
        Some(v) => {
            return Err(OpError(format!("output_shape {v:?} must have {n} values")));
        }
    };
    let mut pad_begin = vec![0; n];
    let mut out = vec![0; n];
    for i in 0..n {
        let eff = (kernel[i] - 1) * dil[i] + 1;
        let (pb, o) = transpose_dim(
            auto_pad,
            x.shape()[2 + i],
            strides[i],
            eff,
            out_pad[i],
            (pads[i], pads[n + i]),
            out_shape.as_ref().map(|v| v[i]),
        );
        if o < 1 {
            return Err(OpError(format!(
                "output spatial dim {i} would be {o}; check pads and output_shape"
            )));
        }
        pad_begin[i] = pb;
        out[i] = o;
    }
    let mut b = Builder::new();
    // The mask over the strided dims: 1 at the origin, 0 elsewhere.
    let strided: Vec<usize> = (0..n).filter(|&i| strides[i] > 1).collect();
    let mask = (!strided.is_empty()).then(|| {
        let shape: Vec<i64> = strided.iter().map(|&i| strides[i]).collect();
        let len = shape.iter().product::<i64>() as usize;
        let mut data = vec![0.0; len];
        data[0] = 1.0;
        b.constant(shape, x.elem(), data)
    });
    let mut par = vec![x.shape()[0], m];
    par.extend(&out);
    let mut red = vec![cg];
    red.extend(&kernel);
    let np = par.len();
    let elem = x.elem();
    let y = b.stage(&par, &red, Some(Combiner::Sum), elem, |r: &mut Reads| {
        // o + pad_begin - j·d for each spatial dim.
        let pos: Vec<AffineExpr> = (0..n)
            .map(|i| {
                AffineExpr::add(
                    AffineExpr::add(r.ax(2 + i), AffineExpr::constant(pad_begin[i])),
                    AffineExpr::mul(r.ax(np + 1 + i), AffineExpr::constant(-dil[i])),
                )
            })
            .collect();
        let chan = group_channel(r.ax(1), group, mg, cg, r.ax(np));
        let mut xi = vec![r.ax(0), chan.clone()];
        xi.extend(
            (0..n).map(|i| AffineExpr::floordiv(pos[i].clone(), AffineExpr::constant(strides[i]))),
        );
        let m_in_group = if group == 1 {
            r.ax(1)
        } else {
            AffineExpr::rem(r.ax(1), AffineExpr::constant(mg))
        };
        let mut wi = vec![chan, m_in_group];
        wi.extend((0..n).map(|i| r.ax(np + 1 + i)));
        let xv = r.read(&x, xi, Some(0.0));
        let wv = r.read(&w, wi, None);
        let prod = mul(xv, wv);
        match &mask {
            None => prod,
            Some(mk) => {
                let mi = strided
                    .iter()
                    .map(|&i| AffineExpr::rem(pos[i].clone(), AffineExpr::constant(strides[i])))
                    .collect();
                let mv = r.read(mk, mi, None);
                select(cmp(CmpOp::Gt, mv, k(0.5, elem)), prod, k(0.0, elem))
            }
        }
    })?;
    let y = add_bias(&mut b, node, y, 2)?;
    Ok(b.finish(vec![y]))
}
