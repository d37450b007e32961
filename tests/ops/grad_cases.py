"""The gradient-check table: one entry per primitive that has a gradient rule (tests/ops/test_grad_coverage.py).

``CASES[op]`` is a :class:`GradCase` (or a tuple of them): an opbuild function of float64 Tensors that applies
``op`` (the runner asserts that the op's own rule is reached), its inputs, and either the same function written
with torch (checked against ``torch.autograd`` in float64, preferred) or ``torch=None`` (checked against central
finite differences in float64). The differentiated scalar is ``sum_k sum(out_k * w_k)`` over every output with
fixed random cotangents ``w_k``, so a rule that ignores or mis-shapes a cotangent fails.

``ELSEWHERE[op]`` names the test that checks the op's gradient instead (``path::test_function``; the coverage
test asserts that the function exists and the file names the op). ``REFUSED[op]`` holds the ops whose rule
refuses with NotImplementedError (checked to refuse). ``EXEMPT[op]`` gives the reason an op's gradient is not
checked numerically at all.

Adding a case is one line: ``"NewOp": case(lambda x: P("NewOp")(x), U(2, 3), torch=lambda x: torch.new_op(x)),``
(``P(name)`` is the registered primitive class; integer arguments live in the lambdas' closures).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import opbuild as ms
import opbuild.ops as ops
from opbuild.ops.registry import REGISTRY

try:  # torch is the reference of most cases, never a dependency of opbuild
    import torch
    import torch.nn.functional as F  # noqa: N812
except ImportError:  # pragma: no cover - the runner skips torch cases then
    torch = None
    F = None


@dataclass(frozen=True)
class GradCase:
    """One gradient check: ``fn(*Tensors)`` against ``torch(*torch tensors)`` (or finite differences when
    ``torch`` is None) for the inputs ``wrt`` (default: all)."""

    fn: Callable
    inputs: tuple[np.ndarray, ...]
    torch: Callable | None = None
    wrt: tuple[int, ...] | None = None
    rtol: float = 1e-6
    atol: float = 1e-8
    label: str = ""


def case(fn: Callable, *inputs: np.ndarray, torch: Callable | None = None, wrt=None, rtol: float = 1e-6,
         atol: float = 1e-8, label: str = "") -> GradCase:  # noqa: A002 - the keyword reads as the reference
    """A :class:`GradCase` from positional float64 inputs."""
    return GradCase(fn, tuple(np.asarray(a, np.float64) for a in inputs), torch, wrt, rtol, atol, label)


def P(name: str):  # noqa: N802 - reads as a class
    """The primitive class registered for op ``name`` (its own rule, not a composition sharing the name)."""
    return REGISTRY[name].primitive


def U(*shape, seed=0, low=-2.0, high=2.0) -> np.ndarray:  # noqa: N802
    """Uniform float64 inputs in [low, high)."""
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def POS(*shape, seed=1) -> np.ndarray:  # noqa: N802
    return U(*shape, seed=seed, low=0.5, high=2.0)


def DISTINCT(*shape, seed=3) -> np.ndarray:  # noqa: N802
    """Distinct values (no ties for max/min/sort rules)."""
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(n).reshape(shape) / 7.0 - n / 14.0


def SPD(n=3, seed=4, batch=()) -> np.ndarray:  # noqa: N802
    """A well-conditioned symmetric positive definite matrix (batch of)."""
    a = np.random.default_rng(seed).uniform(-1, 1, size=(*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def WELL(n=3, seed=5, batch=()) -> np.ndarray:  # noqa: N802
    """A well-conditioned general square matrix."""
    return np.random.default_rng(seed).uniform(-1, 1, size=(*batch, n, n)) + 2.5 * np.eye(n)


def _t(a: np.ndarray):
    return torch.from_numpy(np.asarray(a))


def _i32(a) -> ms.Tensor:
    return ms.Tensor(np.asarray(a, np.int32))


def _i64(a) -> ms.Tensor:
    return ms.Tensor(np.asarray(a, np.int64))


def _away(*shape, seed=0) -> np.ndarray:
    x = U(*shape, seed=seed)
    return np.where(np.abs(x) < 0.2, x + np.sign(x + 1e-9) * 0.3, x)


def _sym(fn):
    """Cholesky-family cases differentiate through a symmetric input (their rules assume one)."""
    return lambda a: fn((a + a.T) / 2 if not hasattr(a, "mT") else (a + a.mT) / 2)


# ---- indices and other integer arguments (closures) --------------------------------------------------------

_GIDX = np.array([[2, 0], [2, 1]])
_SEG = np.array([0, 2, 0, 1])
_SCATTER_IDX = np.array([[0], [2]])
_SCATTER_IDX_REP = np.array([[1], [1]])
_ELEM_IDX = np.array([[1, 0, 2], [0, 2, 1]])
_ND_IDX = np.array([[2, 1], [0, 3], [2, 1]])  # a repeated row: its slice's cotangents add
_DROP_STATE = np.array([1234, 7], np.int64)
_MASK = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
_GRID = np.random.default_rng(9).uniform(-0.9, 0.9, size=(1, 3, 2, 2))


def _ts_ref(kind):
    """torch reference of TensorScatter<kind> with row indices _SCATTER_IDX on axis 0."""
    def ref(x, u):
        out = x.clone()
        rows = [int(i) for i in _SCATTER_IDX[:, 0]]
        for j, r in enumerate(rows):
            cur = out[r]
            new = {"Add": cur + u[j], "Sub": cur - u[j], "Mul": cur * u[j], "Div": cur / u[j],
                   "Max": torch.maximum(cur, u[j]), "Min": torch.minimum(cur, u[j]), "Update": u[j]}[kind]
            out = torch.cat([out[:r], new[None], out[r + 1:]])
        return out
    return ref


def _ts(kind):
    prim = P(f"TensorScatter{kind}")()
    return lambda x, u: prim(x, _i32(_SCATTER_IDX), u)


def _pool_backward(x, dy):
    """AvgPoolGrad as AvgPool's rule applies it (normalized attributes): the x-gradient of sum(AvgPool(x) * dy)."""
    pool = P("AvgPool")(kernel_size=2, strides=1)
    return ms.grad(lambda t, d: ops.ReduceSum()(pool(t) * d))(x, dy)


def _conv_backward(x, w, dy, which):
    """Conv2D's input (0) or filter (1) gradient of sum(conv(x, w) * dy), as its rule builds it."""
    conv = P("Conv2D")(3, 3, pad_mode="pad", pad=1, stride=2)
    return ms.grad(lambda a, b, d: ops.ReduceSum()(conv(a, b) * d), which)(x, w, dy)


def _conv_backward_t(x, w, dy, which):
    return torch.autograd.grad(F.conv2d(x, w, stride=2, padding=1), (x, w)[which], dy, create_graph=True)[0]


def _bessel(name, tfn, x):
    return case(lambda t: P(name)()(t), x, torch=tfn)


def _digamma1(x):
    return torch.polygamma(1, x)


# ---- the table --------------------------------------------------------------------------------------------

CASES: dict[str, GradCase | tuple[GradCase, ...]] = {
    # elementwise rows the older test files do not check against torch
    "ACos": case(lambda x: P("ACos")()(x), U(2, 3, low=-0.9, high=0.9), torch=lambda x: torch.acos(x)),
    "Acosh": case(lambda x: P("Acosh")()(x), U(2, 3, low=1.2, high=3.0), torch=lambda x: torch.acosh(x)),
    "Asin": case(lambda x: P("Asin")()(x), U(2, 3, low=-0.9, high=0.9), torch=lambda x: torch.asin(x)),
    "Asinh": case(lambda x: P("Asinh")()(x), U(2, 3), torch=lambda x: torch.asinh(x)),
    "Atan": case(lambda x: P("Atan")()(x), U(2, 3), torch=lambda x: torch.atan(x)),
    "Atanh": case(lambda x: P("Atanh")()(x), U(2, 3, low=-0.9, high=0.9), torch=lambda x: torch.atanh(x)),
    "Atan2": case(lambda a, b: P("Atan2")()(a, b), U(2, 3, seed=1), _away(3, seed=2),
                  torch=lambda a, b: torch.atan2(a, b)),
    "Cosh": case(lambda x: P("Cosh")()(x), U(2, 3), torch=lambda x: torch.cosh(x)),
    "Sinh": case(lambda x: P("Sinh")()(x), U(2, 3), torch=lambda x: torch.sinh(x)),
    "Tan": case(lambda x: P("Tan")()(x), U(2, 3, low=-1.2, high=1.2), torch=lambda x: torch.tan(x)),
    "Expm1": case(lambda x: P("Expm1")()(x), U(2, 3), torch=lambda x: torch.expm1(x)),
    "Log1p": case(lambda x: P("Log1p")()(x), POS(2, 3), torch=lambda x: torch.log1p(x)),
    "ReLU6": case(lambda x: P("ReLU6")()(x), np.array([[-1.0, 0.5, 3.0], [5.5, 7.0, 2.0]]),
                  torch=lambda x: F.relu6(x)),
    "GeLU": case(lambda x: P("GeLU")()(x), U(2, 3), torch=lambda x: F.gelu(x),
                label="the primitive is the exact (erf) GeLU; ops.GeLU is MindSpore's tanh composition"),
    "FloorMod": case(lambda a, b: P("FloorMod")()(a, b), np.array([[5.3, -5.3, 2.2], [7.9, -0.4, 3.3]]),
                     np.array([[2.0, 2.0, -0.7], [-3.0, 0.3, 1.3]]), torch=lambda a, b: torch.remainder(a, b)),
    "Mod": case(lambda a, b: P("Mod")()(a, b), np.array([[5.3, -5.3, 2.2], [7.9, -0.4, 3.3]]),
                np.array([[2.0, 2.0, -0.7], [-3.0, 0.3, 1.3]]), torch=lambda a, b: torch.fmod(a, b)),
    "Select": case(lambda a, b: P("Select")()(ms.Tensor(np.array([[True, False, True], [False, True, False]])),
                                              a, b), U(2, 3, seed=3), U(2, 3, seed=4),
                   torch=lambda a, b: torch.where(torch.tensor([[True, False, True], [False, True, False]]), a, b)),
    "ClipByValue": case(lambda x, lo, hi: P("ClipByValue")()(x, lo, hi), _away(2, 3, seed=5),
                        np.full((2, 3), -0.5), np.array([0.7, 0.1, 1.5]),
                        torch=lambda x, lo, hi: torch.minimum(torch.maximum(x, lo), hi)),
    "Cast": case(lambda x: P("Cast")()(x, ms.float32) * 1.0, U(2, 3), torch=lambda x: x.float() * 1.0,
                 rtol=1e-6, atol=1e-6, label="float64->float32: the cotangent is cast back"),
    # special functions
    "Digamma": case(lambda x: P("Digamma")()(x), POS(2, 3), torch=lambda x: torch.digamma(x)),
    "Lgamma": case(lambda x: P("Lgamma")()(x), POS(2, 3), torch=lambda x: torch.lgamma(x)),
    "Erfinv": case(lambda x: P("Erfinv")()(x), U(2, 3, low=-0.9, high=0.9), torch=lambda x: torch.erfinv(x),
                   rtol=1e-5),
    "Polygamma": case(lambda x: P("Polygamma")()(_i64(1), x), POS(2, 3), torch=_digamma1, rtol=1e-5),
    "Sinc": case(lambda x: P("Sinc")()(x), np.array([[0.0, 0.3, -1.7], [2.5, -0.2, 1e-4]]),
                 torch=lambda x: torch.sinc(x), rtol=1e-5, atol=1e-7),
    "Zeta": case(lambda x, q: P("Zeta")()(x, q), U(2, 3, seed=1, low=2.0, high=4.0), POS(2, 3, seed=2), wrt=(1,),
                 rtol=1e-5, atol=1e-7, label="d/dq = -x zeta(x+1, q); torch has no zeta gradient, and none wrt x "
                 "(MindSpore's neither)"),
    "BesselI0": _bessel("BesselI0", lambda x: torch.special.i0(x), U(2, 3)),
    "BesselI0e": _bessel("BesselI0e", lambda x: torch.special.i0e(x), U(2, 3)),
    "BesselI1": _bessel("BesselI1", lambda x: torch.special.i1(x), U(2, 3)),
    "BesselI1e": _bessel("BesselI1e", lambda x: torch.special.i1e(x), U(2, 3)),
    # torch's j0/j1/y0/y1/k0/k1 have no autograd: finite differences
    "BesselJ0": _bessel("BesselJ0", None, U(2, 3)),
    "BesselJ1": _bessel("BesselJ1", None, U(2, 3)),
    "BesselY0": _bessel("BesselY0", None, POS(2, 3)),
    "BesselY1": _bessel("BesselY1", None, POS(2, 3)),
    "BesselK0": _bessel("BesselK0", None, POS(2, 3)),
    "BesselK0e": _bessel("BesselK0e", None, POS(2, 3)),
    "BesselK1": _bessel("BesselK1", None, POS(2, 3)),
    "BesselK1e": _bessel("BesselK1e", None, POS(2, 3)),
    # backward maps (their rules give second derivatives, ops/backward_grads.py)
    "ReluGrad": case(lambda dy, y: P("ReluGrad")()(dy, y), U(2, 3, seed=1), _away(2, 3, seed=2),
                     torch=lambda dy, y: dy * (y > 0)),
    "ReLU6Grad": case(lambda dy, x: P("ReLU6Grad")()(dy, x), U(2, 3, seed=1), np.array([[-1.0, 0.5, 3.0],
                                                                                         [6.5, 7.0, 5.5]]),
                      torch=lambda dy, x: dy * ((x > 0) & (x < 6))),
    "DropoutGrad": case(lambda dy: P("DropoutGrad")(keep_prob=0.6)(dy, ms.Tensor(_MASK)), U(2, 3),
                        torch=lambda dy: dy * _t(_MASK) / 0.6),
    "SigmoidGrad": case(lambda y, dy: P("SigmoidGrad")()(y, dy), U(2, 3, seed=1, low=0.1, high=0.9), U(2, 3, seed=2),
                        torch=lambda y, dy: dy * y * (1 - y)),
    "TanhGrad": case(lambda y, dy: P("TanhGrad")()(y, dy), U(2, 3, seed=1, low=-0.9, high=0.9), U(2, 3, seed=2),
                     torch=lambda y, dy: dy * (1 - y * y)),
    "GeLUGrad": case(lambda dy, x: P("GeLUGrad")()(dy, x), U(2, 3, seed=1), U(2, 3, seed=2),
                     torch=lambda dy, x: dy * (0.5 * (1 + torch.erf(x / np.sqrt(2))) + x * torch.exp(-x * x / 2)
                                               / np.sqrt(2 * np.pi))),
    "SparseSoftmaxCrossEntropyWithLogitsGrad": case(
        lambda x: P("SparseSoftmaxCrossEntropyWithLogits")(is_grad=True)(x, _i32([1, 0, 3])), U(3, 4),
        torch=lambda x: (torch.softmax(x, -1) - F.one_hot(_t(np.array([1, 0, 3])), 4)) / 3),
    "AvgPoolGrad": case(lambda x, dy: _pool_backward(x, dy), U(1, 2, 3, 4, seed=1), U(1, 2, 2, 3, seed=2),
                        torch=lambda x, dy: torch.autograd.grad(F.avg_pool2d(x, 2, 1), x, dy, create_graph=True)[0],
                        label="AvgPool's own rule applies it; nothing depends on x's values"),
    "Conv2DBackpropFilter": case(lambda x, w, dy: _conv_backward(x, w, dy, 1), U(1, 2, 5, 4, seed=1),
                                 U(3, 2, 3, 3, seed=2), U(1, 3, 3, 2, seed=3), rtol=1e-5, atol=1e-7,
                                 torch=lambda x, w, dy: _conv_backward_t(x, w, dy, 1),
                                 label="Conv2D's rule applies it (stride 2, padding 1)"),
    "StridedSliceGrad": case(lambda x, dy: ms.grad(lambda t, d: ops.ReduceSum()(P("StridedSlice")(
        shrink_axis_mask=1)(t, (1, 0), (2, 4), (1, 2)) * d))(x, dy), U(2, 4, seed=1), U(2, seed=2),
        torch=lambda x, dy: torch.autograd.grad(x[1, 0:4:2], x, dy, create_graph=True)[0],
        label="StridedSlice's rule applies it (a shrunk axis)"),
    "BiasAddGrad": case(lambda dy: P("BiasAddGrad")()(dy), U(2, 3, 2, 2), torch=lambda dy: dy.sum((0, 2, 3))),
    "AllGather": case(lambda x: P("AllGather")()(x), U(2, 3), torch=lambda x: x * 1,
                      label="one process: the identity (the ReduceScatter of one rank)"),
    # layout, slicing, filling
    "Reshape": case(lambda x: P("Reshape")()(x, (3, 4)), U(2, 6), torch=lambda x: x.reshape(3, 4)),
    "ExpandDims": case(lambda x: P("ExpandDims")()(x, 1), U(2, 3), torch=lambda x: x.unsqueeze(1)),
    "Squeeze": case(lambda x: P("Squeeze")(1)(x), U(2, 1, 3), torch=lambda x: x.squeeze(1)),
    "Flatten": case(lambda x: P("Flatten")()(x), U(2, 3, 2), torch=lambda x: x.flatten(1)),
    "Transpose": case(lambda x: P("Transpose")()(x, (2, 0, 1)), U(2, 3, 4), torch=lambda x: x.permute(2, 0, 1)),
    "Slice": case(lambda x: P("Slice")()(x, (1, 0, 1), (1, 2, 2)), U(2, 3, 4), torch=lambda x: x[1:2, 0:2, 1:3]),
    "StridedSlice": (
        case(lambda x: P("StridedSlice")()(x, (0, 3, 0), (2, 0, 4), (1, -2, 3)), U(2, 4, 4),
             torch=lambda x: x[0:2, [3, 1], 0:4:3]),
        case(lambda x: P("StridedSlice")(shrink_axis_mask=1)(x, (1, 0), (2, 3), (1, 2)), U(2, 3),
             torch=lambda x: x[1, 0:3:2], label="shrink_axis_mask"),
    ),
    "Split": case(lambda x: P("Split")(1, 2)(x), U(2, 4), torch=lambda x: torch.split(x, 2, 1)),
    "Concat": case(lambda a, b: P("Concat")(1)((a, b, a)), U(2, 3, seed=1), U(2, 2, seed=2),
                   torch=lambda a, b: torch.cat((a, b, a), 1)),
    "Tile": case(lambda x: P("Tile")()(x, (2, 1, 3)), U(2, 2), torch=lambda x: x.repeat(2, 1, 3)),
    "BroadcastTo": case(lambda x: P("BroadcastTo")((3, 2, 4))(x), U(2, 1), torch=lambda x: x.expand(3, 2, 4)),
    "Pad": case(lambda x: P("Pad")(((1, 0), (0, 2)))(x), U(2, 3), torch=lambda x: F.pad(x, (0, 2, 1, 0))),
    # indexing and scatters
    "Gather": case(lambda p: P("Gather")()(p, _i32(_GIDX), 1), U(3, 4, seed=8), torch=lambda p: p[:, _GIDX]),
    "GatherD": case(lambda x: P("GatherD")()(x, 1, _i64(_ELEM_IDX)), U(2, 3),
                    torch=lambda x: torch.gather(x, 1, _t(_ELEM_IDX))),
    "GatherNd": case(lambda x: P("GatherNd")()(x, _i32(_ND_IDX)), U(3, 4, 2),
                     torch=lambda x: x[_t(_ND_IDX[:, 0]), _t(_ND_IDX[:, 1])]),
    "UnsortedSegmentSum": case(lambda x: P("UnsortedSegmentSum")()(x, _i32(_SEG), 3), U(4, 2),
                               torch=lambda x: torch.zeros(3, 2, dtype=x.dtype).index_add(0, _t(_SEG), x)),
    "TensorScatterAdd": case(_ts("Add"), U(3, 2), U(2, 2, seed=2), torch=_ts_ref("Add")),
    "TensorScatterSub": case(_ts("Sub"), U(3, 2), U(2, 2, seed=2), torch=_ts_ref("Sub")),
    "TensorScatterMul": case(_ts("Mul"), U(3, 2), U(2, 2, seed=2), torch=_ts_ref("Mul")),
    "TensorScatterDiv": case(_ts("Div"), U(3, 2), POS(2, 2, seed=2), torch=_ts_ref("Div")),
    "TensorScatterMax": case(_ts("Max"), DISTINCT(3, 2), DISTINCT(2, 2, seed=4) + 0.01, torch=_ts_ref("Max")),
    "TensorScatterMin": case(_ts("Min"), DISTINCT(3, 2), DISTINCT(2, 2, seed=4) + 0.01, torch=_ts_ref("Min")),
    "TensorScatterUpdate": case(_ts("Update"), U(3, 2), U(2, 2, seed=2), torch=_ts_ref("Update")),
    "TensorScatterElements": case(
        lambda x, u: P("TensorScatterElements")(axis=1)(x, _i64(_ELEM_IDX), u), U(2, 3), U(2, 3, seed=2),
        torch=lambda x, u: torch.scatter(x, 1, _t(_ELEM_IDX), u)),
    # scans, sorting
    "CumSum": (case(lambda x: P("CumSum")()(x, 1), U(2, 4), torch=lambda x: torch.cumsum(x, 1)),
               case(lambda x: P("CumSum")(True, True)(x, 0), U(3, 2), label="exclusive reverse",
                    torch=lambda x: torch.flip(torch.cumsum(torch.flip(x, (0,)), 0), (0,)) - x)),
    "CumProd": (case(lambda x: P("CumProd")()(x, 1), POS(2, 4), torch=lambda x: torch.cumprod(x, 1)),
                case(lambda x: P("CumProd")(True, False)(x, 1), POS(2, 4), label="exclusive",
                     torch=lambda x: torch.cumprod(torch.cat([torch.ones(2, 1, dtype=x.dtype), x[:, :-1]], 1), 1))),
    "Cummax": case(lambda x: P("Cummax")(1)(x)[0], DISTINCT(2, 5), torch=lambda x: torch.cummax(x, 1)[0]),
    "Cummin": case(lambda x: P("Cummin")(1)(x)[0], DISTINCT(2, 5), torch=lambda x: torch.cummin(x, 1)[0]),
    "TopK": case(lambda x: P("TopK")()(x, 2)[0], DISTINCT(3, 5), torch=lambda x: torch.topk(x, 2)[0]),
    # matmul, bias, pooling
    "BiasAdd": case(lambda x, b: P("BiasAdd")()(x, b), U(2, 3, 2, 2, seed=1), U(3, seed=2),
                    torch=lambda x, b: x + b[:, None, None]),
    "GlobalAvgPool": case(lambda x: P("GlobalAvgPool")()(x), U(2, 3, 2, 3),
                          torch=lambda x: x.mean((2, 3), keepdim=True)),
    "GridSample": case(lambda x, g: ops.grid_sample(x, g, align_corners=False), U(1, 2, 3, 4), _GRID,
                       torch=lambda x, g: F.grid_sample(x, g, align_corners=False), rtol=1e-5, atol=1e-7),
    "BatchNorm": case(lambda x, g, b: P("BatchNorm")(epsilon=1e-3)(x, g, b, ms.Tensor(U(3, seed=4)),
                                                                   ms.Tensor(POS(3, seed=5)))[0],
                      U(2, 3, 2, 2, seed=1), U(3, seed=2), U(3, seed=3),
                      torch=lambda x, g, b: F.batch_norm(x, _t(U(3, seed=4)), _t(POS(3, seed=5)), g, b, False,
                                                         0.1, 1e-3)),
    "BatchNormTraining": case(
        lambda x, g, b: P("BatchNormTraining")(epsilon=1e-5, momentum=0.1)(x, g, b, ms.Tensor(U(3, seed=4)),
                                                                           ms.Tensor(POS(3, seed=5)))[0],
        U(2, 3, 2, 2, seed=1), U(3, seed=2), U(3, seed=3), rtol=1e-5, atol=1e-7,
        torch=lambda x, g, b: F.batch_norm(x, None, None, g, b, True, 0.1, 1e-5)),
    "Dropout": case(lambda x: P("Dropout")(0.6)(x, ms.Tensor(_DROP_STATE))[0], U(3, 4),
                    label="fixed state: a fixed mask, so finite differences see one function"),
    # losses
    "SoftmaxCrossEntropyWithLogits": case(
        lambda x, y: P("SoftmaxCrossEntropyWithLogits")()(x, ops.Softmax()(y))[0], U(3, 4, seed=1),
        U(3, 4, seed=2), torch=lambda x, y: F.cross_entropy(x, torch.softmax(y, -1), reduction="none"), wrt=(0,),
        label="wrt the logits: MindSpore's bprop gives the labels a zero gradient, and so does opbuild's"),
    "SparseSoftmaxCrossEntropyWithLogits": case(
        lambda x: P("SparseSoftmaxCrossEntropyWithLogits")()(x, _i32([1, 0, 3])), U(3, 4),
        torch=lambda x: F.cross_entropy(x, _t(np.array([1, 0, 3])))),
    # linear algebra
    "Cholesky": case(_sym(lambda a: P("Cholesky")()(a)), SPD(), torch=_sym(lambda a: torch.linalg.cholesky(a)),
                     rtol=1e-5),
    "CholeskyInverse": case(lambda a: P("CholeskyInverse")()(a), np.linalg.cholesky(SPD()),
                            torch=lambda a: torch.cholesky_inverse(torch.tril(a)), rtol=1e-5),
    "CholeskySolve": case(lambda b, lo: P("CholeskySolve")()(b, lo), U(3, 2, seed=2), np.linalg.cholesky(SPD()),
                          torch=lambda b, lo: torch.cholesky_solve(b, torch.tril(lo)), rtol=1e-5),
    "MatrixDeterminant": case(lambda a: P("MatrixDeterminant")()(a), WELL(), torch=lambda a: torch.linalg.det(a)),
    "LogMatrixDeterminant": case(lambda a: P("LogMatrixDeterminant")()(a)[1], WELL(batch=(2,)),
                                 torch=lambda a: torch.linalg.slogdet(a)[1]),
    "MatrixInverse": case(lambda a: P("MatrixInverse")()(a), WELL(), torch=lambda a: torch.linalg.inv(a)),
    "MatrixSolve": case(lambda a, b: P("MatrixSolve")()(a, b), WELL(), U(3, 2, seed=6),
                        torch=lambda a, b: torch.linalg.solve(a, b)),
    "MatrixTriangularSolve": case(lambda a, b: P("MatrixTriangularSolve")()(a, b), np.tril(WELL()), U(3, 2, seed=6),
                                  torch=lambda a, b: torch.linalg.solve_triangular(torch.tril(a), b, upper=False)),
    # complex numbers (real inputs, real losses)
    "Complex": case(lambda a, b: P("Real")()(P("Complex")()(a, b) * P("Complex")()(b, a)), U(2, 3, seed=1),
                    U(2, 3, seed=2), torch=lambda a, b: torch.real(torch.complex(a, b) * torch.complex(b, a))),
    "Real": case(lambda a, b: P("Real")()(P("Complex")()(a, b) * P("Complex")()(a, a)), U(2, 3, seed=1),
                 U(2, 3, seed=2), torch=lambda a, b: torch.real(torch.complex(a, b) * torch.complex(a, a))),
    "Imag": case(lambda a, b: P("Imag")()(P("Complex")()(a, b) * P("Complex")()(b, b)), U(2, 3, seed=1),
                 U(2, 3, seed=2), torch=lambda a, b: torch.imag(torch.complex(a, b) * torch.complex(b, b))),
    "Conj": case(lambda a, b: P("Imag")()(P("Conj")()(P("Complex")()(a, b)) * P("Complex")()(b, a)),
                 U(2, 3, seed=1), U(2, 3, seed=2),
                 torch=lambda a, b: torch.imag(torch.conj(torch.complex(a, b)) * torch.complex(b, a))),
    "ComplexAbs": case(lambda a, b: P("ComplexAbs")()(P("Complex")()(a, b)), U(2, 3, seed=1), U(2, 3, seed=2),
                       torch=lambda a, b: torch.abs(torch.complex(a, b))),
    "Angle": case(lambda a, b: P("Angle")()(P("Complex")()(a, b)), U(2, 3, seed=1), _away(2, 3, seed=2),
                  torch=lambda a, b: torch.angle(torch.complex(a, b))),
    "FFTN": case(lambda a, b: _ri(ops.fftn(P("Complex")()(a, b))), U(2, 4, seed=1), U(2, 4, seed=2),
                 torch=lambda a, b: _ri_t(torch.fft.fftn(torch.complex(a, b)))),
}


def _ri(z):
    return ops.Real()(z), ops.Imag()(z)


def _ri_t(z):
    return torch.real(z), torch.imag(z)


def _svd_invariants(usv):
    """Sign-free functions of an SVD: the singular values and the squares of u's and v's entries."""
    s, u, v = usv
    return s, u * u, v * v


def _svd_invariants_t(usvh):
    u, s, vh = usvh
    return s, u * u, vh.mT * vh.mT


# The ops whose gradient another test checks (it must exist and name the op): heavier cases that already run
# against torch or finite differences there.
ELSEWHERE: dict[str, str] = {
    **{op: "tests/ops/test_grads_torch.py::test_unary" for op in (
        "Exp", "Log", "Sqrt", "Rsqrt", "Square", "Tanh", "Sigmoid", "ReLU", "Abs", "Neg", "Reciprocal", "Sin",
        "Cos", "Erf", "Softplus")},
    **{op: "tests/ops/test_grads_torch.py::test_binary_broadcasting" for op in (
        "Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow")},
    **{op: "tests/ops/test_grads_torch.py::test_reductions" for op in (
        "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd")},
    "MatMul": "tests/ops/test_grads_torch.py::test_matmul",
    "BatchMatMul": "tests/ops/test_grads_torch.py::test_batch_matmul",
    # an in-place scatter into a Parameter, against MindSpore's recorded gradients (its bprop's convention)
    "ScatterNdUpdateInplace": "tests/compat/test_grads_ms.py::test_matches_mindspore",
    "Conv2D": "tests/ops/test_grads_torch.py::test_conv2d",
    "MaxPool": "tests/ops/test_grads_torch.py::test_maxpool",
    "AvgPool": "tests/ops/test_grads_torch.py::test_avgpool",
    "Softmax": "tests/ops/test_grads_torch.py::test_softmax_logsoftmax",
    "LogSoftmax": "tests/ops/test_grads_torch.py::test_softmax_logsoftmax",
    "LayerNorm": "tests/ops/test_grads_torch.py::test_layer_norm",
}

# Ready for a Qr rule: once one is merged its REFUSED entry fails (the op no longer refuses); then move it:
# ``CASES["Qr"] = QR_CASES`` and delete its REFUSED line. Svd's rule is checked by SVD_CASES (in CASES).
QR_CASES = (
    case(lambda a: P("Qr")()(a), U(4, 3, seed=7), torch=lambda a: torch.linalg.qr(a), rtol=1e-5),
    case(lambda a: P("Qr")()(a), U(2, 3, 3, seed=8), torch=lambda a: torch.linalg.qr(a), rtol=1e-5,
         label="batched square"),
    case(lambda a: P("Qr")()(a)[1], U(4, 3, seed=7), torch=lambda a: torch.linalg.qr(a)[1], rtol=1e-5,
         label="r alone"),
)
SVD_CASES = (
    case(lambda a: _svd_invariants(P("Svd")()(a)), U(4, 3, seed=7), rtol=1e-5, atol=1e-7,
         torch=lambda a: _svd_invariants_t(torch.linalg.svd(a, full_matrices=False))),
    case(lambda a: _svd_invariants(P("Svd")()(a)), U(2, 3, 5, seed=8), rtol=1e-5, atol=1e-7,
         torch=lambda a: _svd_invariants_t(torch.linalg.svd(a, full_matrices=False)), label="batched wide"),
    case(lambda a: P("Svd")()(a)[0], U(3, 3, seed=9), rtol=1e-5, atol=1e-7,
         torch=lambda a: torch.linalg.svdvals(a), label="s alone"),
)


CASES["Svd"] = SVD_CASES


# Ops whose rule refuses (NotImplementedError, naming the op) rather than answer: the function and its
# inputs that the refusal is checked with (tests/ops/test_grad_checks.py::test_refusal); a rule written
# later moves the op to CASES. MindSpore 2.10 has no bprop for Geqrf, Orgqr and Qr either
# (tests/fixtures/mindspore/grads.npz records the Qr refusal).
REFUSED: dict[str, GradCase] = {
    "Geqrf": case(lambda a: P("Geqrf")()(a)[0], U(4, 3, seed=7)),
    "Qr": case(lambda a: P("Qr")()(a)[1], U(4, 3, seed=7)),
    "Orgqr": case(lambda a, tau: P("Orgqr")()(a, tau), U(4, 3, seed=7), U(3, seed=8, low=0.5, high=1.5)),
}

# Ops with a rule whose gradient is not checked numerically, and why.
EXEMPT: dict[str, str] = {
    "AllReduce": "a collective: its gradient is the AllReduce of the cotangent across ranks, which needs a "
                 "multi-rank job (tests/distributed run data-parallel training through it); in one process "
                 "it is the identity",
}


# ---- entries for ops this round's other branches bring ----------------------------------------------------
# Each joins its table by itself once its op is registered with a rule, so merging those branches needs no edit
# here: Conv2DBackpropInput's rule (pools), the incomplete gamma/beta functions, NextAfter and Eig (linalg),
# PyCall and CustomGradient (functional).

AWAITING: dict[str, GradCase] = {
    "Conv2DBackpropInput": case(lambda x, w, dy: _conv_backward(x, w, dy, 0), U(1, 2, 5, 4, seed=1),
                                U(3, 2, 3, 3, seed=2), U(1, 3, 3, 2, seed=3), rtol=1e-5, atol=1e-7,
                                torch=lambda x, w, dy: _conv_backward_t(x, w, dy, 0),
                                label="Conv2D's rule applies it (stride 2, padding 1)"),
    "Igamma": case(lambda a, x: ops.igamma(a, x), POS(2, 3, seed=1) * 2, POS(2, 3, seed=2) * 2, rtol=1e-5,
                   atol=1e-8, label="finite differences: torch has no gradient in a"),
    "Igammac": case(lambda a, x: ops.igammac(a, x), POS(2, 3, seed=1) * 2, POS(2, 3, seed=2) * 2, rtol=1e-5,
                    atol=1e-8, label="finite differences: torch has no gradient in a"),
    "Betainc": case(lambda a, b, x: P("Betainc")()(a, b, x), POS(2, 3, seed=1), POS(2, 3, seed=2),
                    U(2, 3, seed=3, low=0.1, high=0.9), wrt=(2,), rtol=1e-5, atol=1e-8,
                    label="in x: MindSpore's rule gives a and b zeros, and so does opbuild's"),
    "NextAfter": case(lambda x, y: ops.nextafter(x, y), U(2, 3, seed=1), U(2, 3, seed=2) + 5.0,
                      label="the output follows x; y only picks the direction"),
    # linalg's rule differentiates the eigenvalues (MindSpore 2.10 has none): finite differences, on a matrix
    # whose eigenvalues are well apart, so their magnitude order holds under the perturbation.
    "Eig": case(lambda a: ops.Real()(ops.eig(a)[0]), WELL(), rtol=1e-5, atol=1e-7,
                label="eigenvalues' real parts, finite differences"),
}
AWAITING_REFUSED: dict[str, GradCase] = {
    "IgammaGradA": case(lambda a, x: ms.grad(lambda t, u: ops.ReduceSum()(ops.igamma(t, u)))(a, x),
                        POS(2, 3, seed=1) * 2, POS(2, 3, seed=2) * 2),
}
AWAITING_EXEMPT: dict[str, str] = {
    "PyCall": "runs a Python callback; its gradient is the callback's own (a backward hook's), passed through "
              "as given: tests/compat/test_functional_programs.py compares hooked gradients with MindSpore's",
    "CustomGradient": "a Cell's own bprop: its gradient is the user's function, traced as given: "
                      "tests/compat/test_functional_programs.py compares Cells with bprop with MindSpore's",
}


def _join() -> None:
    for table, extra in ((CASES, AWAITING), (REFUSED, AWAITING_REFUSED), (EXEMPT, AWAITING_EXEMPT)):
        for op, entry in extra.items():
            opdef = REGISTRY.get(op)
            if opdef is not None and opdef.grad is not None:
                table.setdefault(op, entry)


_join()
