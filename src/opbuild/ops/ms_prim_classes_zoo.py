"""Thin primitive classes MindSpore 2.10 exports from ``mindspore.ops`` that model zoos use (the third table;
see ms_prim_classes.py for the pattern): activations (``Elu``, ``CeLU``, ``HSigmoid``, ...), creation
(``Zeros``, ``Ones``, ``Range``), array rearrangement (``Roll``, ``ReverseV2``, ``SplitV``, ``Pack``, ...),
the ``Segment*`` reductions and the deprecated aliases (``TensorAdd``, ``Gelu``, ``FastGelu``, ``GatherV2``),
each over the functional API. Checked against MindSpore in tests/compat/test_prims_more.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.tensor import Tensor, as_tensor
from . import functional as F
from .ms_prim_classes import REQUIRED, make_primitive
from .primitive import Primitive


def _ints(v: Any, what: str) -> list[int]:
    """A shape-like argument (int, sequence or integer tensor; a constant) as a list of ints."""
    if isinstance(v, Tensor):
        v = v.asnumpy()
    arr = np.asarray(v)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"{what} must be integers, got {arr.dtype} values {arr.tolist()}")
    return [int(d) for d in arr.reshape(-1)]


def _scalar(v: Any) -> float | int:
    return as_tensor(v).asnumpy().item() if isinstance(v, Tensor) else v


def _filled(fill: Callable) -> Callable:
    def call(a: dict, shape: Any, dtype: Any) -> Tensor:
        dims = _ints(shape, "shape")
        if any(d < 0 for d in dims):
            raise ValueError(f"shape must be non-negative, got {dims}")
        return fill(tuple(dims), dtype)
    return call


def _range(a: dict, start: Any, limit: Any, delta: Any) -> Tensor:
    ts = [as_tensor(v) for v in (start, limit, delta)]
    if any(t.ndim for t in ts):
        raise ValueError("Range: start, limit and delta must be 0-D tensors")
    s, lim, d = (_scalar(t) for t in ts)
    if d == 0:
        raise ValueError("Range: delta must not be 0")
    if (lim - s) * d < 0:
        raise ValueError(f"Range: delta {d} moves away from limit {lim} (start {s})")
    n = int(np.ceil(abs((lim - s) / d)))
    if n > a["maxlen"]:
        raise ValueError(f"Range: {n} elements exceed maxlen {a['maxlen']}")
    # MindSpore 2.10's CPU kernel returns int64 for integer bounds (its int32 ones included).
    dtype = np.int64 if ts[0].dtype.np_dtype.kind in "iu" else ts[0].dtype.np_dtype
    return Tensor((s + d * np.arange(n)).astype(dtype))


def _diag(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    if x.ndim == 0:
        raise ValueError("Diag: input must have rank >= 1, got a 0-D tensor")
    return F.diag(x)


def _diag_part(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    k = x.ndim // 2
    if x.ndim == 0 or x.ndim % 2 or x.shape[:k] != x.shape[k:]:
        raise ValueError(f"DiagPart: input shape must be (d1, ..., dk, d1, ..., dk), got {x.shape}")
    n = int(np.prod(x.shape[:k]))
    return F.reshape(F.diagonal(F.reshape(x, (n, n))), x.shape[:k])


def _split_v(a: dict, x: Any) -> tuple:
    x = as_tensor(x)
    dim = a["split_dim"] % x.ndim
    sizes = list(a["size_splits"])
    if len(sizes) != a["num_split"]:
        raise ValueError(f"SplitV: size_splits has {len(sizes)} entries, num_split is {a['num_split']}")
    if sizes.count(-1) > 1:
        raise ValueError("SplitV: at most one entry of size_splits may be -1")
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[dim] - (sum(sizes) + 1)
    if sum(sizes) != x.shape[dim] or min(sizes) < 0:
        raise ValueError(f"SplitV: size_splits {list(a['size_splits'])} must add up to {x.shape[dim]} (axis {dim})")
    return tuple(F.split(x, sizes, dim))


def _segment(kind: str) -> Callable:
    def call(a: dict, x: Any, segment_ids: Any) -> Tensor:
        x, ids = as_tensor(x), as_tensor(segment_ids)
        idv = ids.asnumpy()
        if ids.ndim != 1 or ids.shape[0] != x.shape[0]:
            raise ValueError(f"Segment{kind}: segment_ids must be 1-D of length {x.shape[0]}, got {ids.shape}")
        if idv.size and (idv[0] < 0 or np.any(np.diff(idv) < 0)):
            raise ValueError(f"Segment{kind}: segment_ids must be non-negative and sorted, got {idv.tolist()}")
        num = int(idv[-1]) + 1 if idv.size else 0
        if kind == "Sum":
            return F.unsorted_segment_sum(x, ids, num)
        if kind == "Prod":
            return F.unsorted_segment_prod(x, ids, num)
        count = F.unsorted_segment_sum(F.ones_like(x), ids, num)
        if kind == "Mean":
            return F.unsorted_segment_sum(x, ids, num) / F.maximum(count, F.ones_like(count))
        got = (F.unsorted_segment_max if kind == "Max" else F.unsorted_segment_min)(x, ids, num)
        return F.where(F.equal(count, 0), F.zeros_like(got), got)  # an empty segment is 0, as in MindSpore
    return call


def _nan_to_num(a: dict, x: Any) -> Tensor:
    return F.nan_to_num(x, 0.0 if a["nan"] is None else a["nan"], a["posinf"], a["neginf"])


def _gather_v2(a: dict, x: Any, indices: Any, axis: Any, batch_dims: int = 0) -> Tensor:
    return F.gather(x, indices, int(_scalar(axis)), int(_scalar(batch_dims)))


def _expand(a: dict, x: Any, shape: Any) -> Tensor:
    return F.broadcast_to(x, tuple(_ints(shape, "Expand: shape")))


def _fills(a: dict, x: Any, value: Any) -> Tensor:
    x = as_tensor(x)
    if isinstance(value, Tensor) and value.ndim:
        raise ValueError(f"Fills: value must be a number or a 0-D tensor, got shape {value.shape}")
    return F.full(x.shape, _scalar(value), dtype=x.dtype)


def _roll(a: dict, x: Any) -> Tensor:
    shifts, dims = a["shifts"], a["dims"]
    if isinstance(shifts, (list, tuple)) != isinstance(dims, (list, tuple)) and dims is not None or \
            isinstance(shifts, (list, tuple)) and isinstance(dims, (list, tuple)) and len(shifts) != len(dims):
        raise ValueError(f"Roll: shifts {shifts} and dims {dims} must have the same length")
    return F.roll(x, shifts, dims)


def _euclidean_norm(a: dict, x: Any, axes: Any) -> Tensor:
    axis = tuple(_ints(axes, "EuclideanNorm: axes"))
    return F.sqrt(F.sum(F.square(as_tensor(x)), axis, a["keep_dims"]))


def _identity(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    return F.reshape(x, x.shape)


TABLE: dict[str, tuple[tuple[tuple[str, Any], ...], Callable, str]] = {
    "TensorAdd": ((), lambda a, x, y: F.add(x, y), "Deprecated name of ``Add``: ``x + y`` with broadcasting."),
    "Elu": ((("alpha", 1.0),), lambda a, x: F.elu(x, a["alpha"]), "Exponential linear unit, ``alpha`` = 1.0."),
    "CeLU": ((("alpha", 1.0),), lambda a, x: F.celu(x, a["alpha"]), "Continuously differentiable ELU."),
    "HSigmoid": ((), lambda a, x: F.hardsigmoid(x), "Hard sigmoid, relu6(x + 3) / 6."),
    "HSwish": ((), lambda a, x: F.hardswish(x), "Hard swish, x * relu6(x + 3) / 6."),
    "HShrink": ((("lambd", 0.5),), lambda a, x: F.hardshrink(x, a["lambd"]), "Zero where |x| <= lambd."),
    "SoftShrink": ((("lambd", 0.5),), lambda a, x: F.softshrink(x, a["lambd"]),
                   "x - lambd above lambd, x + lambd below -lambd, 0 between."),
    "Erfc": ((), lambda a, x: F.erfc(x), "The complementary error function 1 - erf(x)."),
    "Fmin": ((), lambda a, x, y: F.fmin(x, y), "Elementwise minimum that ignores a NaN operand."),
    "NanToNum": ((("nan", None), ("posinf", None), ("neginf", None)), _nan_to_num,
                 "NaN, +inf and -inf replaced (defaults: 0 and the dtype's largest and lowest values)."),
    "Gelu": ((), lambda a, x: F.gelu(x, "tanh"), "Deprecated name of ``GeLU`` (its tanh approximation)."),
    "FastGeLU": ((), lambda a, x: F.fast_gelu(x), "x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))."),
    "FastGelu": ((), lambda a, x: F.fast_gelu(x), "Deprecated name of ``FastGeLU``."),
    "PReLU": ((), lambda a, x, w: F.prelu(x, w), "x where x > 0, else weight (per channel, axis 1) * x."),
    "Lerp": ((), lambda a, start, end, weight: F.lerp(start, end, weight), "start + weight * (end - start)."),
    "Cdist": ((("p", 2.0),), lambda a, x1, x2: F.cdist(x1, x2, a["p"]),
              "The p-norm distances between the rows of two (batched) matrices."),
    "SmoothL1Loss": ((("beta", 1.0), ("reduction", "none")),
                     lambda a, x, y: F.smooth_l1_loss(x, y, a["beta"], a["reduction"]),
                     "0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta; d = x - y."),
    "SoftMarginLoss": ((("reduction", "mean"),), lambda a, x, y: F.soft_margin_loss(x, y, a["reduction"]),
                       "log(1 + exp(-y x)) for labels y in {-1, 1}."),
    "Zeros": ((), _filled(F.zeros), "A tensor of zeros of ``shape`` and ``dtype``."),
    "Ones": ((), _filled(F.ones), "A tensor of ones of ``shape`` and ``dtype``."),
    "Range": ((("maxlen", 1000000),), _range, "start, start + delta, ... up to (excluding) limit."),
    "Roll": ((("shifts", REQUIRED), ("dims", None)), _roll, "Elements rotated by ``shifts`` along ``dims``."),
    "Diag": ((), _diag, "A tensor of shape x.shape + x.shape with ``x`` on its diagonal."),
    "DiagPart": ((), _diag_part, "The diagonal of a (d1..dk, d1..dk) tensor, shape (d1..dk)."),
    "Trace": ((), lambda a, x: F.trace(x), "The sum of a matrix's diagonal."),
    "Triu": ((("diagonal", 0),), lambda a, x: F.triu(x, a["diagonal"]), "The upper triangle from ``diagonal``."),
    "MaskedFill": ((), lambda a, x, mask, value: F.masked_fill(x, mask, value), "``value`` where ``mask``."),
    "MaskedSelect": ((), lambda a, x, mask: F.masked_select(x, mask), "The 1-D elements of x where mask."),
    "Pack": ((("axis", 0),), lambda a, xs: F.stack(list(xs), a["axis"]), "Deprecated name of ``Stack``."),
    "Unpack": ((("axis", 0),), lambda a, x: tuple(F.unstack(x, a["axis"])), "Deprecated name of ``Unstack``."),
    "ReverseV2": ((("axis", REQUIRED),), lambda a, x: F.flip(x, tuple(a["axis"])), "``x`` reversed along axes."),
    "SplitV": ((("size_splits", REQUIRED), ("split_dim", REQUIRED), ("num_split", REQUIRED)), _split_v,
               "``x`` split along ``split_dim`` into pieces of ``size_splits`` (one may be -1: the rest)."),
    "GatherV2": ((), _gather_v2, "Deprecated name of ``Gather``: slices of x at indices along axis."),
    "Identity": ((), _identity, "A tensor equal to ``x``."),
    "Expand": ((), _expand, "``x`` broadcast to ``shape`` (a 1-D integer tensor)."),
    "Fills": ((), _fills, "A tensor of x's shape and dtype filled with ``value``."),
    "EuclideanNorm": ((("keep_dims", False),), _euclidean_norm, "sqrt(sum(x**2)) over ``axes``."),
    "SegmentSum": ((), _segment("Sum"), "Sums of the rows of x per sorted segment id (empty ones 0)."),
    "SegmentMax": ((), _segment("Max"), "Maxima of the rows of x per sorted segment id (empty ones 0)."),
    "SegmentMin": ((), _segment("Min"), "Minima of the rows of x per sorted segment id (empty ones 0)."),
    "SegmentMean": ((), _segment("Mean"), "Means of the rows of x per sorted segment id (empty ones 0)."),
    "SegmentProd": ((), _segment("Prod"), "Products of the rows of x per sorted segment id (empty ones 1)."),
    "AssignSub": ((), lambda a, var, value: F.assign_sub(var, value), "``variable -= value`` in place."),
    "AccumulateNV2": ((), lambda a, xs: F.addn(list(xs)), "The elementwise sum of a sequence of tensors."),
    "LerpScalar": ((), lambda a, start, end, weight: F.lerp(start, end, float(weight)),
                   "start + weight * (end - start) with a Python float weight."),
    "LogSoftmaxExt": ((), lambda a, x, dim=None, dtype=None: F.log_softmax(x if dtype is None else F.cast(x, dtype),
                                                                             -1 if dim is None else dim),
                      "log(softmax(x)) along ``dim`` (default the last), after a cast to ``dtype`` if given."),
    "SpaceToBatch": ((("block_size", REQUIRED), ("paddings", REQUIRED)),
                     lambda a, x: F.space_to_batch_nd(x, [a["block_size"]] * 2, a["paddings"]),
                     "(N, C, H, W) padded and cut into block_size**2 tiles stacked on the batch axis."),
    "BatchToSpace": ((("block_size", REQUIRED), ("crops", REQUIRED)),
                     lambda a, x: F.batch_to_space_nd(x, [a["block_size"]] * 2, a["crops"]),
                     "The inverse of ``SpaceToBatch``: tiles from the batch axis put back, then cropped."),
    "Dense": ((), lambda a, x, w, b=None: F.dense(x, w, b), "x @ w.T + b."),
}





PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
