"""An ONNX backend (onnx.backend.base.Backend) that runs models with rtile.

`prepare` keeps the model; `run` imports it with `rtile-import-onnx` and runs it on the
te reference interpreter with `rtile-run --interpret`, passing inputs and outputs as .npy
files. With `RTILE_OPT` set (rtile-opt flags, e.g. `--connect=device=h100 --lower-to-gpu`),
the imported module goes through `rtile-opt` with those flags and runs in the GPU
simulator (`rtile-run --sim`) instead: the ONNX suite as a check of the scheduling passes
and the lowering (`make onnx-backend-sim`). Inputs that te cannot hold as data (int64, int32 and bool shapes, indices, axes)
are bound into the model as initializers before import, so the importer folds them as
the constants that the issue's operator list requires ("Gather (constant indices)",
shapes of Reshape/Expand/Slice/Pad ...).

The backend raises unittest.SkipTest when the importer reports a construct outside
rtile's operator set ("unsupported ..."); every other failure is a test failure.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
import unittest

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.base import Backend, BackendRep

# The element types te holds as data (docs/dialects/te.md): the rest must be constants.
_DATA_DTYPES = {np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)}
# The importer's refusals of constructs outside rtile's operator set (the list):
# other operators and domains, element types te lacks, empty tensors, sequences and
# optionals, values that must be constants (shapes, indices, pads). Anything else that
# fails is a test failure.
_UNSUPPORTED = re.compile(
    r"unsupported|not supported|must be known at import time|is not a tensor|no empty dims"
    r"|has no elements|is not a positive dimension|te cannot compute on|imports no version"
    r"|do not cover the axis .* with non-empty parts|would be tensor data|not known at import time"
    r"|inference only",
    re.IGNORECASE,
)
# numpy dtypes rtile's .npy reader takes (runtime/src/npy.rs).
_NPY_DTYPES = {np.dtype(t) for t in (np.float64, np.float32, np.float16, np.int32, np.int8, np.bool_, np.uint8)}


def _bin(name: str) -> str:
    root = os.environ.get("RTILE_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "target", "debug"))
    return os.path.join(root, name)


class SkipReason(unittest.SkipTest):
    """A construct outside rtile's operator set; the message is the importer's."""


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=int(os.environ.get("RTILE_TIMEOUT", "600")))


def _first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        line = line.strip()
        if "error" in line:
            return line
    return stderr.strip().splitlines()[0] if stderr.strip() else "(no message)"


class RtileRep(BackendRep):
    """A prepared model: imported lazily in `run`, once the data inputs are known."""

    def __init__(self, model: onnx.ModelProto):
        self.model = model
        self.tmp = tempfile.TemporaryDirectory(prefix="rtile-onnx-")

    def _data_inputs(self):
        inits = {i.name for i in self.model.graph.initializer}
        return [i for i in self.model.graph.input if i.name not in inits]

    def run(self, inputs, **kwargs):  # noqa: ARG002
        if isinstance(inputs, dict):
            feeds = [inputs[i.name] for i in self._data_inputs()]
        else:
            feeds = list(inputs)
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        data_inputs = self._data_inputs()
        if len(feeds) != len(data_inputs):
            raise ValueError(f"model has {len(data_inputs)} inputs, got {len(feeds)}")
        kept = []
        for vi, value in zip(data_inputs, feeds):
            if value is None or isinstance(value, (list, dict)):
                raise SkipReason(f"input '{vi.name}': sequence and optional values are not supported")
            value = np.asarray(value)
            if value.dtype == object or (value.dtype not in _NPY_DTYPES and value.dtype.kind not in "iub"):
                raise SkipReason(f"input '{vi.name}': element type {value.dtype} is not supported")
            if value.dtype in _DATA_DTYPES:
                kept.append((vi.name, value))
            else:
                model.graph.initializer.append(numpy_helper.from_array(value, vi.name))
        d = self.tmp.name
        model_path = os.path.join(d, "model.onnx")
        mlir_path = os.path.join(d, "model.mlir")
        onnx.save(model, model_path)
        shapes = []
        for name, value in kept:
            dims = "x".join(str(s) for s in value.shape) if value.shape else ""
            shapes += ["--input-shape", f"{name}={dims}"]
        imp = _run([_bin("rtile-import-onnx"), model_path, "-o", mlir_path, *shapes])
        if imp.returncode != 0:
            msg = _first_error(imp.stderr)
            if _UNSUPPORTED.search(imp.stderr):
                raise SkipReason(msg)
            raise RuntimeError(f"rtile-import-onnx failed: {imp.stderr}")
        mode = "--interpret"
        opt_flags = os.environ.get("RTILE_OPT")
        if opt_flags:
            lowered = os.path.join(d, "lowered.mlir")
            opt = _run([_bin("rtile-opt"), mlir_path, *shlex.split(opt_flags), "-o", lowered])
            if opt.returncode != 0:
                raise RuntimeError(f"rtile-opt {opt_flags} failed: {opt.stderr}")
            mlir_path, mode = lowered, "--sim"
        paths = []
        for k, (_, value) in enumerate(kept):
            p = os.path.join(d, f"in{k}.npy")
            # (np.ascontiguousarray would make a 0-d array 1-d.)
            np.save(p, np.require(value, requirements="C"))
            paths.append(p)
        out_dir = os.path.join(d, "out")
        os.makedirs(out_dir, exist_ok=True)
        for f in os.listdir(out_dir):
            os.remove(os.path.join(out_dir, f))
        cmd = [_bin("rtile-run"), mode, mlir_path, "--dump", out_dir + "/"]
        if mode == "--sim" and _has_half(self.model):
            # The simulator checks every kernel against the f64 oracle; a half-precision
            # result is rounded at every op (2^-11 relative for f16, 2^-8 for bf16), so
            # its bound is that of the type, not f32's 1e-5.
            cmd += ["--tolerance", "1e-2"]
        if paths:
            cmd += ["--inputs", ",".join(paths)]
        res = _run(cmd)
        if res.returncode != 0:
            raise RuntimeError(f"rtile-run failed: {res.stderr}")
        outs = sorted(
            (f for f in os.listdir(out_dir) if f.endswith(".npy")),
            key=lambda f: int(f.rsplit(".", 2)[-2]),
        )
        return [
            _as_declared(np.load(os.path.join(out_dir, f)), vi)
            for f, vi in zip(outs, self.model.graph.output)
        ]


def _has_half(model: onnx.ModelProto) -> bool:
    """True when a graph input, output or initializer is float16 or bfloat16."""
    half = {onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16}
    g = model.graph
    typed = [v.type.tensor_type.elem_type for v in list(g.input) + list(g.output)]
    return any(t in half for t in typed) or any(i.data_type in half for i in g.initializer)


def _as_declared(value: np.ndarray, vi: onnx.ValueInfoProto) -> np.ndarray:
    """The output in its declared element type: rtile writes bfloat16 results as float32
    .npy (numpy has no bfloat16), whose values are bfloat16 numbers, so the cast is exact."""
    elem = vi.type.tensor_type.elem_type
    if not elem:
        return value
    want = onnx.helper.tensor_dtype_to_np_dtype(elem)
    return value.astype(want) if value.dtype != want else value


class RtileBackend(Backend):
    """rtile on the te reference interpreter (CPU)."""

    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):  # noqa: ARG003
        return True

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):  # noqa: ARG003
        super().prepare(model, device, **kwargs)
        return RtileRep(model)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        raise unittest.SkipTest("rtile runs models, not bare nodes")

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"
