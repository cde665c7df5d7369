#!/usr/bin/env python3
"""Roller Table-1 suite on a GPU: rtile and PyTorch in the same run, one table.

The PTX comes from the build machine (rtile-translate links LLVM; the GPU machine needs
only rtile-run-cuda): bench/gpu/prepare-ptx.sh writes, per operator of the suite,
<op>.ptx (the best program), <op>.r<i>.ptx (Roller's top-k programs), <op>.naive.ptx (the
naive one-thread-per-output reference) with their launch manifests. Per operator this:
  1. checks every kernel against its naive reference kernel on the same seeded inputs
     (rtile-run-cuda --reference; a mismatch is reported in the row and fails the run),
  2. times the top-1 kernel(s) with CUDA events (warm-up, median of --iters),
  3. times best-of-top-k (rtile-run-cuda --profile-top-k --reference, every candidate
     checked before it is timed; per kernel of the operator),
  4. times the same operator in PyTorch (cuBLAS/cuDNN, TF32 off), CUDA events, median,
and prints one row: the medians, rtile/PyTorch, and the achieved DRAM bandwidth (minimal
traffic: every argument read once, every result written once) or FLOP rate (2 per
multiply-add point; for operators past the ridge point FLOP/byte of the peaks) against the copy bandwidth and FMA peak that rtile-run-cuda --profile-device
measures at the start of the same run.

An operator that lowers to several kernels (softmax, layernorm) is timed kernel by kernel
on seeded inputs of each kernel's shapes, and its time is their sum (launch gaps excluded).

Usage (repository root of the GPU machine; target/release/rtile-run-cuda built elsewhere):
  python3 bench/gpu/bench.py --ptx-dir target/gpu-ptx [--bin target/release]
      [--only m0,e0] [--iters 100] [--top-k] [--no-torch] [--markdown out.md] [--json out.json]
Exit status: 0 when every kernel ran and matched its reference, 1 otherwise.
"""

import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile


def split_funcs(text):
    """(name, func.func text) per operator of a te suite."""
    return [(m.group(1), m.group(0))
            for m in re.finditer(r"^func\.func @(\w+)\(.*?^}\n", text, re.S | re.M)]


def work_of(func_text):
    """FLOPs of an operator: 2 per iteration point of each multiply-add reduction."""
    flops = 0
    for m in re.finditer(r"te\.compute\s*\(([^)]*)\)\s*(reduce\s*\(([^)]*)\))?\s*in\s*\[([^\]]*)\]"
                         r"[^{]*\{(.*?)\}", func_text, re.S):
        body = m.group(5)
        if m.group(2) and "te.sum" in body and "*" in body:
            flops += 2 * math.prod(int(x) for x in m.group(4).split(","))
    return flops


def bytes_of(func_text):
    """Minimal DRAM traffic of an operator: its arguments read once, its results written once."""
    width = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i64": 8, "f64": 8, "i8": 1}
    sig = func_text.split("{", 1)[0]
    total = 0
    for m in re.finditer(r"tensor<([\dx]+)x(\w+)>", sig):
        total += math.prod(int(x) for x in m.group(1).split("x")) * width.get(m.group(2), 4)
    return total


def torch_ops():
    import torch
    import torch.nn.functional as F

    def r(*s):
        return torch.rand(*s, device="cuda") * 2 - 1

    return {
        "m0": (lambda a, b: a @ b, lambda: (r(65536, 2), r(2, 1024))),
        "m1": (lambda a, b: a @ b, lambda: (r(128, 4032), r(4032, 1000))),
        "m2": (lambda a, b: a @ b, lambda: (r(65536, 1024), r(1024, 4096))),
        "c0": (lambda d, k: F.conv2d(d, k, stride=1, padding=1), lambda: (r(128, 128, 28, 28), r(128, 128, 3, 3))),
        "c1": (lambda d, k: F.conv2d(d, k, stride=2), lambda: (r(128, 128, 58, 58), r(128, 128, 3, 3))),
        "c2": (lambda d, k: F.conv2d(d, k, stride=2), lambda: (r(128, 256, 30, 30), r(256, 256, 3, 3))),
        "d0": (lambda d, k: F.conv2d(d, k, stride=2, padding=2, groups=84), lambda: (r(128, 84, 83, 83), r(84, 1, 5, 5))),
        "d1": (lambda d, k: F.conv2d(d, k, stride=1, padding=2, groups=42), lambda: (r(128, 42, 83, 83), r(42, 1, 5, 5))),
        "d2": (lambda d, k: F.conv2d(d, k, groups=84), lambda: (r(128, 84, 21, 21), r(336, 1, 1, 1))),
        "e0": (torch.relu, lambda: (r(128, 1008, 42, 42),)),
        "e1": (torch.relu, lambda: (r(128, 256, 14, 14),)),
        "e2": (torch.relu, lambda: (r(128, 1024, 14, 14),)),
        "p0": (lambda d: F.avg_pool2d(d, 1, 2), lambda: (r(128, 168, 83, 83),)),
        "p1": (lambda d: F.avg_pool2d(d, 3, 2, padding=1), lambda: (r(128, 617, 21, 21),)),
        "p2": (lambda d: F.avg_pool2d(d, 3, 1, padding=1), lambda: (r(128, 42, 83, 83),)),
        "r0": (lambda i: i.mean(dim=2), lambda: (r(128, 512, 1024),)),
        "r1": (lambda i: i.mean(dim=1), lambda: (r(65536, 1024),)),
        "r2": (lambda i: i.mean(dim=(2, 3)), lambda: (r(128, 4032, 11, 11),)),
        "bmm": (lambda q, k: q @ k.transpose(-1, -2), lambda: (r(128, 16, 512, 64), r(128, 16, 512, 64))),
        "transpose": (lambda x: x.permute(0, 2, 1, 3).contiguous(), lambda: (r(128, 512, 16, 64),)),
        "softmax": (lambda x: torch.softmax(x, dim=-1), lambda: (r(1048576, 512),)),
        "layernorm": (lambda x, g, b: F.layer_norm(x, (1024,), g, b, 1e-5), lambda: (r(65536, 1024), r(1024), r(1024))),
    }


def tc_ops():
    """Tensor-core twins (bench/ops/tensor-core-f16.mlir): PyTorch in the same types; cuBLAS
    accumulates f16/bf16 products in f32 as the te's acc(f32) does."""
    import torch
    import torch.nn.functional as F

    def r(*s, dt=torch.float16):
        return (torch.rand(*s, device="cuda") * 2 - 1).to(dt)

    bf = torch.bfloat16
    return {
        "m2_f16": (lambda a, b: a @ b, lambda: (r(65536, 1024), r(1024, 4096))),
        "bert_ffn1": (lambda a, b: a @ b, lambda: (r(512, 1024), r(1024, 4096))),
        "bert_ffn2": (lambda a, b: a @ b, lambda: (r(512, 4096, dt=bf), r(4096, 1024, dt=bf))),
        # f16 out in PyTorch (cuBLAS has no f16 x f16 -> f32 batched product there); the
        # output conversion is not in its time.
        "bert_scores": (lambda q, k: q @ k.transpose(-1, -2), lambda: (r(16, 512, 64), r(16, 512, 64))),
        # bench/ops/tensor-core-conv-f16.mlir: Table 1's C0 in f16 (cuDNN), NCHW and NHWC.
        "c0_f16": (lambda d, k: F.conv2d(d, k, padding=1), lambda: (r(128, 128, 28, 28), r(128, 128, 3, 3))),
        "c0_nhwc_f16": (lambda d, k: F.conv2d(d, k, padding=1),
                        lambda: (r(128, 28, 28, 128).permute(0, 3, 1, 2),
                                 r(3, 3, 128, 128).permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last))),
        "sq4096_f16": (lambda a, b: a @ b, lambda: (r(4096, 4096), r(4096, 4096))),
        "sq8192_bf16": (lambda a, b: a @ b, lambda: (r(8192, 8192, dt=bf), r(8192, 8192, dt=bf))),
        "sq8192_f16": (lambda a, b: a @ b, lambda: (r(8192, 8192), r(8192, 8192))),
    }


def reduce_len(func_text):
    """The longest reduction of an operator's computes (points summed into one output)."""
    longest = 1
    for m in re.finditer(r"reduce\s*\(([^)]*)\)\s*in\s*\[([^\]]*)\]", func_text):
        n = len(m.group(1).split(","))
        ext = [int(x) for x in m.group(2).split(",")]
        longest = max(longest, math.prod(ext[-n:]))
    return longest


def tolerances(kernel, k=1):
    """(rtol, atol) of the check against the naive kernel: one rounding of the output type
    (f16 2^-10, bf16 2^-7, relative, doubled: the two kernels sum in different orders and
    may round to neighbours), f32 otherwise. A sum of `k` terms of magnitude <= 1 (the
    seeded inputs are in [-1, 1)) reordered differs by up to about k f32 roundings of the
    running sum, so near-zero results get an absolute slack of k * 2^-23 (GPU runs of
    Table 1's m1, K = 4032, put 226 of 128,000 elements over an absolute 1e-5)."""
    outs = [a["dtype"] for a in kernel["args"] if a.get("role") == "output"]
    reorder = k * 2.0 ** -23
    if "bf16" in outs:
        return 1.6e-2, max(1e-3, reorder)
    if "f16" in outs:
        return 2e-3, max(1e-3, reorder)
    if any(a["dtype"] in ("f16", "bf16") for a in kernel["args"]):
        return 1e-4, max(1e-4, reorder)  # half inputs, f32 accumulator and output
    return 1e-4, max(1e-5, reorder)


def time_torch(fn, make, iters, warmup=10):
    import torch

    try:
        args = make()
        for _ in range(warmup):
            fn(*args)
        torch.cuda.synchronize()
        ts = []
        for _ in range(iters):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn(*args)
            e.record()
            e.synchronize()
            ts.append(s.elapsed_time(e))
        ts.sort()
        del args
        torch.cuda.empty_cache()
        return ts[len(ts) // 2], None
    except Exception as ex:  # out of memory and the like: report, go on
        return None, f"torch: {type(ex).__name__}"


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True)
    except OSError as ex:
        return subprocess.CompletedProcess(cmd, 127, "", f"{cmd[0]}: {ex.strerror}")


def last_line(p):
    lines = (p.stderr.strip() or p.stdout.strip()).splitlines()
    return (lines[-1] if lines else f"exit {p.returncode}")[:80]


def profile_device(a):
    """(copy GB/s, FMA GFLOP/s) measured now, or (None, None, why)."""
    out = a.device_toml or os.path.join(tempfile.gettempdir(), "rtile-bench-device.toml")
    p = run([os.path.join(a.bin, "rtile-run-cuda"), "--profile-device", out])
    m = re.search(r"DRAM ([\d.]+) GB/s, shared memory ([\d.]+) GB/s, f32 FMA ([\d.]+) GFLOP/s", p.stdout)
    if p.returncode != 0 or not m:
        return None, None, "profile-device: " + last_line(p)
    return float(m.group(1)), float(m.group(3)), p.stdout.strip()


def kernels_of(path):
    with open(path) as f:
        return json.load(f)


def time_rtile(name, a, k=1):
    """(top-1 ms, best-of-top-k ms, "ok" / "WRONG" / "not run", notes) for one operator."""
    d = a.ptx_dir
    ptx, naive = os.path.join(d, name + ".ptx"), os.path.join(d, name + ".naive.ptx")
    if not os.path.exists(ptx):
        return None, None, "not run", ["no PTX (prepare-ptx.sh failed for it)"]
    man = kernels_of(os.path.join(d, name + ".json"))
    cands = sorted(glob.glob(os.path.join(d, name + ".r*.ptx")),
                   key=lambda p: int(re.search(r"\.r(\d+)\.ptx$", p).group(1)))
    exe = os.path.join(a.bin, "rtile-run-cuda")
    top1, best, ok, notes = 0.0, 0.0, "ok", []
    for kern in man["kernels"]:
        kn = kern["name"]
        rtol, atol = tolerances(kern, k)
        base = [exe, "--kernel", kn, "--iters", str(a.iters), "--json", "--rtol", str(rtol), "--atol", str(atol)]
        cmd = [*base, ptx, "--bench"]
        if os.path.exists(naive):
            cmd += ["--reference", naive, "--reference-kernel", kn]
        p = run(cmd)
        try:
            rep = json.loads(p.stdout)
        except ValueError:
            rep = None
        if rep is None or "median_ms" not in rep:
            return None, None, "not run", [f"{kn}: " + last_line(p)]
        if p.returncode != 0:
            ok = "WRONG"
            bad = [c for c in rep.get("checks", []) if c["mismatches"]]
            notes.append(f"{kn} WRONG: {bad[0]['mismatches']} of {bad[0]['elements']} differ" if bad
                         else f"{kn}: " + last_line(p))
        top1 += rep["median_ms"]
        if not a.top_k:
            continue
        if len(cands) <= 1:
            best += rep["median_ms"]
            continue
        cmd = [*base, "--no-cache", "--profile-top-k", ",".join(cands)]
        if os.path.exists(naive):
            cmd += ["--reference", naive, "--reference-kernel", kn]
        p = run(cmd)
        try:
            rep = json.loads(p.stdout)
            wrong = [c["ptx"] for c in rep["candidates"] if c.get("correct") is False]
            best += rep["median_ms"]
            win = re.search(r"\.r(\d+)\.ptx$", rep["fastest"]).group(1)
        except (ValueError, KeyError, AttributeError, TypeError):
            return top1, None, "not run", notes + [f"{kn} top-k: " + last_line(p)]
        if wrong:
            ok = "WRONG"
            notes.append(f"{kn}: {len(wrong)} top-k candidates WRONG")
        if win != "0":
            notes.append(f"{kn}: rank {win} fastest")
    if not a.top_k:
        best = None
    return top1, best, ok, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="bench/ops/roller-table1.mlir")
    ap.add_argument("--ptx-dir", default="target/gpu-ptx")
    ap.add_argument("--bin", default="target/release")
    ap.add_argument("--only")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--top-k", action="store_true", help="also time best-of-top-k")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    ap.add_argument("--device-toml", help="where the measured device description goes")
    a = ap.parse_args()
    funcs = split_funcs(open(a.suite).read())
    if a.only:
        keep = set(a.only.split(","))
        funcs = [f for f in funcs if f[0] in keep]
    dev = "?"
    ops = {}
    if not a.no_torch:
        import torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        dev = torch.cuda.get_device_name()
        ops = {**torch_ops(), **tc_ops()}
    copy_gbps, fma_gflops, prof = profile_device(a)
    print(prof, file=sys.stderr)
    rows, all_ok = [], True
    for name, text in funcs:
        t1, tk, ok, notes = time_rtile(name, a, reduce_len(text))
        all_ok &= ok == "ok"
        # `<op>__<variant>` (explicit programs of one op) is timed against <op>'s twin.
        twin = ops.get(name) or ops.get(name.split("__")[0])
        pt, perr = (None, "no torch") if twin is None else time_torch(*twin, a.iters)
        if perr:
            notes.append(perr)
        flops, nbytes = work_of(text), bytes_of(text)
        # Bound by compute when its intensity passes the measured ridge point (FLOP/byte).
        ridge = fma_gflops / copy_gbps if fma_gflops and copy_gbps else 20.0
        kind = "compute" if flops >= ridge * nbytes else "memory"
        best = min(x for x in (t1, tk) if x) if (t1 or tk) else None
        if kind == "compute" and best:
            rate = f"{flops / best / 1e6:.0f} GFLOP/s"
            frac = f"{flops / best / 1e6 / fma_gflops:.0%} of FMA" if fma_gflops else ""
        elif best:
            rate = f"{nbytes / best / 1e6:.0f} GB/s"
            frac = f"{nbytes / best / 1e6 / copy_gbps:.0%} of copy" if copy_gbps else ""
        else:
            rate, frac = "-", ""
        row = dict(op=name, top1_ms=t1, topk_ms=tk, torch_ms=pt, kind=kind, flops=flops,
                   bytes=nbytes, rate=rate, of_peak=frac, correct=ok, notes=notes,
                   ratio=(pt / best if best and pt else None))
        rows.append(row)
        print(f"{name:10} top1 {t1 or '-':>10} top-k {tk or '-':>10} torch {pt or '-':>10} "
              f"{rate} {frac} {'; '.join(notes)}", file=sys.stderr)
    f = lambda v: f"{v:.4f}" if v else "-"
    lines = [f"Device: {dev}. Measured peaks: copy {copy_gbps or '-'} GB/s, f32 FMA {fma_gflops or '-'} GFLOP/s. "
             f"CUDA events, median of {a.iters}, same run.", "",
             "| op | rtile top-1 ms | rtile best-of-top-k ms | PyTorch ms | PyTorch / rtile | achieved | of peak | checked | note |",
             "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] else "-"
        lines.append(f"| {r['op']} | {f(r['top1_ms'])} | {f(r['topk_ms'])} | {f(r['torch_ms'])} | {ratio} | "
                     f"{r['rate']} | {r['of_peak']} | {r['correct']} | {'; '.join(r['notes'])} |")
    ratios = [r["ratio"] for r in rows if r["ratio"]]
    if ratios:
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        lines += ["", f"Geomean PyTorch / rtile over {len(ratios)} operators: {geo:.2f}x "
                      "(above 1: rtile faster)."]
    table = "\n".join(lines)
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as fh:
            fh.write(table + "\n")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(dict(device=dev, copy_gbps=copy_gbps, fma_gflops=fma_gflops, rows=rows), fh, indent=1)
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
