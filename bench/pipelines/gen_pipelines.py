#!/usr/bin/env python3
"""Writes the pipelines of the Halide GPU autoscheduler's benchmark (Anderson et al.,
OOPSLA'21 §6, Fig. 6) as te modules: the Halide apps' default sizes (1536x2560 images;
the layer and GEMM sizes below) and a small twin of each for the simulator.

The stencils are written as explicit sums (as the Halide apps build them, element-wise
Funcs), the windows of max filter, the convolutions and the GEMM as te reductions.
Run: python3 bench/pipelines/gen_pipelines.py (writes bench/pipelines/*.mlir)."""

import os

HERE = os.path.dirname(os.path.abspath(__file__))


def t(*shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


def compute(name, axes, ext, ins, out, body, red=None, rext=None):
    red_txt = f" reduce ({', '.join('%' + r for r in red)})" if red else ""
    dom = ext + (rext or [])
    return (f"  %{name} = te.compute ({', '.join('%' + a for a in axes)}){red_txt} in "
            f"[{', '.join(str(e) for e in dom)}] : ({', '.join(ins)}) -> {out} {{ {body} }}\n")


def func(name, args, ret, body, result):
    a = ", ".join(f"%{n}: {ty}" for n, ty in args)
    return f"func.func @{name}({a}) -> {ret} {{\n{body}  func.return %{result} : {ret}\n}}\n"


def off(v, d):
    return f"%{v}" if d == 0 else (f"%{v} + {d}" if d > 0 else f"%{v} - {-d}")


def stencil_chain(n, h, w, r):
    """n stages of a (2r+1)^2 box stencil, each an explicit sum (valid borders)."""
    body, prev, ph, pw = "", "I", h, w
    for k in range(n):
        oh, ow = ph - 2 * r, pw - 2 * r
        terms = [f"%{prev}[{off('y', dy)}, {off('x', dx)}]"
                 for dy in range(2 * r + 1) for dx in range(2 * r + 1)]
        scale = 1.0 / (2 * r + 1) ** 2
        body += compute(f"S{k}", ["y", "x"], [oh, ow], [t(ph, pw)], t(oh, ow),
                        f"({' + '.join(terms)}) * {scale:.6f}")
        prev, ph, pw = f"S{k}", oh, ow
    return func("stencil_chain", [("I", t(h, w))], t(ph, pw), body, prev)


GAUSS9 = [0.0216, 0.0651, 0.1390, 0.2096, 0.2348, 0.2096, 0.1390, 0.0651, 0.0216]


def unsharp(h, w):
    """Halide apps/unsharp: gray, a 9-tap Gaussian (sigma 1.5) in y then x, sharpen,
    ratio, output = ratio * input."""
    b = compute("gray", ["y", "x"], [h, w], [t(3, h, w)], t(h, w),
                "0.299 * %I[0, %y, %x] + 0.587 * %I[1, %y, %x] + 0.114 * %I[2, %y, %x]")
    h2, w2 = h - 8, w - 8
    by = " + ".join(f"{c} * %gray[%y + {i}, %x]" for i, c in enumerate(GAUSS9))
    b += compute("blur_y", ["y", "x"], [h2, w], [t(h, w)], t(h2, w), by)
    bx = " + ".join(f"{c} * %blur_y[%y, %x + {i}]" for i, c in enumerate(GAUSS9))
    b += compute("blur_x", ["y", "x"], [h2, w2], [t(h2, w)], t(h2, w2), bx)
    b += compute("sharpen", ["y", "x"], [h2, w2], [t(h, w), t(h2, w2)], t(h2, w2),
                 "2.0 * %gray[%y + 4, %x + 4] - %blur_x[%y, %x]")
    b += compute("ratio", ["y", "x"], [h2, w2], [t(h2, w2), t(h, w)], t(h2, w2),
                 "%sharpen[%y, %x] / (%gray[%y + 4, %x + 4] + 0.001)")
    b += compute("out", ["c", "y", "x"], [3, h2, w2], [t(h2, w2), t(3, h, w)], t(3, h2, w2),
                 "%ratio[%y, %x] * %I[%c, %y + 4, %x + 4]")
    return func("unsharp", [("I", t(3, h, w))], t(3, h2, w2), b, "out")


def harris(h, w):
    """Halide apps/harris: gray, Sobel Ix/Iy, products, 3x3 box sums, det - k trace^2."""
    b = compute("gray", ["y", "x"], [h, w], [t(3, h, w)], t(h, w),
                "0.299 * %I[0, %y, %x] + 0.587 * %I[1, %y, %x] + 0.114 * %I[2, %y, %x]")
    h1, w1 = h - 2, w - 2
    g = lambda dy, dx: f"%gray[{off('y', dy)}, {off('x', dx)}]"
    iy = (f"({g(2,0)} + 2.0 * {g(2,1)} + {g(2,2)} - {g(0,0)} - 2.0 * {g(0,1)} - {g(0,2)}) "
          f"* 0.083333")
    ix = (f"({g(0,2)} + 2.0 * {g(1,2)} + {g(2,2)} - {g(0,0)} - 2.0 * {g(1,0)} - {g(2,0)}) "
          f"* 0.083333")
    b += compute("Iy", ["y", "x"], [h1, w1], [t(h, w)], t(h1, w1), iy)
    b += compute("Ix", ["y", "x"], [h1, w1], [t(h, w)], t(h1, w1), ix)
    b += compute("Ixx", ["y", "x"], [h1, w1], [t(h1, w1)], t(h1, w1), "%Ix[%y, %x] * %Ix[%y, %x]")
    b += compute("Iyy", ["y", "x"], [h1, w1], [t(h1, w1)], t(h1, w1), "%Iy[%y, %x] * %Iy[%y, %x]")
    b += compute("Ixy", ["y", "x"], [h1, w1], [t(h1, w1), t(h1, w1)], t(h1, w1),
                 "%Ix[%y, %x] * %Iy[%y, %x]")
    h2, w2 = h1 - 2, w1 - 2
    for name, src in [("Sxx", "Ixx"), ("Syy", "Iyy"), ("Sxy", "Ixy")]:
        s = " + ".join(f"%{src}[{off('y', dy)}, {off('x', dx)}]"
                       for dy in range(3) for dx in range(3))
        b += compute(name, ["y", "x"], [h2, w2], [t(h1, w1)], t(h2, w2), s)
    b += compute("det", ["y", "x"], [h2, w2], [t(h2, w2)] * 3, t(h2, w2),
                 "%Sxx[%y, %x] * %Syy[%y, %x] - %Sxy[%y, %x] * %Sxy[%y, %x]")
    b += compute("trace", ["y", "x"], [h2, w2], [t(h2, w2)] * 2, t(h2, w2),
                 "%Sxx[%y, %x] + %Syy[%y, %x]")
    b += compute("harris", ["y", "x"], [h2, w2], [t(h2, w2)] * 2, t(h2, w2),
                 "%det[%y, %x] - 0.04 * %trace[%y, %x] * %trace[%y, %x]")
    return func("harris", [("I", t(3, h, w))], t(h2, w2), b, "harris")


def max_filter(c, h, w, r):
    """Halide apps/max_filter: the max over a (2r+1)^2 window, as a vertical then a
    horizontal max reduction (valid borders)."""
    k = 2 * r + 1
    h1, w1 = h - 2 * r, w - 2 * r
    b = compute("vmax", ["c", "y", "x"], [c, h1, w], [t(c, h, w)], t(c, h1, w),
                "te.max(%I[%c, %y + %r, %x])", ["r"], [k])
    b += compute("hmax", ["c", "y", "x"], [c, h1, w1], [t(c, h1, w)], t(c, h1, w1),
                 "te.max(%vmax[%c, %y, %x + %r])", ["r"], [k])
    return func("max_filter", [("I", t(c, h, w))], t(c, h1, w1), b, "hmax")


def interpolate(h, w, levels):
    """Halide apps/interpolate's pyramid: 2x2 downsampling to `levels` levels, then
    upsampling back, each level blending its own value with the coarser level's."""
    b, sizes = "", [(h, w)]
    prev = "I"
    for l in range(1, levels):
        ph, pw = sizes[-1]
        nh, nw = ph // 2, pw // 2
        src = lambda dy, dx: f"%{prev}[%y * 2 + {dy}, %x * 2 + {dx}]"
        b += compute(f"d{l}", ["y", "x"], [nh, nw], [t(ph, pw)], t(nh, nw),
                     f"({src(0,0)} + {src(0,1)} + {src(1,0)} + {src(1,1)}) * 0.25")
        sizes.append((nh, nw))
        prev = f"d{l}"
    up = prev
    for l in range(levels - 2, -1, -1):
        lh, lw = sizes[l]
        ch, cw = sizes[l + 1]
        own = "I" if l == 0 else f"d{l}"
        b += compute(f"u{l}", ["y", "x"], [lh, lw], [t(lh, lw), t(ch, cw)], t(lh, lw),
                     f"0.5 * %{own}[%y, %x] + 0.5 * %{up}[%y floordiv 2, %x floordiv 2]")
        up = f"u{l}"
    return func("interpolate", [("I", t(h, w))], t(h, w), b, up)


def dw_sep_conv(n, ci, co, h, w):
    """Depthwise-separable convolution: a 3x3 depthwise conv per channel, then a 1x1
    pointwise conv (valid borders)."""
    h1, w1 = h - 2, w - 2
    b = compute("dw", ["n", "c", "y", "x"], [n, ci, h1, w1], [t(n, ci, h, w), t(ci, 3, 3)],
                t(n, ci, h1, w1), "te.sum(%I[%n, %c, %y + %r, %x + %s] * %D[%c, %r, %s])",
                ["r", "s"], [3, 3])
    b += compute("pw", ["n", "f", "y", "x"], [n, co, h1, w1], [t(n, ci, h1, w1), t(co, ci)],
                 t(n, co, h1, w1), "te.sum(%dw[%n, %c, %y, %x] * %P[%f, %c])", ["c"], [ci])
    return func("dw_sep_conv", [("I", t(n, ci, h, w)), ("D", t(ci, 3, 3)), ("P", t(co, ci))],
                t(n, co, h1, w1), b, "pw")


def conv_relu(n, ci, co, h, w):
    """Halide apps/conv_layer: a 3x3 convolution with bias, then ReLU (valid borders)."""
    h1, w1 = h - 2, w - 2
    b = compute("conv", ["n", "f", "y", "x"], [n, co, h1, w1], [t(n, ci, h, w), t(co, ci, 3, 3)],
                t(n, co, h1, w1), "te.sum(%I[%n, %c, %y + %r, %x + %s] * %W[%f, %c, %r, %s])",
                ["c", "r", "s"], [ci, 3, 3])
    b += compute("relu", ["n", "f", "y", "x"], [n, co, h1, w1], [t(n, co, h1, w1), t(co)],
                 t(n, co, h1, w1), "max(%conv[%n, %f, %y, %x] + %B[%f], 0.0)")
    return func("conv_relu", [("I", t(n, ci, h, w)), ("W", t(co, ci, 3, 3)), ("B", t(co))],
                t(n, co, h1, w1), b, "relu")


def sgemm(m, n, k):
    """SGEMM: C = A . B (Halide apps/linear_algebra's sgemm without alpha/beta)."""
    b = compute("C", ["i", "j"], [m, n], [t(m, k), t(k, n)], t(m, n),
                "te.sum(%A[%i, %k] * %B[%k, %j])", ["k"], [k])
    return func("sgemm", [("A", t(m, k)), ("B", t(k, n))], t(m, n), b, "C")


PIPELINES = {
    "stencil_chain": (lambda: stencil_chain(32, 1536, 2560, 2), lambda: stencil_chain(32, 160, 192, 2)),
    "unsharp_mask": (lambda: unsharp(1536, 2560), lambda: unsharp(40, 48)),
    "harris": (lambda: harris(1536, 2560), lambda: harris(36, 44)),
    "max_filter": (lambda: max_filter(3, 1536, 2560, 26), lambda: max_filter(3, 40, 48, 3)),
    "interpolate": (lambda: interpolate(1536, 2560, 10), lambda: interpolate(64, 64, 4)),
    "dw_sep_conv": (lambda: dw_sep_conv(4, 32, 16, 112, 112), lambda: dw_sep_conv(1, 8, 4, 18, 18)),
    "conv_relu": (lambda: conv_relu(5, 128, 128, 100, 80), lambda: conv_relu(1, 8, 8, 18, 14)),
    "sgemm": (lambda: sgemm(1024, 1024, 1024), lambda: sgemm(64, 48, 32)),
}

if __name__ == "__main__":
    for name, (big, small) in PIPELINES.items():
        for suffix, gen in [("", big), ("_small", small)]:
            path = os.path.join(HERE, f"{name}{suffix}.mlir")
            with open(path, "w") as f:
                f.write(f"// {name}{suffix}: written by gen_pipelines.py (do not edit).\n")
                f.write(gen())
            print(path)
