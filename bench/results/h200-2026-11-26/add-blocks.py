# Adds the block term (blocks launched, the sixth column of `rtile-bench records` since
# issue 17's per-block term) to the five-term records of 2026-11-26, from the measured
# launches' grids: a kernel's blocks are its launch's grid (x * y * z), which is its root
# tiling's blocks (tools/tests/beam_root.rs checks that for every launch). Each record is
# preceded by a comment naming the gpu.funcs timed; their grids are summed (one each here).
#
#   python3 add-blocks.py records-measured-5.txt call1/perkernel > records-measured.txt
#
# Why not `rtile-bench records --measured ... --weights five-term-h100.toml`: that relowers
# each pipeline and refuses a module that differs from the measured one; at the time of
# issue 17's block term the stencil chain's k = 32 schedule no longer matches (step 23), so
# the tool cannot rebuild its 32 records. For the other 97 records its output equals this
# script's (PERF.md, "Session 17: the per-block term").
import glob, json, os, sys

records, perkernel = sys.argv[1], sys.argv[2]
grid = {}  # (pipeline stem, variant, gpu.func) -> blocks
for f in glob.glob(os.path.join(perkernel, '*.halide-*.steps.json')):
    stem, variant = os.path.basename(f).split('.')[:2]
    for s in json.load(open(f))['steps']:
        g = s['grid']
        grid[(stem, variant, s['kernel'])] = g[0] * g[1] * g[2]


def rust_e(n):
    """An integer n >= 1 as Rust's `{:e}` writes it (1568 -> 1.568e3), as the tool does."""
    d = str(n)
    m = d.rstrip('0')
    return (m[0] + ('.' + m[1:] if len(m) > 1 else '')) + 'e' + str(len(d) - 1)


funcs = None
for line in open(records):
    line = line.rstrip('\n')
    if line.startswith('kernel '):
        print(line.replace(' launch time_s', ' launch block time_s'))
    elif line.startswith('# rtile-bench records:'):
        print(line.replace('cost terms of OOPSLA\'21 Appendix B and a time',
                           'cost terms of OOPSLA\'21 Appendix B and blocks launched, and a time'))
        print('# the block column added by add-blocks.py from the measured grids')
    elif line.startswith('# ') and ' predicted ' in line:
        funcs = line[2:].split(' predicted ')[0].split(' + ')
        print(line)
    elif line.startswith('#') or not line.strip():
        print(line)
    else:
        f = line.split()
        stem = os.path.splitext(os.path.basename(f[0].split(':')[0]))[0]
        variant = 'halide-greedy' if f[0].endswith(':beam1') else 'halide-beam'
        blocks = sum(grid[(stem, variant, k)] for k in funcs)
        print(' '.join(f[:6] + [rust_e(blocks)] + f[6:]))
        funcs = None
