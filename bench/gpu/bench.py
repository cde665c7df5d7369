#!/usr/bin/env python3
"""Roller Table-1 suite on a GPU: rtile and PyTorch in the same run, one table.

For every operator (one func.func of bench/ops/roller-table1.mlir):
  rtile:   rtile-opt <pipeline> (te -> gpu-level IR) | rtile-translate --to-ptx=<sm>
           --manifest | rtile-run-cuda --bench --json  (CUDA events, warm-up, median)
  PyTorch: the same operator in torch (cuBLAS/cuDNN), CUDA events, warm-up, median.
and prints one row per operator: both medians and rtile/PyTorch. A step that fails
(an operator the lowering does not handle yet) is reported in the row, not fatal.

Usage (from the repository root, on the GPU machine, after `cargo build --release`):
  python3 bench/gpu/bench.py [--suite bench/ops/roller-table1.mlir] [--sm sm_90]
      [--bin target/release] [--pipeline "--construct-rtile=device=h100 --lower-to-gpu"]
      [--only m0,e0] [--iters 100] [--check] [--markdown out.md]
Needs: torch with CUDA, the rtile binaries (rtile-opt, rtile-translate, rtile-run-cuda).
rtile-translate links LLVM; if it cannot run on the GPU machine, translate elsewhere and
pass --ptx-dir with <op>.ptx/<op>.json per operator.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

DEFAULT_PIPELINE = "--construct-rtile=device=h100 --lower-to-gpu"


def split_funcs(text):
    """(name, text of a module holding only that func.func) per operator."""
    out = []
    for m in re.finditer(r"^func\.func @(\w+)\(.*?^}\n", text, re.S | re.M):
        out.append((m.group(1), m.group(0)))
    return out


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


def run(cmd, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, **kw)
    except OSError as ex:
        return subprocess.CompletedProcess(cmd, 127, "", f"{cmd[0]}: {ex.strerror}")


def time_rtile(name, func_text, a, tmp):
    b = a.bin
    if a.ptx_dir:
        ptx, man = os.path.join(a.ptx_dir, name + ".ptx"), os.path.join(a.ptx_dir, name + ".json")
    else:
        src = os.path.join(tmp, name + ".mlir")
        with open(src, "w") as f:
            f.write(func_text)
        gpu = os.path.join(tmp, name + ".gpu.mlir")
        p = run([os.path.join(b, "rtile-opt"), *a.pipeline.split(), "--mlir-print-op-generic", src, "-o", gpu])
        if p.returncode != 0:
            return None, "lowering: " + (p.stderr.strip().splitlines() or ["failed"])[0][:60]
        ptx, man = os.path.join(tmp, name + ".ptx"), os.path.join(tmp, name + ".json")
        p = run([os.path.join(b, "rtile-translate"), f"--to-ptx={a.sm}", gpu, "-o", ptx, f"--manifest={man}"])
        if p.returncode != 0:
            return None, "translate: " + (p.stderr.strip().splitlines() or ["failed"])[0][:60]
    cmd = [os.path.join(b, "rtile-run-cuda"), ptx, "--manifest", man, "--bench", "--json",
           "--iters", str(a.iters)]
    if a.check and not a.ptx_dir:
        # The naive one-thread-per-output kernel of the same te op, on the same inputs.
        naive = os.path.join(tmp, name + ".naive.mlir")
        p = run([os.path.join(b, "rtile-translate"), "--emit-naive-gpu", src, "-o", naive])
        ref = os.path.join(tmp, name + ".naive.ptx")
        if p.returncode == 0:
            p = run([os.path.join(b, "rtile-translate"), f"--to-ptx={a.sm}", naive, "-o", ref,
                     "--manifest=" + os.path.join(tmp, name + ".naive.json")])
        if p.returncode == 0:
            cmd += ["--reference", ref]
    p = run(cmd)
    if p.returncode != 0:
        return None, "run: " + (p.stderr.strip().splitlines() or ["failed"])[-1][:60]
    # With --check, a mismatch exits non-zero above; the JSON also carries the details.
    try:
        return json.loads(p.stdout)["median_ms"], None
    except (ValueError, KeyError):
        return None, "run: no timing"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="bench/ops/roller-table1.mlir")
    ap.add_argument("--sm", default="sm_90")
    ap.add_argument("--bin", default="target/release")
    ap.add_argument("--pipeline", default=DEFAULT_PIPELINE)
    ap.add_argument("--ptx-dir")
    ap.add_argument("--only")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--check", action="store_true",
                    help="also check each rtile kernel against its naive reference kernel")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    funcs = split_funcs(open(a.suite).read())
    if a.only:
        keep = set(a.only.split(","))
        funcs = [f for f in funcs if f[0] in keep]
    ops = {} if a.no_torch else torch_ops()
    if not a.no_torch:
        import torch
        dev = torch.cuda.get_device_name()
    else:
        dev = "?"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in funcs:
            rt, rerr = time_rtile(name, text, a, tmp)
            pt, perr = (None, "no torch") if name not in ops else time_torch(*ops[name], a.iters)
            ratio = f"{rt / pt:.2f}x" if rt and pt else "-"
            note = "; ".join(x for x in (rerr, perr) if x)
            rows.append((name, rt, pt, ratio, note))
            print(f"{name:10} rtile {rt if rt else '-':>10} ms  torch {pt if pt else '-':>10} ms  {ratio:>7}  {note}",
                  file=sys.stderr)
    lines = [f"Device: {dev}; rtile-run-cuda and torch CUDA events, median of {a.iters}, same run.", "",
             "| op | rtile ms | PyTorch ms | rtile / PyTorch | note |", "|---|---:|---:|---:|---|"]
    for name, rt, pt, ratio, note in rows:
        f = lambda v: f"{v:.4f}" if v else "-"
        lines.append(f"| {name} | {f(rt)} | {f(pt)} | {ratio} | {note} |")
    table = "\n".join(lines)
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
