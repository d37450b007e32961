"""``Tensor.__getitem__``: NumPy indexing traced as primitives, so an indexed graph compiles to cached kernels.

* ints, slices (any step, negative too), ``...`` and ``None`` become one StridedSlice (begin/end/strides
  and its five masks), exactly Python's clamping rules;
* one integer-array index (a list, NumPy array or int Tensor; negative entries count from the end) is a
  Gather along its axis after the basic part; its dims replace that axis, as in NumPy;
* several integer-array indices are broadcast together and read with one GatherNd (the indexed axes moved to
  the front first); as in NumPy (and MindSpore), an int beside an array index is one too and a bool mask is
  its nonzero positions, and the broadcast dims take the place of the indexed axes when those are adjacent in
  the key, else they come first (``x[0, :, [1, 2]]`` has shape ``(2, x.shape[1])``). An entry out of range
  raises (ops/bounds.py);
* one bool mask (a list, NumPy array or bool Tensor) selects where it is True. Its values decide the output
  shape, and shapes are static in a compiled graph, so they must be known when the graph is traced: a mask
  computed inside ``construct`` raises an IndexError that says so (PyNative mode has no such limit).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor
from ..primitive import apply


def _is_advanced(k: Any) -> bool:
    if isinstance(k, Tensor):
        return True
    if isinstance(k, np.ndarray):
        return True
    return isinstance(k, (list, tuple))


def _basic(x: Tensor, key: tuple) -> Tensor:
    """Apply ints, slices, Ellipsis and None with one StridedSlice (or nothing for a no-op key)."""
    if all(isinstance(k, slice) and k == slice(None) for k in key) or key == (Ellipsis,):
        return x
    begin, end, strides = [], [], []
    masks = dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0)
    for i, k in enumerate(key):
        bit = 1 << i
        if k is Ellipsis:
            masks["ellipsis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif k is None:
            masks["new_axis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(k, slice):
            step = 1 if k.step is None else int(k.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            begin.append(0 if k.start is None else int(k.start))
            end.append(0 if k.stop is None else int(k.stop))
            strides.append(step)
            if k.start is None:
                masks["begin_mask"] |= bit
            if k.stop is None:
                masks["end_mask"] |= bit
        else:
            i_k = int(k)
            begin.append(i_k), end.append(i_k + 1), strides.append(1)
            masks["shrink_axis_mask"] |= bit
    return apply("StridedSlice", {**masks, "begin": begin, "end": end, "strides": strides}, [x])


def _out_axis(x_rank: int, key: tuple, pos: int) -> int:
    """The output axis where the dim indexed by key[pos] (kept as a full slice) lands after _basic."""
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    axis = 0
    for k in key[:pos]:
        if k is Ellipsis:
            axis += x_rank - consumed
        elif k is None or isinstance(k, slice):
            axis += 1
    return axis


def _mask_values(mask: Any) -> np.ndarray:
    """A bool mask's values, which must exist at trace time (see the module docstring)."""
    if isinstance(mask, Tensor):
        if mask._data is None:
            raise IndexError(
                "boolean-mask indexing needs the mask's values to fix the result's shape, but this mask is "
                "computed inside a GRAPH_MODE construct (its values exist only when the graph runs). Use a "
                "constant mask (a NumPy array or a Tensor created outside construct), ops.where (which keeps the "
                "shape), or PYNATIVE_MODE.")
        return mask.asnumpy()
    return np.asarray(mask)


def _int_index(idx: Any, n: int) -> Tensor:
    """An integer index as a Tensor with negative entries counted from the end (``n`` = axis size). A Tensor
    is returned as it is: its values may only exist when the graph runs, and the Gather it feeds
    (``bounds="raise"``) counts negatives from the end and raises an IndexError for one out of range."""
    if isinstance(idx, Tensor):
        if idx.dtype.name not in ("int32", "int64"):
            raise IndexError(f"tensor indices must be int32, int64 or bool, got {idx.dtype}: cast the index tensor "
                             "(t.astype(ms.int64)) or use a bool mask")
        return idx
    arr = np.asarray(idx)
    if arr.dtype.kind not in "iu":
        raise IndexError(f"arrays used as indices must be of integer or boolean type, got {arr.dtype}")
    if arr.size and (arr.max() >= n or arr.min() < -n):
        raise IndexError(f"index {int(arr.max() if arr.max() >= n else arr.min())} is out of bounds for an "
                         f"axis of size {n}")
    return Tensor(np.where(arr < 0, arr + n, arr).astype(np.int64))


def _is_mask(idx: Any) -> bool:
    return (isinstance(idx, Tensor) and idx.dtype.name == "bool") or (
        not isinstance(idx, Tensor) and np.asarray(idx).dtype == np.bool_)


def _wrapped(idx: Any, n: int, at: int) -> Tensor:
    """An integer index as int64 entries in ``[0, n)``: a constant wrapped and checked on the host; a Tensor
    through a Gather of ``0..n-1`` (``bounds="raise"``), which counts ``[-n, 0)`` from the end and raises for
    an entry outside ``[-n, n)`` when it runs, naming the index at position ``at`` of the subscript (the
    ``subscript`` attribute: ops/indexing.py words the error as the subscript's, not the Gather's)."""
    t = _int_index(idx, n)
    if t is not idx:
        return t
    return apply("Gather", {"axis": 0, "bounds": "raise", "subscript": at}, [Tensor(np.arange(n, dtype=np.int64)), t])


def _several(x: Tensor, key: tuple, adv: list[int]) -> Tensor:
    """``x[key]`` with several integer-array indices (positions ``adv`` of ``key``): NumPy's rule."""
    basic_key = tuple(slice(None) if i in adv else k for i, k in enumerate(key))
    y = _basic(x, basic_key)
    axes = [_out_axis(x.ndim, basic_key, p) for p in adv]
    idxs = [_wrapped(key[p], y.shape[a], p) for p, a in zip(adv, axes)]
    shape = tuple(np.broadcast_shapes(*[tuple(t.shape) for t in idxs]))
    cols = [apply("ExpandDims", {"axis": len(shape)}, [apply("BroadcastTo", {"shape": shape}, [t])]) for t in idxs]
    rest = [a for a in range(len(y.shape)) if a not in axes]
    perm = axes + rest
    if perm != list(range(len(perm))):
        y = apply("Transpose", {"perm": tuple(perm)}, [y])
    out = apply("GatherNd", {"bounds": "raise"}, [y, apply("Concat", {"axis": len(shape)}, cols)])
    at = axes[0]
    if adv != list(range(adv[0], adv[-1] + 1)) or at == 0:  # separated (or already first): broadcast dims first
        return out
    nb = len(shape)  # adjacent: the broadcast dims go where the first indexed axis was
    order = list(range(nb, nb + at)) + list(range(nb)) + list(range(nb + at, nb + len(rest)))
    return apply("Transpose", {"perm": tuple(order)}, [out])


def getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]`` (see the module docstring for what ``key`` may hold)."""
    key = key if isinstance(key, tuple) else (key,)
    adv = [i for i, k in enumerate(key) if _is_advanced(k)]
    if sum(k is Ellipsis for k in key) > 1:  # `is`: tuple.count would call Tensor.__eq__
        raise IndexError("an index can only have a single ellipsis ('...')")
    if not adv:
        return _basic(x, key)
    ints = [i for i, k in enumerate(key) if isinstance(k, (int, np.integer)) and not isinstance(k, bool)]
    if len(adv) > 1 or ints:
        # NumPy's rule: beside an array index, an int is an index array too, and a bool mask is its nonzero
        # positions (one index array per mask dim).
        parts: list = []
        for i, k in enumerate(key):
            if i in adv and _is_mask(k):
                parts.extend(np.nonzero(_mask_values(k)))
            else:
                parts.append(np.asarray(k) if i in ints else k)
        key = tuple(parts)
        return _several(x, key, [i for i, k in enumerate(key) if _is_advanced(k)])
    pos = adv[0]
    idx = key[pos]
    mask = _mask_values(idx) if _is_mask(idx) else None
    span = mask.ndim if mask is not None else 1  # how many input dims this index consumes
    # Basic part first, keeping the advanced dims whole (Ellipsis accounting sees `span` full slices).
    basic_key = key[:pos] + (slice(None),) * span + key[pos + 1:]
    y = _basic(x, basic_key)
    axis = _out_axis(x.ndim, basic_key, pos)
    if mask is None:
        return apply("Gather", {"axis": axis, "bounds": "raise"}, [y, _int_index(idx, y.shape[axis])])
    dims = y.shape[axis:axis + span]
    if tuple(mask.shape) != tuple(dims):
        raise IndexError(f"boolean index of shape {mask.shape} does not match the indexed dims {tuple(dims)}")
    if span != 1:  # merge the masked dims into one, then gather the flat positions of the True entries
        y = apply("Reshape", {"shape": (*y.shape[:axis], int(np.prod(dims)), *y.shape[axis + span:])}, [y])
    flat = np.flatnonzero(mask.reshape(-1)).astype(np.int64)
    return apply("Gather", {"axis": axis}, [y, Tensor(flat)])
