#!/usr/bin/env python3
"""The micro-performance model against measured per-kernel times.

For each Halide pipeline of bench/pipelines/ (paper sizes) whose `roller` variant was timed
per kernel on a GPU (`rtile-run cuda --model ... --per-kernel`, files
<dir>/<pipeline>.roller.steps.json), prints each kernel's `est_us` from
`rtile-opt --construct-rtile=device=h100 --rtile-select` against its measured time, and the
geometric mean of the error factor. Usage: est_vs_measured.py RTILE_OPT [DIR]."""
import json, re, subprocess, sys, math, glob, os
opt = sys.argv[1]
res = sys.argv[2] if len(sys.argv) > 2 else 'bench/results/h200-2026-11-26/call1/perkernel'
rows = []
for f in sorted(glob.glob('bench/pipelines/*.mlir')):
    if f.endswith('_small.mlir'): continue
    w = os.path.basename(f)[:-5]
    steps = f'{res}/{w}.roller.steps.json'
    if not os.path.exists(steps): continue
    out = subprocess.run([opt, f, '--construct-rtile=device=h100', '--rtile-select'], capture_output=True, text=True).stdout
    ests = [float(x) for x in re.findall(r'rtile.program = #rtile.program<[^>]*est_us = ([0-9.e+-]+)', out)]
    st = json.load(open(steps))['steps']
    if len(st) != len(ests):
        print(w, 'steps', len(st), 'computes', len(ests), file=sys.stderr); continue
    for s, e in zip(st, ests):
        rows.append((w, s['kernel'], e, s['us']))
for r in rows: print('%-14s %-28s est %9.2f  meas %9.2f  ratio %6.2f' % (r[0], r[1], r[2], r[3], r[3]/r[2]))
if rows:
    g = math.exp(sum(abs(math.log(r[3]/r[2])) for r in rows)/len(rows))
    print('kernels', len(rows), 'geomean |error| factor', round(g, 3))
