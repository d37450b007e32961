"""``mindspore.numpy`` array creation: tensors from Python data, filled tensors, ranges, grids and matrices.

Shapes, counts and bounds are Python values, so the results are constants of a trace (in GRAPH_MODE too);
functions that take a tensor (``*_like``, ``diag``, ``tril``, ``linspace`` over tensor bounds) compose
opbuild's ops. Defaults are MindSpore's: float32 for filled tensors, int32/float32 for Python numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops as F
from ..core.dtypes import DType, dtype_of
from ..core.tensor import Tensor
from ._utils import as_float, check_dtype, full_of, has_tensor, norm_axis, shape_tuple, to_tensor

__all__ = ["array", "asarray", "asfarray", "ones", "zeros", "empty", "full", "ones_like", "zeros_like",
           "empty_like", "full_like", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri",
           "tril", "triu", "diag", "diagflat", "diag_indices", "meshgrid", "indices", "ix_", "vander",
           "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from", "mgrid", "ogrid"]

_F32 = dtype_of("float32")
_I32 = dtype_of("int32")


def array(object: Any, dtype: Any = None, copy: bool = True, ndmin: int = 0) -> Tensor:  # noqa: A002 - NumPy's name
    """``mindspore.numpy.array``: a tensor of ``object`` (Python data: ints int32, floats float32); ``ndmin``
    prepends length-1 axes. Tensors are returned as they are (opbuild's tensors are values: no copy needed)."""
    t = to_tensor(object, dtype)
    if not isinstance(ndmin, int) or ndmin < 0:
        raise ValueError(f"ndmin must be a non-negative int, got {ndmin!r}")
    if t.ndim < ndmin:
        t = F.reshape(t, (1,) * (ndmin - t.ndim) + t.shape)
    return t


def asarray(a: Any, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.asarray``: ``a`` as a tensor (the tensor itself when it already is one)."""
    return to_tensor(a, dtype)


def asfarray(a: Any, dtype: Any = "float32") -> Tensor:
    """``mindspore.numpy.asfarray``: ``a`` as a floating tensor (an integer ``dtype`` gives float32)."""
    dt = check_dtype(dtype)
    if dt is None or not dt.is_float:
        dt = _F32
    return to_tensor(a, dt)


def _filled(shape: Any, value: Any, dtype: Any, default: DType) -> Tensor:
    return full_of(shape_tuple(shape), value, check_dtype(dtype) or default)


def ones(shape: Any, dtype: Any = "float32") -> Tensor:
    """``mindspore.numpy.ones``: a tensor of ones (float32 by default)."""
    return _filled(shape, 1, dtype, _F32)


def zeros(shape: Any, dtype: Any = "float32") -> Tensor:
    """``mindspore.numpy.zeros``: a tensor of zeros (float32 by default)."""
    return _filled(shape, 0, dtype, _F32)


def empty(shape: Any, dtype: Any = "float32") -> Tensor:
    """``mindspore.numpy.empty``: MindSpore's "uninitialised" tensor holds zeros; so does opbuild's."""
    return _filled(shape, 0, dtype, _F32)


def _scalar_dtype(value: Any) -> DType:
    if isinstance(value, (bool, np.bool_)):
        return dtype_of("bool")
    if isinstance(value, (int, np.integer)):
        return _I32
    return _F32


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.full``: ``fill_value`` (a number, or an array-like broadcast to ``shape``) repeated;
    the dtype is ``dtype`` or the fill value's (int32, float32 or bool for Python numbers)."""
    shape = shape_tuple(shape)
    dt = check_dtype(dtype)
    if isinstance(fill_value, (bool, int, float, np.generic)):
        return full_of(shape, fill_value, dt or _scalar_dtype(fill_value))
    value = to_tensor(fill_value, dt)
    return F.broadcast_to(value, shape)


def _like_shape(a: Any, shape: Any) -> tuple[tuple[int, ...], DType]:
    t = to_tensor(a)
    return (shape_tuple(shape) if shape is not None else t.shape), t.dtype


def ones_like(a: Any, dtype: Any = None, shape: Any = None) -> Tensor:
    """``mindspore.numpy.ones_like``: ones of ``a``'s shape and dtype (or the given ones)."""
    sh, dt = _like_shape(a, shape)
    return full_of(sh, 1, check_dtype(dtype) or dt)


def zeros_like(a: Any, dtype: Any = None, shape: Any = None) -> Tensor:
    """``mindspore.numpy.zeros_like``: zeros of ``a``'s shape and dtype (or the given ones)."""
    sh, dt = _like_shape(a, shape)
    return full_of(sh, 0, check_dtype(dtype) or dt)


def empty_like(prototype: Any, dtype: Any = None, shape: Any = None) -> Tensor:
    """``mindspore.numpy.empty_like``: zeros, as MindSpore's are."""
    return zeros_like(prototype, dtype, shape)


def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Tensor:
    """``mindspore.numpy.full_like``: ``fill_value`` in ``a``'s shape and dtype (or the given ones)."""
    sh, dt = _like_shape(a, shape)
    return full(sh, fill_value, check_dtype(dtype) or dt)


def _number(x: Any, name: str) -> float | int:
    if isinstance(x, Tensor):
        if x.size != 1:
            raise TypeError(f"{name} must be a number, got a tensor of shape {x.shape}")
        x = x.item()
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}")
    return x


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.arange``: evenly spaced values in [start, stop); int32 when every bound is an int,
    else float32 (or ``dtype``)."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    start, stop, step = (_number(v, n) for v, n in ((start, "start"), (stop, "stop"), (step, "step")))
    if step == 0:
        raise ZeroDivisionError("arange: step must not be 0")
    integral = all(isinstance(v, (int, np.integer)) for v in (start, stop, step))
    dt = check_dtype(dtype) or (_I32 if integral else _F32)
    values = np.arange(start, stop, step, dtype=np.int64 if integral else np.float64)
    return Tensor(values.astype(dt.np_dtype))


def _ramp(start: Any, stop: Any, num: int, endpoint: bool, axis: int) -> tuple[Tensor, Any]:
    """(values, step) of linspace: start + i * (stop - start) / div along a new axis ``axis``, float32."""
    if not isinstance(num, (int, np.integer)) or num < 0:
        raise ValueError(f"num must be a non-negative int, got {num!r}")
    div = (num - 1) if endpoint else num
    if not has_tensor(start) and not has_tensor(stop) and np.ndim(start) == 0 and np.ndim(stop) == 0:
        lo, hi = float(start), float(stop)
        step = (hi - lo) / div if div > 0 else float("nan")
        vals = lo + np.arange(num, dtype=np.float64) * (step if div > 0 else 0.0)
        if endpoint and num > 1:
            vals[-1] = hi
        return Tensor(vals.astype(np.float32)), Tensor(np.float32(step))
    lo, hi = as_float(to_tensor(start)), as_float(to_tensor(stop))
    shape = tuple(np.broadcast_shapes(lo.shape, hi.shape))
    lo = lo if lo.shape == shape else F.broadcast_to(lo, shape)
    hi = hi if hi.shape == shape else F.broadcast_to(hi, shape)
    idx = Tensor(np.arange(num, dtype=np.float32).reshape((num,) + (1,) * lo.ndim))
    delta = hi - lo
    step = delta / float(div) if div > 0 else delta * float("nan")
    vals = F.expand_dims(lo, 0) + idx * F.expand_dims(step, 0)
    ax = norm_axis(axis, vals.ndim)
    if ax != 0:
        vals = F.moveaxis(vals, 0, ax)
    return vals, step


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype: Any = None,
             axis: int = 0):
    """``mindspore.numpy.linspace``: ``num`` evenly spaced float32 values from ``start`` to ``stop``
    (``retstep=True`` also returns the step, a 0-d tensor)."""
    vals, step = _ramp(start, stop, num, endpoint, axis)
    dt = check_dtype(dtype)
    if dt is not None and vals.dtype != dt:
        vals = F.cast(vals, dt)
    return (vals, step) if retstep else vals


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10.0, dtype: Any = None,
             axis: int = 0) -> Tensor:
    """``mindspore.numpy.logspace``: ``base ** linspace(start, stop, num)``."""
    vals, _ = _ramp(start, stop, num, endpoint, axis)
    out = F.pow(Tensor(np.float32(base)), vals)
    dt = check_dtype(dtype)
    return out if dt is None else F.cast(out, dt)


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Tensor:
    """``mindspore.numpy.geomspace``: ``num`` values from ``start`` to ``stop`` in geometric progression."""
    lo, hi = as_float(to_tensor(start)), as_float(to_tensor(stop))
    vals, _ = _ramp(F.log(lo), F.log(hi), num, endpoint, axis)
    out = F.exp(vals)
    dt = check_dtype(dtype)
    return out if dt is None else F.cast(out, dt)


def _count(n: Any, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"{name} must be a non-negative int, got {n!r}")
    return int(n)


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = "float32") -> Tensor:  # noqa: N803 - NumPy's names
    """``mindspore.numpy.eye``: ones on diagonal ``k`` of an N x M matrix."""
    n = _count(N, "N")
    m = n if M is None else _count(M, "M")
    return Tensor(np.eye(n, m, k).astype((check_dtype(dtype) or _F32).np_dtype))


def identity(n: int, dtype: Any = "float32") -> Tensor:
    """``mindspore.numpy.identity``: the n x n identity."""
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = "float32") -> Tensor:  # noqa: N803 - NumPy's names
    """``mindspore.numpy.tri``: ones at and below diagonal ``k``."""
    n = _count(N, "N")
    m = n if M is None else _count(M, "M")
    return Tensor(np.tri(n, m, k).astype((check_dtype(dtype) or _F32).np_dtype))


def _band(m: Any, k: int, lower: bool) -> Tensor:
    t = to_tensor(m)
    if t.ndim < 1:
        raise ValueError("tril/triu need a tensor of at least 1 dimension")
    if t.ndim == 1:
        t = F.broadcast_to(F.expand_dims(t, 0), (t.shape[0], t.shape[0]))
    rows, cols = t.shape[-2:]
    keep = np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1, dtype=bool)
    return F.select(F.broadcast_to(Tensor(keep), t.shape), t, F.zeros_like(t))


def tril(m: Any, k: int = 0) -> Tensor:
    """``mindspore.numpy.tril``: ``m`` with the elements above diagonal ``k`` zeroed (last two axes)."""
    return _band(m, k, True)


def triu(m: Any, k: int = 0) -> Tensor:
    """``mindspore.numpy.triu``: ``m`` with the elements below diagonal ``k`` zeroed (last two axes)."""
    return _band(m, k, False)


def diag(v: Any, k: int = 0) -> Tensor:
    """``mindspore.numpy.diag``: the ``k``-th diagonal of a 2-d tensor, or a 2-d tensor with the 1-d ``v`` on
    diagonal ``k``."""
    t = to_tensor(v)
    if t.ndim == 2:
        return F.diagonal(t, k, 0, 1)
    if t.ndim != 1:
        raise ValueError(f"diag needs a 1-d or 2-d tensor, got {t.ndim}-d")
    n = t.shape[0] + abs(k)
    # Each output position takes v[i] on the diagonal or an appended zero: one gather, traceable.
    idx = np.full((n, n), t.shape[0], dtype=np.int32)
    r = np.arange(t.shape[0])
    idx[r + max(-k, 0), r + max(k, 0)] = r
    ext = F.concat([t, F.zeros((1,), t.dtype)], 0)
    return F.gather(ext, Tensor(idx), 0)


def diagflat(v: Any, k: int = 0) -> Tensor:
    """``mindspore.numpy.diagflat``: :func:`diag` of ``v`` flattened."""
    t = to_tensor(v)
    return diag(F.reshape(t, (-1,)), k)


def diag_indices(n: int, ndim: int = 2) -> tuple[Tensor, ...]:
    """``mindspore.numpy.diag_indices``: ``ndim`` copies of ``arange(n)`` (int32)."""
    idx = Tensor(np.arange(_count(n, "n"), dtype=np.int32))
    return tuple(idx for _ in range(_count(ndim, "ndim")))


def meshgrid(*xi: Any, sparse: bool = False, indexing: str = "xy") -> list[Tensor]:
    """``mindspore.numpy.meshgrid``: coordinate tensors from 1-d coordinate vectors (``indexing`` 'xy' or 'ij';
    ``sparse`` keeps length-1 axes instead of broadcasting)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    ts = [F.reshape(to_tensor(x), (-1,)) for x in xi]
    nd = len(ts)
    shape = [t.shape[0] for t in ts]
    if indexing == "xy" and nd > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, t in enumerate(ts):
        pos = i
        if indexing == "xy" and nd > 1 and i < 2:
            pos = 1 - i
        s = [1] * nd
        s[pos] = t.shape[0]
        r = F.reshape(t, tuple(s))
        out.append(r if sparse else F.broadcast_to(r, tuple(shape)))
    return out


def indices(dimensions: Any, dtype: Any = "int32", sparse: bool = False) -> list[Tensor]:
    """``mindspore.numpy.indices``: the index grid of a shape, one tensor per axis (a list, as MindSpore's)."""
    dims = shape_tuple(dimensions)
    dt = check_dtype(dtype) or _I32
    return meshgrid(*[Tensor(np.arange(d).astype(dt.np_dtype)) for d in dims], sparse=sparse, indexing="ij")


def ix_(*args: Any) -> tuple[Tensor, ...]:
    """``mindspore.numpy.ix_``: 1-d sequences reshaped so that they index an open mesh."""
    ts = [to_tensor(a) for a in args]
    out = []
    for i, t in enumerate(ts):
        if t.ndim != 1:
            raise ValueError("ix_: every argument must be 1-d")
        shape = [1] * len(ts)
        shape[i] = t.shape[0]
        out.append(F.reshape(t, tuple(shape)))
    return tuple(out)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803 - NumPy's name
    """``mindspore.numpy.vander``: the Vandermonde matrix of the 1-d ``x`` (powers decreasing by default)."""
    t = to_tensor(x)
    if t.ndim != 1:
        raise ValueError(f"vander needs a 1-d tensor, got {t.ndim}-d")
    n = t.shape[0] if N is None else _count(N, "N")
    powers = np.arange(n) if increasing else np.arange(n)[::-1]
    cols = [F.ones_like(t) if p == 0 else (t if p == 1 else F.pow(t, Tensor(np.asarray(p).astype(t.dtype.np_dtype))))
            for p in powers]
    return F.stack(cols, 1)


def _tri_idx(n: int, k: int, m: int | None, lower: bool) -> tuple[Tensor, Tensor]:
    n = _count(n, "n")
    m = n if m is None else _count(m, "m")
    rows, cols = np.tril_indices(n, k, m) if lower else np.triu_indices(n, k, m)
    return Tensor(rows.astype(np.int32)), Tensor(cols.astype(np.int32))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Tensor, Tensor]:
    """``mindspore.numpy.tril_indices``: (rows, cols) int32 of the lower triangle."""
    return _tri_idx(n, k, m, True)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Tensor, Tensor]:
    """``mindspore.numpy.triu_indices``: (rows, cols) int32 of the upper triangle."""
    return _tri_idx(n, k, m, False)


def _square_of(arr: Any) -> tuple[int, int]:
    t = to_tensor(arr)
    if t.ndim != 2:
        raise ValueError(f"needs a 2-d tensor, got {t.ndim}-d")
    return t.shape


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Tensor, Tensor]:
    """``mindspore.numpy.tril_indices_from``: :func:`tril_indices` for the shape of the 2-d ``arr``."""
    n, m = _square_of(arr)
    return _tri_idx(n, k, m, True)


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Tensor, Tensor]:
    """``mindspore.numpy.triu_indices_from``: :func:`triu_indices` for the shape of the 2-d ``arr``."""
    n, m = _square_of(arr)
    return _tri_idx(n, k, m, False)


class _Grid:
    """``mgrid[...]``/``ogrid[...]``: slices to coordinate grids (a complex step means a number of points)."""

    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse

    @staticmethod
    def _axis(s: slice) -> Tensor:
        start = 0 if s.start is None else s.start
        step = 1 if s.step is None else s.step
        if isinstance(step, complex):
            return linspace(start, s.stop, int(abs(step)))
        return arange(start, s.stop, step)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._axis(key)
        axes = [self._axis(s) for s in key]
        grids = meshgrid(*axes, sparse=self.sparse, indexing="ij")
        return grids if self.sparse else F.stack(grids, 0)


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)
