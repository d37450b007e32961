"""The core public API: the tutorial example, Tensor, Python operators on tensors, set_context/get_context and
the PyNative build report."""

from __future__ import annotations

import json
import operator
import os
import subprocess
import sys

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.core import trace as core_trace
from opbuild.core.errors import ShapeError, UnsupportedTargetError
from tests.helpers import FnCell

from .conftest import REPO, run_python

# ---- the tutorial example -----------------------------------------------------------------------------


def test_square_example_prints_expected_output(tmp_path):
    """examples/test_square.py runs as written; run from a scratch directory with no cache variable set, it
    keeps its kernels in ./rank_0/kernel_meta of that directory."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPBUILD_CACHE_PATH", "MS_COMPILER_CACHE_PATH")}
    env["PYTHONPATH"] = str(REPO / "src")
    for _ in range(2):  # the second run reuses the cached kernel and must print the same
        proc = subprocess.run([sys.executable, str(REPO / "examples" / "test_square.py")], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines() == ["x:  [1. 4. 9.]", "output:  [ 1. 16. 81.]"]
    kernels = list((tmp_path / "rank_0" / "kernel_meta").glob("square_*.so"))
    assert len(kernels) == 1


# ---- Tensor ---------------------------------------------------------------------------------------------

def test_tensor_metadata_and_data():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ms.Tensor(arr)
    assert t.shape == (2, 3) and isinstance(t.shape, tuple)
    assert t.dtype == ms.float32 and t.dtype is ms.float32
    assert t.ndim == 2 and t.size == 6 and len(t) == 2
    np.testing.assert_array_equal(t.asnumpy(), arr)
    assert isinstance(t.asnumpy(), np.ndarray)
    np.testing.assert_array_equal(np.asarray(t), arr)


@pytest.mark.parametrize(("data", "dtype", "shape"), [
    (1.5, ms.float32, ()),                       # Python floats default to float32 (MindSpore's rule)
    ([1.0, 2.0], ms.float32, (2,)),
    ([[1, 2], [3, 4]], ms.int64, (2, 2)),
    (True, ms.bool_, ()),
    (np.array([1.0, 2.0]), ms.float64, (2,)),    # NumPy arrays keep their dtype
    (np.array(3, np.int32), ms.int32, ()),       # 0-d arrays stay 0-d
    (np.float64(2.0), ms.float64, ()),
])
def test_tensor_dtype_and_shape_inference(data, dtype, shape):
    t = ms.Tensor(data)
    assert t.dtype == dtype and t.shape == shape
    np.testing.assert_array_equal(t.asnumpy(), np.asarray(data))


def test_tensor_explicit_dtype_and_copy_construction():
    for spelling in (ms.int32, "int32", np.int32):
        t = ms.Tensor([1.7, -2.2], dtype=spelling)
        assert t.dtype == ms.int32
        np.testing.assert_array_equal(t.asnumpy(), [1, -2])
    u = ms.Tensor(ms.Tensor(np.ones(3, np.float64)))
    assert u.dtype == ms.float64 and u.shape == (3,)


def test_tensor_rejects_bad_data():
    with pytest.raises(ValueError, match="input_data"):
        ms.Tensor(None)
    for bad in (np.array(["a"]), np.ones(2, np.float128)):
        with pytest.raises(TypeError, match="supports float16, bfloat16, float32, float64, .*uint64, bool"):
            ms.Tensor(bad)
    # MindSpore's complex dtypes are dtypes (docs/fft.md): NumPy complex data round-trips.
    assert ms.Tensor(np.array([1 + 2j], np.complex64)).dtype == ms.complex64
    assert ms.tensor([1.0], ms.complex64).asnumpy().dtype == np.complex64
    assert ms.Tensor([1.0], dtype=ms.dtype.complex128).asnumpy().tolist() == [1 + 0j]
    with pytest.raises(TypeError, match="0-d"):
        len(ms.Tensor(1.0))


def test_tensor_scalar_conversions():
    assert float(ms.Tensor(2.5)) == 2.5
    assert int(ms.Tensor(np.array(7, np.int64))) == 7
    assert bool(ms.Tensor(True)) is True and bool(ms.Tensor(0.0)) is False


def test_tensor_str_follows_numpy_and_repr_mindspore():
    # repr's full layout is MindSpore's (tests/core/test_tensor_format.py compares it with recorded fixtures).
    for arr in (np.array([1.0, 16.0, 81.0], np.float32), np.arange(6).reshape(2, 3), np.array(2.5),
                np.array([True, False])):
        t = ms.Tensor(arr)
        assert str(t) == str(arr)
        assert repr(t).startswith(f"Tensor(shape={list(arr.shape)}, dtype={t.dtype}, value=")
    assert str(ms.float32) == "Float32" and repr(ms.int64) == "mindspore.int64" and str(ms.bool_) == "Bool"


def test_tensor_from_non_contiguous_array_is_read_correctly(pynative_mode):
    """Kernels read dense C-order buffers: a transposed view must be made contiguous, not read raw."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ms.Tensor(a.T)
    assert t.asnumpy().flags.c_contiguous
    np.testing.assert_array_equal((t + 1).asnumpy(), a.T + 1)
    np.testing.assert_array_equal(ms.Tensor(a[:, ::2]).asnumpy(), a[:, ::2])


def test_traced_tensor_values_break_the_graph(graph_mode):
    class Peek(nn.Cell):
        def construct(self, x):
            y = x * 2
            assert "traced" in repr(y) and y.shape == (2,) and y.dtype == ms.float32
            return ms.Tensor(y.asnumpy() + 1)  # MindSpore's JIT fallback: Python on the values

    np.testing.assert_array_equal(Peek()(ms.Tensor(np.ones(2, np.float32))).asnumpy(), [3.0, 3.0])
    why = ms.explain(Peek(), ms.Tensor(np.ones(2, np.float32)))
    assert why.break_count == 1 and "asnumpy() of a traced" in str(why.breaks[0])
    graph, _ = core_trace.trace(lambda x: x * 2, [ms.Tensor(np.ones(2, np.float32))])
    with pytest.raises(RuntimeError, match="GRAPH_MODE"):  # a tensor of a finished trace has no values
        ms.Tensor._symbolic(graph.outputs[0]).asnumpy()


# ---- Python operators ----------------------------------------------------------------------------------

BINARY_OPERATORS = [  # (python operator, primitive it must record, dtypes to try)
    (operator.add, "Add", ("float32", "int32")),
    (operator.sub, "Sub", ("float32", "int32")),
    (operator.mul, "Mul", ("float32", "int32")),
    (operator.truediv, "RealDiv", ("float32", "float64")),
    (operator.floordiv, "FloorDiv", ("float32", "int32")),
    (operator.mod, "FloorMod", ("float32", "int64")),
    (operator.pow, "Pow", ("float32", "int32")),
    (operator.eq, "Equal", ("float32", "int32")),
    (operator.ne, "NotEqual", ("float32", "int32")),
    (operator.lt, "Less", ("float32", "int32")),
    (operator.le, "LessEqual", ("float32", "int64")),
    (operator.gt, "Greater", ("float64", "int32")),
    (operator.ge, "GreaterEqual", ("float32", "int32")),
    (operator.and_, "LogicalAnd", ("bool",)),
    (operator.or_, "LogicalOr", ("bool",)),
]
OPERANDS = {
    "float32": (np.array([[-3.0, 1.5, 2.0], [0.5, -1.0, 4.0]], np.float32),
                np.array([2.0, -0.5, 3.0], np.float32)),
    "float64": (np.array([[-3.0, 1.5, 2.0], [0.5, -1.0, 4.0]]), np.array([2.0, -0.5, 3.0])),
    # non-negative: int32 also serves Pow, where NumPy rejects negative integer exponents
    "int32": (np.array([[3, 1, 2], [5, 0, 4]], np.int32), np.array([2, 3, 1], np.int32)),
    "int64": (np.array([[-3, 1, 2], [5, 0, 4]], np.int64), np.array([2, -3, 1], np.int64)),
    "bool": (np.array([[True, False, True], [False, False, True]]), np.array([True, False, False])),
}
# With a scalar on the left Python calls the tensor's reflected method: comparisons mirror (2 < t is t > 2).
MIRRORED = {"Less": "Greater", "LessEqual": "GreaterEqual", "Greater": "Less", "GreaterEqual": "LessEqual"}
SCALARS = {"float32": (2, 1.5), "float64": (3, -0.25), "int32": (2, True), "int64": (3,),
           "bool": (True, False)}


def _both_modes(fn, *arrays):
    """Run ``fn`` eagerly and in a Cell; return (eager result, graph result, op names the graph recorded)."""
    tensors = [ms.Tensor(a) for a in arrays]
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = fn(*tensors)
        ms.set_context(mode=ms.GRAPH_MODE)
        cell = FnCell(fn)
        graph = cell(*tensors)
    finally:
        ms.set_context(mode=old)
    (compiled,) = cell.compile_info()
    return eager, graph, [n.op for n in compiled.graph.nodes]


def _check_same(got: ms.Tensor, want: np.ndarray) -> None:
    assert isinstance(got, ms.Tensor)
    assert got.dtype.name == want.dtype.name and got.shape == want.shape
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6 if want.dtype == np.float32 else 1e-12)
    else:
        np.testing.assert_array_equal(got.asnumpy(), want)


def _numpy(fn, *args):
    with np.errstate(all="ignore"):  # x // 0 and x % 0 on ints: NumPy warns and gives 0, as the kernels do
        return np.asarray(fn(*args))


@pytest.mark.parametrize(("fn", "prim", "dtypes"), BINARY_OPERATORS, ids=[p for _, p, _ in BINARY_OPERATORS])
def test_binary_operator_maps_to_primitive(fn, prim, dtypes):
    """tensor OP tensor, tensor OP scalar and scalar OP tensor: NumPy's result and dtype (a Python scalar
    takes the tensor's dtype), in both modes, and the traced graph records exactly the primitive."""
    for dt in dtypes:
        a, b = OPERANDS[dt]
        want = _numpy(fn, a, b)
        eager, graph, recorded = _both_modes(fn, a, b)
        assert recorded == [prim]
        _check_same(eager, want)
        _check_same(graph, want)
        for s in SCALARS[dt]:
            right, left = (lambda t, s=s: fn(t, s)), (lambda t, s=s: fn(s, t))
            for call, expected in ((right, prim), (left, MIRRORED.get(prim, prim))):
                want = _numpy(call, a)
                eager, graph, recorded = _both_modes(call, a)
                assert recorded == [expected], (dt, s)
                _check_same(eager, want)
                _check_same(graph, want)


@pytest.mark.parametrize(("fn", "prim", "dtype"), [
    (operator.neg, "Neg", "float32"), (operator.neg, "Neg", "int64"), (abs, "Abs", "float64"),
    (abs, "Abs", "int32"), (operator.invert, "LogicalNot", "bool"),
])
def test_unary_operator_maps_to_primitive(fn, prim, dtype):
    a = OPERANDS[dtype][0]
    want = fn(a)
    eager, graph, recorded = _both_modes(fn, a)
    assert recorded == [prim]
    _check_same(eager, want)
    _check_same(graph, want)


def test_ndarray_on_the_left_defers_to_tensor(pynative_mode):
    t = ms.Tensor(np.array([1.0, 2.0], np.float32))
    out = np.array([3.0, 4.0], np.float32) - t
    assert isinstance(out, ms.Tensor)
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 2.0])


def test_operator_chain_records_every_primitive(graph_mode, monkeypatch):
    monkeypatch.setenv("OPBUILD_FUSION", "0")  # the test reads the traced, unfused nodes
    a, b = OPERANDS["float32"]
    _, graph, recorded = _both_modes(lambda x, y: -(x * y + 1) / (x - y) >= 0.5, a, b)
    assert recorded == ["Mul", "Add", "Neg", "Sub", "RealDiv", "GreaterEqual"]
    np.testing.assert_array_equal(graph.asnumpy(), -(a * b + 1) / (a - b) >= 0.5)


def test_operator_with_mismatched_operands_raises_shape_error(pynative_mode):
    ti = ms.Tensor(np.array([1, 2], np.int32))
    # MindSpore's implicit promotion: int32 with a float scalar or a float32 tensor computes in float32.
    assert (ti + 1.5).dtype == ms.float32 and (ti * ms.Tensor(np.ones(2, np.float32))).dtype == ms.float32
    with pytest.raises(ShapeError, match=r"Mul: shapes cannot be broadcast.*float32\[2\].*float32\[3\]"):
        ti * ms.Tensor(np.ones(3, np.float32))
    with pytest.raises(ShapeError, match=r"Sub: shapes cannot be broadcast.*float32\[2\].*float32\[3\]"):
        ms.Tensor(np.ones(2, np.float32)) - ms.Tensor(np.ones(3, np.float32))


# ---- context --------------------------------------------------------------------------------------------

def test_set_and_get_context(graph_mode):
    assert ms.get_context("mode") == ms.GRAPH_MODE
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    assert ms.get_context("device_target") == "CPU"
    ms.set_context(device_target="cpu")
    assert ms.get_context("device_target") == "CPU"
    ms.set_context(device_id=0)
    assert ms.get_context("device_id") == 0
    assert ms.GRAPH_MODE != ms.PYNATIVE_MODE


@pytest.mark.parametrize("target", ["Ascend", "NPU", "tpu"])
def test_unsupported_device_target_says_what_is_supported(target, graph_mode):
    with pytest.raises(ValueError) as info:
        ms.set_context(device_target=target)
    assert isinstance(info.value, UnsupportedTargetError)
    msg = str(info.value)
    assert repr(target) in msg and "not supported" in msg and "supported targets: CPU, GPU" in msg
    assert ms.get_context("device_target") == "CPU"


def test_set_device_selects_the_target_as_set_context_does(graph_mode):
    try:
        ms.set_device("gpu", 0)
        assert ms.get_context("device_target") == "GPU"
        with pytest.raises(UnsupportedTargetError):
            ms.set_device("Ascend")
        assert ms.get_context("device_target") == "GPU"
    finally:
        ms.set_device("CPU")


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"mod": 0}, r"unknown key 'mod'; MindSpore's keys are .*device_id, device_target.*mode.*seed"),
    ({"mode": 2}, "mode must be opbuild.GRAPH_MODE"),
    ({"mode": "GRAPH_MODE"}, "mode must be"),
    ({"mode": True}, "mode must be"),
    ({"mode": None}, "mode must be"),
    ({"device_target": 0}, "device_target must be a string"),
    ({"device_id": -1}, "device_id must be a non-negative int"),
    ({"seed": 1.5}, "seed must be a non-negative int"),
])
def test_set_context_rejects_bad_keys_and_values(kwargs, match, graph_mode):
    with pytest.raises(ValueError, match=match):
        ms.set_context(**kwargs)


def test_failed_set_context_changes_nothing(graph_mode):
    with pytest.raises(ValueError, match="unknown key"):
        ms.set_context(mode=ms.PYNATIVE_MODE, no_such_option=1)
    assert ms.get_context("mode") == ms.GRAPH_MODE
    with pytest.raises(ValueError):
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="Ascend")
    assert ms.get_context("mode") == ms.GRAPH_MODE


def test_get_context_unknown_key():
    with pytest.raises(ValueError, match="get_context: unknown key 'device'"):
        ms.get_context("device")


# ---- PyNative execution and its build report -----------------------------------------------------------

_PYNATIVE_REPORT = """
import json, numpy as np, opbuild as ms, opbuild.ops as ops
ms.set_context(mode=ms.PYNATIVE_MODE)
x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
reports, values = [], []
def step(fn):
    values.append(fn().asnumpy().tolist())
    r = ms.build_report()
    ops_ = sorted(k["op"] for k in r.as_dict()["kernels"])
    reports.append({"built": r.built, "reused": r.reused, "ops": ops_})
step(lambda: ops.Square()(x))                 # first use: built
step(lambda: ops.Square()(x))                 # second use: not rebuilt
step(lambda: ops.Exp()(x + x))                # two new kernels, built one by one as called
step(lambda: ops.Exp()(x + x))
step(lambda: ops.Square()(ms.Tensor(np.ones(4, np.float32))))  # new shape: a new kernel
print(json.dumps({"reports": reports, "values": values}))
"""


def test_pynative_builds_each_kernel_on_first_use_only(tmp_path):
    """Eager ops run one by one; a kernel is built on first use and never again (fresh cache, fresh process).
    A second process finds the same kernels in the cache and reuses them."""
    env = {"OPBUILD_CACHE_PATH": str(tmp_path)}
    first = json.loads(run_python(_PYNATIVE_REPORT, env=env).stdout)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = [x * x, x * x, np.exp(x + x), np.exp(x + x), np.ones(4)]
    for got, want in zip(first["values"], expected, strict=True):
        np.testing.assert_allclose(np.array(got, np.float32), want, rtol=1e-6)
    assert first["reports"] == [
        {"built": 1, "reused": 0, "ops": ["Square"]},
        {"built": 0, "reused": 0, "ops": []},
        {"built": 2, "reused": 0, "ops": ["Add", "Exp"]},
        {"built": 0, "reused": 0, "ops": []},
        {"built": 1, "reused": 0, "ops": ["Square"]},
    ]
    second = json.loads(run_python(_PYNATIVE_REPORT, env=env).stdout)
    assert second["values"] == first["values"]
    assert [r["built"] for r in second["reports"]] == [0, 0, 0, 0, 0]
    assert [r["reused"] for r in second["reports"]] == [1, 0, 2, 0, 1]
