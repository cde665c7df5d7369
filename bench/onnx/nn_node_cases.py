#!/usr/bin/env python3
"""Writes the ONNX backend node tests of rtile-onnx's nn family (single-node models of
its op types) as text for the ignored Rust test `ops::nn::tests::node_cases`:

    python3 bench/onnx/nn_node_cases.py /tmp/nn_cases.txt
    RTILE_NN_NODE_CASES=/tmp/nn_cases.txt cargo test -p rtile-onnx onnx_node_cases -- --ignored --nocapture

Format, one case per block: `case NAME OP OPSET NUM_OUTPUTS`, then `attr NAME i|is|f|s
VALUES`, `input IDX none` or `input IDX DTYPE SHAPE VALUES`, `output IDX DTYPE SHAPE
VALUES` (SHAPE is `2x3`, or `s` for a scalar), then `end`.
"""

import sys

import numpy as np
import onnx
from onnx import helper
from onnx.backend.test.case.node import collect_testcases

OPS = {
    "Conv", "ConvTranspose", "Gemm", "MatMul", "BatchNormalization",
    "LayerNormalization", "LRN", "MaxPool", "AveragePool", "GlobalAveragePool",
    "GlobalMaxPool", "InstanceNormalization", "Softmax", "LogSoftmax", "ReduceSum",
    "ReduceMean", "ReduceMax",
    "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
    "ReduceLogSumExp", "Sigmoid", "HardSigmoid", "Softplus", "Elu", "Selu", "Celu",
    "HardSwish", "Mish", "Softsign", "ThresholdedRelu", "Gelu",
}
DTYPES = {
    np.dtype("float32"): "f32", np.dtype("float64"): "f64", np.dtype("float16"): "f16",
    np.dtype("int32"): "i32", np.dtype("int64"): "i64", np.dtype("int8"): "i8",
    np.dtype("uint8"): "u8", np.dtype("bool"): "bool",
}


def tensor_line(kind, idx, arr):
    arr = np.asarray(arr)
    shape = "x".join(map(str, arr.shape)) or "s"
    if arr.dtype.kind == "f":
        vals = " ".join(repr(float(x)) for x in arr.astype(np.float64).ravel())
    else:
        vals = " ".join(str(int(x)) for x in arr.ravel())
    return f"{kind} {idx} {DTYPES[arr.dtype]} {shape} {vals}"


def attr_line(a):
    v = helper.get_attribute_value(a)
    if a.type == onnx.AttributeProto.INT:
        return f"attr {a.name} i {v}"
    if a.type == onnx.AttributeProto.INTS:
        return f"attr {a.name} is {' '.join(map(str, v))}"
    if a.type == onnx.AttributeProto.FLOAT:
        return f"attr {a.name} f {float(np.float32(v))!r}"
    if a.type == onnx.AttributeProto.STRING:
        return f"attr {a.name} s {v.decode()}"
    return None


def main(path):
    written, skipped = 0, []
    with open(path, "w") as out:
        for case in collect_testcases(None):
            graph = case.model.graph
            if len(graph.node) != 1 or graph.node[0].op_type not in OPS:
                continue
            node = graph.node[0]
            opset = next(o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx"))
            names = [i.name for i in graph.input]
            for ins, outs in case.data_sets:
                lines = [f"case {case.name} {node.op_type} {opset} {len(node.output)}"]
                attrs = [attr_line(a) for a in node.attribute]
                arrays = [np.asarray(ins[names.index(n)]) for n in node.input if n] + [
                    np.asarray(o) for o in outs
                ]
                if None in attrs or any(a.dtype not in DTYPES for a in arrays):
                    skipped.append(case.name)
                    continue
                lines += attrs
                for idx, name in enumerate(node.input):
                    if name:
                        lines.append(tensor_line("input", idx, ins[names.index(name)]))
                    else:
                        lines.append(f"input {idx} none")
                lines += [tensor_line("output", i, o) for i, o in enumerate(outs)]
                lines.append("end")
                out.write("\n".join(lines) + "\n")
                written += 1
    print(f"{written} cases written to {path}; skipped (element types): {skipped}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/nn_cases.txt")
