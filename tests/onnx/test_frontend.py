"""The ONNX importer's own behaviour: load-time reporting of everything unsupported, symbolic dims, inputs that
set shapes, constant folding, Parameters, input checks, the lazy import, and a few semantics the node tests
do not cover (integer Div, runtime negative Gather indices). References are NumPy; float32 rtol 1e-6 (the
graphs here are single elementwise or data-movement ops), integers exact.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import opbuild as ms
import opbuild.onnx
from opbuild.core.errors import KernelInputError
from opbuild.frontends.onnx import UnsupportedOnnxError
from opbuild.frontends.onnx_ops import StaticValueError
from tests.conftest import run_python

pytestmark = pytest.mark.usefixtures("graph_mode")

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(nodes, inputs, outputs, initializers=(), opset=20, name="m", domains=()) -> onnx.ModelProto:
    """A checked ModelProto; inputs/outputs are (name, elem type, shape) triples."""
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(*i) for i in inputs],
                              [helper.make_tensor_value_info(*o) for o in outputs],
                              initializer=[numpy_helper.from_array(np.asarray(v), k) for k, v in initializers])
    opsets = [helper.make_opsetid("", opset), *(helper.make_opsetid(d, 1) for d in domains)]
    proto = helper.make_model(graph, opset_imports=opsets)
    proto.ir_version = 10
    onnx.checker.check_model(proto)
    return proto


def graph_ops(m) -> list[str]:
    """Primitive ops of the most recently traced graph of ``m``."""
    return [n.op for n in m.compile_info()[-1].graph.nodes]


# ---- load-time reporting ----------------------------------------------------------------------------------

def test_every_unsupported_op_attribute_and_dtype_is_reported_at_load() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="fine"),
        helper.make_node("Unique", ["a"], ["b"], name="up"),
        helper.make_node("DFT", ["b"], ["c"], name="top"),
        helper.make_node("MaxPool", ["x"], ["d"], name="pool", kernel_shape=[2, 2, 2, 2]),
        helper.make_node("Cast", ["x"], ["e"], name="half", to=TensorProto.FLOAT8E8M0),
        helper.make_node("FusedMatMul", ["x", "x"], ["f"], name="ms", domain="com.microsoft"),
    ]
    proto = model(nodes, [("x", F, [1, 1, 4, 4])], [("c", F, [1, 1, 8, 2]), ("d", F, [1, 1, 2, 2]),
                                                  ("e", TensorProto.FLOAT8E8M0, [1, 1, 4, 4]), ("f", F, [1, 1, 4, 4])],
                  initializers=[("scales", np.ones(4, np.float32)), ("k", np.array([2]))], domains=["com.microsoft"])
    with pytest.raises(UnsupportedOnnxError) as info:
        opbuild.onnx.load(proto)
    err = info.value
    assert err.ops == ["Cast", "DFT", "FusedMatMul", "MaxPool", "Unique"]
    by_node = {p.node: p for p in err.problems}
    assert set(by_node) == {"up", "top", "pool", "half", "ms"}
    assert all(p.opset == 20 for p in err.problems)
    assert "4-D kernels are not supported" in by_node["pool"].reason
    assert "FLOAT8E8M0" in by_node["half"].reason
    assert "com.microsoft" in by_node["ms"].reason
    text = str(err)
    for fragment in ("Unique (node 'up', opset 20)", "DFT (node 'top', opset 20)", "MaxPool (node 'pool'",
                     "Cast (node 'half'", "FusedMatMul (node 'ms'"):
        assert fragment in text


def test_an_operator_whose_semantics_changed_is_reported_with_its_version() -> None:
    proto = model([helper.make_node("Softmax", ["x"], ["y"], name="sm")], [("x", F, [2, 3])], [("y", F, [2, 3])],
                  opset=11)
    with pytest.raises(UnsupportedOnnxError, match=r"Softmax \(node 'sm', opset 11\): schema version Softmax-11"):
        opbuild.onnx.load(proto)


def test_an_old_opset_loads_when_its_operators_are_unchanged() -> None:
    proto = model([helper.make_node("Xor", ["a", "b"], ["y"])],
                  [("a", TensorProto.BOOL, [3]), ("b", TensorProto.BOOL, [3])], [("y", TensorProto.BOOL, [3])], opset=7)
    a, b = np.array([True, False, True]), np.array([True, True, False])
    np.testing.assert_array_equal(opbuild.onnx.load(proto).run([a, b])[0], a ^ b)


def test_unsupported_input_dtype_is_reported() -> None:
    proto = model([helper.make_node("Relu", ["x"], ["y"], name="r")], [("x", TensorProto.COMPLEX64, [2])],
                  [("y", TensorProto.COMPLEX64, [2])])
    with pytest.raises(UnsupportedOnnxError, match="graph input .*COMPLEX64, which opbuild does not support"):
        opbuild.onnx.load(proto)


@pytest.mark.parametrize("elem, np_dtype", [(TensorProto.INT8, np.int8), (TensorProto.UINT16, np.uint16),
                                            (TensorProto.FLOAT16, np.float16),
                                            (TensorProto.BFLOAT16, np.dtype("bfloat16"))])
def test_narrow_dtypes_load_with_initializers(elem, np_dtype) -> None:
    """Inputs and initializers of the narrow dtypes (bfloat16 ones are ml_dtypes arrays) run as themselves."""
    w = np.array([1, 2, 3], dtype=np_dtype)
    init = onnx.numpy_helper.from_array(w, "w")
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", elem, [3])],
                          [helper.make_tensor_value_info("y", elem, [3])], [init])
    proto = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    x = np.array([4, 5, 6], dtype=np_dtype)
    got = opbuild.onnx.load(proto).run([x])[0]
    assert got.dtype == np.dtype(np_dtype)
    np.testing.assert_array_equal(got, x + w)


def test_load_from_path_and_missing_file(tmp_path) -> None:
    proto = model([helper.make_node("Neg", ["x"], ["y"])], [("x", F, [2])], [("y", F, [2])])
    path = tmp_path / "neg.onnx"
    onnx.save(proto, str(path))
    np.testing.assert_array_equal(opbuild.onnx.load(path).run([np.array([1, -2], np.float32)])[0], [-1, 2])
    with pytest.raises(FileNotFoundError):
        opbuild.onnx.load(tmp_path / "missing.onnx")


def test_opbuild_import_does_not_need_onnx_and_the_error_names_the_extra() -> None:
    code = ("import sys; sys.modules['onnx'] = None\n"
            "import opbuild, opbuild.onnx\n"
            "try:\n    opbuild.onnx.load('model.onnx')\nexcept ModuleNotFoundError as e:\n    print(e)\n")
    out = run_python(code).stdout
    assert "pip install 'opbuild[onnx]'" in out


# ---- shapes, folding, inputs ------------------------------------------------------------------------------

def test_symbolic_batch_dim_compiles_once_for_every_size() -> None:
    proto = model([helper.make_node("Add", ["x", "b"], ["s"]), helper.make_node("Relu", ["s"], ["y"])],
                  [("x", F, ["N", 4])], [("y", F, ["N", 4])], initializers=[("b", np.arange(4, dtype=np.float32) - 2)])
    m = opbuild.onnx.load(proto)
    assert m.inputs[0].shape == ("N", 4)
    rng = np.random.default_rng(0)
    for n in (2, 3, 2):
        x = rng.standard_normal((n, 4)).astype(np.float32)
        np.testing.assert_allclose(m.run([x])[0], np.maximum(x + (np.arange(4) - 2), 0), rtol=1e-6)
    # a symbolic dim 0 is a dynamic batch: one graph of run-time-batch kernels serves every size
    # (nn/batch_runtime.py)
    assert len(m.compile_info()) == 1


def test_shape_arithmetic_is_folded_away() -> None:
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape: only the Reshape (and the Relu) are kernels."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shp"]),
        helper.make_node("Gather", ["shp", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"]),
        helper.make_node("Concat", ["n1", "rest"], ["new_shape"], axis=0),
        helper.make_node("Reshape", ["x", "new_shape"], ["r"]),
        helper.make_node("Relu", ["r"], ["y"]),
    ]
    proto = model(nodes, [("x", F, ["N", 6])], [("y", F, ["N", 2, 3])],
                  initializers=[("zero", np.array(0)), ("ax0", np.array([0])), ("rest", np.array([2, 3]))])
    m = opbuild.onnx.load(proto)
    x = np.random.default_rng(1).standard_normal((5, 6)).astype(np.float32)
    np.testing.assert_allclose(m.run([x])[0], np.maximum(x, 0).reshape(5, 2, 3), rtol=1e-6)
    assert graph_ops(m) == ["Reshape", "ReLU"]


def test_an_input_that_sets_a_shape_is_a_trace_time_constant() -> None:
    proto = model([helper.make_node("Reshape", ["x", "shape"], ["y"])], [("x", F, [2, 6]), ("shape", I64, [2])],
                  [("y", F, ["a", "b"])])
    m = opbuild.onnx.load(proto)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    assert m.run([x, np.array([3, 4])])[0].shape == (3, 4)
    assert m.run([x, np.array([4, -1])])[0].shape == (4, 3)
    assert m.run([x, np.array([3, 4])])[0].shape == (3, 4)
    assert len(m.compile_info()) == 2  # one trace per distinct shape value


def test_a_traced_tensor_for_a_shape_input_is_a_clear_error() -> None:
    proto = model([helper.make_node("Reshape", ["x", "shape"], ["y"])], [("x", F, [2, 6]), ("shape", I64, [2])],
                  [("y", F, ["a", "b"])])
    inner = opbuild.onnx.load(proto)

    class Outer(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def construct(self, x, shape):
            return self.inner(x, shape)

    with pytest.raises(StaticValueError, match="input 'shape' sets shapes"):
        Outer()(np.zeros((2, 6), np.float32), np.array([3, 4]))


def test_inputs_are_checked_against_the_declared_types() -> None:
    proto = model([helper.make_node("Relu", ["x"], ["y"])], [("x", F, ["N", 3])], [("y", F, ["N", 3])])
    m = opbuild.onnx.load(proto)
    with pytest.raises(ms.ShapeError, match=r"ONNX input 'x': expected float32 of shape \['N', 3\], got float64"):
        m(np.zeros((2, 3)))
    with pytest.raises(ms.ShapeError, match=r"got float32 of shape \[2, 4\]"):
        m(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match=r"takes 1 input\(s\) \(x\), got 2"):
        m(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="missing"):
        m.run({"y": np.zeros((2, 3), np.float32)})


def test_outputs_may_be_constants_or_inputs() -> None:
    proto = model([helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Identity", ["x"], ["same"])],
                  [("x", F, [2, 5])], [("s", I64, [2]), ("same", F, [2, 5])])
    x = np.ones((2, 5), np.float32)
    s, same = opbuild.onnx.load(proto).run({"x": x})
    np.testing.assert_array_equal(s, [2, 5])
    np.testing.assert_array_equal(same, x)


def test_integer_initializers_are_read_at_trace_and_set_data_retraces() -> None:
    proto = model([helper.make_node("Reshape", ["x", "shape"], ["y"])], [("x", F, [2, 6])], [("y", F, ["a", "b"])],
                  initializers=[("shape", np.array([3, 4]))])
    m = opbuild.onnx.load(proto)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    assert m.run([x])[0].shape == (3, 4)
    params = dict(m.parameters_and_names())
    assert set(params) == {"shape"} and not params["shape"].requires_grad
    params["shape"].set_data(np.array([6, 2]))
    assert m.run([x])[0].shape == (6, 2)


def test_pynative_mode_runs_the_same_ops(pynative_mode) -> None:
    proto = model([helper.make_node("Gelu", ["x"], ["y"], approximate="tanh")], [("x", F, [7])], [("y", F, [7])])
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    expect = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(opbuild.onnx.load(proto).run([x])[0], expect, rtol=1e-5, atol=1e-7)


# ---- semantics the node tests leave out -------------------------------------------------------------------

@pytest.mark.parametrize("elem, dt", [(TensorProto.INT32, np.int32), (TensorProto.INT64, np.int64)])
def test_integer_div_truncates_toward_zero(elem, dt) -> None:
    proto = model([helper.make_node("Div", ["a", "b"], ["y"])], [("a", elem, [8]), ("b", elem, [8])],
                  [("y", elem, [8])])
    a = np.array([7, -7, 7, -7, 6, -6, 0, 5], dt)
    b = np.array([2, 2, -2, -2, 3, 4, 3, -1], dt)
    np.testing.assert_array_equal(opbuild.onnx.load(proto).run([a, b])[0], np.trunc(a / b).astype(dt))


def test_gather_wraps_negative_runtime_indices() -> None:
    proto = model([helper.make_node("Gather", ["t", "i"], ["y"], axis=0)], [("i", I64, [5])], [("y", F, [5, 3])],
                  initializers=[("t", np.arange(12, dtype=np.float32).reshape(4, 3))])
    idx = np.array([0, -1, 2, -4, 3])
    np.testing.assert_array_equal(opbuild.onnx.load(proto).run([idx])[0], np.arange(12).reshape(4, 3)[idx])


def test_gathers_and_scatters_raise_for_indices_out_of_range_and_count_negatives() -> None:
    """The spec's ranges ([-n, n), negatives from the end) and onnxruntime's answer (an error) outside them."""
    t = np.arange(12, dtype=np.float32).reshape(4, 3)
    gather = opbuild.onnx.load(model([helper.make_node("Gather", ["t", "i"], ["y"], axis=1)], [("i", I64, [2])],
                                     [("y", F, [4, 2])], initializers=[("t", t)]))
    with pytest.raises(KernelInputError, match=r"For 'Gather', input_indices\[1\] = -4 is out of range"):
        gather.run([np.array([0, -4])])
    np.testing.assert_array_equal(gather.run([np.array([0, -3])])[0], t[:, [0, 0]])
    elements = opbuild.onnx.load(model([helper.make_node("GatherElements", ["t", "i"], ["y"], axis=0)],
                                       [("i", I64, [1, 3])], [("y", F, [1, 3])], initializers=[("t", t)]))
    np.testing.assert_array_equal(elements.run([np.array([[-1, 0, 3]])])[0], [[9, 1, 11]])
    with pytest.raises(KernelInputError, match=r"For 'GatherD', index\[0, 2\] = 4"):
        elements.run([np.array([[0, 0, 4]])])
    nd = opbuild.onnx.load(model([helper.make_node("GatherND", ["t", "i"], ["y"], batch_dims=1)],
                                 [("i", I64, [4, 1])], [("y", F, [4])], initializers=[("t", t)]))
    np.testing.assert_array_equal(nd.run([np.array([[0], [-1], [2], [-3]])])[0], [0, 5, 8, 9])
    with pytest.raises(KernelInputError, match=r"For 'GatherNd', indices\[2, 1\] = 3 is out of range"):
        nd.run([np.array([[0], [1], [3], [0]])])
    scatter = opbuild.onnx.load(model([helper.make_node("ScatterND", ["t", "i", "u"], ["y"])],
                                      [("i", I64, [1, 1])], [("y", F, [4, 3])],
                                      initializers=[("t", t), ("u", np.full((1, 3), -1, np.float32))]))
    want = t.copy()
    want[3] = -1
    np.testing.assert_array_equal(scatter.run([np.array([[-1]])])[0], want)
    with pytest.raises(KernelInputError, match=r"For 'TensorScatterUpdate', indices\[0, 0\] = 4 is out of range"):
        scatter.run([np.array([[4]])])
    elements = opbuild.onnx.load(model([helper.make_node("ScatterElements", ["t", "i", "u"], ["y"], axis=1)],
                                       [("i", I64, [1, 2])], [("y", F, [4, 3])],
                                       initializers=[("t", t), ("u", np.full((1, 2), -1, np.float32))]))
    want = t.copy()
    want[0, [2, 0]] = -1
    np.testing.assert_array_equal(elements.run([np.array([[-1, 0]])])[0], want)
    with pytest.raises(KernelInputError, match=r"For 'TensorScatterElements', indices\[0, 1\] = 3 is out of range"):
        elements.run([np.array([[0, 3]])])


def test_clip_with_one_bound_and_integer_types() -> None:
    proto = model([helper.make_node("Clip", ["x", "", "hi"], ["y"])], [("x", I64, [5])], [("y", I64, [5])],
                  initializers=[("hi", np.array(2))])
    x = np.array([-5, 0, 2, 3, 9])
    np.testing.assert_array_equal(opbuild.onnx.load(proto).run([x])[0], np.minimum(x, 2))


def test_repeated_problems_are_grouped_by_operator() -> None:
    nodes = [helper.make_node("Unique", ["x" if i == 0 else f"s{i - 1}"], [f"s{i}"], name=f"sign{i}") for i in range(8)]
    proto = model(nodes, [("x", F, [3])], [("s7", F, [3])])
    with pytest.raises(UnsupportedOnnxError) as info:
        opbuild.onnx.load(proto)
    assert len(info.value.problems) == 8
    lines = [ln for ln in str(info.value).splitlines() if ln.startswith("  - ")]
    assert lines == ["  - Unique (nodes 'sign0', 'sign1', 'sign2', 'sign3', 'sign4' and 3 more, opset 20): operator "
                     "not supported"]


def test_pow_by_a_small_integer_initializer_is_products_and_follows_set_data(monkeypatch) -> None:
    monkeypatch.setenv("OPBUILD_FUSION", "0")  # the test reads the converter's unfused nodes
    proto = model([helper.make_node("Pow", ["x", "e"], ["y"])], [("x", F, [5])], [("y", F, [5])],
                  initializers=[("e", np.array(3.0, np.float32))])
    m = opbuild.onnx.load(proto)
    x = np.array([-2.5, -1, 0, 0.5, 3], np.float32)
    np.testing.assert_allclose(m.run([x])[0], x ** 3, rtol=1e-6)
    assert graph_ops(m) == ["Mul", "Mul"]
    dict(m.parameters_and_names())["e"].set_data(np.array(2.0, np.float32))  # read at trace: re-traced
    np.testing.assert_allclose(m.run([x])[0], x ** 2, rtol=1e-6)
    dict(m.parameters_and_names())["e"].set_data(np.array(0.5, np.float32))  # a general exponent: Pow kernel
    with np.errstate(invalid="ignore"):  # negative bases give NaN, in both
        np.testing.assert_allclose(m.run([x])[0], np.power(x, 0.5), rtol=1e-6)
    assert graph_ops(m) == ["Pow"]


def test_opset_11_attribute_forms() -> None:
    """Opset 11 gives Squeeze/Unsqueeze axes, Split sizes and ReduceSum axes as attributes."""
    nodes = [
        helper.make_node("Unsqueeze", ["x"], ["u"], axes=[0, -1]),
        helper.make_node("Split", ["u"], ["a", "b"], axis=2, split=[1, 3]),
        helper.make_node("ReduceSum", ["b"], ["r"], axes=[2], keepdims=0),
        helper.make_node("Squeeze", ["a"], ["s"], axes=[0, 3]),
        helper.make_node("Clip", ["r", "lo", ""], ["y"]),
    ]
    proto = model(nodes, [("x", F, [2, 4])], [("s", F, [2, 1]), ("y", F, [1, 2, 1])],
                  initializers=[("lo", np.array(0.5, np.float32))], opset=11)
    x = np.arange(8, dtype=np.float32).reshape(2, 4) - 4
    s, y = opbuild.onnx.load(proto).run([x])
    u = x[None, :, :, None]
    np.testing.assert_array_equal(s, u[:, :, :1].squeeze((0, 3)))
    np.testing.assert_allclose(y, np.maximum(u[:, :, 1:].sum(axis=2), 0.5), rtol=1e-6)


def test_a_model_runs_as_one_compiled_graph_in_pynative_mode_too() -> None:
    """An ONNX model is a graph by nature: in PYNATIVE_MODE (MindSpore 2.x's default) it is still traced and
    compiled once (its elementwise chain fused into one kernel), not run node by node."""
    from tests.conftest import execution_mode

    nodes = [helper.make_node("Add", ["x", "y"], ["s"]), helper.make_node("Relu", ["s"], ["r"]),
             helper.make_node("Mul", ["r", "x"], ["z"])]
    net = opbuild.onnx.load(model(nodes, [("x", F, [2, 3]), ("y", F, [2, 3])], [("z", F, [2, 3])]))
    x, y = np.arange(6, dtype=np.float32).reshape(2, 3) - 2, np.ones((2, 3), np.float32)
    with execution_mode("pynative"):
        out = net(x, y)
        report = ms.build_report()
    np.testing.assert_array_equal(out.asnumpy(), np.maximum(x + y, 0) * x)
    assert [k.op for k in report.kernels] == ["FusedElementwise"]
