# Offline check for PERF.md: a two-term model, time = a x blocks + b (per kernel), fitted
# like `rtile-bench retrain` (relative least squares) leave-one-pipeline-out on the same
# launches as records-measured.txt; prints the pooled geomean error factor and Spearman.
import glob, json, math, os, sys
d = sys.argv[1]
rows = []  # (pipeline, blocks, seconds)
for f in sorted(glob.glob(os.path.join(d, '*.halide-*.steps.json'))):
    p = os.path.basename(f).split('.')[0]
    for s in json.load(open(f))['steps']:
        rows.append((p, s['grid'][0] * s['grid'][1] * s['grid'][2], s['us'] * 1e-6))
def fit(tr):
    # min sum ((a B + b - m) / m)^2: normal equations on x = (B/m, 1/m), y = 1.
    sxx = sum((B / m) ** 2 for _, B, m in tr); sxy = sum(B / m / m for _, B, m in tr)
    syy = sum((1 / m) ** 2 for _, B, m in tr)
    gx = sum(B / m for _, B, m in tr); gy = sum(1 / m for _, B, m in tr)
    det = sxx * syy - sxy * sxy
    a = (gx * syy - gy * sxy) / det; b = (gy * sxx - gx * sxy) / det
    if a < 0: a, b = 0.0, gy / syy
    if b < 0: a, b = gx / sxx, 0.0
    return a, b
def ranks(v):
    o = sorted(range(len(v)), key=lambda i: v[i]); r = [0.0] * len(v); i = 0
    while i < len(o):
        j = i
        while j + 1 < len(o) and v[o[j + 1]] == v[o[i]]: j += 1
        for k in o[i:j + 1]: r[k] = (i + j) / 2 + 1
        i = j + 1
    return r
def spearman(x, y):
    rx, ry = ranks(x), ranks(y); n = len(x); m = (n + 1) / 2
    return sum((a - m) * (b - m) for a, b in zip(rx, ry)) / math.sqrt(
        sum((a - m) ** 2 for a in rx) * sum((b - m) ** 2 for b in ry))
pred, meas = [], []
for p in sorted({r[0] for r in rows}):
    a, b = fit([r for r in rows if r[0] != p])
    for _, B, m in (r for r in rows if r[0] == p):
        pred.append(a * B + b); meas.append(m)
g = math.exp(sum(abs(math.log(x / y)) for x, y in zip(pred, meas)) / len(pred))
a, b = fit(rows)
print(f"{len(rows)} kernels; all-data fit: {a*1e9:.3f} ns per block + {b*1e6:.2f} us")
print(f"leave-one-pipeline-out pooled: geomean error x {g:.3f}, Spearman {spearman(pred, meas):.3f}")
