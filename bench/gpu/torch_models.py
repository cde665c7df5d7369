#!/usr/bin/env python3
"""PyTorch twins of the te workloads, for the GPU comparison (issue 14 "Must show": fused vs
unfused rtile vs torch.compile; issue 15: packed vs per-operator vs a CUDA graph).

For every workload file of bench/models/welder/ (written by gen_welder_models.py) and
bench/models/{lstm,nasnet-cell,inception}.mlir (gen_rammer_models.py), with their simulator
twins (NAME-sim.mlir; bench/models/small/NAME.mlir), `build(name)` returns `(fn,
make_inputs)`: `fn(*args)` computes the te func.func's function with the same argument order,
shapes and dtypes (FP32; weights are arguments, as in te) and returns a tuple of the te
results in order; `make_inputs(seed=0, device="cpu")` returns seeded uniform [-1, 1) inputs.
One builder per workload, parametrised by size, serves both twins, so checking the small twin
against rtile's te interpreter checks the code that the paper-size timing runs.

Two te semantics the twins keep on purpose: the te max pools (NASNet cell, Inception) pad
with 0.0, not -inf, so a border output is max(window, 0); the BERT layer's only bias is
Q's (folded into the te sum as `bq / hidden`), and its GELU is the erf form.

CLI:
  python3 bench/gpu/torch_models.py --check-te DIR [DIR...] [--rtile-run target/debug/rtile-run]
      Per .mlir file of DIR: its te signature must equal the builder's inputs and outputs
      (shapes, order, f32); simulator twins (NAME-sim.mlir, and every file of a directory
      named `small`) are also run by `rtile-run --interpret --inputs ... --dump` on seeded
      inputs saved as .npy and compared with torch on CPU: normwise relative error
      max|torch - te| / max|te| < 1e-4 per output. A file with no builder fails the check.
  python3 bench/gpu/torch_models.py --time NAME... [--compile] [--cuda-graph] [--iters 50]
                                    [--device cuda|cpu]
      On a CUDA GPU (TF32 off, FP32): per workload, CUDA-event time of one call, median of
      --iters after warm-up, eagerly (--device cpu: the host clock, to test the script);
      with --compile also torch.compile (default mode) and the seconds its first call took
      (compilation); with --cuda-graph also the eager calls captured in one
      torch.cuda.CUDAGraph and replayed. One JSON line per workload:
      {"name", "eager_ms", "compile_ms", "compile_seconds", "compile_rel_err" (compiled vs
      eager results), "cuda_graph_ms", ...}; a variant that fails records "<variant>_error".
      NAME `all` stands for every paper-size workload (the names without -sim / -small).
  python3 bench/gpu/torch_models.py --list   prints the workload names.
Exit status: 0 when every check passed (or every timing ran), 1 otherwise.
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# ---------------------------------------------------------------- workloads (te order)

def layernorm_rows(x, g, b):
    """Row layer norm, biased variance, eps 1e-5 (the te ops Mu, Va, L)."""
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) * (x - mu)).mean(-1, keepdim=True)
    return (x - mu) * torch.rsqrt(var + 1e-5) * g + b


def layernorm(rows, hid):
    return (lambda x, g, b: (layernorm_rows(x, g, b),)), [(rows, hid), (hid,), (hid,)], [(rows, hid)]


def softmax(rows, cols):
    return (lambda x: (torch.softmax(x, -1),)), [(rows, cols)], [(rows, cols)]


def bert_layer(seq, hid, heads, ffn):
    dh = hid // heads

    def fn(x, wq, wk, wv, bq, wo, w1, b1, w2, g, b):
        def split(t):  # [seq, hid] -> [heads, seq, dh]: te reads head h at columns h * dh + d
            return t.view(seq, heads, dh).transpose(0, 1)
        q, k, v = split(x @ wq + bq), split(x @ wk), split(x @ wv)
        a = F.scaled_dot_product_attention(q, k, v, scale=1.0 / math.sqrt(dh))
        r = a.transpose(0, 1).reshape(seq, hid) @ wo + x
        ln = layernorm_rows(r, g, b)
        return (F.gelu(ln @ w1 + b1) @ w2 + ln,)
    hh = (hid, hid)
    ins = [(seq, hid), hh, hh, hh, (hid,), hh, (hid, ffn), (ffn,), (ffn, hid), (hid,), (hid,)]
    return fn, ins, [(seq, hid)]


def mobilenet_block(hw, cin, mid, cout):
    """MobileNetV2's inverted residual, BN folded into biases (the te ops P, A, D, E, Q, Y)."""
    def fn(i, w1, b1, k, b2, w2, b3):
        a = F.relu6(F.conv2d(i, w1[:, :, None, None], b1))
        e = F.relu6(F.conv2d(a, k[:, None], b2, padding=1, groups=mid))
        y = F.conv2d(e, w2[:, :, None, None], b3)
        return (y + i if cin == cout else y,)
    ins = [(1, cin, hw, hw), (mid, cin), (mid,), (mid, 3, 3), (mid,), (cout, mid), (cout,)]
    return fn, ins, [(1, cout, hw, hw)]


def resnet_bottleneck(hw, c, mid):
    def fn(x, w1, b1, w2, b2, w3, b3):
        r1 = F.relu(F.conv2d(x, w1, b1))
        r2 = F.relu(F.conv2d(r1, w2, b2, padding=1))
        return (F.relu(F.conv2d(r2, w3, b3) + x),)
    ins = [(1, c, hw, hw), (mid, c, 1, 1), (mid,), (mid, mid, 3, 3), (mid,), (c, mid, 1, 1), (c,)]
    return fn, ins, [(1, c, hw, hw)]


def nerf_mlp(points, cin, hid, cout, layers=7):
    dims = [cin] + [hid] * (layers - 1) + [cout]

    def fn(x, *ws):
        for i, w in enumerate(ws):
            x = x @ w if i == len(ws) - 1 else F.relu(x @ w)
        return (x,)
    return fn, [(points, cin)] + [(dims[i], dims[i + 1]) for i in range(layers)], [(points, cout)]


def conv_bias_relu(hw, cin, cout):
    fn = lambda x, w, b: (F.relu(F.conv2d(x, w, b, padding=1)),)  # noqa: E731
    return fn, [(1, cin, hw, hw), (cout, cin, 3, 3), (cout,)], [(1, cout, hw, hw)]


def lstm(steps, hid):
    """Arguments: W_i,f,g,o, U_i,f,g,o, x_0..x_{steps-1}, h0, c0; results (h, c)."""
    def fn(*a):
        w, u, xs, h, c = a[0:4], a[4:8], a[8:8 + steps], a[8 + steps], a[9 + steps]
        for x in xs:
            i, f, g, o = (x @ w[k] + h @ u[k] for k in range(4))
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
        return (h, c)
    return fn, [(hid, hid)] * 8 + [(1, hid)] * (steps + 2), [(1, hid)] * 2


def pool3(x, kind):
    """3x3 stride-1 pool over a zero-padded map: te's `pad 0.0` (max pads with 0, not -inf);
    the average divides by 9 everywhere (count_include_pad)."""
    if kind == "avg":
        return F.avg_pool2d(x, 3, 1, 1, count_include_pad=True)
    return F.max_pool2d(F.pad(x, (1, 1, 1, 1), value=0.0), 3, 1)


def nasnet_cell(c, hw):
    """Weights in gen_rammer_models.py's creation order: per separable conv, the depthwise
    kernel [c, k, k] then the pointwise [c, c, 1, 1]; results b1..b5."""
    def fn(hp, h, *ws):
        it = iter(ws)

        def sep(x, k):
            d = next(it)
            y = F.conv2d(F.relu(x), d[:, None], padding=(k - 1) // 2, groups=c)
            return F.conv2d(y, next(it))
        b1 = sep(h, 3) + h
        b2 = sep(hp, 3) + sep(h, 5)
        b3 = pool3(h, "avg") + hp
        b4 = pool3(hp, "avg") + pool3(hp, "max")
        b5 = sep(hp, 5) + sep(hp, 3)
        return (b1, b2, b3, b4, b5)
    ws = []
    for k in (3, 3, 5, 5, 3):
        ws += [(c, k, k), (c, c, 1, 1)]
    m = (1, c, hw, hw)
    return fn, [m, m] + ws, [m] * 5


def inception(div, hw):
    """GoogLeNet Inception 3a, every channel count divided by `div`; weights in creation
    order (inner conv of a branch first); results the four branches."""
    ch = lambda n: n // div  # noqa: E731

    def fn(x, k1, k2a, k2b, k3a, k3b, k4):
        return (F.conv2d(x, k1),
                F.conv2d(F.conv2d(x, k2a), k2b, padding=1),
                F.conv2d(F.conv2d(x, k3a), k3b, padding=2),
                F.conv2d(pool3(x, "max"), k4))
    w = lambda o, i, k: (ch(o), ch(i), k, k)  # noqa: E731
    ins = [(1, ch(192), hw, hw), w(64, 192, 1), w(96, 192, 1), w(128, 96, 3), w(16, 192, 1),
           w(32, 16, 5), w(32, 192, 1)]
    return fn, ins, [(1, ch(n), hw, hw) for n in (64, 128, 32, 32)]


# name -> (builder, size arguments, te file relative to the repository root)
W = "bench/models/welder/"
WORKLOADS = {
    "layernorm": (layernorm, (128, 768), W + "layernorm.mlir"),
    "layernorm-sim": (layernorm, (16, 64), W + "layernorm-sim.mlir"),
    "softmax": (softmax, (98304, 128), W + "softmax.mlir"),
    "softmax-sim": (softmax, (64, 32), W + "softmax-sim.mlir"),
    "bert-layer-128": (bert_layer, (128, 768, 12, 3072), W + "bert-layer-128.mlir"),
    "bert-layer-sim": (bert_layer, (16, 64, 2, 128), W + "bert-layer-sim.mlir"),
    "bert-layer-512": (bert_layer, (512, 768, 12, 3072), W + "bert-layer-512.mlir"),
    "bert-layer-512-sim": (bert_layer, (64, 64, 2, 128), W + "bert-layer-512-sim.mlir"),
    "mobilenet-block-112": (mobilenet_block, (112, 16, 96, 24), W + "mobilenet-block-112.mlir"),
    "mobilenet-block-sim": (mobilenet_block, (16, 8, 48, 8), W + "mobilenet-block-sim.mlir"),
    "mobilenet-block-14": (mobilenet_block, (14, 64, 384, 64), W + "mobilenet-block-14.mlir"),
    "mobilenet-block-14-sim": (mobilenet_block, (4, 32, 192, 32), W + "mobilenet-block-14-sim.mlir"),
    "resnet-bottleneck": (resnet_bottleneck, (56, 256, 64), W + "resnet-bottleneck.mlir"),
    "resnet-bottleneck-sim": (resnet_bottleneck, (8, 32, 8), W + "resnet-bottleneck-sim.mlir"),
    "nerf-mlp": (nerf_mlp, (65536, 63, 256, 4), W + "nerf-mlp.mlir"),
    "nerf-mlp-sim": (nerf_mlp, (64, 16, 32, 4), W + "nerf-mlp-sim.mlir"),
    "conv-bias-relu": (conv_bias_relu, (56, 64, 64), W + "conv-bias-relu.mlir"),
    "conv-bias-relu-sim": (conv_bias_relu, (8, 8, 8), W + "conv-bias-relu-sim.mlir"),
    "lstm": (lstm, (10, 256), "bench/models/lstm.mlir"),
    "lstm-small": (lstm, (3, 32), "bench/models/small/lstm.mlir"),
    "nasnet-cell": (nasnet_cell, (64, 16), "bench/models/nasnet-cell.mlir"),
    "nasnet-cell-small": (nasnet_cell, (8, 8), "bench/models/small/nasnet-cell.mlir"),
    "inception": (inception, (1, 28), "bench/models/inception.mlir"),
    "inception-small": (inception, (8, 8), "bench/models/small/inception.mlir"),
}


def build(name):
    """`(fn, make_inputs)` of workload `name` (see WORKLOADS); `fn(*args)` returns a tuple."""
    builder, size, _ = WORKLOADS[name]
    fn, in_shapes, _ = builder(*size)

    def make_inputs(seed=0, device="cpu"):
        g = torch.Generator().manual_seed(seed)
        return [(torch.rand(s, generator=g) * 2 - 1).to(device) for s in in_shapes]
    return fn, make_inputs


def shapes(name):
    """(input shapes, output shapes) of workload `name`."""
    builder, size, _ = WORKLOADS[name]
    _, ins, outs = builder(*size)
    return [tuple(s) for s in ins], [tuple(s) for s in outs]


# ---------------------------------------------------------------- checking against te

def te_signature(path):
    """(func name, argument types, result types) of the single func.func in a te file; a
    type is (shape, element type)."""
    text = open(path).read()
    funcs = re.findall(r"^func\.func @(\w+)\((.*?)\) -> (.*?) \{$", text, re.M)
    if len(funcs) != 1:
        raise ValueError(f"{path}: expected one func.func, found {len(funcs)}")
    name, args, res = funcs[0]
    ty = lambda s: [(tuple(int(d) for d in m.group(1).split("x")), m.group(2))  # noqa: E731
                    for m in re.finditer(r"tensor<((?:\d+x)*\d+)x(\w+)>", s)]
    return name, ty(args), ty(res)


def name_of(path):
    """The workload name of a te file (bench/models/small/X.mlir is `X-small`), or None."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if os.path.basename(os.path.dirname(os.path.abspath(path))) == "small":
        stem += "-small"
    return stem if stem in WORKLOADS else None


def is_twin(name):
    return name.endswith("-sim") or name.endswith("-small")


def rel_err(got, want):
    """Normwise relative error max|got - want| / max|want| (as rtile-run --sim --check)."""
    scale = float(np.abs(want).max()) or 1.0
    return float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max()) / scale


def check_file(path, rtile_run, tol, seed):
    """Checks one te file; returns (ok, message)."""
    name = name_of(path)
    if name is None:
        return False, f"{path}: no torch builder for this file"
    func, args, res = te_signature(path)
    ins, outs = shapes(name)
    want_args, want_res = [(s, "f32") for s in ins], [(s, "f32") for s in outs]
    if args != want_args or res != want_res:
        return False, f"{name}: te signature {args} -> {res} != torch {want_args} -> {want_res}"
    if not is_twin(name):
        return True, f"{name}: signature matches ({len(args)} args, {len(res)} results)"
    fn, make_inputs = build(name)
    xs = make_inputs(seed)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, x in enumerate(xs):
            files.append(os.path.join(tmp, f"in{i}.npy"))
            np.save(files[-1], x.numpy())
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        cmd = [rtile_run, "--interpret", path, "--inputs", ",".join(files), "--dump", out]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return False, f"{name}: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}"
        te_outs = [np.load(os.path.join(out, f"{func}.{i}.npy")) for i in range(len(res))]
    with torch.no_grad():
        got = [t.numpy() for t in fn(*xs)]
    errs = [rel_err(g, w) for g, w in zip(got, te_outs)]
    ok = all(e < tol for e in errs) and all(g.shape == w.shape for g, w in zip(got, te_outs))
    return ok, f"{name}: max relative error vs te interpreter {max(errs):.2e} ({'ok' if ok else 'FAIL'})"


def check_dirs(dirs, rtile_run, tol, seed):
    ok = True
    for d in dirs:
        files = sorted(f for f in os.listdir(d) if f.endswith(".mlir"))
        if not files:
            print(f"{d}: no .mlir files")
            ok = False
        for f in files:
            good, msg = check_file(os.path.join(d, f), rtile_run, tol, seed)
            print(msg, flush=True)
            ok &= good
    return ok


# ---------------------------------------------------------------- timing on a GPU

def median_ms(call, iters, device, warmup=5):
    """Median time of one `call()` in ms over `iters` calls after `warmup` calls: CUDA events
    around each call on a GPU, the host clock on the CPU."""
    for _ in range(warmup):
        call()
    times = []
    if device == "cpu":
        for _ in range(iters):
            t0 = time.perf_counter()
            call()
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)
    torch.cuda.synchronize()
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        call()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def graph_call(fn, xs):
    """`fn(*xs)` captured in a CUDA graph (side-stream warm-up first, as the CUDA graph docs
    require); returns the replay callable."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn(*xs)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn(*xs)
    return g.replay


def sync(device):
    if device != "cpu":
        torch.cuda.synchronize()


def time_compiled(row, fn, xs, iters, device):
    """torch.compile (default mode): the first call's seconds (compilation), then the median;
    the compiled results are compared with eager ones (normwise relative error)."""
    cfn = torch.compile(fn)
    t0 = time.perf_counter()
    cfn(*xs)
    sync(device)
    row["compile_seconds"] = time.perf_counter() - t0
    row["compile_ms"] = median_ms(lambda: cfn(*xs), iters, device)
    want, got = fn(*xs), cfn(*xs)
    row["compile_rel_err"] = max(rel_err(g.float().cpu().numpy(), w.float().cpu().numpy())
                                 for g, w in zip(got, want))


def time_one(name, iters, do_compile, do_graph, device):
    """One JSON row; a failing variant (compile, graph) records its error, not the others'."""
    fn, make_inputs = build(name)
    xs = make_inputs(0, device)
    dev = torch.cuda.get_device_name() if device != "cpu" else "cpu"
    row = {"name": name, "device": dev, "torch": torch.__version__, "tf32": False, "iters": iters}
    with torch.no_grad():
        row["eager_ms"] = median_ms(lambda: fn(*xs), iters, device)
        variants = []
        if do_compile:
            variants.append(("compile", lambda: time_compiled(row, fn, xs, iters, device)))
        if do_graph:
            variants.append(("cuda_graph", lambda: row.update(
                cuda_graph_ms=median_ms(graph_call(fn, xs), iters, device))))
        for key, run in variants:
            try:
                run()
            except Exception as e:  # reported in the row; the other timings still count
                row[f"{key}_error"] = f"{type(e).__name__}: {e}"
    return row


def time_all(names, iters, do_compile, do_graph, device):
    if device == "cuda" and not torch.cuda.is_available():
        print("--time needs a CUDA GPU (torch.cuda.is_available() is false; --device cpu "
              "times on the host)", file=sys.stderr)
        return False
    if device == "cpu" and do_graph:
        print("--cuda-graph needs --device cuda", file=sys.stderr)
        return False
    # FP32 as rtile's kernels: no TF32 in matmuls or convolutions.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    ok = True
    for n in names:
        try:
            row = time_one(n, iters, do_compile, do_graph, device)
        except Exception as e:  # one failing workload must not hide the others' rows
            row = {"name": n, "error": f"{type(e).__name__}: {e}"}
        ok &= not any(k.endswith("error") and k != "compile_rel_err" for k in row)
        print(json.dumps(row), flush=True)
    return ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check-te", nargs="+", metavar="DIR")
    ap.add_argument("--rtile-run", default=os.path.join(ROOT, "target/debug/rtile-run"))
    ap.add_argument("--tolerance", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time", nargs="+", metavar="NAME")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--cuda-graph", action="store_true")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    if a.list:
        print("\n".join(WORKLOADS))
        return 0
    if a.time and "all" in a.time:
        a.time = [n for n in WORKLOADS if not is_twin(n)]
    unknown = [n for n in a.time or [] if n not in WORKLOADS]
    if unknown:
        ap.error(f"unknown workload(s) {', '.join(unknown)}; --list shows the names")
    if not a.check_te and not a.time:
        ap.error("give --check-te DIR..., --time NAME... or --list")
    ok = True
    if a.check_te:
        ok &= check_dirs(a.check_te, a.rtile_run, a.tolerance, a.seed)
    if a.time:
        ok &= time_all(a.time, a.iters, a.compile, a.cuda_graph, a.device)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
