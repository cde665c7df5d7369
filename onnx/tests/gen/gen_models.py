"""Writes the small ONNX models of tests/lit/onnx/Inputs (run with a Python that has
the onnx package: `python onnx/tests/gen/gen_models.py`). Each model uses only the
basic operator family; weights are deterministic so the checked-in files are stable."""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "lit", "onnx", "Inputs")


def save(name, graph, opset=17):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="rtile-gen")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name))


def mlp_like():
    """Add with a broadcast bias initializer, Relu, Transpose, a shape subgraph
    (Shape/Gather/Unsqueeze/Concat) folded into a Reshape, Sigmoid."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2, None])
    bias = numpy_helper.from_array(np.arange(4, dtype=np.float32) / 4 - 0.5, "bias")
    minus1 = numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus1")
    two = numpy_helper.from_array(np.array([2], dtype=np.int64), "two")
    zero = numpy_helper.from_array(np.array(0, dtype=np.int64), "zero")
    nodes = [
        helper.make_node("Add", ["x", "bias"], ["a"], name="add_bias"),
        helper.make_node("Relu", ["a"], ["r"], name="relu"),
        helper.make_node("Transpose", ["r"], ["t"], name="transpose", perm=[1, 0]),
        helper.make_node("Shape", ["t"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "zero"], ["d0"], name="gather_dim", axis=0),
        helper.make_node("Constant", [], ["zero_axes"], name="axes_const",
                         value=numpy_helper.from_array(np.array([0], dtype=np.int64))),
        helper.make_node("Unsqueeze", ["d0", "zero_axes"], ["d0u"], name="unsq"),
        helper.make_node("Div", ["d0u", "two"], ["half"], name="half"),
        helper.make_node("Concat", ["half", "two", "minus1"], ["newshape"], name="concat_shape", axis=0),
        helper.make_node("Reshape", ["t", "newshape"], ["rs"], name="reshape"),
        helper.make_node("Sigmoid", ["rs"], ["y"], name="sigmoid"),
    ]
    g = helper.make_graph(nodes, "mlp-like", [x], [y], [bias, minus1, two, zero])
    save("mlp_like.onnx", g)


def movement():
    """Concat of two inputs, Slice with a negative step, Pad, Split."""
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 5])
    o1 = helper.make_tensor_value_info("o1", TensorProto.FLOAT, [2, 4])
    o2 = helper.make_tensor_value_info("o2", TensorProto.FLOAT, [2, 4])
    inits = [
        numpy_helper.from_array(np.array([7], dtype=np.int64), "starts"),
        numpy_helper.from_array(np.array([-100], dtype=np.int64), "ends"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "axes"),
        numpy_helper.from_array(np.array([-2], dtype=np.int64), "steps"),
        numpy_helper.from_array(np.array([0, 2, 0, 2], dtype=np.int64), "pads"),
        numpy_helper.from_array(np.array(1.5, dtype=np.float32), "padv"),
    ]
    nodes = [
        helper.make_node("Concat", ["a", "b"], ["c"], name="concat", axis=-1),
        helper.make_node("Slice", ["c", "starts", "ends", "axes", "steps"], ["s"], name="slice"),
        helper.make_node("Pad", ["s", "pads", "padv"], ["p"], name="pad"),
        helper.make_node("Split", ["p"], ["o1", "o2"], name="split", axis=1, num_outputs=2),
    ]
    g = helper.make_graph(nodes, "movement", [a, b], [o1, o2], inits)
    save("movement.onnx", g, opset=18)


def unsupported():
    """A node of an op type no family supports (an error case)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    nodes = [helper.make_node("Hardmax", ["x"], ["y"], name="the_hardmax")]
    save("unsupported.onnx", helper.make_graph(nodes, "bad", [x], [y]))


def test_data(model_name, inputs):
    """Writes `<model>_data/input_<i>.pb` and `output_<i>.pb` as ONNX's backend tests lay
    them out, the outputs computed by onnx's own reference evaluator (an oracle that rtile
    does not share)."""
    from onnx.reference import ReferenceEvaluator

    model = onnx.load(os.path.join(OUT, model_name + ".onnx"))
    outputs = ReferenceEvaluator(model).run(None, {i.name: x for i, x in zip(model.graph.input, inputs)})
    d = os.path.join(OUT, model_name + "_data")
    os.makedirs(d, exist_ok=True)
    for kind, values in (("input", inputs), ("output", outputs)):
        for k, v in enumerate(values):
            with open(os.path.join(d, f"{kind}_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(v)).SerializeToString())


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    mlp_like()
    test_data("mlp_like", [np.random.default_rng(13).standard_normal((4, 4)).astype(np.float32)])
    movement()
    unsupported()
