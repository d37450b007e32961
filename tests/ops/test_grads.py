"""Every gradient rule against central finite differences in float64.

Each case is a function of float64 Tensors; the scalar differentiated is ``sum(f(*xs) * w)`` with a fixed
random ``w`` (a non-uniform cotangent, so a rule that ignored or mis-shaped its cotangent fails). The
forward used for the differences is the same function compiled as a Cell, so the check covers the kernels
of both directions. Inputs are drawn away from the kinks of non-smooth ops (ReLU at 0, ties of Max).
"""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.ops.primitive import apply
from opbuild.ops.registry import NO_GRADIENT, REGISTRY
from opbuild.passes import GradientError

pytestmark = pytest.mark.slow

EPS = 1e-6


class _Fn(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *xs):
        return self.fn(*xs)


def _loss(fn, w):
    def loss(*xs):
        out = fn(*xs)
        return ops.ReduceSum()(out * ms.Tensor(w))
    return loss


def numeric_grad(loss_cell, arrays, i):
    x = arrays[i]
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[i][idx] += EPS
        minus[i][idx] -= EPS
        fp = float(loss_cell(*[ms.Tensor(a) for a in plus]).asnumpy())
        fm = float(loss_cell(*[ms.Tensor(a) for a in minus]).asnumpy())
        g[idx] = (fp - fm) / (2 * EPS)
    return g


def check(fn, *arrays, wrt=None, rtol=1e-5, atol=1e-6, seed=0):
    """Assert ms.grad of ``sum(fn(*xs) * w)`` matches finite differences for inputs ``wrt`` (default all)."""
    arrays = [np.asarray(a, np.float64) for a in arrays]
    out = _Fn(fn)(*[ms.Tensor(a) for a in arrays]).asnumpy()
    w = np.random.default_rng(seed + 99).normal(size=out.shape)
    loss = _loss(fn, w)
    wrt = tuple(range(len(arrays))) if wrt is None else tuple(wrt)
    grads = ms.grad(loss, wrt)(*[ms.Tensor(a) for a in arrays])
    cell = _Fn(loss)
    for i, g in zip(wrt, grads, strict=True):
        assert g.shape == arrays[i].shape
        np.testing.assert_allclose(g.asnumpy(), numeric_grad(cell, arrays, i), rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {i}")


def rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def away_from_zero(*shape, seed=0):
    x = rand(*shape, seed=seed)
    return np.where(np.abs(x) < 0.2, x + np.sign(x + 1e-9) * 0.3, x)


POS = rand(2, 3, seed=1, low=0.5, high=2.0)

UNARY_CASES = {
    "Square": rand(2, 3), "Sqrt": POS, "Rsqrt": POS, "Exp": rand(2, 3), "Log": POS,
    "Abs": away_from_zero(2, 3), "Neg": rand(2, 3), "Reciprocal": POS, "Sin": rand(2, 3), "Cos": rand(2, 3),
    "Tanh": rand(2, 3), "Sigmoid": rand(2, 3), "ReLU": away_from_zero(2, 3),
    "ReLU6": np.array([[-1.0, 0.5, 3.0], [5.5, 7.0, 2.0]]), "GeLU": rand(2, 3), "Erf": rand(2, 3),
    "Softplus": rand(2, 3),
    "Tan": rand(2, 3, low=-1.2, high=1.2), "Asin": rand(2, 3, low=-0.9, high=0.9),
    "ACos": rand(2, 3, low=-0.9, high=0.9), "Atan": rand(2, 3), "Sinh": rand(2, 3), "Cosh": away_from_zero(2, 3),
    "Asinh": rand(2, 3), "Acosh": rand(2, 3, low=1.2, high=3.0), "Atanh": rand(2, 3, low=-0.9, high=0.9),
    "Expm1": rand(2, 3), "Log1p": POS,
}


@pytest.mark.parametrize("op", sorted(UNARY_CASES))
def test_unary(graph_mode, op):
    prim = REGISTRY[op].primitive()  # the op's own gradient rule (ops.GeLU is MindSpore's tanh composition)
    check(lambda x: prim(x), UNARY_CASES[op])


BROADCAST = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((4, 2, 3), (2, 1)), ((), (2, 3))]
BINARY = ["Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "FloorMod", "Atan2"]


@pytest.mark.parametrize("shapes", BROADCAST, ids=str)
@pytest.mark.parametrize("op", BINARY)
def test_binary_broadcasting(graph_mode, op, shapes):
    a = rand(*shapes[0], seed=1, low=0.5, high=2.0)
    b = rand(*shapes[1], seed=2, low=0.5, high=2.0)
    if op in ("Maximum", "Minimum"):
        b = b + 0.013  # no ties
    if op == "FloorMod":
        a, b = a * 3, b + 0.1  # keep a / b away from integers: FD across a jump would fail
        a = np.where(np.abs(np.mod(a, b)) < 1e-3, a + 0.05, a)
    prim = getattr(ops, op)()
    check(lambda x, y: prim(x, y), a, b)


def test_select_and_clip(graph_mode):
    cond = ms.Tensor(np.array([[True, False, True], [False, True, False]]))
    check(lambda x, y: ops.Select()(cond, x, y), rand(2, 3, seed=3), rand(2, 3, seed=4))
    check(lambda x: ops.clip_by_value(x, -0.5, 0.7), away_from_zero(2, 3, seed=5) * 0.9)


def test_cast(graph_mode):
    # float64 -> float32 -> float64: the cotangent is cast back at each step (finite differences of a float32
    # round trip are noise, so the exact answer is checked: d/dx sum(w * x * cast(x)) = w * (cast(x) + x)).
    x = rand(2, 3)
    w = np.random.default_rng(1).normal(size=(2, 3))
    g = ms.grad(lambda t: ops.ReduceSum()(ops.Cast()(ops.Cast()(t, ms.float32), ms.float64) * t * ms.Tensor(w)))(
        ms.Tensor(x))
    assert g.dtype == ms.float64
    np.testing.assert_allclose(g.asnumpy(), w * (x.astype(np.float32) + x), rtol=1e-6)
    # casting to an integer is a step: no gradient flows through it
    g = ms.grad(lambda t: ops.ReduceSum()(ops.Cast()(ops.Cast()(t, ms.int32), ms.float64) + t))(ms.Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), 1)


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"])
@pytest.mark.parametrize("axis,keep", [((), False), ((1,), True), ((0, 2), False), (-1, False)])
def test_reductions(graph_mode, op, axis, keep):
    x = rand(2, 3, 4, seed=6, low=0.5, high=2.0)
    prim = getattr(ops, op)(keep_dims=keep)
    check(lambda t: prim(t, axis), x)


LAYOUT = {
    "Reshape": (lambda x: ops.Reshape()(x, (3, 4)), (2, 6)),
    "Transpose": (lambda x: ops.Transpose()(x, (2, 0, 1)), (2, 3, 4)),
    "ExpandDims": (lambda x: ops.ExpandDims()(x, 1), (2, 3)),
    "Squeeze": (lambda x: ops.Squeeze(1)(x), (2, 1, 3)),
    "Flatten": (lambda x: ops.Flatten()(x), (2, 3, 2)),
    "Slice": (lambda x: ops.Slice()(x, (1, 0, 1), (1, 2, 2)), (2, 3, 4)),
    "StridedSlice": (lambda x: ops.StridedSlice()(x, (0, 3, 0), (2, 0, 4), (1, -2, 3)), (2, 4, 4)),
    "StridedSliceShrink": (lambda x: ops.StridedSlice(shrink_axis_mask=1)(x, (1, 0), (2, 3), (1, 2)), (2, 3)),
    "Split": (lambda x: ops.Split(1, 2)(x)[1] * 2.0, (2, 4)),
    "SplitBoth": (lambda x: ops.Split(0, 2)(x)[0] * ops.Split(0, 2)(x)[1], (2, 3)),
    "Tile": (lambda x: ops.Tile()(x, (2, 1, 3)), (2, 2)),
    "BroadcastTo": (lambda x: ops.BroadcastTo((3, 2, 4))(x), (2, 1)),
    "Pad": (lambda x: ops.Pad(((1, 0), (0, 2)))(x), (2, 3)),
}


@pytest.mark.parametrize("case", sorted(LAYOUT))
def test_layout(graph_mode, case):
    fn, shape = LAYOUT[case]
    check(fn, rand(*shape, seed=7))


def test_concat(graph_mode):
    check(lambda a, b: ops.Concat(1)((a, b, a)), rand(2, 3, seed=1), rand(2, 2, seed=2))


@pytest.mark.parametrize("axis", [0, 1])
def test_gather_scatter_add(graph_mode, axis):
    # A repeated index adds; -1 is the last row (ops.Gather()). In the composition form (bounds="ignore"), 5 and
    # -1 are out of range: they read zeros and get nothing.
    check(lambda p: ops.Gather()(p, ms.Tensor(np.array([[2, 0], [2, -1]], np.int32)), axis), rand(3, 3, seed=8))
    idx = ms.Tensor(np.array([[2, 0], [2, 5], [-1, 1]], np.int32))
    check(lambda p: apply("Gather", {"axis": axis}, [p, idx]), rand(3, 3, seed=8))


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_matmul(graph_mode, ta, tb):
    a = rand(*((4, 3) if ta else (3, 4)), seed=1)
    b = rand(*((5, 4) if tb else (4, 5)), seed=2)
    check(lambda x, y: ops.MatMul(ta, tb)(x, y), a, b)


@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2))])
def test_batch_matmul(graph_mode, shapes):
    check(lambda x, y: ops.BatchMatMul()(x, y), rand(*shapes[0], seed=1), rand(*shapes[1], seed=2))


def test_batch_matmul_transposed(graph_mode):
    check(lambda x, y: ops.BatchMatMul(True, True)(x, y), rand(2, 4, 3, seed=1), rand(2, 5, 4, seed=2))


@pytest.mark.parametrize("fmt,shape", [("NCHW", (2, 3, 2, 2)), ("NHWC", (2, 2, 3)), ("NCHW", (2, 3))])
def test_bias_add(graph_mode, fmt, shape):
    check(lambda x, b: ops.BiasAdd(fmt)(x, b), rand(*shape, seed=1), rand(3, seed=2))


@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_logsoftmax(graph_mode, axis):
    check(lambda x: ops.Softmax(axis)(x), rand(3, 4, seed=1))
    check(lambda x: ops.LogSoftmax(axis)(x), rand(3, 4, seed=2))


@pytest.mark.parametrize("bna,bpa", [(1, 1), (-1, -1), (2, 1)])
def test_layer_norm(graph_mode, bna, bpa):
    x = rand(2, 3, 4, seed=1)
    gshape = x.shape[bpa:]
    check(lambda t, g, b: ops.LayerNorm(bna, bpa, 1e-5)(t, g, b)[0], x, rand(*gshape, seed=2),
          rand(*gshape, seed=3), rtol=1e-4, atol=1e-6)


CONV = [dict(pad_mode="valid"), dict(pad_mode="same", stride=2), dict(pad_mode="pad", pad=(1, 0, 2, 1), dilation=2),
        dict(pad_mode="valid", group=2)]


@pytest.mark.parametrize("kw", CONV, ids=lambda k: "-".join(f"{a}{b}" for a, b in k.items()))
def test_conv2d(graph_mode, kw):
    group = kw.get("group", 1)
    x = rand(2, 4, 6, 5, seed=1)
    w = rand(4, 4 // group, 3, 3, seed=2)
    conv = ops.Conv2D(4, 3, **kw)
    check(lambda a, b: conv(a, b), x, w)


POOL = [dict(kernel_size=2, strides=2), dict(kernel_size=3, strides=2, pad_mode="same"),
        dict(kernel_size=3, strides=1, pad_mode="pad", pad=1), dict(kernel_size=3, strides=2, ceil_mode=True)]


@pytest.mark.parametrize("kw", POOL, ids=lambda k: "-".join(f"{a}{b}" for a, b in k.items()))
@pytest.mark.parametrize("op", ["MaxPool", "AvgPool"])
def test_pooling(graph_mode, op, kw):
    x = np.random.default_rng(3).permutation(2 * 2 * 5 * 5).reshape(2, 2, 5, 5) / 7.0  # distinct: no ties
    check(lambda t: getattr(ops, op)(**kw)(t), x)


@pytest.mark.parametrize("fmt,shape", [("NCHW", (2, 3, 2, 2)), ("NHWC", (2, 2, 2, 3)), ("NCHW", (4, 3))])
def test_batch_norm_inference(graph_mode, fmt, shape):
    mean, var = rand(3, seed=4), rand(3, seed=5, low=0.5, high=2.0)
    bn = ops.BatchNorm(epsilon=1e-3, data_format=fmt)
    check(lambda x, g, b: bn(x, g, b, ms.Tensor(mean), ms.Tensor(var))[0], rand(*shape, seed=1), rand(3, seed=2),
          rand(3, seed=3))


def test_global_avg_pool(graph_mode):
    check(lambda t: ops.AdaptiveAvgPool2D(1)(t), rand(2, 3, 2, 3))


def test_non_differentiable_ops_are_declared():
    """Comparisons, ArgMax, Floor... are marked as having no gradient; the float ops that are differentiable
    all have a rule (a new op without one fails here until its rule, or NO_GRADIENT, is written)."""
    for name in ("Equal", "Less", "ArgMax", "ArgMin", "Floor", "Ceil", "Round", "IsNan", "OnesLike", "Fill"):
        assert REGISTRY[name].grad is NO_GRADIENT, name
    # Backward ops without a second-order rule yet (ops/backward_grads.py has the others): autodiff refuses them.
    backward = {"MaxPoolGrad", "GridSampleGrad", "BatchNormGrad", "Conv2DBackpropInput",
                # in-place scatters into Parameters: refused, as MindSpore 2.10 has no bprop for them
                *(f"ScatterNd{k}Inplace" for k in ("Add", "Sub", "Mul", "Div", "Max", "Min"))}
    missing = sorted(n for n, d in REGISTRY.items() if d.grad is None and n not in backward)
    assert missing == [], missing


def test_non_differentiable_path_gives_zero(graph_mode):
    # floor(x) * y: d/dx is zero (Floor has NO_GRADIENT), d/dy = floor(x)
    x, y = rand(2, 3, seed=1), rand(2, 3, seed=2)
    gx, gy = ms.grad(lambda a, b: ops.ReduceSum()(ops.Floor()(a) * b), (0, 1))(ms.Tensor(x), ms.Tensor(y))
    np.testing.assert_array_equal(gx.asnumpy(), 0)
    np.testing.assert_allclose(gy.asnumpy(), np.floor(x))


def test_op_without_rule_is_an_error(graph_mode, monkeypatch):
    monkeypatch.setattr(REGISTRY["GatherD"], "grad", None)  # every real op has a rule now: take one away
    x = ms.Tensor(rand(2, 3))
    idx = ms.Tensor(np.zeros((2, 3), np.int32))
    with pytest.raises(GradientError, match="GatherD"):
        ms.grad(lambda a: ops.ReduceSum()(ops.GatherD()(a, 1, idx)))(x)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gatherd_scatter_adds(graph_mode, dim):
    """Repeated, negative and out-of-range indices: each picked element gets the cotangent of every output
    that read it; an out-of-range index reads nothing and contributes nothing."""
    x = rand(3, 4)
    idx = np.array([[0, -1, 2, 1], [2, 2, 0, -3], [1, 0, 5, 2]], np.int64)
    idx = idx if dim != 0 else np.clip(idx, -3, 2)
    check(lambda t: apply("GatherD", {"dim": dim}, [t, ms.Tensor(idx)]), x)  # the composition form: 5 reads 0
    check(lambda t: ops.GatherD()(t, dim, ms.Tensor(np.clip(idx, -3, 2))), x)


def test_mod_gradient(graph_mode):
    """fmod: d/da = 1, d/db = -trunc(a / b), away from the kinks where a / b is an integer."""
    a = np.array([[5.3, -5.3, 2.2], [7.9, -0.4, 3.3]])
    b = np.array([[2.0, 2.0, -0.7], [-3.0, 0.3, 1.3]])
    check(lambda s, t: ops.Mod()(s, t), a, b)
