#!/usr/bin/env python3
"""Writes the Rammer workloads (OSDI'20 Table 1 / §5) as te functions:

- lstm.mlir: LSTM, batch 1, hidden 256, 10 steps unrolled; per step the four gate matmuls
  (x·W + h·U, in parallel) and two element-wise ops (new cell state, new hidden state).
- nasnet-cell.mlir: a NASNet-A-style normal cell (5 blocks of two branches added:
  separable convs as depthwise + pointwise, 3x3 average and max pools, identity), 64
  channels at 16x16, batch 1.
- inception.mlir: GoogLeNet's Inception 3a module (1x1; 1x1 -> 3x3; 1x1 -> 5x5;
  3x3 max pool -> 1x1), 192 channels at 28x28, batch 1.

Usage: python3 bench/models/gen_rammer_models.py  (writes next to this file)
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def t(*shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


class F:
    def __init__(self, name):
        self.name, self.args, self.body, self.n = name, [], [], 0

    def arg(self, name, ty):
        self.args.append(f"%{name}: {ty}")
        return f"%{name}", ty

    def op(self, axes, red, ext, ins, out, body):
        self.n += 1
        v = f"%v{self.n}"
        r = f" reduce ({', '.join('%' + a for a in red)})" if red else ""
        intys = ", ".join(ty for _, ty in ins)
        self.body.append(
            f"  {v} = te.compute ({', '.join('%' + a for a in axes)}){r} in [{', '.join(map(str, ext))}]\n"
            f"      : ({intys}) -> {out} {{ {body} }}")
        return v, out

    def text(self, outs):
        rets = ", ".join(v for v, _ in outs)
        tys = ", ".join(ty for _, ty in outs)
        return (f"func.func @{self.name}({', '.join(self.args)}) -> ({tys}) {{\n"
                + "\n".join(self.body) + f"\n  func.return {rets} : {tys}\n}}\n")


def sig(x):
    return f"(1.0 / (1.0 + exp(-{x})))"


def lstm(steps=10, hid=256):
    f = F("lstm")
    W = [f.arg(f"W{g}", t(hid, hid)) for g in "ifgo"]
    U = [f.arg(f"U{g}", t(hid, hid)) for g in "ifgo"]
    xs = [f.arg(f"x{s}", t(1, hid)) for s in range(steps)]
    h, c = f.arg("h0", t(1, hid)), f.arg("c0", t(1, hid))
    for s in range(steps):
        gates = []
        for g in range(4):
            gates.append(f.op(["b", "n"], ["k"], [1, hid, hid], [xs[s], W[g], h, U[g]], t(1, hid),
                              f"te.sum({xs[s][0]}[%b, %k] * {W[g][0]}[%k, %n] + {h[0]}[%b, %k] * {U[g][0]}[%k, %n])"))
        i, fg, g_, o = [f"{v}[%b, %n]" for v, _ in gates]
        c = f.op(["b", "n"], [], [1, hid], [gates[1], c, gates[0], gates[2]], t(1, hid),
                 f"{sig(fg)} * {c[0]}[%b, %n] + {sig(i)} * tanh({g_})")
        h = f.op(["b", "n"], [], [1, hid], [gates[3], c], t(1, hid), f"{sig(o)} * tanh({c[0]}[%b, %n])")
    return f.text([h, c])


def conv(f, x, cin, cout, hw, k, pad=True):
    n = f.arg(f"K{f.n + 1}", t(cout, cin, k, k))
    off = (k - 1) // 2
    idx = f"%y + %ry - {off}, %x + %rx - {off}" if off else "%y + %ry, %x + %rx"
    p = " pad 0.0" if off else ""
    return f.op(["n", "f", "y", "x"], ["c", "ry", "rx"], [1, cout, hw, hw, cin, k, k], [x, n], t(1, cout, hw, hw),
                f"te.sum({x[0]}[%n, %c, {idx}]{p} * {n[0]}[%f, %c, %ry, %rx])")


def dwconv(f, x, c, hw, k):
    n = f.arg(f"D{f.n + 1}", t(c, k, k))
    off = (k - 1) // 2
    return f.op(["n", "c", "y", "x"], ["ry", "rx"], [1, c, hw, hw, k, k], [x, n], t(1, c, hw, hw),
                f"te.sum({x[0]}[%n, %c, %y + %ry - {off}, %x + %rx - {off}] pad 0.0 * {n[0]}[%c, %ry, %rx])")


def pool(f, x, c, hw, kind):
    red = "te.max" if kind == "max" else "te.sum"
    v = f.op(["n", "c", "y", "x"], ["ry", "rx"], [1, c, hw, hw, 3, 3], [x], t(1, c, hw, hw),
             f"{red}({x[0]}[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0)")
    if kind == "avg":
        v = f.op(["n", "c", "y", "x"], [], [1, c, hw, hw], [v], t(1, c, hw, hw), f"{v[0]}[%n, %c, %y, %x] / 9.0")
    return v


def add(f, a, b, c, hw):
    return f.op(["n", "c", "y", "x"], [], [1, c, hw, hw], [a, b], t(1, c, hw, hw),
                f"{a[0]}[%n, %c, %y, %x] + {b[0]}[%n, %c, %y, %x]")


def sep(f, x, c, hw, k):
    r = f.op(["n", "c", "y", "x"], [], [1, c, hw, hw], [x], t(1, c, hw, hw), f"max({x[0]}[%n, %c, %y, %x], 0.0)")
    return conv(f, dwconv(f, r, c, hw, k), c, c, hw, 1)


def nasnet_cell(c=64, hw=16):
    f = F("nasnet_cell")
    hp, h = f.arg("hprev", t(1, c, hw, hw)), f.arg("h", t(1, c, hw, hw))
    b1 = add(f, sep(f, h, c, hw, 3), h, c, hw)
    b2 = add(f, sep(f, hp, c, hw, 3), sep(f, h, c, hw, 5), c, hw)
    b3 = add(f, pool(f, h, c, hw, "avg"), hp, c, hw)
    b4 = add(f, pool(f, hp, c, hw, "avg"), pool(f, hp, c, hw, "max"), c, hw)
    b5 = add(f, sep(f, hp, c, hw, 5), sep(f, hp, c, hw, 3), c, hw)
    return f.text([b1, b2, b3, b4, b5])


def inception(div=1, hw=28):
    """Inception 3a; `div` divides every channel count (small variants for the simulator)."""
    f = F("inception_3a")
    c = lambda n: n // div
    x = f.arg("x", t(1, c(192), hw, hw))
    b1 = conv(f, x, c(192), c(64), hw, 1)
    b2 = conv(f, conv(f, x, c(192), c(96), hw, 1), c(96), c(128), hw, 3)
    b3 = conv(f, conv(f, x, c(192), c(16), hw, 1), c(16), c(32), hw, 5)
    b4 = conv(f, pool(f, x, c(192), hw, "max"), c(192), c(32), hw, 1)
    return f.text([b1, b2, b3, b4])


HEADER = "// Generated by bench/models/gen_rammer_models.py (Rammer workloads, OSDI'20 §5); do not edit.\n"
if __name__ == "__main__":
    for name, text in [("lstm", lstm()), ("nasnet-cell", nasnet_cell()), ("inception", inception())]:
        with open(os.path.join(HERE, name + ".mlir"), "w") as fh:
            fh.write(HEADER + text)
    # Simulator-sized variants (the persistent-kernel tests run them whole in the CPU
    # GPU-simulator): LSTM hidden 32 over 3 steps, the NASNet cell at 8 channels 8x8,
    # Inception 3a with channels / 8 at 8x8.
    os.makedirs(os.path.join(HERE, "small"), exist_ok=True)
    for name, text in [("lstm", lstm(steps=3, hid=32)), ("nasnet-cell", nasnet_cell(c=8, hw=8)),
                       ("inception", inception(div=8, hw=8))]:
        with open(os.path.join(HERE, "small", name + ".mlir"), "w") as fh:
            fh.write(HEADER + text)
