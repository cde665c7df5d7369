#!/usr/bin/env python3
"""Generates roller-table1.mlir and roller-table1-small.mlir (te custom form).

The shapes are computed here, once, so that the .mlir files cannot disagree with
themselves; the readings of terse Table 1 entries are written into the output as
comments. Run from the repository root: python3 bench/ops/gen_roller_table1.py
"""

import math
import os

F = "f32"


def ty(shape, elem=F):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def compute(res, par, red, ext, ins, out, body, may_pad=None, indent="  "):
    """One te.compute in the custom form; ins: list of shapes in order of first use."""
    hdr = f"{indent}%{res} = te.compute (" + ", ".join("%" + p for p in par) + ")"
    if red:
        hdr += " reduce (" + ", ".join("%" + r for r in red) + ")"
    hdr += " in [" + ", ".join(str(e) for e in ext) + "]"
    if may_pad is not None:
        hdr += f" may_pad {may_pad}"
    hdr += "\n" + indent + "       : (" + ", ".join(ty(s) for s in ins) + ") -> " + ty(out) + " {\n"
    return hdr + f"{indent}  {body}\n{indent}}}\n"


def func(name, args, result, computes, ret, comment):
    lines = "".join(f"// {c}\n" for c in comment)
    sig = ", ".join(f"%{n}: {ty(s)}" for n, s in args)
    return (
        f"{lines}func.func @{name}({sig}) -> {ty(result)} {{\n"
        + "".join(computes)
        + f"  func.return %{ret} : {ty(result)}\n}}\n\n"
    )


def matmul(name, m, k, n, note):
    return func(
        name,
        [("A", [m, k]), ("B", [k, n])],
        [m, n],
        [compute("C", ["m", "n"], ["k"], [m, n, k], [[m, k], [k, n]], [m, n],
                 "te.sum(%A[%m, %k] * %B[%k, %n])", may_pad="0.0")],
        "C",
        [note, "C[m, n] = sum_k A[m, k] * B[k, n]; row-major A (MxK) and B (KxN)."],
    )


def conv(name, n, c, h, w, f, kh, kw, s, p, note):
    oh = (h + 2 * p - kh) // s + 1
    ow = (w + 2 * p - kw) // s + 1
    def idx(o, r):
        e = f"%{o}" if s == 1 else f"%{o} * {s}"
        e += f" + %{r}"
        if p:
            e += f" - {p}"
        return e
    pad = " pad 0.0" if p else ""
    body = (f"te.sum(%D[%n, %c, {idx('y', 'ry')}, {idx('x', 'rx')}]{pad}"
            f" * %K[%f, %c, %ry, %rx])")
    return func(
        name,
        [("D", [n, c, h, w]), ("K", [f, c, kh, kw])],
        [n, f, oh, ow],
        [compute("O", ["n", "f", "y", "x"], ["c", "ry", "rx"], [n, f, oh, ow, c, kh, kw],
                 [[n, c, h, w], [f, c, kh, kw]], [n, f, oh, ow], body, may_pad="0.0")],
        "O",
        [note, f"NCHW input, FCHW filter, stride {s}, zero padding {p}: output {n}x{f}x{oh}x{ow}."],
    )


def same_pad(h, k, s):
    """TensorFlow SAME: output ceil(h / s), padding before = total // 2."""
    oh = -(-h // s)
    total = max((oh - 1) * s + k - h, 0)
    return oh, total // 2, total - total // 2


def depthwise(name, n, c, h, w, mult, k, s, note):
    oh, pb, _ = same_pad(h, k, s)
    o = c * mult
    def idx(a, r):
        e = f"%{a}" if s == 1 else f"%{a} * {s}"
        e += f" + %{r}"
        if pb:
            e += f" - {pb}"
        return e
    cidx = "%o" if mult == 1 else f"%o floordiv {mult}"
    pad = " pad 0.0" if pb else ""
    body = f"te.sum(%D[%n, {cidx}, {idx('y', 'ry')}, {idx('x', 'rx')}]{pad} * %K[%o, %ry, %rx])"
    return func(
        name,
        [("D", [n, c, h, w]), ("K", [o, k, k])],
        [n, o, oh, oh],
        [compute("O", ["n", "o", "y", "x"], ["ry", "rx"], [n, o, oh, oh, k, k],
                 [[n, c, h, w], [o, k, k]], [n, o, oh, oh], body, may_pad="0.0")],
        "O",
        [note, f"Depthwise, channel multiplier {mult} (output channel o reads input channel o floordiv {mult}),",
         f"stride {s}, TF SAME padding ({pb} before): output {n}x{o}x{oh}x{oh}."],
    )


def relu(name, shape, note):
    axes = ["n", "c", "h", "w"][: len(shape)]
    idx = ", ".join("%" + a for a in axes)
    return func(
        name,
        [("I", shape)],
        shape,
        [compute("O", axes, [], shape, [shape], shape, f"te.max(%I[{idx}], 0.0)", may_pad="0.0")],
        "O",
        [note, "O = max(I, 0) elementwise (te.max with two operands is the elementwise maximum)."],
    )


def avgpool(name, n, c, h, w, k, s, mode, note):
    if mode == "VALID":
        oh = (h - k) // s + 1
        pb = 0
    else:
        oh, pb, _ = same_pad(h, k, s)
    def idx(a, r):
        e = f"%{a}" if s == 1 else f"%{a} * {s}"
        e += f" + %{r}"
        if pb:
            e += f" - {pb}"
        return e
    pad = " pad 0.0" if pb else ""
    out = [n, c, oh, oh]
    sum_c = compute("S", ["n", "c", "y", "x"], ["ry", "rx"], [n, c, oh, oh, k, k],
                    [[n, c, h, w]], out, f"te.sum(%D[%n, %c, {idx('y', 'ry')}, {idx('x', 'rx')}]{pad})",
                    may_pad="0.0")
    scale = compute("O", ["n", "c", "y", "x"], [], out, [out], out,
                    f"%S[%n, %c, %y, %x] / {float(k * k)}", may_pad="0.0")
    return func(
        name, [("D", [n, c, h, w])], out, [sum_c, scale], "O",
        [note, f"Window {k}x{k}, stride {s}, {mode} ({pb} before): output {n}x{c}x{oh}x{oh}.",
         "Reading: a window sum, then a division by the window size k*k (padding counted,",
         "like PyTorch count_include_pad; te has no axis values to count valid taps)."],
    )


def reduce_mean(name, shape, axes_red, note):
    names = ["a", "b", "c", "d"][: len(shape)]
    par = [names[i] for i in range(len(shape)) if i not in axes_red]
    red = [names[i] for i in axes_red]
    out = [shape[i] for i in range(len(shape)) if i not in axes_red]
    ext = out + [shape[i] for i in axes_red]
    idx = ", ".join("%" + a for a in names)
    cnt = math.prod(shape[i] for i in axes_red)
    s = compute("S", par, red, ext, [shape], out, f"te.sum(%I[{idx}])", may_pad="0.0")
    pidx = ", ".join("%" + a for a in par)
    m = compute("O", par, [], out, [out], out, f"%S[{pidx}] / {float(cnt)}", may_pad="0.0")
    return func(name, [("I", shape)], out, [s, m], "O",
                [note, f"Sum over axes {axes_red}, then division by {cnt}."])


def bmm(name, b, h, m, k, n, note):
    return func(
        name,
        [("Q", [b, h, m, k]), ("K", [b, h, n, k])],
        [b, h, m, n],
        [compute("S", ["b", "h", "m", "n"], ["k"], [b, h, m, n, k], [[b, h, m, k], [b, h, n, k]],
                 [b, h, m, n], "te.sum(%Q[%b, %h, %m, %k] * %K[%b, %h, %n, %k])", may_pad="0.0")],
        "S",
        [note, "S[b, h, m, n] = sum_k Q[b, h, m, k] * K[b, h, n, k] (Q K^T per head)."],
    )


def transpose(name, b, s, h, d, note):
    return func(
        name,
        [("X", [b, s, h, d])],
        [b, h, s, d],
        [compute("T", ["b", "h", "s", "d"], [], [b, h, s, d], [[b, s, h, d]], [b, h, s, d],
                 "%X[%b, %s, %h, %d]")],
        "T",
        [note, "T[b, h, s, d] = X[b, s, h, d] (split heads)."],
    )


def softmax(name, r, c, note):
    return func(
        name,
        [("X", [r, c])],
        [r, c],
        [
            compute("M", ["i"], ["j"], [r, c], [[r, c]], [r], "te.max(%X[%i, %j])", may_pad="-inf"),
            compute("E", ["i", "j"], [], [r, c], [[r, c], [r]], [r, c], "exp(%X[%i, %j] - %M[%i])"),
            compute("S", ["i"], ["j"], [r, c], [[r, c]], [r], "te.sum(%E[%i, %j])", may_pad="0.0"),
            compute("P", ["i", "j"], [], [r, c], [[r, c], [r]], [r, c], "%E[%i, %j] / %S[%i]"),
        ],
        "P",
        [note, "Row max, exp(x - max), row sum, division: the four pieces of a row softmax."],
    )


def layernorm(name, r, c, note):
    return func(
        name,
        [("X", [r, c]), ("G", [c]), ("B", [c])],
        [r, c],
        [
            compute("S", ["i"], ["j"], [r, c], [[r, c]], [r], "te.sum(%X[%i, %j])", may_pad="0.0"),
            compute("M", ["i"], [], [r], [[r]], [r], f"%S[%i] / {float(c)}"),
            compute("V", ["i"], ["j"], [r, c], [[r, c], [r]], [r],
                    "te.sum((%X[%i, %j] - %M[%i]) * (%X[%i, %j] - %M[%i]))"),
            compute("Y", ["i", "j"], [], [r, c], [[r, c], [r], [r], [c], [c]], [r, c],
                    f"(%X[%i, %j] - %M[%i]) * rsqrt(%V[%i] / {float(c)} + 1.0e-5) * %G[%j] + %B[%j]"),
        ],
        "Y",
        [note, "Row sum, mean, sum of squared deviations, normalise with gamma and beta (eps 1e-5)."],
    )


HEADER = """// {title}
//
// Generated by bench/ops/gen_roller_table1.py (edit that, then rerun). te custom form:
// one func.func per operator; `in [...]` lists the extents of the parallel axes, then
// of the reduction axes. `may_pad v` lets --tensor-padding pad the domain with v.
//
// Readings of terse Table 1 entries (Roller, OSDI'22, Table 1):
// - MatMul M, K, N: C[M, N] = A[M, K] * B[K, N].
// - Conv2D D=(N, C, H, W), K=(F, C, KH, KW), S=stride, NCHW. The padding is not given:
//   C1 (58x58) and C2 (30x30) are read as inputs already padded by 1 (ResNet-50's
//   56+2 and 28+2), so no padding, outputs 28x28 and 14x14; C0 (28x28, stride 1) as
//   zero padding 1 (ResNet-50's 3x3 convs at 28x28 keep the size), output 28x28.
// - DepthwiseConv D=(N, C, H, W), K=(O, O, KH, KW): O output channels, one KHxKW filter
//   each; O = C for D0/D1, and O = 4C for D2 (84 -> 336, channel multiplier 4). NASNet
//   uses TensorFlow SAME padding.
// - Avgpool K=window, S=stride, VALID/SAME as in TensorFlow; a window sum, then a
//   division by K*K (see the notes at P0-P2).
// - ReduceMean over the listed axes; the output drops them (keepdims=False).
// Extra operators from the benchmark models: batch matmul and head transpose (BERT-Large,
// 16 heads, head dim 64), softmax and layernorm pieces (BERT-Large hidden 1024).

"""


def suite(small):
    out = []
    s = "_small" if small else ""
    if not small:
        out.append(matmul("m0", 65536, 2, 1024, "M0: MatMul M=65536, K=2, N=1024."))
        out.append(matmul("m1", 128, 4032, 1000, "M1: MatMul M=128, K=4032, N=1000."))
        out.append(matmul("m2", 65536, 1024, 4096, "M2: MatMul M=65536, K=1024, N=4096."))
        out.append(conv("c0", 128, 128, 28, 28, 128, 3, 3, 1, 1, "C0: Conv2D D=(128,128,28,28), K=(128,128,3,3), S=1."))
        out.append(conv("c1", 128, 128, 58, 58, 128, 3, 3, 2, 0, "C1: Conv2D D=(128,128,58,58), K=(128,128,3,3), S=2."))
        out.append(conv("c2", 128, 256, 30, 30, 256, 3, 3, 2, 0, "C2: Conv2D D=(128,256,30,30), K=(256,256,3,3), S=2."))
        out.append(depthwise("d0", 128, 84, 83, 83, 1, 5, 2, "D0: DepthwiseConv D=(128,84,83,83), K=(84,84,5,5), S=2."))
        out.append(depthwise("d1", 128, 42, 83, 83, 1, 5, 1, "D1: DepthwiseConv D=(128,42,83,83), K=(42,42,5,5), S=1."))
        out.append(depthwise("d2", 128, 84, 21, 21, 4, 1, 1, "D2: DepthwiseConv D=(128,84,21,21), K=(336,336,1,1), S=1."))
        out.append(relu("e0", [128, 1008, 42, 42], "E0: Relu I=(128,1008,42,42)."))
        out.append(relu("e1", [128, 256, 14, 14], "E1: Relu I=(128,256,14,14)."))
        out.append(relu("e2", [128, 1024, 14, 14], "E2: Relu I=(128,1024,14,14)."))
        out.append(avgpool("p0", 128, 168, 83, 83, 1, 2, "VALID", "P0: Avgpool D=(128,168,83,83), K=1, S=2, VALID."))
        out.append(avgpool("p1", 128, 617, 21, 21, 3, 2, "SAME", "P1: Avgpool D=(128,617,21,21), K=3, S=2, SAME."))
        out.append(avgpool("p2", 128, 42, 83, 83, 3, 1, "SAME", "P2: Avgpool D=(128,42,83,83), K=3, S=1, SAME."))
        out.append(reduce_mean("r0", [128, 512, 1024], [2], "R0: ReduceMean I=(128,512,1024), axis=[2]."))
        out.append(reduce_mean("r1", [65536, 1024], [1], "R1: ReduceMean I=(65536,1024), axis=[1]."))
        out.append(reduce_mean("r2", [128, 4032, 11, 11], [2, 3], "R2: ReduceMean I=(128,4032,11,11), axis=[2,3]."))
        out.append(bmm("bmm", 128, 16, 512, 64, 512, "Batch matmul: BERT-Large attention scores, batch 128, seq 512."))
        out.append(transpose("transpose", 128, 512, 16, 64, "Transpose: BERT-Large split heads."))
        out.append(softmax("softmax", 128 * 16 * 512, 512, "Softmax over attention scores (rows = batch*heads*seq)."))
        out.append(layernorm("layernorm", 128 * 512, 1024, "LayerNorm over hidden 1024 (rows = batch*seq)."))
    else:
        # Same structure, small and irregular sizes (primes, 1) so tests run in CI.
        out.append(matmul("m0_small", 37, 2, 16, "M0 twin: K=2."))
        out.append(matmul("m1_small", 8, 63, 10, "M1 twin."))
        out.append(matmul("m2_small", 33, 17, 24, "M2 twin."))
        out.append(conv("c0_small", 2, 3, 7, 7, 4, 3, 3, 1, 1, "C0 twin: stride 1, padding 1."))
        out.append(conv("c1_small", 2, 3, 9, 9, 4, 3, 3, 2, 0, "C1 twin: stride 2, no padding."))
        out.append(conv("c2_small", 1, 5, 8, 8, 3, 3, 3, 2, 0, "C2 twin: stride 2, no padding."))
        out.append(depthwise("d0_small", 2, 3, 11, 11, 1, 5, 2, "D0 twin: 5x5, stride 2, SAME."))
        out.append(depthwise("d1_small", 2, 2, 11, 11, 1, 5, 1, "D1 twin: 5x5, stride 1, SAME."))
        out.append(depthwise("d2_small", 2, 3, 5, 5, 4, 1, 1, "D2 twin: 1x1, multiplier 4."))
        out.append(relu("e0_small", [2, 7, 6, 6], "E0 twin."))
        out.append(relu("e1_small", [1, 5, 3, 3], "E1 twin."))
        out.append(relu("e2_small", [17, 11, 3], "E2 twin: Roller's axis-fusion example shape [17, 11, 3]."))
        out.append(avgpool("p0_small", 2, 3, 11, 11, 1, 2, "VALID", "P0 twin: K=1, S=2, VALID."))
        out.append(avgpool("p1_small", 2, 5, 7, 7, 3, 2, "SAME", "P1 twin: K=3, S=2, SAME."))
        out.append(avgpool("p2_small", 1, 3, 9, 9, 3, 1, "SAME", "P2 twin: K=3, S=1, SAME."))
        out.append(reduce_mean("r0_small", [3, 5, 16], [2], "R0 twin."))
        out.append(reduce_mean("r1_small", [37, 64], [1], "R1 twin."))
        out.append(reduce_mean("r2_small", [2, 13, 11, 11], [2, 3], "R2 twin."))
        out.append(bmm("bmm_small", 2, 3, 5, 8, 7, "Batch matmul twin."))
        out.append(transpose("transpose_small", 2, 5, 3, 4, "Transpose twin."))
        out.append(softmax("softmax_small", 6, 13, "Softmax twin."))
        out.append(layernorm("layernorm_small", 5, 16, "LayerNorm twin."))
    title = ("Roller Table 1 operator suite, small twins (same structure, CI sizes)" if small
             else "Roller Table 1 operator suite at the paper's sizes, plus BERT pieces")
    return HEADER.format(title=title) + "".join(out)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "roller-table1.mlir"), "w") as f:
        f.write(suite(False).rstrip() + "\n")
    with open(os.path.join(here, "roller-table1-small.mlir"), "w") as f:
        f.write(suite(True).rstrip() + "\n")
