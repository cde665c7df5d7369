//! MaxPool (opsets 1/8/10/11/12/22), AveragePool (1/7/10/11/19/22), GlobalAveragePool
//! and GlobalMaxPool (1/22).

use rtile_dialects::te::model::{Combiner, ElemType};

use super::Node;
use super::build::{Builder, Reads, Val, div, k};
use super::conv::Window;
use crate::ops::{Expansion, OpError};

/// X (N x C x D1..Dn) and the pooling window from the attributes.
fn pool_window(node: &Node, x: &Val) -> Result<Window, OpError> {
    if x.rank() < 3 {
        return Err(OpError(format!(
            "X is {}; pooling needs N x C x D1.. (rank 3 or more)",
            x.ty.text()
        )));
    }
    let n = x.rank() - 2;
    let kernel = node
        .attrs
        .ints("kernel_shape")
        .ok_or_else(|| OpError("attribute 'kernel_shape' is required".into()))?;
    if kernel.len() != n {
        return Err(OpError(format!(
            "kernel_shape {kernel:?} must have {n} values for X {}",
            x.ty.text()
        )));
    }
    let ceil_mode = match node.int("ceil_mode", 0) {
        0 => false,
        1 => true,
        v => return Err(OpError(format!("ceil_mode {v} is not 0 or 1"))),
    };
    Window::new(node, &x.shape()[2..], kernel, ceil_mode)
}

/// One windowed reduction `Y[n, c, o..] = combine_{j..} X[n, c, o·s - pad + j·d ..]`
/// with `pad` for reads outside X.
fn window_reduce(
    b: &mut Builder,
    x: &Val,
    win: &Window,
    combiner: Combiner,
    pad: f64,
) -> Result<Val, OpError> {
    let n = win.kernel.len();
    let mut par = x.shape()[..2].to_vec();
    par.extend(&win.out);
    let np = par.len();
    b.stage(
        &par,
        &win.kernel,
        Some(combiner),
        x.elem(),
        |r: &mut Reads| {
            let mut idx = vec![r.ax(0), r.ax(1)];
            let mut outside = false;
            for i in 0..n {
                idx.push(win.index(i, r.ax(2 + i), r.ax(np + i)));
                outside |= win.reads_outside(i, x.shape()[2 + i]);
            }
            r.read(x, idx, outside.then_some(pad))
        },
    )
}

/// `MaxPool`: the maximum over each window; padding never wins (it reads -inf, or the
/// type's minimum for int8). The optional `Indices` output is not supported.
pub fn max_pool(node: &Node) -> Result<Expansion, OpError> {
    node.check_attrs(&[
        "auto_pad",
        "ceil_mode",
        "dilations",
        "kernel_shape",
        "pads",
        "storage_order",
        "strides",
    ])?;
    node.max_outputs(1, "the Indices output is not supported")?;
    let x = node.input(0)?;
    let pad = match x.elem() {
        e if e.is_float() => f64::NEG_INFINITY,
        ElemType::I8 => i8::MIN as f64,
        e => {
            return Err(OpError(format!(
                "MaxPool on {} is not supported",
                e.keyword()
            )));
        }
    };
    let win = pool_window(node, &x)?;
    let mut b = Builder::new();
    let y = window_reduce(&mut b, &x, &win, Combiner::Max, pad)?;
    Ok(b.finish(vec![y]))
}

/// How many of output position `o`'s window positions count along one dim: those
/// inside the input, or with `count_include_pad` those inside the padded input (the
/// positions `ceil_mode` adds past the end padding never count).
fn window_count(win: &Window, i: usize, o: i64, input: i64, include_pad: bool) -> i64 {
    let (lo, hi) = if include_pad {
        (-win.pad_begin[i], input + win.pad_end[i])
    } else {
        (0, input)
    };
    (0..win.kernel[i])
        .map(|j| o * win.strides[i] - win.pad_begin[i] + j * win.dilations[i])
        .filter(|&p| p >= lo && p < hi)
        .count() as i64
}

/// `AveragePool`: the window sum divided by the number of positions that count
/// (`count_include_pad`); where that number varies with the position it is a constant
/// tensor over the output's spatial dims.
pub fn average_pool(node: &Node) -> Result<Expansion, OpError> {
    node.check_attrs(&[
        "auto_pad",
        "ceil_mode",
        "count_include_pad",
        "dilations",
        "kernel_shape",
        "pads",
        "strides",
    ])?;
    let x = node.float_input(0)?;
    let win = pool_window(node, &x)?;
    let include_pad = match node.int("count_include_pad", 0) {
        0 => false,
        1 => true,
        v => return Err(OpError(format!("count_include_pad {v} is not 0 or 1"))),
    };
    let n = win.kernel.len();
    // Counts per output spatial position, row-major.
    let mut counts = vec![1i64];
    for i in 0..n {
        let per: Vec<i64> = (0..win.out[i])
            .map(|o| window_count(&win, i, o, x.shape()[2 + i], include_pad))
            .collect();
        counts = counts
            .iter()
            .flat_map(|&c| per.iter().map(move |&p| c * p))
            .collect();
    }
    if counts.contains(&0) {
        return Err(OpError(
            "a pooling window covers no input element (padding at least as large as the kernel)"
                .into(),
        ));
    }
    let mut b = Builder::new();
    let s = window_reduce(&mut b, &x, &win, Combiner::Sum, 0.0)?;
    let elem = x.elem();
    let shape = s.shape().to_vec();
    let dims = super::build::all_dims(shape.len());
    let y = if counts.iter().all(|&c| c == counts[0]) {
        let c = counts[0] as f64;
        b.map(&shape, elem, |r| div(r.read_dims(&s, &dims), k(c, elem)))?
    } else {
        let cnt = b.constant(
            win.out.clone(),
            elem,
            counts.iter().map(|&c| c as f64).collect(),
        );
        let sp: Vec<usize> = (2..2 + n).collect();
        b.map(&shape, elem, |r| {
            div(r.read_dims(&s, &dims), r.read_dims(&cnt, &sp))
        })?
    };
    Ok(b.finish(vec![y]))
}

/// A reduction of every spatial dim to 1 (`Y` is N x C x 1 x ..).
fn global(node: &Node, combiner: Combiner) -> Result<(Builder, Val, i64), OpError> {
    node.check_attrs(&[])?;
    let x = node.float_input(0)?;
    if x.rank() < 3 {
        return Err(OpError(format!(
            "X is {}; global pooling needs N x C x D1..",
            x.ty.text()
        )));
    }
    let n = x.rank() - 2;
    let mut par = x.shape()[..2].to_vec();
    par.extend(vec![1; n]);
    let red = x.shape()[2..].to_vec();
    let np = par.len();
    let mut b = Builder::new();
    let y = b.stage(&par, &red, Some(combiner), x.elem(), |r: &mut Reads| {
        let mut idx = vec![r.ax(0), r.ax(1)];
        idx.extend((0..n).map(|i| r.ax(np + i)));
        r.read(&x, idx, None)
    })?;
    Ok((b, y, red.iter().product()))
}

/// `GlobalAveragePool`: the mean over the spatial dims.
pub fn global_average_pool(node: &Node) -> Result<Expansion, OpError> {
    let (mut b, s, count) = global(node, Combiner::Sum)?;
    let shape = s.shape().to_vec();
    let dims = super::build::all_dims(shape.len());
    let elem = s.elem();
    let y = b.map(&shape, elem, |r| {
        div(r.read_dims(&s, &dims), k(count as f64, elem))
    })?;
    Ok(b.finish(vec![y]))
}

/// `GlobalMaxPool`: the maximum over the spatial dims.
pub fn global_max_pool(node: &Node) -> Result<Expansion, OpError> {
    let (b, y, _) = global(node, Combiner::Max)?;
    Ok(b.finish(vec![y]))
}
