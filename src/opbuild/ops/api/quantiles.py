"""``ops.quantile`` and ``ops.nanquantile``: sort along the axis, then interpolate linearly between the two
order statistics around ``q * (n - 1)`` (the definition NumPy's and PyTorch's default ``linear`` method use).
``quantile`` gives NaN for a slice that holds a NaN; ``nanquantile`` counts each slice's numbers (the sort puts
NaN last) and gives NaN only for a slice of NaNs. Composed of registered primitives, so it traces in GRAPH_MODE;
``q`` must be known when the call is traced (a float or a constant Tensor)."""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .aliases import any as _any
from .array import expand_dims, gather, squeeze
from .math import isnan, logical_not, where
from .math_more import sort
from .more_math import gather_elements, moveaxis


def _levels(name: str, q) -> tuple[np.ndarray, bool]:
    """``q`` as a float64 vector and whether it was a scalar; ValueError outside [0, 1]."""
    if isinstance(q, bool):
        raise TypeError(f"{name}: q must be a float or a Tensor, got bool")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise ValueError(f"{name}: q must be a scalar or a 1-D Tensor, got shape {tuple(q.shape)}")
        levels, scalar = q.asnumpy().astype(np.float64).reshape(-1), q.ndim == 0
    elif isinstance(q, (int, float)):
        levels, scalar = np.array([float(q)]), True
    else:
        raise TypeError(f"{name}: q must be a float or a Tensor, got {type(q).__name__}")
    if not np.all((levels >= 0) & (levels <= 1)):
        raise ValueError(f"{name}: q must lie in [0, 1], got {levels.tolist()}")
    return levels, scalar


def quantile(name: str, input, q, axis: int | None, keepdims: bool, ignore_nan: bool) -> Tensor:  # noqa: A002
    """The ``q``-th quantiles of ``input`` along ``axis`` (module docstring); shape ``(len(q), *reduced)`` for a
    1-D ``q``, ``reduced`` for a scalar one."""
    x = as_tensor(input)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"{name}: input must be float32 or float64, got {x.dtype}")
    if not isinstance(keepdims, bool):
        raise TypeError(f"{name}: keepdims must be a bool, got {keepdims!r}")
    levels, scalar = _levels(name, q)
    rank = x.ndim
    if axis is None:
        x, ax = apply("Reshape", {"shape": (-1,)}, [x]), 0
    elif isinstance(axis, bool) or not isinstance(axis, int) or not -max(rank, 1) <= axis < max(rank, 1):
        raise ValueError(f"{name}: axis must be None or an int in [{-max(rank, 1)}, {max(rank, 1)}), got {axis!r}")
    else:
        ax = axis % max(rank, 1)
        if rank == 0:
            x = apply("Reshape", {"shape": (1,)}, [x])
    last = moveaxis(x, ax, -1)
    n = last.shape[-1]
    if n == 0:
        raise ValueError(f"{name}: cannot take quantiles of an empty axis")
    values = sort(last, -1)[0]
    frac_dtype = x.dtype.np_dtype
    if not ignore_nan:
        pos = levels * (n - 1)
        lo = np.floor(pos).astype(np.int32)
        hi = np.minimum(lo + 1, n - 1).astype(np.int32)
        v_lo, v_hi = gather(values, Tensor(lo), -1), gather(values, Tensor(hi), -1)
        out = v_lo + (v_hi - v_lo) * Tensor((pos - lo).astype(frac_dtype))
        nan_slice = expand_dims(_any(isnan(last), -1), -1)
    else:
        count = apply("ReduceSum", {"axis": (-1,), "keep_dims": True},
                      [apply("Cast", {"dtype": x.dtype}, [logical_not(isnan(last))])])
        pos = apply("Maximum", {}, [(count - 1) * Tensor(levels.astype(frac_dtype)), Tensor(np.zeros((), frac_dtype))])
        lo_f = apply("Floor", {}, [pos])
        lo = apply("Cast", {"dtype": "int32"}, [lo_f])
        hi_f = apply("Minimum", {}, [lo_f + 1, apply("Maximum", {}, [count - 1, Tensor(np.zeros((), frac_dtype))])])
        hi = apply("Cast", {"dtype": "int32"}, [hi_f])
        v_lo, v_hi = gather_elements(values, -1, lo), gather_elements(values, -1, hi)
        out = v_lo + (v_hi - v_lo) * (pos - lo_f)
        nan_slice = count == 0
    out = where(nan_slice, Tensor(np.array(np.nan, frac_dtype)), out)
    out = moveaxis(out, -1, 0)  # (len(q), *reduced)
    if keepdims:
        out = apply("Reshape", {"shape": (len(levels),) + (1,) * rank}, [out]) if axis is None \
            else expand_dims(out, ax + 1)
    return squeeze(out, 0) if scalar else out
