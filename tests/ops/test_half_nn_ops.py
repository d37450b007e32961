"""float16/bfloat16 Softmax, LogSoftmax, LayerNorm, BatchNorm (inference), MatMul, BatchMatMul, BiasAdd and
BiasAddGrad against NumPy's float32 result rounded once to the half type (docs/dtypes.md states the tolerances:
one half ulp relative, plus the float32 summation error where a kernel reduces)."""

import ml_dtypes
import numpy as np
import pytest

import opbuild as ms
import opbuild.ops as ops
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get as get_op

pytestmark = pytest.mark.slow

HALF = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def _f32(a):
    return np.asarray(a).astype(np.float32)


def _close(got, ref32, dt, scale=None):
    """``got`` (the kernel's half result) is within one half ulp of the float32 reference rounded once, plus
    4 float32 eps times ``scale`` (the magnitude the kernel summed) where it reduces."""
    assert got.dtype == dt
    want = ref32.astype(dt).astype(np.float32)
    tol = ULP[dt.name] * np.abs(want) + 2.0 ** -24
    if scale is not None:
        tol = tol + 4 * np.finfo(np.float32).eps * scale
    err = np.abs(_f32(got) - want)
    assert np.all(err <= tol), f"max error {err.max()} (tolerance {tol[err > tol].min()})"


@pytest.fixture(params=[ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
def mode(request):
    ms.set_context(mode=request.param)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def _run(cell_fn, *arrays):
    class Net(ms.nn.Cell):
        def construct(self, *xs):
            return cell_fn(*xs)

    out = Net()(*(ms.Tensor(a) for a in arrays))
    return out.asnumpy() if not isinstance(out, tuple) else tuple(o.asnumpy() for o in out)


@pytest.mark.parametrize("dt", HALF, ids=str)
@pytest.mark.parametrize("shape,axis", [((6, 37), -1), ((3, 300, 5), 1)])
def test_softmax_log_softmax(mode, dt, shape, axis):
    x = (np.random.default_rng(1).standard_normal(shape) * 4).astype(dt)
    x32 = _f32(x)
    z = x32 - x32.max(axis, keepdims=True)
    s = np.exp(z).sum(axis, keepdims=True)
    if dt == np.float16:  # MindSpore's float16 Softmax rounds x - max, the exponentials and their sum to float16
        e = np.exp(z.astype(dt).astype(np.float32)).astype(dt).astype(np.float32)
        _close(_run(ops.Softmax(axis), x), e / e.sum(axis, keepdims=True).astype(dt).astype(np.float32), dt,
               scale=1.0)
    else:
        _close(_run(ops.Softmax(axis), x), np.exp(z) / s, dt, scale=1.0)
    _close(_run(ops.LogSoftmax(axis), x), z - np.log(s), dt, scale=np.abs(z) + 1.0)


@pytest.mark.parametrize("dt", HALF, ids=str)
def test_layer_norm(mode, dt):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((4, 3, 50)) * 2 + 1).astype(dt)
    g, b = rng.standard_normal((50,)).astype(dt), rng.standard_normal((50,)).astype(dt)
    y, mean, var = _run(ops.LayerNorm(begin_norm_axis=2, begin_params_axis=2), x, g, b)
    x32 = _f32(x)
    m = x32.mean(2, keepdims=True)
    v = ((x32 - m) ** 2).mean(2, keepdims=True)
    ry = (x32 - m) / np.sqrt(v + np.float32(1e-7)) * _f32(g) + _f32(b)
    _close(mean, m, dt, scale=np.abs(x32).mean(2, keepdims=True))
    _close(var, v, dt, scale=v)
    # y amplifies the statistics' float32 error by rstd * |gamma|: a few float32 eps of |y|, far below a half ulp
    _close(y, ry, dt, scale=np.abs(ry) + 1.0)


@pytest.mark.parametrize("dt", HALF, ids=str)
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("param_dtype", ["same", "float32"])
def test_batch_norm_inference(mode, dt, fmt, param_dtype):
    rng = np.random.default_rng(3)
    shape = (2, 3, 4, 5) if fmt == "NCHW" else (2, 4, 5, 3)
    x = rng.standard_normal(shape).astype(dt)
    pdt = dt if param_dtype == "same" else np.float32
    scale, bias, mean = (rng.standard_normal(3).astype(pdt) for _ in range(3))
    var = (rng.random(3) + 0.5).astype(pdt)
    y = _run(lambda *a: ops.BatchNorm(data_format=fmt)(*a)[0], x, scale, bias, mean, var)
    c = (1, 3, 1, 1) if fmt == "NCHW" else (1, 1, 1, 3)
    r = (_f32(x) - _f32(mean).reshape(c)) / np.sqrt(_f32(var).reshape(c) + np.float32(1e-5)) \
        * _f32(scale).reshape(c) + _f32(bias).reshape(c)
    _close(y, r, dt, scale=np.abs(r) + 1.0)


def test_batch_norm_rejects_float64_params():
    x = ms.Tensor(np.zeros((2, 3), np.float16))
    p = ms.Tensor(np.ones(3, np.float64))
    with pytest.raises(ms.ShapeError, match="float16 or float32"):
        ops.BatchNorm()(x, p, p, p, p)


@pytest.mark.parametrize("dt", HALF, ids=str)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul(mode, dt, ta, tb):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((33, 20) if ta else (20, 33)).astype(dt)
    b = rng.standard_normal((17, 33) if tb else (33, 17)).astype(dt)
    y = _run(ops.MatMul(ta, tb), a, b)
    a32, b32 = _f32(a), _f32(b)
    r = (a32.T if ta else a32) @ (b32.T if tb else b32)
    _close(y, r, dt, scale=np.abs(a32.T if ta else a32) @ np.abs(b32.T if tb else b32))


@pytest.mark.parametrize("dt", HALF, ids=str)
@pytest.mark.parametrize("b_shape", [(3, 7, 4), (7, 4), (1, 7, 4)])
def test_batch_matmul(mode, dt, b_shape):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 5, 7)).astype(dt)
    b = rng.standard_normal(b_shape).astype(dt)
    y = _run(ops.BatchMatMul(), a, b)
    _close(y, _f32(a) @ _f32(b), dt, scale=np.abs(_f32(a)) @ np.abs(_f32(b)))


@pytest.mark.parametrize("dt", HALF, ids=str)
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_bias_add_and_grad(mode, dt, fmt):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 3, 5)).astype(dt)
    c = 3 if fmt == "NCHW" else 5
    bias = rng.standard_normal(c).astype(dt)
    y = _run(ops.BiasAdd(fmt), x, bias)
    bshape = (1, c, 1) if fmt == "NCHW" else (1, 1, c)
    _close(y, _f32(x) + _f32(bias).reshape(bshape), dt)
    g = get_op("BiasAddGrad")
    spec = g.spec({"data_format": fmt}, [ms.Tensor(x)._type])
    assert spec.outputs[0].dtype == dt.name
    axes = (0, 2) if fmt == "NCHW" else (0, 1)
    db = apply("BiasAddGrad", {"data_format": fmt}, [ms.Tensor(x)]).asnumpy()
    _close(db, _f32(x).sum(axes), dt, scale=np.abs(_f32(x)).sum(axes))


def test_half_gemm_strategy_in_descriptor():
    """The float16 GEMM's strategy (float32 BLAS on converted inputs) is an attribute of the descriptor; a
    float32 MatMul has none, so the two are distinct kernels."""
    op = get_op("MatMul")
    t16 = ms.Tensor(np.zeros((2, 2), np.float16))._type
    t32 = ms.Tensor(np.zeros((2, 2), np.float32))._type
    assert op.spec({}, [t16, t16]).attrs["half_gemm"] == "f32_blas"
    assert "half_gemm" not in op.spec({}, [t32, t32]).attrs
