"""``mindspore.numpy`` counting, binning, searching and set functions: bincount, histogram (and its bin edges,
2-d and n-d forms), digitize, searchsorted, interp, unique, intersect1d and setdiff1d.

Bins are found by comparing every element with every edge (broadcast comparisons and sums), so the functions
trace in GRAPH_MODE; those whose output length depends on the values (bincount without ``length``, unique and
the set functions) need concrete values (PyNative), as MindSpore's need a dynamic-shape kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor
from ._utils import as_float, binary, promote, to_tensor
from .logic import in1d

__all__ = ["bincount", "histogram", "histogram_bin_edges", "histogram2d", "histogramdd", "digitize",
           "searchsorted", "interp", "unique", "intersect1d", "setdiff1d"]


def bincount(x: Any, weights: Any = None, minlength: int = 0, length: int | None = None) -> Tensor:
    """``mindspore.numpy.bincount``: how often each value 0..max(x) occurs (summing ``weights`` if given), as
    float32; ``length`` fixes the output length (needed in GRAPH_MODE)."""
    t = F.reshape(F.cast(to_tensor(x), "int32"), (-1,))
    if length is None:
        length = (int(F.amax(t, 0).item()) + 1 if t.shape[0] else 0)
        length = minlength if minlength > length else length
    hits = F.cast(F.equal(F.reshape(t, (-1, 1)), Tensor(np.arange(length, dtype=np.int32).reshape(1, -1))),
                  "float32")
    if weights is not None:
        w = F.cast(F.reshape(to_tensor(weights), (-1, 1)), "float32")
        hits = hits * w
    return F.sum(hits, 0)


def _range_of(t: Tensor, rng: Any) -> tuple[Tensor, Tensor]:
    if rng is not None:
        lo, hi = rng
        return to_tensor(float(lo)), to_tensor(float(hi))
    lo, hi = F.amin(t, tuple(range(t.ndim))), F.amax(t, tuple(range(t.ndim)))
    # An empty range widens to [lo - 0.5, hi + 0.5], as NumPy does.
    same = F.equal(lo, hi)
    return F.select(same, lo - 0.5, lo), F.select(same, hi + 0.5, hi)


def _edges(t: Tensor, bins: Any, rng: Any) -> Tensor:
    if isinstance(bins, (int, np.integer)):
        if bins < 1:
            raise ValueError(f"histogram: bins must be positive, got {bins}")
        lo, hi = _range_of(as_float(t), rng)
        frac = Tensor(np.linspace(0.0, 1.0, int(bins) + 1).astype(np.float32))
        return lo + (hi - lo) * frac
    e = to_tensor(bins)
    if e.ndim != 1 or e.shape[0] < 2:
        raise ValueError("histogram: bins must be an int or a 1-d array of at least two edges")
    return e


def _bin_index(v: Tensor, edges: Tensor) -> tuple[Tensor, Tensor]:
    """(bin index int32, inside mask) of every element of the 1-d ``v``: bins are half open but the last is
    closed."""
    v, e = promote(as_float(v), as_float(edges))
    n = e.shape[0] - 1
    inner = F.narrow(e, 0, 1, n - 1) if n > 1 else None
    vv = F.reshape(v, (-1, 1))
    idx = _count(F.greater_equal(vv, F.reshape(inner, (1, -1)))) if inner is not None else \
        F.zeros((v.shape[0],), "int32")
    inside = F.logical_and(F.greater_equal(v, e[0]), F.less_equal(v, e[n]))
    return idx, inside


def _counts(flat: Tensor, inside: Tensor, total: int, weights: Any) -> Tensor:
    onehot = F.cast(F.equal(F.reshape(flat, (-1, 1)), Tensor(np.arange(total, dtype=np.int32).reshape(1, -1))),
                    "float32")
    w = F.cast(inside, "float32")
    if weights is not None:
        w = w * F.cast(F.reshape(to_tensor(weights), (-1,)), "float32")
    return F.sum(onehot * F.reshape(w, (-1, 1)), 0)


def histogram(a: Any, bins: Any = 10, range: Any = None, weights: Any = None,  # noqa: A002 - NumPy's name
              density: bool = False) -> tuple[Tensor, Tensor]:
    """``mindspore.numpy.histogram``: (counts as float32, bin edges) of the flattened ``a``; ``bins`` is a
    count (edges spaced over ``range``, default min..max) or the edges themselves."""
    t = F.reshape(to_tensor(a), (-1,))
    edges = _edges(t, bins, range)
    idx, inside = _bin_index(t, edges)
    hist = _counts(idx, inside, edges.shape[0] - 1, weights)
    if density:
        widths = as_float(F.narrow(edges, 0, 1, edges.shape[0] - 1) - F.narrow(edges, 0, 0, edges.shape[0] - 1))
        hist = hist / F.sum(hist) / F.cast(widths, "float32")
    return hist, edges


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None,  # noqa: A002 - NumPy's name
                        weights: Any = None) -> Tensor:
    """``mindspore.numpy.histogram_bin_edges``: the bin edges :func:`histogram` would use."""
    return _edges(F.reshape(to_tensor(a), (-1,)), bins, range)


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, weights: Any = None,  # noqa: A002
                density: bool = False) -> tuple[Tensor, list[Tensor]]:
    """``mindspore.numpy.histogramdd``: (counts over a D-dimensional grid as float32, a list of the D edge
    arrays) of the (N, D) ``sample``."""
    s = to_tensor(sample)
    if s.ndim != 2:
        raise ValueError(f"histogramdd: sample must be (N, D), got shape {s.shape}")
    d = s.shape[1]
    per_bins = list(bins) if isinstance(bins, (list, tuple)) else [bins] * d
    ranges = list(range) if range is not None else [None] * d
    if len(per_bins) != d or len(ranges) != d:
        raise ValueError(f"histogramdd: give bins and range per dimension ({d})")
    edges, flat, inside, sizes = [], None, None, []
    for i in np.arange(d):
        col = F.squeeze(F.narrow(s, 1, int(i), 1), 1)
        e = as_float(_edges(col, per_bins[i], ranges[i]))
        idx, ok = _bin_index(col, e)
        edges.append(e)
        sizes.append(e.shape[0] - 1)
        flat = idx if flat is None else flat * (e.shape[0] - 1) + idx
        inside = ok if inside is None else F.logical_and(inside, ok)
    total = int(np.prod(sizes))
    hist = F.reshape(_counts(flat, inside, total, weights), tuple(sizes))
    if density:
        vol = None
        for k, e in enumerate(edges):
            w = F.narrow(e, 0, 1, sizes[k]) - F.narrow(e, 0, 0, sizes[k])
            shape = [1] * d
            shape[k] = sizes[k]
            w = F.reshape(w, tuple(shape))
            vol = w if vol is None else vol * w
        hist = hist / F.sum(hist) / vol
    return hist, edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, weights: Any = None,  # noqa: A002
                density: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """``mindspore.numpy.histogram2d``: (counts, x edges, y edges) of the points (x, y)."""
    a, b = promote(as_float(to_tensor(x)), as_float(to_tensor(y)))
    sample = F.stack([F.reshape(a, (-1,)), F.reshape(b, (-1,))], 1)
    hist, (ex, ey) = histogramdd(sample, bins, range, weights, density)
    return hist, ex, ey


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Tensor:
    """``mindspore.numpy.searchsorted``: where each ``v`` goes in the sorted 1-d ``a`` to keep it sorted
    (``side`` 'left': before equal elements, 'right': after), int32."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    s, x = binary(a, v)
    if sorter is not None:
        s = F.gather(s, F.cast(to_tensor(sorter), "int32"), 0)
    if s.ndim != 1:
        raise ValueError("searchsorted: a must be 1-d")
    xs = F.reshape(x, x.shape + (1,))
    cmp = F.less(s, xs) if side == "left" else F.less_equal(s, xs)
    return _nan_last(x, _count(cmp), s.shape[0])


def _count(cmp: Tensor) -> Tensor:
    """How many of the last axis hold, int32 (MindSpore's index dtype here)."""
    return F.cast(F.sum(F.cast(cmp, "int32"), -1), "int32")


def _nan_last(x: Tensor, counts: Tensor, n: int) -> Tensor:
    """``counts`` with ``n`` where ``x`` is NaN: no comparison with NaN holds, so a count alone would put a NaN
    first, where NumPy (and MindSpore) put it after every element of a sequence sorted in increasing order."""
    if not x.dtype.is_float:
        return counts
    return F.select(F.isnan(x), F.full_like(counts, n), counts)


def digitize(x: Any, bins: Any, right: bool = False) -> Tensor:
    """``mindspore.numpy.digitize``: the index of the bin of ``bins`` (increasing or decreasing) each ``x``
    falls in, int32."""
    t, b = binary(x, bins)
    if b.ndim != 1:
        raise ValueError("digitize: bins must be 1-d")
    xs = F.reshape(t, t.shape + (1,))
    rising = _nan_last(t, _count(F.less(b, xs) if right else F.less_equal(b, xs)), b.shape[0])
    if b.shape[0] < 2:
        return rising
    falling = _count(F.greater_equal(b, xs) if right else F.greater(b, xs))
    # Decreasing bins are told apart by their end values, in the graph (traced bins have no values yet).
    decreasing = F.broadcast_to(F.less(b[b.shape[0] - 1], b[0]), rising.shape)
    return F.select(decreasing, falling, rising)


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None) -> Tensor:
    """``mindspore.numpy.interp``: the piecewise-linear interpolant of (xp, fp) at ``x`` (float32); outside
    the range ``left``/``right`` (default fp's end values)."""
    xs, px, pf = (as_float(to_tensor(v)) for v in (x, xp, fp))
    xs, px, pf = promote(xs, px, pf)
    n = px.shape[0]
    if n < 1 or pf.shape != px.shape:
        raise ValueError("interp: xp and fp must be 1-d of one length")
    if n == 1:
        body = F.broadcast_to(pf, xs.shape)
    else:
        hi = F.clip(searchsorted(px, xs, "right"), 1, n - 1)
        lo = hi - 1
        x0, x1 = F.gather(px, lo, 0), F.gather(px, hi, 0)
        y0, y1 = F.gather(pf, lo, 0), F.gather(pf, hi, 0)
        body = y0 + (xs - x0) * (y1 - y0) / (x1 - x0)
        body = F.select(F.equal(xs, x1), y1, body)
    lv = pf[0] if left is None else to_tensor(float(left), pf.dtype)
    rv = pf[n - 1] if right is None else to_tensor(float(right), pf.dtype)
    out = F.select(F.less(xs, F.broadcast_to(px[0], xs.shape)), F.broadcast_to(lv, xs.shape), body)
    return F.select(F.greater(xs, F.broadcast_to(px[n - 1], xs.shape)), F.broadcast_to(rv, xs.shape), out)


def unique(x: Any, return_inverse: bool = False):
    """``mindspore.numpy.unique``: the unique elements of the flattened ``x`` in the order they first occur
    (MindSpore's CPU result; sorted input gives them sorted), with ``return_inverse`` also each element's index
    in them (int32)."""
    t = F.reshape(to_tensor(x), (-1,))
    vals, inv = F.unique(t)
    return (vals, F.cast(inv, "int32")) if return_inverse else vals


def _sorted_unique(x: Any) -> Tensor:
    return F.sort(unique(x))[0]


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False) -> Tensor:
    """``mindspore.numpy.intersect1d``: the sorted unique values found in both."""
    if return_indices:
        raise ValueError("intersect1d: return_indices=True is not supported; use searchsorted on the result")
    a, b = binary(_sorted_unique(ar1), ar2)
    return F.masked_select(a, in1d(a, b))


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Tensor:
    """``mindspore.numpy.setdiff1d``: the sorted unique values of ``ar1`` not in ``ar2``."""
    a, b = binary(_sorted_unique(ar1), ar2)
    return F.masked_select(a, in1d(a, b, invert=True))
