"""Softmax, LogSoftmax, BatchNorm (inference) and LayerNorm against NumPy, in PYNATIVE mode (direct calls) and in
GRAPH mode (inside a Cell), over small pools of shapes (contiguous and strided normalised axes, rows long enough
for the SIMD-lane path), axes (negative too), dtypes and attributes.

Every result is checked against the op's registered NumPy reference and against an independent float64
formula written here (log-sum-exp by np.logaddexp.reduce; moments by math.fsum per row).

Tolerances, per dtype, of the kernel against the float64 formula:
  * Softmax: float32 rtol 2e-5, atol 1e-7 (outputs are probabilities <= 1); float64 rtol 1e-12, atol 1e-15.
  * LogSoftmax: float32 rtol 1e-5, atol 2e-5; float64 rtol 1e-12, atol 1e-12 (|y| grows with the spread of x).
  * BatchNorm, LayerNorm y: float32 rtol 1e-5, atol 1e-5; float64 rtol 1e-12, atol 1e-12 (inputs ~N(0, 1)).
  * LayerNorm mean and variance: float32 rtol 1e-5, atol 1e-6; float64 rtol 1e-12, atol 1e-13.
Inputs are offset by up to +-1000 (Softmax: a naive exp would overflow) and up to +-10 (LayerNorm: a one-pass
E[x^2] - E[x]^2 variance would lose digits), so numerical stability is part of what is tested.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opbuild as ms
from opbuild import nn, ops
from opbuild.core.errors import ShapeError
from opbuild.ops.registry import get
from opbuild.targets.cpu.kernels import emit

pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=20, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
FLOATS = ("float32", "float64")
SOFTMAX_TOL = {"float32": {"rtol": 2e-5, "atol": 1e-7}, "float64": {"rtol": 1e-12, "atol": 1e-15}}
LOG_SOFTMAX_TOL = {"float32": {"rtol": 1e-5, "atol": 2e-5}, "float64": {"rtol": 1e-12, "atol": 1e-12}}
Y_TOL = {"float32": {"rtol": 1e-5, "atol": 1e-5}, "float64": {"rtol": 1e-12, "atol": 1e-12}}
STAT_TOL = {"float32": {"rtol": 1e-5, "atol": 1e-6}, "float64": {"rtol": 1e-12, "atol": 1e-13}}

# (5,): one short row; (3, 70): rows of 70 take the SIMD-lane path; (2, 3, 4, 5): strided axes of every kind.
SOFTMAX_SHAPES = [(5,), (3, 70), (2, 3, 4, 5)]


class OpNet(nn.Cell):
    """``prim`` applied to the graph inputs followed by ``params`` (Parameters: captured by the trace)."""

    def __init__(self, prim, params=()):
        super().__init__()
        self.prim = prim
        for i, p in enumerate(params):
            setattr(self, f"p{i}", ms.Parameter(p, name=f"p{i}"))
        self.n = len(params)

    def construct(self, x):
        return self.prim(x, *[getattr(self, f"p{i}") for i in range(self.n)])


def run(prim, x: np.ndarray, *params: np.ndarray):
    """Apply ``prim`` in the current mode; returns a NumPy array or a tuple of them."""
    if ms.get_context("mode") == ms.GRAPH_MODE:
        out = OpNet(prim, params)(ms.Tensor(x))
    else:
        out = prim(ms.Tensor(x), *[ms.Tensor(p) for p in params])
    return tuple(o.asnumpy() for o in out) if isinstance(out, tuple) else out.asnumpy()


def along_rows(x: np.ndarray, axis: int, fn) -> np.ndarray:
    """Apply ``fn`` (1-d float64 -> 1-d) to every 1-d slice of ``x`` along ``axis``, in float64."""
    return np.apply_along_axis(fn, axis, x.astype(np.float64))


def _softmax_row(v: np.ndarray) -> np.ndarray:
    return np.exp(v - np.logaddexp.reduce(v))


def _log_softmax_row(v: np.ndarray) -> np.ndarray:
    return v - np.logaddexp.reduce(v)


# ---- Softmax / LogSoftmax -------------------------------------------------------------------------------------

@st.composite
def softmax_case(draw):
    shape = draw(st.sampled_from(SOFTMAX_SHAPES))
    return (draw(st.sampled_from(["Softmax", "LogSoftmax"])), shape, draw(st.sampled_from(FLOATS)),
            draw(st.integers(-len(shape), len(shape) - 1)), draw(st.sampled_from([0.0, 1000.0, -1000.0])),
            draw(st.sampled_from([1.0, 10.0])), draw(st.integers(0, 2 ** 32 - 1)))


@SETTINGS
@given(case=softmax_case())
def test_softmax_log_softmax_match_numpy(mode, case):
    op, shape, dtype, axis, offset, scale, seed = case
    x = (np.random.default_rng(seed).normal(0, scale, shape) + offset).astype(dtype)
    got = run(getattr(ops, op)(axis), x)
    assert got.shape == shape and got.dtype == dtype and np.isfinite(got).all()
    indep = along_rows(x, axis, _softmax_row if op == "Softmax" else _log_softmax_row)
    tol = (SOFTMAX_TOL if op == "Softmax" else LOG_SOFTMAX_TOL)[dtype]
    np.testing.assert_allclose(got, indep, **tol)
    np.testing.assert_allclose(got, get(op).reference({"axis": axis % len(shape)}, x), **tol)
    if op == "Softmax":
        np.testing.assert_allclose(got.sum(axis=axis, dtype=np.float64), 1.0, rtol=0, atol=10 * tol["rtol"])


def test_softmax_extremes(pynative_mode):
    x = np.array([[0.0, -np.inf, 1e30, 1e30], [np.nan, 0, 1, 2], [-1e30, 0, 0, 0]], np.float32)
    got = ops.Softmax()(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got[0], [0, 0, 0.5, 0.5])
    assert np.isnan(got[1]).all()  # NaN in a row: the row is NaN, as in NumPy
    np.testing.assert_allclose(got[2], [0, 1 / 3, 1 / 3, 1 / 3], rtol=1e-6)
    assert ops.LogSoftmax()(ms.Tensor(x)).asnumpy()[0, 1] == -np.inf


# ---- BatchNorm ---------------------------------------------------------------------------------------------

@st.composite
def batchnorm_case(draw):
    layout = draw(st.sampled_from([((4, 3), "NCHW"), ((4, 3), "NHWC"), ((2, 3, 4, 5), "NCHW"),
                                   ((2, 4, 5, 3), "NHWC"), ((2, 70, 1, 1), "NCHW")]))
    return (*layout, draw(st.sampled_from(FLOATS)), draw(st.sampled_from([1e-5, 1e-3])),
            draw(st.integers(0, 2 ** 32 - 1)))


@SETTINGS
@given(case=batchnorm_case())
def test_batchnorm_matches_numpy(mode, case):
    shape, fmt, dtype, eps, seed = case
    rng = np.random.default_rng(seed)
    caxis = 3 if (len(shape) == 4 and fmt == "NHWC") else 1
    c = shape[caxis]
    x = rng.normal(0, 1, shape).astype(dtype)
    scale, bias, mean = (rng.normal(0, 1, c).astype(dtype) for _ in range(3))
    var = rng.uniform(0.1, 2, c).astype(dtype)
    y = run(lambda *a: ops.BatchNorm(epsilon=eps, data_format=fmt)(*a)[0], x, scale, bias, mean, var)
    assert isinstance(y, np.ndarray) and y.shape == shape and y.dtype == dtype
    bshape = [1] * len(shape)
    bshape[caxis] = c
    s, b, m, v = (p.astype(np.float64).reshape(bshape) for p in (scale, bias, mean, var))
    indep = (x.astype(np.float64) - m) * (s / np.sqrt(v + eps)) + b
    np.testing.assert_allclose(y, indep, **Y_TOL[dtype])
    canon = get("BatchNorm").spec({"epsilon": eps, "data_format": fmt}, [ms.Tensor(a)._type for a in
                                                                          (x, scale, bias, mean, var)]).attrs
    np.testing.assert_allclose(y, get("BatchNorm").reference(canon, x, scale, bias, mean, var), **Y_TOL[dtype])


@pytest.mark.parametrize("hw", [(2, 2), (2, 4), (3, 4), (4, 4), (3, 6), (1, 17)])
def test_batchnorm_short_planes_match_numpy_and_stay_rolled(hw):
    """Planes of 8-16 pixels are kept as one vector loop (``#pragma GCC unroll 1``): fully unrolled, gcc
    vectorises across channels instead, at twice the compile time and a slower kernel. Shorter and longer
    planes keep gcc's own choice. Every case must still match NumPy."""
    shape = (2, 40, *hw)
    rng = np.random.default_rng(sum(hw))
    x = rng.normal(0, 1, shape).astype(np.float32)
    scale, bias, mean = (rng.normal(0, 1, 40).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.1, 2, 40).astype(np.float32)
    y = run(lambda *a: ops.BatchNorm(epsilon=1e-5)(*a)[0], x, scale, bias, mean, var)
    s, b, m, v = (p.astype(np.float64).reshape(1, 40, 1, 1) for p in (scale, bias, mean, var))
    np.testing.assert_allclose(y, (x.astype(np.float64) - m) * (s / np.sqrt(v + 1e-5)) + b, **Y_TOL["float32"])
    op = get("BatchNorm")
    spec = op.spec({"epsilon": 1e-5}, [ms.Tensor(a)._type for a in (x, scale, bias, mean, var)])
    assert ("#pragma GCC unroll 1" in emit(spec)) == (8 <= hw[0] * hw[1] <= 16)


# ---- LayerNorm -------------------------------------------------------------------------------------------------

@st.composite
def layernorm_case(draw):
    shape = draw(st.sampled_from([(4, 70), (2, 3, 4, 5)]))
    rank = len(shape)
    bna = draw(st.integers(-rank, rank - 1))
    bpa = draw(st.integers(-rank, rank - 1))
    return (shape, bna, bpa, draw(st.sampled_from(FLOATS)), draw(st.sampled_from([1e-7, 1e-5])),
            draw(st.sampled_from([0.0, 10.0, -10.0])), draw(st.integers(0, 2 ** 32 - 1)))


def moments(x: np.ndarray, bna: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and biased variance over axes [bna, rank) by exact summation (math.fsum), float64."""
    flat = x.astype(np.float64).reshape(int(np.prod(x.shape[:bna], dtype=np.int64)), -1)
    mean = np.array([math.fsum(r) / r.size for r in flat])
    var = np.array([math.fsum((r - m) ** 2) / r.size for r, m in zip(flat, mean)])
    keep = x.shape[:bna] + (1,) * (x.ndim - bna)
    return mean.reshape(keep), var.reshape(keep)


@SETTINGS
@given(case=layernorm_case())
def test_layernorm_matches_numpy(mode, case):
    shape, bna, bpa, dtype, eps, offset, seed = case
    rng = np.random.default_rng(seed)
    x = (rng.normal(0, 1, shape) + offset).astype(dtype)
    gamma = rng.normal(1, 0.5, shape[bpa:]).astype(dtype)
    beta = rng.normal(0, 0.5, shape[bpa:]).astype(dtype)
    y, mean, var = run(ops.LayerNorm(begin_norm_axis=bna, begin_params_axis=bpa, epsilon=eps), x, gamma, beta)
    b = bna % len(shape)
    want_mean, want_var = moments(x, b)
    assert y.shape == shape and mean.shape == want_mean.shape == var.shape
    assert y.dtype == mean.dtype == var.dtype == dtype
    np.testing.assert_allclose(mean, want_mean, **STAT_TOL[dtype])
    np.testing.assert_allclose(var, want_var, **STAT_TOL[dtype])
    indep = (x.astype(np.float64) - want_mean) / np.sqrt(want_var + eps) * gamma + beta
    np.testing.assert_allclose(y, indep, **Y_TOL[dtype])
    attrs = {"begin_norm_axis": b, "begin_params_axis": bpa % len(shape), "epsilon": eps}
    for g, r in zip((y, mean, var), get("LayerNorm").reference(attrs, x, gamma, beta)):
        np.testing.assert_allclose(g, r, **Y_TOL[dtype])


def test_layernorm_returns_a_tuple_like_mindspore(pynative_mode):
    x = np.array([[1, 2, 3], [1, 2, 3]], np.float32)
    out = ops.LayerNorm()(ms.Tensor(x), ms.Tensor(np.ones(3, np.float32)), ms.Tensor(np.ones(3, np.float32)))
    assert isinstance(out, tuple) and len(out) == 3
    y, mean, var = (o.asnumpy() for o in out)
    np.testing.assert_allclose(y, [[-0.2247448, 1.0, 2.2247448]] * 2, rtol=1e-6)  # MindSpore's docs example
    np.testing.assert_array_equal(mean, [[2.0], [2.0]])
    np.testing.assert_allclose(var, [[2 / 3], [2 / 3]], rtol=1e-6)


def test_norm_kernels_agree_with_reference_interpreter(graph_mode):
    from opbuild.core import trace
    from opbuild.runtime.reference import run_reference

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.g = ms.Parameter(np.linspace(0.5, 1.5, 4).astype(np.float32), name="g")
            self.b = ms.Parameter(np.zeros(4, np.float32), name="b")

        def construct(self, x):
            y, m, v = ops.LayerNorm(-1, -1)(x, self.g, self.b)
            return ops.Softmax(1)(y), ops.LogSoftmax()(x), m, v

    x = np.random.default_rng(1).normal(size=(2, 3, 4)).astype(np.float32)
    graph, _ = trace.trace(Net().construct, (ms.Tensor(x),))
    for g, w in zip(Net()(ms.Tensor(x)), run_reference(graph, [x])):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


# ---- errors: raised at call/trace time, naming the op and the input shapes -----------------------------------

F32 = np.float32


@pytest.mark.parametrize("call, message", [
    (lambda: ops.Softmax()(ms.Tensor(np.zeros((2, 3), np.int32))),
     r"Softmax: dtype int32 is not supported \(supported: float16, bfloat16, float32, float64\) "
     r"\(input\[0\]: int32\[2, 3\]\)"),
    (lambda: ops.LogSoftmax(axis=2)(ms.Tensor(np.zeros((2, 3), F32))),
     r"LogSoftmax: axis 2 is out of range for rank 2 \(input\[0\]: float32\[2, 3\]\)"),
    (lambda: ops.Softmax(axis=(0, 1))(ms.Tensor(np.zeros((2, 3), F32))),
     r"Softmax: axis must be one int \(or a 1-tuple\), got \(0, 1\)"),
    (lambda: ops.LayerNorm()(*(ms.Tensor(np.zeros(s, F32)) for s in [(2, 3, 4), (4,), (3, 4)])),
     r"LayerNorm: gamma must have shape x.shape\[begin_params_axis=1:\] = \[3, 4\], got \[4\] "
     r"\(input\[0\]: float32\[2, 3, 4\], input\[1\]: float32\[4\], input\[2\]: float32\[3, 4\]\)"),
    (lambda: ops.LayerNorm(begin_norm_axis=3)(*(ms.Tensor(np.zeros(s, F32)) for s in [(2, 3, 4), (3, 4), (3, 4)])),
     r"LayerNorm: axis 3 is out of range for rank 3 \(input\[0\]: float32\[2, 3, 4\]"),
    (lambda: ops.LayerNorm()(ms.Tensor(np.zeros((2, 3), F32)), ms.Tensor(np.zeros(3)), ms.Tensor(np.zeros(3, F32))),
     r"LayerNorm: inputs must have the same dtype .*float32\[2, 3\], input\[1\]: float64\[3\]"),
    (lambda: ops.BatchNorm(is_training=True, momentum=2.0)(*(ms.Tensor(np.zeros(s, F32))
                                                             for s in [(2, 3), 3, 3, 3, 3])),
     r"BatchNormTraining: momentum must be in \[0, 1\].*input\[0\]: float32\[2, 3\]"),
    (lambda: ops.BatchNorm()(*(ms.Tensor(np.zeros(s, F32)) for s in [(2, 3, 4), 3, 3, 3, 3])),
     r"BatchNorm: x must have rank 2 \(N, C\) or 4 \(NCHW\), got rank 3 \(input\[0\]: float32\[2, 3, 4\]"),
    (lambda: ops.BatchNorm()(*(ms.Tensor(np.zeros(s, F32)) for s in [(2, 3, 4, 4), 3, 3, 4, 3])),
     r"BatchNorm: mean must have shape \(3,\) \(the channels of x\), got \[4\] .*input\[3\]: float32\[4\]"),
    (lambda: ops.BatchNorm(data_format="NDHWC")(*(ms.Tensor(np.zeros(s, F32)) for s in [(2, 3), 3, 3, 3, 3])),
     r"BatchNorm: data_format must be 'NCHW' or 'NHWC', got 'NDHWC'"),
    (lambda: ops.LayerNorm(epsilon=-1.0)(*(ms.Tensor(np.zeros(s, F32)) for s in [(2, 3), 3, 3])),
     r"LayerNorm: epsilon must be >= 0, got -1.0"),
])
def test_bad_inputs_raise_shape_error(pynative_mode, call, message):
    with pytest.raises(ShapeError, match=message):
        call()


def test_errors_are_raised_while_tracing(graph_mode):
    with pytest.raises(ShapeError, match=r"BatchNorm: scale must have shape \(4,\) .*float32\[2, 4\]"):
        OpNet(ops.BatchNorm(), [np.ones(s, F32) for s in (3, 4, 4, 4)])(ms.Tensor(np.zeros((2, 4), F32)))
