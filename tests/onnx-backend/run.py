"""Runs the ONNX backend test suite (the onnx package's own BackendTest) on rtile.

    python tests/onnx-backend/run.py [--kinds node,simple,...] [-j N] [--json out.json] [-k regex]

Prints passed / failed / skipped per category, every skip with its reason and op types,
and exits non-zero when any test fails or errors. Node tests come from the onnx package's
case definitions (onnx.backend.test.case.node); the model tests from the data the wheel
ships (`real` is the light models: resnet50, squeezenet, inception_v1, ...).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import sys
import time
import unittest

import onnx
import onnx.backend.test
from onnx.backend.test.loader import load_model_tests

sys.path.insert(0, os.path.dirname(__file__))
from rtile_backend import RtileBackend  # noqa: E402

KINDS = {
    "node": "NodeModel",
    "simple": "SimpleModel",
    "pytorch-converted": "PyTorchConvertedModel",
    "pytorch-operator": "PyTorchOperatorModel",
    "real": "RealModel",
}


def op_types_by_test() -> dict[str, list[str]]:
    """Test name (`test_abs`) → the op types of its model, for the report."""
    ops: dict[str, list[str]] = {}
    for kind in KINDS:
        for case in load_model_tests(kind=kind):
            model = case.model
            if model is None:
                path = None
                if case.model_dir is not None:
                    path = os.path.join(case.model_dir, "model.onnx")
                elif case.url and case.url.startswith("onnx/backend/test/data/light/"):
                    path = os.path.join(os.path.dirname(onnx.__file__), "..", case.url)
                if path is None or not os.path.exists(path):
                    continue
                model = onnx.load(path)
            ops[case.name] = sorted({n.op_type for n in model.graph.node})
    return ops


def collect(kinds: list[str], pattern: str | None, exclude: str | None = None) -> list[tuple[str, unittest.TestCase]]:
    bt = onnx.backend.test.BackendTest(RtileBackend, __name__)
    wanted = {KINDS[k] for k in kinds}
    tests = []
    for cls_name, case_cls in bt.test_cases.items():
        category = cls_name.removeprefix("OnnxBackend").removesuffix("Test")
        if category not in wanted:
            continue
        for name in unittest.TestLoader().getTestCaseNames(case_cls):
            # rtile's backend runs on the CPU (the interpreter); the `_cuda` twins are the
            # runner's device variants, not other tests.
            if not name.endswith("_cpu"):
                continue
            if pattern and not re.search(pattern, name):
                continue
            if exclude and re.search(exclude, name):
                continue
            tests.append((category, case_cls(name)))
    return tests


def run_one(test: unittest.TestCase) -> tuple[str, str, float]:
    result = unittest.TestResult()
    start = time.monotonic()
    test.run(result)
    took = time.monotonic() - start
    if result.skipped:
        return "skipped", result.skipped[0][1], took
    if result.failures:
        return "failed", result.failures[0][1], took
    if result.errors:
        return "failed", result.errors[0][1], took
    return "passed", "", took


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kinds", default="node,simple,pytorch-converted,pytorch-operator,real")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-k", help="only tests whose name matches this regex")
    ap.add_argument("--exclude", help="leave out tests whose name matches this regex")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("-v", action="store_true", help="print every failure in full")
    args = ap.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    for k in kinds:
        if k not in KINDS:
            ap.error(f"unknown kind {k!r}; one of {', '.join(KINDS)}")
    tests = collect(kinds, args.k, args.exclude)
    ops = op_types_by_test()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
        futures = {pool.submit(run_one, t): (cat, t) for cat, t in tests}
        for fut in concurrent.futures.as_completed(futures):
            cat, t = futures[fut]
            status, msg, took = fut.result()
            name = t._testMethodName
            base = re.sub(r"_cpu$", "", name)
            results.append({"category": cat, "test": name, "status": status, "message": msg.strip(),
                            "seconds": round(took, 3), "ops": ops.get(base, [])})
    results.sort(key=lambda r: (r["category"], r["test"]))
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in results:
        counts[r["category"]][r["status"]] += 1
    print(f"{'category':<24}{'passed':>8}{'failed':>8}{'skipped':>9}{'total':>8}")
    for cat in sorted(counts):
        c = counts[cat]
        print(f"{cat:<24}{c['passed']:>8}{c['failed']:>8}{c['skipped']:>9}{sum(c.values()):>8}")
    skips: dict[str, list[str]] = collections.defaultdict(list)
    for r in results:
        if r["status"] == "skipped":
            reason = r["message"].splitlines()[0] if r["message"] else "(no reason)"
            # The importer names the model's temporary file and the node's index: group
            # by what was refused.
            reason = re.sub(r"^\W*\S+\.onnx: ", "", reason)
            reason = re.sub(r"node #\d+ '[^']*' ", "", reason)
            skips[reason].append(r["test"])
    print("\nskipped, by reason:")
    for reason in sorted(skips, key=lambda k: -len(skips[k])):
        names = skips[reason]
        print(f"  {len(names):4}  {reason}  [{', '.join(names[:4])}{', ...' if len(names) > 4 else ''}]")
    failed = [r for r in results if r["status"] == "failed"]
    if failed:
        print("\nfailed:")
        for r in failed:
            last = r["message"].splitlines()[-1] if r["message"] else ""
            print(f"  {r['test']} ({', '.join(r['ops'])}): {last[:300]}")
            if args.v:
                print(r["message"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
