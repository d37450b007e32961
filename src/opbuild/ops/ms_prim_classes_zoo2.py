"""More thin primitive classes of ``mindspore.ops`` (the fourth table; see ms_prim_classes.py for the pattern):
histograms and bucketing, small linear algebra (``MatrixPower``, ``Lstsq``, ``LuSolve``, ``MatrixSolveLs``,
``NuclearNorm``, ``TridiagonalMatMul``), random draws (``Randperm``, ``Gamma``, ``Poisson``,
``TruncatedNormal``, ``Cauchy``, ``LogNormalReverse``), indexing helpers (``UnravelIndex``, ``ListDiff``,
``UniqueWithPad``, ``RaggedRange``, ``Coalesce``, ...) and ``MaxPoolWithArgmax``/``PadV3``. Checked against
MindSpore (or NumPy where MindSpore's CPU has no kernel) in tests/compat/test_prims_more.py."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.tensor import Tensor, as_tensor
from . import functional as F
from .ms_prim_classes import REQUIRED, make_primitive
from .ms_prim_classes_zoo import _ints, _scalar
from .primitive import Primitive


def _np(x: Any) -> np.ndarray:
    return as_tensor(x).asnumpy()


def _histogram_fixed_width(a: dict, x: Any, value_range: Any) -> Tensor:
    lo, hi = (float(v) for v in _np(value_range).reshape(-1)[:2])
    if not hi > lo:
        raise ValueError(f"HistogramFixedWidth: range must have max > min, got [{lo}, {hi}]")
    n = a["nbins"]
    x = F.cast(as_tensor(x), "float64")
    idx = F.clamp(F.floor((x - lo) / (hi - lo) * n), 0, n - 1)
    counts = F.unsorted_segment_sum(F.ones_like(idx), F.cast(F.reshape(idx, (-1,)), "int32"), n)
    return F.cast(counts, a["dtype"])


def _lstsq(a: dict, matrix: Any, rhs: Any) -> Tensor:
    if a["l2_regularizer"] != 0.0:
        return _regularized_ls(matrix, rhs, a["l2_regularizer"])
    return F.lstsq(matrix, rhs)


def _regularized_ls(matrix: Any, rhs: Any, l2: float) -> Tensor:
    """argmin ||A x - b||**2 + l2 ||x||**2 = (A^T A + l2 I)^-1 A^T b (A has full column rank or l2 > 0)."""
    m = as_tensor(matrix)
    mt = F.swapaxes(m, -1, -2)
    gram = F.matmul(mt, m) + l2 * F.eye(m.shape[-1], dtype=m.dtype)
    return F.matmul(F.inverse(gram), F.matmul(mt, rhs))


def _matrix_solve_ls(a: dict, matrix: Any, rhs: Any, l2: Any) -> Tensor:
    l2 = float(_scalar(l2))
    return _regularized_ls(matrix, rhs, l2) if l2 else F.lstsq(matrix, rhs)


def _randperm(a: dict, n: Any) -> Tensor:
    count = int(_np(n).reshape(-1)[0])
    if not 0 <= count <= a["max_length"]:
        raise ValueError(f"Randperm: n ({count}) must be in [0, max_length={a['max_length']}]")
    perm = F.cast(F.randperm(count), a["dtype"]) if count else F.zeros((0,), a["dtype"])
    pad = F.full((a["max_length"] - count,), a["pad"], dtype=a["dtype"])
    return F.concat([perm, pad]) if a["max_length"] > count else perm


def _broadcast_shape(shape: Any, *params: Any) -> tuple[int, ...]:
    return tuple(np.broadcast_shapes(tuple(_ints(shape, "shape")), *(as_tensor(p).shape for p in params)))


def _gamma(a: dict, shape: Any, alpha: Any, beta: Any) -> Tensor:
    out = _broadcast_shape(shape, alpha, beta)
    alpha, beta = F.broadcast_to(as_tensor(alpha), out), F.broadcast_to(as_tensor(beta), out)
    return F.reshape(F.random_gamma((), alpha, a["seed"] or None), out) / beta


def _poisson(a: dict, shape: Any, mean: Any) -> Tensor:
    out = _broadcast_shape(shape, mean)
    rate = F.broadcast_to(as_tensor(mean), out)
    return F.reshape(F.random_poisson((), rate, a["seed"] or None, "int32"), out)


def _truncated_normal(a: dict, shape: Any) -> Tensor:
    """Standard normal draws redrawn where outside [-2, 2] (the docs' bounds); what is left after a few rounds
    (a chance of about 1e-11) is clipped."""
    dims = tuple(_ints(shape, "TruncatedNormal: shape"))
    x = F.standard_normal(dims)
    for _ in range(6):
        x = F.where(F.greater(F.abs(x), 2.0), F.standard_normal(dims), x)
    return F.cast(F.clamp(x, -2.0, 2.0), a["dtype"])


def _cauchy(a: dict) -> Tensor:
    u = F.uniform(tuple(a["size"]), Tensor(np.float32(0.0)), Tensor(np.float32(1.0)))
    return a["median"] + a["sigma"] * F.tan(math.pi * (u - 0.5))


def _log_normal_reverse(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    return F.cast(F.exp(F.normal(x.shape, a["mean"], a["std"])), x.dtype)


def _nondeterministic_ints(a: dict, shape: Any) -> Tensor:
    """Integers over the dtype's whole range from the OS entropy source (nondeterministic by definition)."""
    dims = tuple(_ints(shape, "NonDeterministicInts: shape"))
    info = np.iinfo(np.dtype(str(a["dtype"]).lower().replace("mindspore.", "")))
    draws = np.random.default_rng().integers(info.min, info.max, dims, dtype=info.dtype, endpoint=True)
    return Tensor(draws)


def _param_truncated_normal(a: dict, shape: Any, mean: Any, stdevs: Any, lo: Any, hi: Any) -> Tensor:
    """Per batch row (shape[0]), Normal(mean, stdev) draws redrawn while outside [min, max], then clipped."""
    dims = tuple(_ints(shape, "ParameterizedTruncatedNormal: shape"))
    col = (dims[0],) + (1,) * (len(dims) - 1)
    mean, std, lo, hi = (F.reshape(as_tensor(v), col) for v in (mean, stdevs, lo, hi))
    x = mean + std * F.standard_normal(dims)
    for _ in range(8):
        out = F.logical_or(F.less(x, lo), F.greater(x, hi))
        x = F.where(out, mean + std * F.standard_normal(dims), x)
    return F.cast(F.minimum(F.maximum(x, lo), hi), as_tensor(mean).dtype)


def _extract_volume_patches(a: dict, x: Any) -> Tensor:
    """(N, C, D, H, W) -> (N, kd*kh*kw*C, OD, OH, OW): each output channel is one (kd, kh, kw, c) position of
    the patch (c fastest); "SAME" pads zeros the TensorFlow way (the odd one after)."""
    x = as_tensor(x)
    k, st = tuple(a["kernel_size"])[-3:], tuple(a["strides"])[-3:]
    if x.ndim != 5:
        raise ValueError(f"ExtractVolumePatches: input must be 5-D (N, C, D, H, W), got shape {x.shape}")
    if a["padding"].upper() == "SAME":
        outs = [math.ceil(n / s) for n, s in zip(x.shape[2:], st)]
        tot = [max((o - 1) * s + kk - n, 0) for o, s, kk, n in zip(outs, st, k, x.shape[2:])]
        x = F.pad(x, tuple(v for t in reversed(tot) for v in (t // 2, t - t // 2)))
    n, c = x.shape[:2]
    outs = [(size - kk) // s + 1 for size, kk, s in zip(x.shape[2:], k, st)]
    if min(outs) < 1:
        raise ValueError(f"ExtractVolumePatches: kernel {k} is larger than the (padded) input {x.shape[2:]}")
    pieces = []
    for i, j, m in np.ndindex(*k):
        begin = (0, 0, i, j, m)
        end = (n, c, i + (outs[0] - 1) * st[0] + 1, j + (outs[1] - 1) * st[1] + 1, m + (outs[2] - 1) * st[2] + 1)
        pieces.append(F.strided_slice(x, begin, end, (1, 1, *st)))
    return F.reshape(F.stack(pieces, 1), (n, len(pieces) * c, *outs))


def _scatter_add_with_axis(a: dict, x: Any, indices: Any, updates: Any) -> Tensor:
    out = F.tensor_scatter_elements(x, indices, updates, a["axis"], "add")
    return F.assign(x, out) if hasattr(x, "name") and hasattr(x, "requires_grad") else out


def _unravel_index(a: dict, indices: Any, dims: Any) -> Tensor:
    idx, sizes = as_tensor(indices), _ints(dims, "UnravelIndex: dims")
    flat = _np(idx)
    if np.any(flat < 0) or np.any(flat >= np.prod(sizes)):
        raise ValueError(f"UnravelIndex: indices must be in [0, {int(np.prod(sizes))}), got {flat.tolist()}")
    coords = []
    for d in reversed(sizes):
        coords.append(idx % d)
        idx = F.floor_div(idx, d)
    return F.stack(coords[::-1], 0)


def _count_nonzero(a: dict, x: Any) -> Tensor:
    dims = a["dims"]
    axis = () if dims is None else (tuple(dims) if isinstance(dims, (list, tuple)) else (dims,))
    return F.count_nonzero(x, axis, False, "int64")


def _cum_logsumexp(a: dict, x: Any, axis: Any) -> Tensor:
    x = as_tensor(x)
    ax = int(_scalar(axis)) % x.ndim
    y = F.flip(x, (ax,)) if a["reverse"] else x
    y = F.logcumsumexp(y, ax)
    if a["exclusive"]:  # shifted by one; the first entry is the dtype's lowest value (MindSpore's identity)
        first = F.full(tuple(1 if i == ax else d for i, d in enumerate(x.shape)),
                       float(np.finfo(x.dtype.np_dtype).min), dtype=x.dtype)
        y = F.concat([first, F.narrow(y, ax, 0, x.shape[ax] - 1)], ax)
    return F.flip(y, (ax,)) if a["reverse"] else y


def _pair(v: Any) -> tuple[int, int]:
    v = tuple(v) if isinstance(v, (list, tuple)) else (v, v)
    return (v[-2], v[-1]) if len(v) == 4 else (v[0], v[-1])


def _max_pool_with_argmax(a: dict, x: Any) -> tuple:
    """Max pooling with each maximum's flat index in its (H, W) plane; "same" pads the TensorFlow way (the odd
    pixel at the bottom/right), done here with -inf rows/columns whose indices are then mapped back."""
    x = as_tensor(x)
    (kh, kw), (sh, sw) = _pair(a["kernel_size"]), _pair(a["strides"])
    h, w = x.shape[-2:]
    if a["pad_mode"].lower() != "same":
        out, idx = F.max_pool2d(x, (kh, kw), (sh, sw), 0, 1, True)
        return out, F.cast(idx, "int32")
    th = max((math.ceil(h / sh) - 1) * sh + kh - h, 0)
    tw = max((math.ceil(w / sw) - 1) * sw + kw - w, 0)
    extra_h, extra_w = th % 2, tw % 2
    if extra_h or extra_w:
        x = F.pad(x, (0, extra_w, 0, extra_h), "constant", float("-inf"))
    out, idx = F.max_pool2d(x, (kh, kw), (sh, sw), (th // 2, tw // 2), 1, True)
    if extra_w:
        idx = F.floor_div(idx, w + 1) * w + idx % (w + 1)
    return out, F.cast(idx, "int32")


def _pad_v3(a: dict, x: Any, paddings: Any, value: Any = None) -> Tensor:
    pads = _ints(paddings, "PadV3: paddings")
    if not a["paddings_contiguous"]:  # (begin_1, ..., begin_n, end_1, ..., end_n) -> pairs
        half = len(pads) // 2
        pads = [p for pair in zip(pads[:half], pads[half:]) for p in pair]
    mode = a["mode"]
    return F.pad(x, tuple(pads), mode, None if value is None or mode != "constant" else _scalar(value))


def _masked_scatter(a: dict, x: Any, mask: Any, updates: Any) -> Tensor:
    x = as_tensor(x)
    m = F.broadcast_to(as_tensor(mask), x.shape)
    pos = F.cumsum(F.cast(F.reshape(m, (-1,)), "int32"), 0) - 1
    taken = F.gather(F.reshape(as_tensor(updates), (-1,)), F.clamp(pos, 0, None), 0)
    return F.where(m, F.reshape(taken, x.shape), x)


def _fill_diagonal(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    if x.ndim < 2 or (x.ndim > 2 and len(set(x.shape)) != 1):
        raise ValueError(f"FillDiagonal: input must be 2-D, or N-D with equal sizes, got {x.shape}")
    mask = np.zeros(x.shape, bool)
    np.fill_diagonal(mask, True, wrap=a["wrap"])
    return F.where(Tensor(mask), F.full(x.shape, a["fill_value"], dtype=x.dtype), x)


def _check_numerics(a: dict, x: Any) -> Tensor:
    if not np.all(np.isfinite(_np(x))):
        raise ValueError("CheckNumerics: the input has NaN or infinite values")
    return as_tensor(x)


def _nuclear_norm(a: dict, x: Any) -> Tensor:
    x = as_tensor(x)
    dim = tuple(a["dim"]) if a["dim"] is not None else (0, 1)
    return F.norm(x, "nuc", dim, a["keepdim"])


def _nth_element(a: dict, x: Any, n: Any) -> Tensor:
    x, k = as_tensor(x), int(_scalar(n))
    if not 0 <= k < x.shape[-1]:
        raise ValueError(f"NthElement: n must be in [0, {x.shape[-1]}), got {k}")
    values = F.sort(x, -1, a["reverse"])[0]
    return F.squeeze(F.narrow(values, x.ndim - 1, k, 1), -1)


def _list_diff(a: dict, x: Any, y: Any) -> tuple:
    xv, yv = _np(x), _np(y)
    keep = np.flatnonzero(~np.isin(xv, yv))
    out_idx = a["out_idx"]
    return Tensor(xv[keep]), F.cast(Tensor(keep.astype(np.int64)), out_idx)


def _unique_with_pad(a: dict, x: Any, pad: Any) -> tuple:
    xv = _np(x)
    uniq, first, inv = np.unique(xv, return_index=True, return_inverse=True)
    order = np.argsort(first)  # the order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    values = np.full(xv.shape, _scalar(pad), xv.dtype)
    values[:uniq.size] = uniq[order]
    return Tensor(values), Tensor(rank[inv].astype(xv.dtype))


def _vec_permute(a: dict, x: Any) -> Tensor:
    src, dst = a["src_format"], a["dst_format"]
    if sorted(src) != sorted(dst):
        raise ValueError(f"DataFormatVecPermute: {dst!r} is not a permutation of {src!r}")
    x = as_tensor(x)
    keep = [src.index(c) for c in dst] if x.shape[0] == len(src) else \
        [src[1:-1].index(c) for c in dst if c in src[1:-1]]
    return F.gather(x, Tensor(np.array(keep, np.int32)), 0)


def _tridiagonal_matmul(a: dict, superdiag: Any, maindiag: Any, subdiag: Any, rhs: Any) -> Tensor:
    rhs = as_tensor(rhs)
    m = rhs.shape[-2]
    col = [F.swapaxes(as_tensor(d), -1, -2) for d in (superdiag, maindiag, subdiag)]
    zero = F.zeros_like(F.narrow(rhs, rhs.ndim - 2, 0, 1))
    nxt = F.concat([F.narrow(rhs, rhs.ndim - 2, 1, m - 1), zero], -2)
    prv = F.concat([zero, F.narrow(rhs, rhs.ndim - 2, 0, m - 1)], -2)
    return col[1] * rhs + col[0] * nxt + col[2] * prv


def _compare_and_bitpack(a: dict, x: Any, threshold: Any) -> Tensor:
    x = as_tensor(x)
    if x.shape[-1] % 8:
        raise ValueError(f"CompareAndBitpack: the last axis ({x.shape[-1]}) must be divisible by 8")
    bits = F.cast(F.greater(x, threshold), "int32")
    bits = F.reshape(bits, (*x.shape[:-1], x.shape[-1] // 8, 8))
    weights = Tensor(np.array([128, 64, 32, 16, 8, 4, 2, 1], np.int32))
    return F.cast(F.sum(bits * weights, -1), "uint8")


def _ragged_range(a: dict, starts: Any, limits: Any, deltas: Any) -> tuple:
    s, lim, d = np.broadcast_arrays(_np(starts), _np(limits), _np(deltas))
    if np.any(d == 0):
        raise ValueError("RaggedRange: deltas must not be 0")
    rows = [np.arange(a0, b0, c0, dtype=s.dtype) for a0, b0, c0 in zip(s.reshape(-1), lim.reshape(-1),
                                                                      d.reshape(-1))]
    splits = np.concatenate([[0], np.cumsum([r.size for r in rows])])
    values = np.concatenate(rows) if rows else np.zeros(0, s.dtype)
    return F.cast(Tensor(splits.astype(np.int64)), a["Tsplits"]), Tensor(values.astype(s.dtype))


def _coalesce(a: dict, indices: Any, values: Any, shape: Any) -> tuple:
    idx, vals = _np(indices), _np(values)
    dims = _ints(shape, "Coalesce: shape")
    flat = np.ravel_multi_index(tuple(idx), dims)
    uniq, inv = np.unique(flat, return_inverse=True)
    summed = np.zeros(uniq.size, vals.dtype)
    np.add.at(summed, inv, vals)
    out_idx = np.stack(np.unravel_index(uniq, dims)).astype(idx.dtype)
    return Tensor(out_idx), Tensor(summed), Tensor(np.asarray(dims, idx.dtype))


def _assert(a: dict, condition: Any, data: Any) -> Tensor:
    if not bool(np.all(_np(condition) if isinstance(condition, Tensor) else condition)):
        shown = [_np(t).reshape(-1)[:a["summarize"]].tolist() for t in data]
        raise ValueError(f"Assert: the condition is false; the first {a['summarize']} values of the data: {shown}")
    return Tensor(np.zeros(1, np.int32))


TABLE: dict[str, tuple[tuple[tuple[str, Any], ...], Callable, str]] = {
    "Bucketize": ((("boundaries", REQUIRED),),
                  lambda a, x: F.cast(F.bucketize(x, list(a["boundaries"]), right=True), "int32"),
                  "For each value, the number of boundaries <= it (int32)."),
    "Histogram": ((("bins", 100), ("min", 0.0), ("max", 0.0)),
                  lambda a, x: F.histc(x, a["bins"], a["min"], a["max"]),
                  "Counts of ``x`` in ``bins`` equal bins over [min, max] (both 0: the data's range)."),
    "HistogramFixedWidth": ((("nbins", REQUIRED), ("dtype", "int32")), _histogram_fixed_width,
                            "Counts in ``nbins`` equal bins over range; values outside go to the end bins."),
    "MatrixPower": ((("n", REQUIRED),), lambda a, x: F.matrix_power(x, a["n"]), "The n-th matrix power."),
    "Lstsq": ((("fast", True), ("l2_regularizer", 0.0)), _lstsq, "Least-squares solution of matrix @ X = rhs."),
    "LuSolve": ((), lambda a, b, lu, piv: F.lu_solve(b, lu, piv), "Solves A X = b from A's LU factorization."),
    "MatrixSolveLs": ((("fast", True),), _matrix_solve_ls, "Least-squares solution with an L2 regularizer."),
    "NuclearNorm": ((("dim", None), ("keepdim", False)), _nuclear_norm, "The sum of the singular values."),
    "TridiagonalMatMul": ((), _tridiagonal_matmul, "A tridiagonal matrix (given by its diagonals) times rhs."),
    "Randperm": ((("max_length", 1), ("pad", -1), ("dtype", "int32")), _randperm,
                 "A random permutation of 0..n-1 padded with ``pad`` to ``max_length``."),
    "Gamma": ((("seed", 0), ("seed2", 0)), _gamma, "Gamma(alpha, rate beta) draws of the broadcast shape."),
    "Poisson": ((("seed", 0), ("seed2", 0)), _poisson, "Poisson(mean) draws (int32) of the broadcast shape."),
    "TruncatedNormal": ((("dtype", "float32"), ("seed", 0), ("seed2", 0)), _truncated_normal,
                        "Standard normal draws truncated to [-2, 2]."),
    "Cauchy": ((("size", REQUIRED), ("median", 0.0), ("sigma", 1.0)), _cauchy, "Cauchy(median, sigma) draws."),
    "LogNormalReverse": ((("mean", 1.0), ("std", 2.0)), _log_normal_reverse,
                         "exp(Normal(mean, std)) draws of the input's shape and dtype."),
    "NonDeterministicInts": ((("dtype", "int64"),), _nondeterministic_ints,
                             "Nondeterministic integers over the whole range of ``dtype``."),
    "ParameterizedTruncatedNormal": ((("seed", 0), ("seed2", 0)), _param_truncated_normal,
                                     "Normal(mean, stdevs) draws truncated to [min, max], per batch row."),
    "ExtractVolumePatches": ((("kernel_size", REQUIRED), ("strides", REQUIRED), ("padding", REQUIRED)),
                             _extract_volume_patches, "The (kd, kh, kw) patches of a 5-D input as channels."),
    "ScatterAddWithAxis": ((("axis", 0),), _scatter_add_with_axis,
                           "Adds ``updates`` into ``input_x`` at ``indices`` along ``axis`` (in place)."),
    "UnravelIndex": ((), _unravel_index, "The (len(dims), N) coordinates of flat indices in a ``dims`` array."),
    "CountNonZero": ((("dims", None),), _count_nonzero, "The number of non-zero elements over ``dims`` (int64)."),
    "CumulativeLogsumexp": ((("exclusive", False), ("reverse", False)), _cum_logsumexp,
                            "The running log(sum(exp(x))) along ``axis``."),
    "MaxPoolWithArgmax": ((("kernel_size", 1), ("strides", 1), ("pad_mode", "valid"), ("data_format", "NCHW")),
                          _max_pool_with_argmax, "2-D max pooling and each maximum's flat (H, W) index."),
    "PadV3": ((("mode", "constant"), ("paddings_contiguous", True)), _pad_v3,
              "``x`` padded (constant, reflect, edge or circular), last axis first."),
    "ConjugateTranspose": ((), lambda a, x, perm: F.conj(F.transpose(x, tuple(perm))), "conj(transpose(x))."),
    "TransposeView": ((), lambda a, x, perm: F.transpose(x, tuple(perm)), "``x`` with its axes permuted."),
    "TransposeExtView": ((), lambda a, x, d0, d1: F.swapaxes(x, d0, d1), "``x`` with two axes swapped."),
    "IdentityN": ((), lambda a, xs: tuple(as_tensor(x) for x in xs), "The inputs, unchanged."),
    "MaskedScatter": ((), _masked_scatter, "``x`` with the positions where ``mask`` taken from ``updates`` in order."),
    "FillDiagonal": ((("fill_value", REQUIRED), ("wrap", False)), _fill_diagonal, "``x`` with its diagonal set."),
    "CheckNumerics": ((), _check_numerics, "The input, after checking it has no NaN or infinity."),
    "NthElement": ((("reverse", False),), _nth_element, "The n-th smallest (largest: reverse) along the last axis."),
    "ListDiff": ((("out_idx", "int32"),), _list_diff, "The values of x not in y, and their positions in x."),
    "UniqueWithPad": ((), _unique_with_pad, "The unique values padded with ``pad_num``, and each value's index."),
    "DataFormatVecPermute": ((("src_format", "NHWC"), ("dst_format", "NCHW")), _vec_permute,
                             "A shape (or its spatial dims) vector permuted from one layout to another."),
    "CompareAndBitpack": ((), _compare_and_bitpack, "x > threshold packed 8 to a uint8, first bit highest."),
    "RaggedRange": ((("Tsplits", REQUIRED),), _ragged_range, "The row splits and values of a ragged range."),
    "Coalesce": ((), _coalesce, "A sparse COO tensor with duplicate indices summed and indices sorted."),
    "Assert": ((("summarize", 3),), _assert, "Raises with the data's first values when the condition is false."),
}

PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
