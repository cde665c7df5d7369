#!/usr/bin/env python3
"""Markdown table of `rtile-run --sim --profile=json` reports (one JSON file per operator):
coalescing efficiency and bank conflicts per kernel, for PERF.md.

Usage: bench/sim/profile-table.py target/simprof/*.prof.json
"""
import json
import os
import sys


def pct(ideal, actual):
    return "-" if actual == 0 else f"{100.0 * ideal / actual:.1f}%"


def main(paths):
    print("| op | kernel | blocks (sampled / grid) | global ld coalescing | global st coalescing "
          "| ld.shared conflicts / request | st.shared conflicts / request |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for path in sorted(paths):
        op = os.path.basename(path).split(".")[0]
        with open(path) as f:
            report = json.load(f)
        for k in report["kernels"]:
            m = k["metrics"]
            g = "pipe_lsu_mem_global_op"
            ld = pct(m[f"rtile__ideal_sectors_{g}_ld.sum"], m[f"l1tex__t_sectors_{g}_ld.sum"])
            st = pct(m[f"rtile__ideal_sectors_{g}_st.sum"], m[f"l1tex__t_sectors_{g}_st.sum"])
            per = []
            for d in ("ld", "st"):
                req = m[f"smsp__inst_executed_op_shared_{d}.sum"]
                c = m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{d}.sum"]
                per.append("-" if req == 0 else f"{c / req:.2f}")
            print(f"| {op} | {k['kernel']} | {k['blocks_profiled']} / {k['blocks_total']} "
                  f"| {ld} | {st} | {per[0]} | {per[1]} |")


if __name__ == "__main__":
    main(sys.argv[1:])
