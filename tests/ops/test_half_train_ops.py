"""Half-precision training kernels (issue #16): BatchNorm's training form and its gradient, the optimizers'
in-place updates (ApplyMomentum, SGD, Adam, AdamWeightDecay) on float16/bfloat16 Parameters, AssignAdd, and
ArgMax/ArgMin over every numeric dtype.

References: NumPy (or torch) in float32 on the half inputs, each result rounded once to its half type, as the
kernels compute (docs/dtypes.md). Tolerance: one half ulp of the rounded reference, plus 4 float32 eps times
the magnitude a kernel sums where it reduces (the BatchNorm statistics). ArgMax/ArgMin are exact.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import opbuild as ms
from opbuild import Parameter, Tensor, nn, ops
from opbuild.core.errors import ShapeError
from opbuild.ops.primitive import apply
from tests.helpers import TORCH_MISSING

torch = pytest.importorskip("torch", reason=TORCH_MISSING)

pytestmark = pytest.mark.slow

HALF = [np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
EPS32 = float(np.finfo(np.float32).eps)


def _f32(a) -> np.ndarray:
    return np.asarray(a).astype(np.float32)


def _close(got, ref32, dt, scale=None, what="") -> None:
    """``got`` (dtype ``dt``) is within one ulp of ``dt`` of the float32 reference rounded once, plus 4 float32
    eps times ``scale`` where the kernel reduces."""
    got = np.asarray(got)
    assert got.dtype == dt, f"{what}: dtype {got.dtype}, expected {dt}"
    want = np.asarray(ref32).astype(dt).astype(np.float32)
    tol = (ULP[dt.name] if dt.name in ULP else 4 * EPS32) * np.abs(want) + 2.0 ** -24
    if scale is not None:
        tol = tol + 4 * EPS32 * np.asarray(scale)
    err = np.abs(_f32(got) - want)
    assert np.all(err <= tol), f"{what}: max error {err.max()} where the tolerance is {tol[err > tol].min()}"


# ---- BatchNorm, training form ----------------------------------------------------------------------------

class _TrainBN(nn.Cell):
    """ops.BatchNorm(is_training=True) with its moving statistics as Parameters (updated in place)."""

    def __init__(self, fmt: str, mean: np.ndarray, var: np.ndarray):
        super().__init__()
        self.bn = ops.BatchNorm(is_training=True, momentum=0.1, data_format=fmt)
        self.mean = Parameter(mean, name="mean", requires_grad=False)
        self.var = Parameter(var, name="var", requires_grad=False)

    def construct(self, x, scale, bias):
        return self.bn(x, scale, bias, self.mean, self.var)


@pytest.mark.parametrize("dt", HALF, ids=str)
@pytest.mark.parametrize("fmt,shape", [("NCHW", (3, 4, 5, 6)), ("NHWC", (3, 5, 6, 4)), ("NCHW", (17, 4))])
@pytest.mark.parametrize("pdt", ["same", "float32"])
def test_batchnorm_training_forward(mode, dt, fmt, shape, pdt):
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(shape) * 3 + 2).astype(dt)
    p = dt if pdt == "same" else np.dtype(np.float32)
    c = shape[3] if fmt == "NHWC" else shape[1]
    scale, bias = (rng.random(c) + 0.5).astype(p), rng.standard_normal(c).astype(p)
    mean0, var0 = rng.standard_normal(c).astype(p), (rng.random(c) + 0.5).astype(p)
    if mode == "graph":
        cell = _TrainBN(fmt, mean0.copy(), var0.copy())
        y, bm, bv, sm, sr = (o.asnumpy() for o in cell(Tensor(x), Tensor(scale), Tensor(bias)))
        new_mean, new_var = cell.mean.asnumpy(), cell.var.asnumpy()
    else:
        mean, var = Parameter(mean0.copy(), name="m"), Parameter(var0.copy(), name="v")
        y, bm, bv, sm, sr = (o.asnumpy() for o in ops.BatchNorm(is_training=True, data_format=fmt)(
            Tensor(x), Tensor(scale), Tensor(bias), mean, var))
        new_mean, new_var = mean.asnumpy(), var.asnumpy()
    axes = tuple(d for d in range(len(shape)) if d != (3 if fmt == "NHWC" else 1))
    bshape = [1] * len(shape)
    bshape[3 if fmt == "NHWC" else 1] = c
    x32 = _f32(x)
    m, v = x32.mean(axes), x32.var(axes)
    n = x.size // c
    rstd = 1 / np.sqrt(v + np.float32(1e-5))
    ry = (x32 - m.reshape(bshape)) * (rstd * _f32(scale)).reshape(bshape) + _f32(bias).reshape(bshape)
    mag = np.abs(x32).mean(axes)  # what the mean sums; the statistics' float32 error is eps times it
    assert y.dtype == dt and bm.dtype == p
    _close(y, ry, dt, scale=np.abs(ry) + 1.0, what="y")
    _close(bm, m, p, scale=mag, what="batch_mean")
    _close(sm, m, p, scale=mag, what="save_mean")
    _close(bv, v, p, scale=v + mag * mag, what="batch_variance")
    _close(sr, rstd, p, scale=rstd, what="save_rstd")
    _close(new_mean, 0.9 * _f32(mean0) + 0.1 * m, p, scale=mag, what="moving mean")
    _close(new_var, 0.9 * _f32(var0) + 0.1 * v * n / (n - 1), p, scale=v + mag * mag, what="moving variance")


@pytest.mark.parametrize("dt", HALF, ids=str)
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("pdt", ["same", "float32"])
def test_batchnorm_grad_kernel_matches_torch(pynative_mode, dt, fmt, pdt):
    """BatchNormGrad on half inputs against torch's autograd of training-mode batch_norm in float32 on the same
    (half-valued) inputs, each result rounded once."""
    rng = np.random.default_rng(12)
    shape = (4, 3, 5, 6)
    x, dy = rng.standard_normal(shape).astype(dt), rng.standard_normal(shape).astype(dt)
    p = dt if pdt == "same" else np.dtype(np.float32)
    scale = (rng.random(3) + 0.5).astype(p)
    tx = torch.tensor(_f32(x), requires_grad=True)
    tg, tb = torch.tensor(_f32(scale), requires_grad=True), torch.zeros(3, requires_grad=True)
    y = torch.nn.functional.batch_norm(tx, None, None, tg, tb, training=True, eps=1e-5)
    y.backward(torch.tensor(_f32(dy)))
    mu = _f32(x).mean((0, 2, 3))
    rstd = (1 / np.sqrt(_f32(x).var((0, 2, 3)) + np.float32(1e-5))).astype(np.float32)
    to = (lambda a: a.transpose(0, 2, 3, 1)) if fmt == "NHWC" else (lambda a: a)
    dx, dg, db = (o.asnumpy() for o in apply("BatchNormGrad", {"data_format": fmt}, [
        Tensor(to(dy)), Tensor(to(x)), Tensor(scale), Tensor(mu.astype(p)), Tensor(rstd.astype(p))]))
    # The saved statistics are rounded to p when p is a half type: the reference uses the same rounded values.
    xh = (_f32(x) - _f32(mu.astype(p))[None, :, None, None]) * _f32(rstd.astype(p))[None, :, None, None]
    sum_mag = np.abs(_f32(dy) * xh).sum((0, 2, 3))
    if p == dt:  # rounded statistics: the reference must be recomputed from them, not taken from torch
        m = x.size // 3
        sdy, sdyx = _f32(dy).sum((0, 2, 3)), (_f32(dy) * xh).sum((0, 2, 3))
        k = (_f32(scale) * _f32(rstd.astype(p)) / m)[None, :, None, None]
        rdx = k * (m * _f32(dy) - sdy[None, :, None, None] - xh * sdyx[None, :, None, None])
        rdg, rdb = sdyx, sdy
    else:
        rdx, rdg, rdb = tx.grad.numpy(), tg.grad.numpy(), tb.grad.numpy()
    _close(dx, to(rdx), dt, scale=np.abs(to(rdx)) + 1.0, what="dx")
    _close(dg, rdg, p, scale=sum_mag, what="dscale")
    _close(db, rdb, p, scale=np.abs(_f32(dy)).sum((0, 2, 3)), what="dbias")


@pytest.mark.parametrize("dt", HALF, ids=str)
def test_batchnorm_training_gradient_through_autodiff(graph_mode, dt):
    """ms.grad of a half training-mode BatchNorm (float32 scale and bias, as mixed precision keeps them) goes
    through the half BatchNormGrad kernel; torch's autograd in float32 is the reference. bfloat16 values are
    differentiable like float16 ones (a cotangent through them was once dropped, leaving zero gradients)."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((4, 3, 2, 5)).astype(dt)
    w = rng.standard_normal((4, 3, 2, 5)).astype(dt)
    scale, bias = (rng.random(3) + 0.5).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    mean, var = Tensor(np.zeros(3, np.float32)), Tensor(np.ones(3, np.float32))
    bn = ops.BatchNorm(is_training=True)
    dx, dg, db = ms.grad(lambda a, s, b: ops.ReduceSum()(bn(a, s, b, mean, var)[0] * Tensor(w)), (0, 1, 2))(
        Tensor(x), Tensor(scale), Tensor(bias))
    tx = torch.tensor(_f32(x), requires_grad=True)
    tg, tb = torch.tensor(scale, requires_grad=True), torch.tensor(bias, requires_grad=True)
    (torch.nn.functional.batch_norm(tx, None, None, tg, tb, training=True, eps=1e-5) * torch.tensor(_f32(w))
     ).sum().backward()
    assert dx.dtype == {"float16": ms.float16, "bfloat16": ms.bfloat16}[dt.name]
    assert dg.dtype == ms.float32 and db.dtype == ms.float32
    _close(dx.asnumpy(), tx.grad.numpy(), dt, scale=np.abs(tx.grad.numpy()) + 1.0, what="dx")
    # The cotangent reaching BatchNormGrad is w itself (exact in float16), so the float32 sums differ from
    # torch's only in summation order.
    mag = float(np.abs(_f32(w)).sum())
    np.testing.assert_allclose(dg.asnumpy(), tg.grad.numpy(), rtol=1e-5, atol=8 * EPS32 * mag)
    np.testing.assert_allclose(db.asnumpy(), tb.grad.numpy(), rtol=1e-5, atol=8 * EPS32 * mag)


def test_batchnorm_training_rejects_mixed_parameter_dtypes():
    x = Tensor(np.zeros((2, 3), np.float16))
    f16, f32 = Tensor(np.ones(3, np.float16)), Tensor(np.ones(3, np.float32))
    with pytest.raises(ShapeError, match="per-channel inputs must all be float16 or all float32"):
        ops.BatchNorm(is_training=True)(x, f16, f32, f32, f32)
    with pytest.raises(ShapeError, match="BatchNormGrad: the per-channel inputs must all be"):
        apply("BatchNormGrad", {"data_format": "NCHW"}, [x, x, f16, f32, f32])


# ---- optimizers --------------------------------------------------------------------------------------------

def _momentum(st, g, s, nesterov):
    v, a = st
    a = a * s["mom"] + g
    return (v - s["lr"] * (g + a * s["mom"]) if nesterov else v - s["lr"] * a), a


def _sgd(st, g, s, nesterov):
    p, acc, stat = st
    g = g + np.float32(0.01) * p
    first = stat > 0
    acc = np.where(first, g, acc * s["mom"] + (1 - np.float32(0.0 if nesterov else 0.1)) * g)
    stat = np.where(first, np.float32(0), stat)
    g = g + s["mom"] * acc if nesterov else acc
    return p - s["lr"] * g, acc, stat


def _adam(st, g, s, nesterov):
    w, m, v = st
    lr_t = s["lr"] * np.sqrt(1 - s["b2p"]) / (1 - s["b1p"])
    m = m + (g - m) * (1 - s["b1"])
    v = v + (g * g - v) * (1 - s["b2"])
    num = m * s["b1"] + (1 - s["b1"]) * g if nesterov else m
    return w - lr_t * num / (s["eps"] + np.sqrt(v)), m, v


def _adamw(st, g, s, nesterov):
    w, m, v = st
    m = s["b1"] * m + (1 - s["b1"]) * g
    v = s["b2"] * v + (1 - s["b2"]) * g * g
    return w - s["lr"] * (m / (np.sqrt(v) + s["eps"]) + s["decay"] * w), m, v


SCALARS = {"lr": 0.05, "mom": 0.9, "b1": 0.9, "b2": 0.999, "b1p": 0.9 ** 3, "b2p": 0.999 ** 3, "eps": 1e-4,
           "decay": 0.01}


def _call(name, nesterov, params, grad, sc):
    """The optimizer primitive applied to ``params`` (Parameters), a gradient tensor and the scalar tensors."""
    if name == "ApplyMomentum":
        return ops.ApplyMomentum(use_nesterov=nesterov)(params[0], params[1], sc["lr"], grad, sc["mom"])
    if name == "SGD":
        op = ops.SGD(dampening=0.0 if nesterov else 0.1, weight_decay=0.01, nesterov=nesterov)
        return op(params[0], grad, sc["lr"], params[1], sc["mom"], params[2])
    if name == "Adam":
        return ops.Adam(use_nesterov=nesterov)(params[0], params[1], params[2], sc["b1p"], sc["b2p"], sc["lr"],
                                               sc["b1"], sc["b2"], sc["eps"], grad)
    return ops.AdamWeightDecay()(params[0], params[1], params[2], sc["lr"], sc["b1"], sc["b2"], sc["eps"],
                                 sc["decay"], grad)


class _Step(nn.Cell):
    def __init__(self, name, nesterov, params, sc):
        super().__init__()
        self.name, self.nesterov, self.sc = name, nesterov, sc
        for i, p in enumerate(params):
            setattr(self, f"p{i}", p)
        self.n = len(params)

    def construct(self, grad):
        return _call(self.name, self.nesterov, [getattr(self, f"p{i}") for i in range(self.n)], grad, self.sc) * 1


OPTIMIZERS = {"ApplyMomentum": (_momentum, 2), "SGD": (_sgd, 3), "Adam": (_adam, 3), "AdamWeightDecay": (_adamw, 3)}


@pytest.mark.parametrize("dt", HALF, ids=str)
@pytest.mark.parametrize("name,nesterov", [("ApplyMomentum", False), ("ApplyMomentum", True), ("SGD", False),
                                           ("SGD", True), ("Adam", False), ("Adam", True),
                                           ("AdamWeightDecay", False)])
@pytest.mark.parametrize("scalar_dtype", ["same", "float32"])
def test_optimizer_half_parameters(mode, dt, name, nesterov, scalar_dtype):
    """Several steps on half Parameters: after each step every state buffer is within one half ulp of the
    float32 update of the state before it (loaded from the kernel's half buffers) rounded once."""
    rng = np.random.default_rng(14)
    ref, n_state = OPTIMIZERS[name]
    shape = (7, 9)
    init = [rng.standard_normal(shape).astype(dt)]
    if name == "SGD":
        init += [np.zeros(shape, dt), np.ones(shape, dt)]
    elif name == "ApplyMomentum":
        init += [np.zeros(shape, dt)]
    else:
        init += [(rng.standard_normal(shape) * 0.1).astype(dt), (rng.random(shape) * 0.01).astype(dt)]
    params = [Parameter(a.copy(), name=f"s{i}") for i, a in enumerate(init)]
    sdt = dt if scalar_dtype == "same" else np.dtype(np.float32)
    sc = {k: Tensor(np.array(v, sdt)) for k, v in SCALARS.items()}
    s32 = {k: np.float32(np.array(v, sdt)) for k, v in SCALARS.items()}  # the scalar values the kernel reads
    step = _Step(name, nesterov, params, sc) if mode == "graph" else None
    for _ in range(4):
        before = [_f32(p.asnumpy()) for p in params]
        g = rng.standard_normal(shape).astype(dt)
        if step is not None:
            step(Tensor(g))
        else:
            _call(name, nesterov, params, Tensor(g), sc)
        want = ref(before, _f32(g), s32, nesterov)
        assert len(want) == n_state
        for i, (p, w) in enumerate(zip(params, want, strict=True)):
            _close(p.asnumpy(), w, dt, what=f"{name} state {i}")


def test_optimizer_rejects_float64_scalars_for_half_variable():
    w = Parameter(np.zeros(3, np.float16), name="w")
    a = Parameter(np.zeros(3, np.float16), name="a")
    with pytest.raises(ShapeError, match="one-element float16 or float32 tensor"):
        ops.ApplyMomentum()(w, a, Tensor(np.array(0.1)), Tensor(np.ones(3, np.float16)),
                            Tensor(np.array(0.9, np.float16)))


@pytest.mark.parametrize("dt", HALF + [np.dtype(np.int8), np.dtype(np.uint16)], ids=str)
def test_assign_add_half_and_narrow_ints(mode, dt):
    rng = np.random.default_rng(15)
    a = (rng.standard_normal(10) * 20).astype(dt)
    b = (rng.standard_normal(10) * 20).astype(dt)
    p = Parameter(a.copy(), name="p")
    if mode == "graph":
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.p = p

            def construct(self, v):
                return ops.AssignAdd()(self.p, v) * 1

        Net()(Tensor(b))
    else:
        ops.AssignAdd()(p, Tensor(b))
    if dt.name in ULP:
        _close(p.asnumpy(), _f32(a) + _f32(b), dt)
    else:
        np.testing.assert_array_equal(p.asnumpy(), a + b)  # wraps modulo 2^bits as NumPy does


# ---- ArgMax / ArgMin --------------------------------------------------------------------------------------

ALL_NUMERIC = HALF + [np.dtype(t) for t in (np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                                            np.uint8, np.uint16, np.uint32, np.uint64)]


def _values(dt, shape, rng):
    if dt.kind == "f" or dt.name == "bfloat16":
        x = (rng.integers(-40, 40, shape) / 4).astype(dt)  # few distinct values: ties exercise "first wins"
        x.flat[5] = np.nan  # the first NaN wins, as in NumPy
        x.flat[-3] = np.nan
        return x
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    x.flat[::7] = info.max  # ties at the extremes
    x.flat[1::7] = info.min
    return x


@pytest.mark.parametrize("dt", ALL_NUMERIC, ids=str)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argmax_argmin_every_numeric_dtype(mode, dt, axis):
    x = _values(dt, (6, 300, 5), np.random.default_rng(16))
    for op, fn in ((ops.Argmax, np.argmax), (ops.Argmin, np.argmin)):
        got = op(axis=axis, output_type=ms.int64)(Tensor(x)) if mode == "pynative" else _graph(op(axis=axis), x)
        got = got.asnumpy()
        want = fn(x, axis=axis)
        np.testing.assert_array_equal(got, want, err_msg=f"{op.__name__} {dt} axis {axis}")


def _graph(prim, x):
    class Net(nn.Cell):
        def construct(self, a):
            return prim(a)

    return Net()(Tensor(x))


def test_argmax_rejects_bool():
    with pytest.raises(ShapeError, match="dtype bool is not supported"):
        ops.Argmax()(Tensor(np.array([True, False])))


@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.float16)], ids=str)
def test_adam_on_a_parameter_large_enough_for_openmp(pynative_mode, dt):
    """2^17 elements: the element loop gets its OpenMP pragma, and lr_t must be computed before it (it once
    landed between the pragma and its loop, which does not compile)."""
    n = 1 << 17
    rng = np.random.default_rng(17)
    w0, g = rng.standard_normal(n).astype(dt), rng.standard_normal(n).astype(dt)
    w, m, v = (Parameter(a, name=k) for k, a in (("w", w0.copy()), ("m", np.zeros(n, dt)), ("v", np.zeros(n, dt))))
    sc = {k: Tensor(np.array(val, np.float32 if dt == np.float32 else dt)) for k, val in SCALARS.items()}
    _call("Adam", False, [w, m, v], Tensor(g), sc)
    s32 = {k: np.float32(np.array(val, dt)) for k, val in SCALARS.items()}
    want = _adam([_f32(w0), np.zeros(n, np.float32), np.zeros(n, np.float32)], _f32(g), s32, False)
    if dt == np.float32:
        np.testing.assert_allclose(w.asnumpy(), want[0], rtol=1e-5, atol=1e-6)
    else:
        _close(w.asnumpy(), want[0], dt, what="var")
