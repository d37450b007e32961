"""More top-level ``mindspore.mint`` functions with torch's signatures, over the ``ops`` functions: ``addbmm``,
``addr_`` (in place), ``bitwise_not``, ``cdist``, ``conv2d``, ``conv_tbc``, ``empty_like``, ``index_add``,
``kthvalue``, ``norm`` (torch's ``p``), ``npu_gelu`` (``gelu``), ``triangular_solve``, ``unique_consecutive``
(``return_inverse``), ``vdot``, the batch-norm statistics helpers (``batch_norm_stats``, ``batch_norm_elemt``,
``batch_norm_gather_stats_with_counts``: one process holds every count), the random ``bernoulli``,
``multinomial`` and ``randint_like``, which draw as ``random_fns`` does (the same seed gives the same values,
not MindSpore's bits), and ``ops`` functions under mint's parameter names (``arcsin(x)``, ``isnan(tensor)``,
``bmm``, ``erfinv``, ``sinc``, ``sqrt``, ``nan_to_num``, ``histc``)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import ops as _ops
from ..core.dtypes import dtype_of
from ..core.tensor import Tensor, as_tensor
from .nn.functional import gelu
from .nn.functional_layers import conv2d
from .random_fns import _draw


def _t(name: str, arg: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"mint.{name}: {arg} must be a Tensor, got {type(x).__name__}")
    return x


def addbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``addbmm(input, batch1, batch2, *, beta=1, alpha=1)``: beta * input + alpha * the sum over the batch of
    batch1[i] @ batch2[i]."""
    prod = _ops.sum(_ops.bmm(batch1, batch2), 0)
    return _ops.add(_ops.mul(input, beta), _ops.mul(prod, alpha))


def addr_(input: Any, vec1: Any, vec2: Any, beta: Any = 1, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``addr_(input, vec1, vec2, beta=1, alpha=1)``: beta * input + alpha * outer(vec1, vec2), written into
    ``input``, which is returned."""
    x = _t("addr_", "input", input)
    x.assign_value(_ops.addr(x, vec1, vec2, beta=beta, alpha=alpha))
    return x


def bitwise_not(input: Any) -> Tensor:  # noqa: A002
    """``bitwise_not(input)``: ~x of an integer tensor, logical not of a bool one."""
    x = as_tensor(input)
    return _ops.logical_not(x) if x.dtype.name == "bool" else _ops.invert(x)


def cdist(x1: Any, x2: Any, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """``cdist(x1, x2, p=2.0, compute_mode=...)``: the p-norm distance between the rows of ``x1`` and of
    ``x2``; ``compute_mode`` picks an algorithm in torch, opbuild computes the differences directly."""
    return _ops.cdist(x1, x2, p)


def conv_tbc(input: Any, weight: Any, bias: Any, pad: int = 0) -> Tensor:  # noqa: A002
    """``conv_tbc(input, weight, bias, pad=0)``: 1-D convolution in time-batch-channel layout: ``input`` (T, B,
    C_in), ``weight`` (K, C_in, C_out), ``bias`` (C_out,); output (T + 2 pad - K + 1, B, C_out)."""
    x, w = as_tensor(input), as_tensor(weight)
    if x.ndim != 3 or w.ndim != 3 or x.shape[2] != w.shape[1]:
        raise ValueError(f"mint.conv_tbc: input (T, B, C_in) and weight (K, C_in, C_out) are needed, got {x.shape} "
                         f"and {w.shape}")
    y = _ops.conv1d(_ops.permute(x, (1, 2, 0)), _ops.permute(w, (2, 1, 0)), None, 1,
                    "pad" if pad else "valid", int(pad))
    return _ops.add(_ops.permute(y, (2, 0, 1)), bias)


def npu_gelu(input: Any, approximate: str = "none") -> Tensor:  # noqa: A002
    """``npu_gelu(input, approximate='none')``: MindSpore's Ascend-named GELU, the values of ``gelu``."""
    return gelu(input, approximate)


def empty_like(input: Any, *, dtype: Any = None, device: Any = None) -> Tensor:  # noqa: A002
    """``empty_like(input, *, dtype=None, device=None)``: a tensor of ``input``'s shape and dtype (zeros: opbuild
    has no uninitialised memory)."""
    x = as_tensor(input)
    return _ops.zeros(tuple(x.shape), dtype or x.dtype)


def index_add(input: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``index_add(input, dim, index, source, *, alpha=1)``: a copy of ``input`` with alpha * the slices of
    ``source`` along ``dim`` added at the positions of the 1-D ``index`` (repeated positions accumulate)."""
    x, src, idx = as_tensor(input), as_tensor(source), as_tensor(index)
    if idx.ndim != 1 or src.ndim != x.ndim or not -x.ndim <= dim < x.ndim or src.shape[dim] != idx.shape[0]:
        raise ValueError(f"mint.index_add: index must be 1-D with one entry per slice of source along dim {dim}, "
                         f"source of input's rank; got input {x.shape}, index {idx.shape}, source {src.shape}")
    d = dim % x.ndim
    shape = [1] * x.ndim
    shape[d] = -1
    full = _ops.broadcast_to(_ops.reshape(_ops.cast(idx, "int64"), tuple(shape)), tuple(src.shape))
    return _ops.tensor_scatter_elements(x, full, src if alpha == 1 else _ops.mul(src, alpha), d, "add")


def kthvalue(input: Any, k: int, dim: int = -1, keepdim: bool = False) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``kthvalue(input, k, dim=-1, keepdim=False)``: the ``k``-th smallest value along ``dim`` (k from 1) and
    its int64 index."""
    x = as_tensor(input)
    n = x.shape[dim] if x.ndim else 1
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= n:
        raise ValueError(f"mint.kthvalue: k must be an int in [1, {n}], got {k!r}")
    values, index = _ops.sort(x, dim, False)
    v, i = _ops.narrow(values, dim, k - 1, 1), _ops.cast(_ops.narrow(index, dim, k - 1, 1), "int64")
    if keepdim or not x.ndim:
        return v, i
    return _ops.squeeze(v, dim % x.ndim), _ops.squeeze(i, dim % x.ndim)


def norm(input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``norm(input, p='fro', dim=None, keepdim=False, *, dtype=None)``: torch's norm: 'fro' (or None) the
    2-norm of the elements over ``dim``, 'nuc' the nuclear norm of the matrices of ``dim`` (the last two axes
    when None), a number the ``p``-norm of the elements over ``dim`` (None: all of them)."""
    x = as_tensor(input)
    if p == "nuc":
        return _ops.matrix_norm(x, "nuc", (-2, -1) if dim is None else tuple(dim), bool(keepdim), dtype=dtype)
    if p is None or p == "fro":
        p = 2
    if isinstance(p, (str, bool)) or not isinstance(p, numbers.Real):
        raise ValueError(f"mint.norm: p must be 'fro', 'nuc' or a number, got {p!r}")
    return _ops.vector_norm(x, float(p), dim, bool(keepdim), dtype=dtype)


def triangular_solve(b: Any, A: Any, upper: bool = True, transpose: bool = False,  # noqa: N803
                     unitriangular: bool = False) -> tuple[Tensor, Tensor]:
    """``triangular_solve(b, A, upper=True, transpose=False, unitriangular=False)``: (X, a copy of A) with
    op(A) X = b for the triangular ``A`` (the other triangle ignored; ``transpose``: op(A) = A^T;
    ``unitriangular``: the diagonal taken as ones)."""
    a, rhs = as_tensor(A), as_tensor(b)
    tri = _ops.triu(a) if upper else _ops.tril(a)
    if unitriangular:
        eye = _ops.eye(a.shape[-1], a.shape[-1], a.dtype)
        tri = _ops.add(_ops.mul(tri, _ops.sub(1.0, eye)), eye)
    if transpose:
        tri, upper = _ops.swapaxes(tri, -1, -2), not upper
    x = _ops.MatrixTriangularSolve(lower=not upper, adjoint=False)(tri, rhs)
    return x, _ops.add(a, _ops.zeros_like(a))


def unique_consecutive(input: Any, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
                       dim: Any = None) -> Any:
    """``unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)``: runs of equal
    consecutive elements collapsed to one; optionally the run of each element and each run's length."""
    out = _ops.unique_consecutive(input, bool(return_inverse), bool(return_counts), dim)
    if not isinstance(out, tuple):
        return out
    return out[0] if len(out) == 1 else out


def vdot(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``vdot(input, other)``: the dot product of two 1-D tensors, the first conjugated."""
    x, y = as_tensor(input), as_tensor(other)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"mint.vdot: input and other must be 1-D of one length, got {x.shape} and {y.shape}")
    if x.dtype.is_complex:
        x = _ops.conj(x)
    return _ops.sum(_ops.mul(x, y))


# ---- ops functions under mint's parameter names (keyword calls use them) ----------------------------------
def arcsin(x: Any) -> Tensor:
    """``arcsin(x)``: the inverse sine."""
    return _ops.arcsin(x)


def isnan(tensor: Any) -> Tensor:
    """``isnan(tensor)``: where ``tensor`` is NaN."""
    return _ops.isnan(tensor)


def bmm(input: Any, mat2: Any) -> Tensor:  # noqa: A002
    """``bmm(input, mat2)``: the batched matrix product."""
    return _ops.bmm(input, mat2)


def erfinv(input: Any) -> Tensor:  # noqa: A002
    """``erfinv(input)``: the inverse error function."""
    return _ops.erfinv(input)


def sinc(input: Any) -> Tensor:  # noqa: A002
    """``sinc(input)``: sin(pi x) / (pi x), 1 at 0."""
    return _ops.sinc(input)


def sqrt(input: Any) -> Tensor:  # noqa: A002
    """``sqrt(input)``: the square root."""
    return _ops.sqrt(input)


def nan_to_num(input: Any, nan: Any = None, posinf: Any = None, neginf: Any = None) -> Tensor:  # noqa: A002
    """``nan_to_num(input, nan=None, posinf=None, neginf=None)``: NaN replaced by ``nan`` (None: 0), the
    infinities by ``posinf``/``neginf`` (None: the dtype's largest and lowest values)."""
    return _ops.nan_to_num(input, 0.0 if nan is None else nan, posinf, neginf)


def histc(input: Any, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:  # noqa: A001, A002
    """``histc(input, bins=100, min=0, max=0)``: counts of ``input`` in ``bins`` equal bins over [min, max]
    (both 0: the data's range)."""
    return _ops.histc(input, bins, float(min), float(max))


# ---- batch-norm statistics (the pieces of SyncBatchNorm) ----------------------------------------------------
def _channel_axes(x: Tensor) -> tuple[int, ...]:
    return (0, *range(2, x.ndim))


def batch_norm_stats(input: Any, eps: float) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``batch_norm_stats(input, eps)``: the per-channel (axis 1) mean and 1 / sqrt(biased variance + eps)."""
    x = as_tensor(input)
    mean = _ops.mean(x, _channel_axes(x), True)
    var = _ops.mean(_ops.square(_ops.sub(x, mean)), _channel_axes(x))
    return _ops.reshape(mean, (-1,)), _ops.rsqrt(_ops.add(var, float(eps)))


def batch_norm_elemt(input: Any, weight: Any = None, bias: Any = None, mean: Any = None,  # noqa: A002
                     invstd: Any = None, eps: float = 1e-05) -> Tensor:
    """``batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-05)``: (input - mean)
    * invstd * weight + bias, per channel of axis 1."""
    x = as_tensor(input)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = _ops.mul(_ops.sub(x, _ops.reshape(mean, shape)), _ops.reshape(invstd, shape))
    if weight is not None:
        y = _ops.mul(y, _ops.reshape(weight, shape))
    return y if bias is None else _ops.add(y, _ops.reshape(bias, shape))


def batch_norm_gather_stats_with_counts(input: Any, mean: Any, invstd: Any, running_mean: Any = None,  # noqa: A002
                                        running_var: Any = None, momentum: float = 0.1, eps: float = 1e-05,
                                        counts: Any = None) -> tuple[Tensor, Tensor]:
    """``batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None, running_var=None,
    momentum=0.1, eps=1e-05, counts=None)``: the global mean and invstd of the per-group statistics
    ``mean``/``invstd`` (G, C) of ``counts`` (G,) elements each; the running ones (unbiased variance) updated
    in place with ``momentum``."""
    m, s, n = as_tensor(mean), as_tensor(invstd), _ops.reshape(as_tensor(counts), (-1, 1))
    n = _ops.cast(n, m.dtype)
    total = _ops.sum(n)
    gmean = _ops.div(_ops.sum(_ops.mul(m, n), 0), total)
    var_g = _ops.sub(_ops.reciprocal(_ops.square(s)), float(eps))
    sq = _ops.add(var_g, _ops.square(_ops.sub(m, gmean)))
    gvar = _ops.div(_ops.sum(_ops.mul(sq, n), 0), total)
    if running_mean is not None:
        running_mean.assign_value(_ops.add(_ops.mul(running_mean, 1 - momentum), _ops.mul(gmean, momentum)))
    if running_var is not None:
        unbiased = _ops.mul(gvar, _ops.div(total, _ops.sub(total, 1.0)))
        running_var.assign_value(_ops.add(_ops.mul(running_var, 1 - momentum), _ops.mul(unbiased, momentum)))
    return gmean, _ops.rsqrt(_ops.add(gvar, float(eps)))


# ---- random -------------------------------------------------------------------------------------------------
def bernoulli(input: Any, *, generator: Any = None) -> Tensor:  # noqa: A002
    """``bernoulli(input, *, generator=None)``: 1 with the probability of each element of ``input`` (in
    [0, 1]), 0 otherwise, in ``input``'s dtype."""
    x = _t("bernoulli", "input", input)
    p = x.asnumpy().astype(np.float64)
    if np.any((p < 0) | (p > 1)):
        raise ValueError("mint.bernoulli: input holds probabilities, every element must be in [0, 1]")
    u = _draw("bernoulli", tuple(x.shape), generator).random(tuple(x.shape))
    return Tensor((u < p).astype(np.dtype(x.dtype.np_dtype)), x.dtype)


def multinomial(input: Any, num_samples: int, replacement: bool = False, *,  # noqa: A002
                generator: Any = None) -> Tensor:
    """``multinomial(input, num_samples, replacement=False, *, generator=None)``: int64 class indices drawn
    from the (unnormalised) weights of each row of ``input`` (1-D or 2-D); without ``replacement`` each class
    at most once."""
    w = _t("multinomial", "input", input).asnumpy().astype(np.float64)
    if w.ndim not in (1, 2) or np.any(w < 0) or np.any(w.reshape(-1, w.shape[-1]).sum(-1) <= 0):
        raise ValueError("mint.multinomial: input must be 1-D or 2-D non-negative weights, each row with a "
                         "positive sum")
    rows = w.reshape(-1, w.shape[-1])
    if not replacement and num_samples > int((rows > 0).sum(-1).min()):
        raise ValueError(f"mint.multinomial: cannot draw {num_samples} samples without replacement from rows "
                         f"with fewer non-zero weights")
    gen = _draw("multinomial", (rows.shape[0], num_samples), generator)
    out = np.stack([gen.choice(r.size, num_samples, replace=bool(replacement), p=r / r.sum()) for r in rows])
    return Tensor(out.reshape(w.shape[:-1] + (num_samples,)).astype(np.int64))


def randint_like(input: Any, *args: Any, dtype: Any = None, device: Any = None, generator: Any = None,  # noqa: A002
                 **kwargs: Any) -> Tensor:
    """``randint_like(input, [low=0,] high, *, dtype=None)``: integers uniform on [low, high) of ``input``'s
    shape (and dtype unless ``dtype``)."""
    x = as_tensor(input)
    names = ("low", "high") if len(args) + len(kwargs) >= 2 else ("high",)
    values = dict(zip(names, args), **kwargs)
    low, high = values.get("low", 0), values.get("high")
    for arg, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"mint.randint_like: {arg} must be an int, got {v!r}")
    if low >= high:
        raise ValueError(f"mint.randint_like: low ({low}) must be less than high ({high})")
    dt = dtype_of(dtype or x.dtype)
    out = _draw("randint_like", tuple(x.shape), generator).integers(int(low), int(high), tuple(x.shape))
    return Tensor(out.astype(np.dtype(dt.np_dtype)), dt)


__all__ = ["addbmm", "addr_", "arcsin", "batch_norm_elemt", "batch_norm_gather_stats_with_counts",
           "batch_norm_stats", "bernoulli", "bitwise_not", "bmm", "cdist", "conv2d", "conv_tbc", "empty_like",
           "erfinv", "histc", "index_add", "isnan", "kthvalue", "multinomial", "nan_to_num", "norm", "npu_gelu",
           "randint_like", "sinc", "sqrt", "triangular_solve", "unique_consecutive", "vdot"]
