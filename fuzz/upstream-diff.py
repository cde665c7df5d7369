#!/usr/bin/env python3
"""Differential check of rtile-opt against mlir-opt-22 on a directory of .mlir files.

Each file is split on `// -----` lines (as `--split-input-file` does). A chunk that
`mlir-opt-22 --allow-unregistered-dialect --mlir-print-op-generic` accepts is printed by it
(the reference), then that reference is fed to `rtile-opt --allow-unregistered-dialect
--mlir-print-op-generic`; the two outputs must be byte-identical. A chunk is counted as
identical, differing, rejected (rtile exits non-zero with a diagnostic) or crashed (a panic,
a signal, or a time-out). mlir-opt's rejections are skipped: they are not valid input.

Usage: fuzz/upstream-diff.py DIR [--rtile PATH] [--mlir-opt PATH] [--show N] [--out DIR]
                             [--debuginfo]
"""

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter


def chunks(text):
    """Split like mlir-opt's --split-input-file: on lines that are exactly `// -----`."""
    out, cur = [], []
    for line in text.splitlines(keepends=True):
        if line.strip() == "// -----":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(line)
    out.append("".join(cur))
    return out


def run(cmd, path, timeout=30):
    try:
        p = subprocess.run(cmd + [path], capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, b"", b"timeout"


def first_line(err):
    for line in err.decode("utf-8", "replace").splitlines():
        if "error" in line:
            return line.strip()[:160]
    return err.decode("utf-8", "replace").strip().splitlines()[0][:160] if err.strip() else ""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--rtile", default=os.path.join(here, "..", "target", "debug", "rtile-opt"))
    ap.add_argument("--mlir-opt", default="/usr/bin/mlir-opt-22")
    ap.add_argument("--show", type=int, default=5, help="print this many examples per outcome")
    ap.add_argument("--out", help="write each failing chunk, reference and rtile output here")
    ap.add_argument("--debuginfo", action="store_true",
                    help="print locations too (--mlir-print-debuginfo in both tools)")
    args = ap.parse_args()

    flags = ["--allow-unregistered-dialect", "--mlir-print-op-generic"]
    if args.debuginfo:
        flags.append("--mlir-print-debuginfo")
    counts, reasons, shown = Counter(), Counter(), Counter()
    files = sorted(f for f in os.listdir(args.dir) if f.endswith(".mlir"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in files:
            with open(os.path.join(args.dir, name), encoding="utf-8", errors="surrogateescape") as f:
                parts = chunks(f.read())
            for i, part in enumerate(parts):
                src = os.path.join(tmp, "in.mlir")
                with open(src, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(part)
                rc, ref, _ = run([args.mlir_opt] + flags, src)
                if rc != 0:
                    counts["skipped (mlir-opt rejects)"] += 1
                    continue
                counts["accepted by mlir-opt"] += 1
                refp = os.path.join(tmp, "ref.mlir")
                with open(refp, "wb") as f:
                    f.write(ref)
                rc, got, err = run([args.rtile] + flags, refp)
                tag = f"{name}#{i}"
                if rc is None or rc < 0 or b"panicked" in err:
                    kind, why = "crashed", first_line(err)
                elif rc != 0:
                    kind, why = "rejected", first_line(err)
                elif got == ref:
                    counts["identical"] += 1
                    continue
                else:
                    kind = "differing"
                    a, b = ref.decode(errors="replace").splitlines(), got.decode(errors="replace").splitlines()
                    why = next((f"mlir: {x.strip()[:70]} | rtile: {y.strip()[:70]}"
                                for x, y in zip(a, b) if x != y), f"line count {len(a)} vs {len(b)}")
                counts[kind] += 1
                reasons[(kind, why)] += 1
                if shown[kind] < args.show:
                    shown[kind] += 1
                    print(f"[{kind}] {tag}: {why}")
                if args.out:
                    os.makedirs(args.out, exist_ok=True)
                    stem = os.path.join(args.out, tag.replace("#", "-"))
                    for suffix, data in (("in", part.encode("utf-8", "surrogateescape")), ("ref", ref), ("rtile", got + err)):
                        with open(f"{stem}.{suffix}", "wb") as f:
                            f.write(data)
    print()
    for key in ["accepted by mlir-opt", "identical", "rejected", "differing", "crashed",
                "skipped (mlir-opt rejects)"]:
        print(f"{key:28} {counts[key]}")
    if reasons:
        print("\nmost common causes:")
        for (kind, why), n in reasons.most_common(15):
            print(f"{n:4}  {kind}: {why}")
    bad = counts["rejected"] + counts["differing"] + counts["crashed"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
