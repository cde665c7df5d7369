#!/usr/bin/env python3
"""Static resource report of the kernels prepare-ptx.sh wrote, from `ptxas -v`.

For each operator's best program (<op>.r0.ptx) and each of its kernels: block and grid
(from the manifest), registers, static and dynamic shared memory, stack frame and spills
(from ptxas), and the resident blocks per SM those allow on the target (the occupancy
calculator's rules: registers allocated per warp in units of 256, shared memory per block
plus 1 KiB reserved by the driver, thread and block limits). Prints one markdown table.

Usage: python3 bench/gpu/ptxas-report.py [ptx-dir] [--sm sm_90] [--ptxas PATH]
"""

import argparse
import json
import os
import re
import subprocess

# Per-SM limits (CUDA occupancy calculator / programming guide, compute capability table).
LIMITS = {
    "sm_70": dict(regs=65536, smem=96 * 1024, threads=2048, blocks=32),
    "sm_80": dict(regs=65536, smem=164 * 1024, threads=2048, blocks=32),
    "sm_90": dict(regs=65536, smem=228 * 1024, threads=2048, blocks=32),
}


def ptxas_info(ptxas, sm, path):
    """{kernel: dict(regs, smem, stack, spill)} from ptxas -v."""
    p = subprocess.run([ptxas, f"-arch={sm}", "-v", path, "-o", os.devnull],
                       capture_output=True, text=True)
    out, cur = {}, None
    for line in (p.stderr + p.stdout).splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            cur = out.setdefault(m.group(1), dict(regs=0, smem=0, stack=0, spill=0, error=None))
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            cur["stack"], cur["spill"] = int(m.group(1)), int(m.group(2)) + int(m.group(3))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["regs"] = int(m.group(1))
        m = re.search(r"(\d+) bytes smem", line)
        if m:
            cur["smem"] = int(m.group(1))
        if "error" in line:
            cur["error"] = line.strip()
    return out


def resident_blocks(lim, threads, regs, smem):
    warps = -(-threads // 32)
    regs_per_warp = -(-max(regs, 1) * 32 // 256) * 256
    by_regs = lim["regs"] // (regs_per_warp * warps)
    by_smem = lim["smem"] // (smem + 1024) if smem else lim["blocks"]
    by_threads = lim["threads"] // (warps * 32)
    return min(by_regs, by_smem, by_threads, lim["blocks"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ptx_dir", nargs="?", default="target/gpu-ptx")
    ap.add_argument("--sm", default="sm_90")
    ap.add_argument("--ptxas", default=os.environ.get(
        "PTXAS", ".venv-cuda/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas"))
    a = ap.parse_args()
    lim = LIMITS[a.sm]
    rows = ["| op | kernel | block | grid | registers | shared B (static + dynamic) | stack / spill B | blocks/SM | occupancy |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for man_path in sorted(f for f in os.listdir(a.ptx_dir) if re.fullmatch(r"\w+\.r0\.json", f)):
        op = man_path.split(".")[0]
        man = json.load(open(os.path.join(a.ptx_dir, man_path)))
        info = ptxas_info(a.ptxas, a.sm, os.path.join(a.ptx_dir, f"{op}.r0.ptx"))
        for k in man["kernels"]:
            i = info.get(k["name"], {})
            threads = k["block"][0] * k["block"][1] * k["block"][2]
            grid = k["grid"][0] * k["grid"][1] * k["grid"][2]
            dyn = k.get("dynamic_shared_memory", 0)
            smem = i.get("smem", 0) + dyn
            if i.get("error"):
                rows.append(f"| {op} | {k['name']} | {threads} | {grid} | - | - | - | - | {i['error']} |")
                continue
            b = resident_blocks(lim, threads, i.get("regs", 0), smem)
            occ = b * threads / lim["threads"]
            rows.append(f"| {op} | {k['name']} | {threads} | {grid} | {i.get('regs', '-')} | "
                        f"{i.get('smem', 0)} + {dyn} | {i.get('stack', 0)} / {i.get('spill', 0)} | {b} | {occ:.0%} |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
