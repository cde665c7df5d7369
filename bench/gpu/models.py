#!/usr/bin/env python3
"""Whole workloads on a GPU: every system's schedule of each workload, and PyTorch, in one run.

The PTX and launch sequences come from the build machine (bench/gpu/prepare-models.sh:
<dir>/<workload>.<variant>.{ptx,json,bin}); this machine needs only `rtile-run` (no LLVM)
and PyTorch. Per workload:
  1. random inputs (uniform in [-1, 1), numpy, --seed) written as .npy, shared by every run;
  2. each variant run by `rtile-run cuda --model ... --inputs ... --dump ... --bench`: its
     outputs, and the median of --iters timed runs of its whole launch sequence (CUDA
     events; launch gaps included, as a user waits for them); variants whose name ends in
     `base` (one launch per operator) are also timed as one CUDA graph (`--graph`);
  3. the reference: the workload's PyTorch twin (bench/gpu/torch_models.py `build`) in
     float64 on the GPU when there is one, else the first variant's outputs; every
     variant's normwise relative error against it (an output no kernel wrote is NaN);
  4. PyTorch's own times: eager, torch.compile (default mode), and eager captured in a
     CUDA graph, float32 with TF32 off, CUDA events, median of --iters.
Prints one markdown table (and writes it, and the JSON, where asked).

Usage: python3 bench/gpu/models.py --dir target/gpu-models [--bin target/release]
           [--only lstm,bert-layer-128] [--iters 50] [--no-compile] [--markdown m.md] [--json m.json]
Exit status: 0 when every variant ran and matched (relative error < --tol), 1 otherwise.
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
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

NP_TYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32, "i64": np.int64}


def variants(d):
    """{workload: [variant, ...]} from <d>/<workload>.<variant>.json, in a stable order."""
    out = {}
    for p in sorted(glob.glob(os.path.join(d, "*.json"))):
        base = os.path.basename(p)[:-5]
        if "." not in base:
            continue
        w, v = base.rsplit(".", 1)
        out.setdefault(w, []).append(v)
    order = ["none", "register", "shared", "rammerbase", "rammer", "roller", "welder", "halide-greedy",
             "halide-beam"]
    return {w: sorted(vs, key=lambda v: order.index(v) if v in order else 99) for w, vs in out.items()}


def make_inputs(manifest, seed, tmp, w):
    rng = np.random.default_rng(seed)
    paths, arrays = [], []
    for i, s in enumerate(manifest["inputs"]):
        dt = NP_TYPES.get(s["dtype"])
        if dt is None:
            raise ValueError(f"input {i}: dtype {s['dtype']} not handled")
        if np.issubdtype(dt, np.integer):
            a = rng.integers(0, 4, size=s["shape"]).astype(dt)
        else:
            a = rng.uniform(-1, 1, size=s["shape"]).astype(dt)
        p = os.path.join(tmp, f"{w}.in{i}.npy")
        np.save(p, a)
        paths.append(p)
        arrays.append(a)
    return paths, arrays


def run_variant(a, w, v, ins, tmp, graph=False):
    """(median ms, launches, [outputs] or None, note)."""
    base = os.path.join(a.dir, f"{w}.{v}")
    dump = os.path.join(tmp, f"{w}.{v}")
    os.makedirs(dump, exist_ok=True)
    cmd = [os.path.join(a.bin, "rtile-run"), "cuda", "--model", base + ".json", base + ".ptx",
           "--inputs", ",".join(ins), "--bench", "--iters", str(a.iters), "--warmup", "5"]
    if graph:
        cmd.append("--graph")
    else:
        cmd += ["--dump", dump]
        if a.per_kernel_dir:
            cmd += ["--per-kernel", os.path.join(a.per_kernel_dir, f"{w}.{v}.steps.json")]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    except subprocess.TimeoutExpired:
        return None, None, None, f"timed out after {a.timeout} s"
    if a.per_kernel_dir and not graph:
        occ = [l for l in p.stderr.splitlines() if l.startswith("co-residency")]
        if occ:
            open(os.path.join(a.per_kernel_dir, f"{w}.{v}.coresidency.txt"), "w").write("\n".join(occ) + "\n")
    m = re.search(r"median ([\d.]+) ms", p.stdout)
    n = re.search(r"(\d+) launches on", p.stdout)
    if p.returncode != 0 or not m:
        lines = (p.stderr.strip() or p.stdout.strip()).splitlines()
        return None, None, None, (lines[-1] if lines else f"exit {p.returncode}")[:120]
    outs = None
    if not graph:
        files = sorted(glob.glob(os.path.join(dump, "*.npy")), key=lambda f: int(re.search(r"\.(\d+)\.npy$", f).group(1)))
        outs = [np.load(f) for f in files]
    return float(m.group(1)), int(n.group(1)) if n else None, outs, ""


def rel_err(x, ref):
    x, ref = np.asarray(x, np.float64), np.asarray(ref, np.float64)
    if x.shape != ref.shape:
        return float("inf")
    if not np.all(np.isfinite(x)):
        return float("nan")
    den = np.linalg.norm(ref)
    return float(np.linalg.norm(x - ref) / (den if den > 0 else 1.0))


def torch_twin(w):
    try:
        import torch_models
    except ImportError:
        return None
    try:
        return torch_models.build(w)[0]
    except (KeyError, ValueError, NotImplementedError):
        return None


def as_list(o):
    return list(o) if isinstance(o, (tuple, list)) else [o]


def time_cuda(fn, iters):
    import torch
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    return ts[len(ts) // 2]


def torch_times(fn, arrays, a):
    """{eager, compile, compile_s, graph} ms (None where it failed), and f64 reference outputs."""
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    res = {}
    x64 = [torch.from_numpy(np.asarray(x)).to("cuda", torch.float64) if np.issubdtype(x.dtype, np.floating)
           else torch.from_numpy(x).cuda() for x in arrays]
    with torch.no_grad():
        ref = [t.double().cpu().numpy() for t in as_list(fn(*x64))]
        x32 = [t.float() if t.is_floating_point() else t for t in x64]
        res["eager"] = time_cuda(lambda: fn(*x32), a.iters)
        try:
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    fn(*x32)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                fn(*x32)
            res["graph"] = time_cuda(g.replay, a.iters)
        except Exception as ex:  # capture can fail for ops that sync: report, go on
            res["graph"], res["graph_error"] = None, f"{type(ex).__name__}"
        if not a.no_compile:
            try:
                t0 = time.time()
                cf = torch.compile(fn)
                cf(*x32)
                torch.cuda.synchronize()
                res["compile_s"] = time.time() - t0
                res["compile"] = time_cuda(lambda: cf(*x32), a.iters)
            except Exception as ex:
                res["compile"], res["compile_error"] = None, f"{type(ex).__name__}: {str(ex)[:80]}"
    return res, ref


def write_table(rows, a, final=False):
    """The table so far (rewritten after each workload, so a run cut short keeps its rows)."""
    f = lambda x: "-" if x is None else (f"{x:.4f}" if isinstance(x, float) else str(x))
    lines = ["| workload | variant | launches | median ms | as one CUDA graph ms | rel. error | against | note |",
             "|---|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        if r["variant"] == "pytorch":
            t = r["torch"]
            note = "; ".join(f"{k}: {t[k]}" for k in t if k.endswith("error"))
            cs = f"compile {t['compile_s']:.0f} s" if t.get("compile_s") else ""
            lines.append(f"| {r['workload']} | PyTorch eager / torch.compile | - | {f(t.get('eager'))} / "
                         f"{f(t.get('compile'))} | {f(t.get('graph'))} | - | - | {cs} {note} |")
            continue
        e = "-" if r["rel_err"] is None else f"{r['rel_err']:.1e}"
        lines.append(f"| {r['workload']} | {r['variant']} | {f(r['launches'])} | {f(r['median_ms'])} | "
                     f"{f(r['graph_ms'])} | {e} | {r['reference']} | {r['note']} |")
    table = "\n".join(lines)
    if final:
        print(table)
    if a.markdown:
        open(a.markdown, "w").write(table + "\n")
    if a.json:
        json.dump(dict(rows=rows), open(a.json, "w"), indent=1, default=str)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="target/gpu-models")
    ap.add_argument("--bin", default="target/release")
    ap.add_argument("--only", help="workloads to run, in this order")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--per-kernel-dir", help="write each variant's per-launch times (rtile-run --per-kernel) "
                    "and its co-residency check here")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.per_kernel_dir:
        os.makedirs(a.per_kernel_dir, exist_ok=True)
    ws = variants(a.dir)
    if a.only:
        keep = a.only.split(",")
        ws = {w: ws[w] for w in keep if w in ws}
    rows, ok = [], True
    tmp = tempfile.mkdtemp(prefix="rtile-models-")
    for w, vs in ws.items():
        man = json.load(open(os.path.join(a.dir, f"{w}.{vs[0]}.json")))
        ins, arrays = make_inputs(man, a.seed, tmp, w)
        fn = None if a.no_torch else torch_twin(w)
        tt, ref, ref_name = {}, None, vs[0]
        if fn is not None:
            try:
                tt, ref = torch_times(fn, arrays, a)
                ref_name = "torch f64"
            except Exception as ex:
                tt = {"error": f"{type(ex).__name__}: {str(ex)[:100]}"}
        runs = {}
        for v in vs:
            ms, n, outs, note = run_variant(a, w, v, ins, tmp)
            g = run_variant(a, w, v, ins, tmp, graph=True)[0] if v.endswith("base") and ms else None
            runs[v] = (ms, n, outs, note, g)
        if ref is None:
            ref = runs[vs[0]][2]
        for v in vs:
            ms, n, outs, note, g = runs[v]
            err = None
            if outs is not None and ref is not None:
                err = max((rel_err(x, r) for x, r in zip(outs, ref)), default=float("nan"))
                if len(outs) != len(ref):
                    err, note = float("inf"), f"{len(outs)} outputs, reference {len(ref)}"
            good = ms is not None and err is not None and err < a.tol
            ok &= good
            rows.append(dict(workload=w, variant=v, launches=n, median_ms=ms, graph_ms=g, rel_err=err,
                             reference=ref_name, ok=good, note=note))
            print(f"{w:24} {v:14} launches {n} median {ms} ms graph {g} err {err} {note}", file=sys.stderr)
        if tt:
            rows.append(dict(workload=w, variant="pytorch", torch=tt))
            print(f"{w:24} pytorch {tt}", file=sys.stderr)
        write_table(rows, a)
    write_table(rows, a, final=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
