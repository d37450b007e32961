"""float16/bfloat16 pooling (MaxPool, AvgPool, GlobalAvgPool and their gradients) and integer MaxPool.

The reference of a half kernel is torch's float32 result (forward and autograd) on the same half inputs,
rounded once to the half type (docs/dtypes.md): max pooling and its gradient without overlapping windows
are exact; sums (averages, overlapping max windows) may differ from the rounded reference by one half ulp
where the float32 sum lies within a few float32 ulps of a rounding boundary. int8/uint8 MaxPool (ONNX's
types) is compared exactly.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops
from opbuild.core.errors import ShapeError
from opbuild.core.ir import TensorType
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get
from tests.helpers import TORCH_MISSING, run_op

torch = pytest.importorskip("torch", reason=TORCH_MISSING)
F = torch.nn.functional

pytestmark = pytest.mark.slow

HALF = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}  # one ulp, relative (docs/dtypes.md)
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]

# (x shape, kernel, stride, symmetric pad (h, w), ceil_mode, count_include_pad)
CASES = [
    ((2, 3, 9, 10), (2, 2), (2, 2), (0, 0), False, True),   # ResNet/LeNet-like, no overlap
    ((2, 3, 9, 10), (3, 3), (2, 2), (1, 1), False, True),   # ResNet's stem pool: overlapping, padded
    ((1, 4, 11, 7), (3, 2), (1, 2), (1, 1), True, False),   # ceil_mode, padding excluded from the mean
    ((2, 2, 8, 8), (3, 3), (3, 3), (1, 0), True, True),     # ceil_mode windows past the padding
]


def _half(rng, shape, dtype):
    return (rng.standard_normal(shape) * 4).astype(HALF[dtype])


def _torch_pool(kind, x32, case, dy32=None):
    """torch's float32 forward (and input gradient for ``dy32``) of the pooling ``case``."""
    _, kernel, stride, pad, ceil, include = case
    xt = torch.tensor(x32, requires_grad=dy32 is not None)
    if kind == "max":
        y = F.max_pool2d(xt, kernel, stride, pad, ceil_mode=ceil)
    else:
        y = F.avg_pool2d(xt, kernel, stride, pad, ceil_mode=ceil, count_include_pad=include)
    if dy32 is None:
        return y.detach().numpy(), None
    y.backward(torch.tensor(dy32))
    return y.detach().numpy(), xt.grad.numpy()


def _prim(kind, case):
    _, kernel, stride, (ph, pw), ceil, include = case
    common = {"kernel_size": kernel, "strides": stride, "pad_mode": "pad", "pad": (ph, ph, pw, pw), "ceil_mode": ceil}
    return ops.MaxPool(**common) if kind == "max" else ops.AvgPool(**common, count_include_pad=include)


def _assert_rounded_once(got, ref32, dtype, exact=False):
    """``got`` (half) equals ``ref32`` rounded once to ``dtype``, or (sums) is within one half ulp of it."""
    assert got.dtype == np.dtype(HALF[dtype]) and got.shape == ref32.shape
    rounded = ref32.astype(HALF[dtype]).astype(np.float32)
    g = got.astype(np.float32)
    if exact:
        np.testing.assert_array_equal(g, rounded)
        return
    np.testing.assert_allclose(g, rounded, rtol=ULP[dtype], atol=ULP[dtype] * 2.0 ** -14)
    assert np.mean(g == rounded) > 0.97  # almost every result is the rounded reference itself


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("dtype", list(HALF))
@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_half_pooling_forward_is_the_float32_result_rounded_once(case, dtype, kind, mode):
    rng = np.random.default_rng(1)
    x = _half(rng, case[0], dtype)
    ref, _ = _torch_pool(kind, x.astype(np.float32), case)
    out = run_op(_prim(kind, case), x, mode=mode)
    _assert_rounded_once(out, ref, dtype, exact=kind == "max")


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("dtype", list(HALF))
@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_half_pooling_gradients_match_torch(case, dtype, kind):
    rng = np.random.default_rng(2)
    x = _half(rng, case[0], dtype)
    y = run_op(_prim(kind, case), x)
    dy = _half(rng, y.shape, dtype)
    _, dx_ref = _torch_pool(kind, x.astype(np.float32), case, dy.astype(np.float32))
    attrs = _prim(kind, case).attrs
    op = "MaxPoolGrad" if kind == "max" else "AvgPoolGrad"
    spec = get(op).spec(attrs, [TensorType(x.shape, dtype), TensorType(y.shape, dtype), TensorType(dy.shape, dtype)])
    assert spec.attrs["half_pool"] == "f32"  # the strategy is in the key
    assert get(op).workspace_bytes(spec.attrs, spec.inputs, spec.outputs) == 4 * x.size  # the float32 image
    dx = apply(op, attrs, [Tensor(x), Tensor(y), Tensor(dy)]).asnumpy()
    overlap = any(k > s for k, s in zip(case[1], case[2], strict=True))
    _assert_rounded_once(dx, dx_ref, dtype, exact=kind == "max" and not overlap)


@pytest.mark.parametrize("dtype", list(HALF))
def test_half_pooling_gradients_through_a_graph(dtype):
    """ms.grad of a graph: the grad rules pass the forward's ``half_pool`` attrs on (ResNet's stem pool, an
    average pool and a global average pool)."""
    rng = np.random.default_rng(3)
    x = _half(rng, (2, 3, 10, 10), dtype)
    c = _half(rng, (2, 3, 2, 2), dtype)
    maxpool = ops.MaxPool(kernel_size=3, strides=2, pad_mode="pad", pad=1)
    avgpool = ops.AvgPool(kernel_size=2, strides=2)
    gap = ops.GlobalAvgPool()

    class Net(nn.Cell):
        def construct(self, a):
            return (avgpool(maxpool(a)) * Tensor(c)).sum() + gap(a).sum()

    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        dx = ms.grad(Net())(Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=old)
    xt = torch.tensor(x.astype(np.float32), requires_grad=True)
    ct = torch.tensor(c.astype(np.float32))
    (F.avg_pool2d(F.max_pool2d(xt, 3, 2, 1), 2, 2) * ct).sum().add(xt.mean(dim=(2, 3)).sum()).backward()
    assert dx.dtype == np.dtype(HALF[dtype])
    # Each step rounds (the graph's intermediate gradients are half tensors): a few half ulps of |dx|.
    np.testing.assert_allclose(dx.astype(np.float32), xt.grad.numpy(), rtol=4 * ULP[dtype],
                               atol=4 * ULP[dtype] * float(np.abs(xt.grad.numpy()).max()))


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
@pytest.mark.parametrize("dtype", list(HALF))
def test_half_global_avg_pool_rounds_the_mean_once(dtype, mode):
    rng = np.random.default_rng(4)
    x = _half(rng, (2, 5, 7, 9), dtype)
    ref = x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    for prim in (ops.GlobalAvgPool(), ops.AdaptiveAvgPool2D(1)):
        out = run_op(prim, x, mode=mode)
        assert out.dtype == np.dtype(HALF[dtype]) and out.shape == (2, 5, 1, 1)
        np.testing.assert_array_equal(out.astype(np.float32), ref.astype(HALF[dtype]).astype(np.float32))
    spec = get("GlobalAvgPool").spec({}, [TensorType(x.shape, dtype)])
    assert spec.attrs == {"half_pool": "f32"}
    assert get("GlobalAvgPool").spec({}, [TensorType(x.shape, "float32")]).attrs == {}


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_integer_max_pool_is_exact(dtype, mode):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(5)
    x = rng.integers(info.min, info.max, (2, 3, 9, 10), endpoint=True).astype(dtype)
    x[0, 0, :3, :3] = info.min  # a padded window of the type's minimum: padding never wins
    x[0, 1, :3, :3] = info.max
    for case in CASES:
        ref, _ = _torch_pool("max", x.astype(np.float32), (x.shape,) + case[1:])
        out = run_op(_prim("max", case), x, mode=mode)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(out, ref.astype(dtype))
    spec = get("MaxPool").spec(_prim("max", CASES[0]).attrs, [TensorType(x.shape, dtype)])
    assert "half_pool" not in spec.attrs


def test_half_nan_propagates_through_max_pool():
    x = np.arange(16, dtype=np.float16).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = np.nan
    out = run_op(ops.MaxPool(kernel_size=2, strides=2), x)
    assert np.isnan(out[0, 0, 0, 0]) and out[0, 0, 1, 1] == 15


def test_pooling_rejects_the_other_dtypes_clearly():
    with pytest.raises(ShapeError, match=r"MaxPool: dtype int32 is not supported \(supported: float16, "
                                         r"bfloat16, float32, float64, int8, uint8\)"):
        ops.MaxPool(2, 2)(Tensor(np.ones((1, 1, 4, 4), np.int32)))
    with pytest.raises(ShapeError, match=r"AvgPool: dtype int8 is not supported"):
        ops.AvgPool(2, 2)(Tensor(np.ones((1, 1, 4, 4), np.int8)))
    with pytest.raises(ShapeError, match=r"GlobalAvgPool: dtype uint8 is not supported"):
        ops.GlobalAvgPool()(Tensor(np.ones((1, 1, 4, 4), np.uint8)))
    x = Tensor(np.ones((1, 1, 4, 4), np.int8))
    attrs = ops.MaxPool(2, 2).attrs
    with pytest.raises(ShapeError, match=r"MaxPoolGrad: dtype int8 is not supported"):
        apply("MaxPoolGrad", attrs, [x, Tensor(np.ones((1, 1, 2, 2), np.int8)), Tensor(np.ones((1, 1, 2, 2), np.int8))])
    mixed = [Tensor(np.ones((1, 1, 4, 4), np.float16)), Tensor(np.ones((1, 1, 2, 2), np.float32)),
             Tensor(np.ones((1, 1, 2, 2), np.float16))]
    with pytest.raises(ShapeError, match="MaxPoolGrad: inputs must have the same dtype"):
        apply("MaxPoolGrad", attrs, mixed)
