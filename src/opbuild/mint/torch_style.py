"""The ``mint`` functions whose MindSpore 2.10 signature differs from the ``ops`` function of the same name only
in torch's spelling (``dim``/``keepdim`` for ``axis``/``keep_dims``, a keyword-only ``dtype``, ``alpha`` on
``add``/``sub``) or in torch's overloads (``max(input)``, ``max(input, dim)``, ``max(input, other)``): each is
written over the ``ops`` function, with MindSpore's ``mint`` parameter names and defaults."""

from __future__ import annotations

import builtins
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops as _ops
from ..core.tensor import Tensor, as_tensor


def _tensor(name: str, arg: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"mint.{name}: {arg} must be a Tensor, got {type(x).__name__}")
    return x


def _dim(name: str, dim: Any, allow_none: bool = True) -> Any:
    if dim is None and allow_none:
        return None
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        return int(dim)
    if isinstance(dim, Sequence) and builtins.all(isinstance(d, numbers.Integral) and not isinstance(d, bool)
                                                  for d in dim):
        return tuple(int(d) for d in dim)
    raise TypeError(f"mint.{name}: dim must be {'None, ' if allow_none else ''}an int or a tuple of ints, "
                    f"got {dim!r}")


def _cast(x: Tensor, dtype: Any) -> Tensor:
    return x if dtype is None else _ops.cast(x, dtype)


# ---- reductions ---------------------------------------------------------------------------------------------
def sum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001, A002
    """``mint.sum(input, dim=None, keepdim=False, *, dtype=None)``: the sum over ``dim`` (None: every axis)."""
    return _ops.sum(_tensor("sum", "input", input), _dim("sum", dim), bool(keepdim), dtype=dtype)


def mean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``mint.mean(input, dim=None, keepdim=False, *, dtype=None)``: the mean over ``dim``."""
    x = _cast(_tensor("mean", "input", input), dtype)
    return _ops.mean(x, _dim("mean", dim), bool(keepdim))


def prod(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``mint.prod(input, dim=None, keepdim=False, *, dtype=None)``: the product over ``dim``."""
    x = _cast(_tensor("prod", "input", input), dtype)
    return _ops.prod(x, _dim("prod", dim), bool(keepdim))


def all(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001, A002
    """``mint.all(input, dim=None, keepdim=False)``: whether every element over ``dim`` is true."""
    return _ops.all(_tensor("all", "input", input), _dim("all", dim), bool(keepdim))


def any(input: Any, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001, A002
    """``mint.any(input, dim=None, keepdim=False)``: whether some element over ``dim`` is true."""
    return _ops.any(_tensor("any", "input", input), _dim("any", dim), bool(keepdim))


def amax(input: Any, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    """``mint.amax(input, dim=(), keepdim=False)``: the maximum over ``dim`` (``()``: every axis)."""
    return _ops.amax(_tensor("amax", "input", input), _dim("amax", dim) or None, bool(keepdim))


def amin(input: Any, dim: Any = (), keepdim: bool = False) -> Tensor:  # noqa: A002
    """``mint.amin(input, dim=(), keepdim=False)``: the minimum over ``dim`` (``()``: every axis)."""
    return _ops.amin(_tensor("amin", "input", input), _dim("amin", dim) or None, bool(keepdim))


def argmax(input: Any, dim: int | None = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``mint.argmax(input, dim=None, keepdim=False)``: the int64 index of the maximum (None: flattened)."""
    return _ops.argmax(_tensor("argmax", "input", input), dim, bool(keepdim))


def argmin(input: Any, dim: int | None = None, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``mint.argmin(input, dim=None, keepdim=False)``: the int64 index of the minimum (None: flattened)."""
    x = _tensor("argmin", "input", input)
    if dim is None:
        out = _ops.argmin(_ops.reshape(x, (-1,)), 0, False)
        return _ops.cast(_ops.reshape(out, (1,) * x.ndim) if keepdim else out, "int64")
    return _ops.cast(_ops.argmin(x, dim, bool(keepdim)), "int64")


def logsumexp(input: Any, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    """``mint.logsumexp(input, dim, keepdim=False)``: log(sum(exp(input))) over ``dim``, computed stably."""
    return _ops.logsumexp(_tensor("logsumexp", "input", input), _dim("logsumexp", dim, False), bool(keepdim))


def _with_indices(name: str, reduce: str, x: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    values = getattr(_ops, "amax" if reduce == "max" else "amin")(x, dim, bool(keepdim))
    index = (argmax if reduce == "max" else argmin)(x, dim, bool(keepdim))
    return values, index


def max(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A001, A002
    """``mint.max``, torch's three forms: ``max(input)`` (the maximum, a 0-d tensor), ``max(input, dim,
    keepdim=False)`` ((values, int64 indices) over ``dim``), ``max(input, other)`` (elementwise maximum)."""
    return _extreme("max", input, args, kwargs)


def min(input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A001, A002
    """``mint.min``: as :func:`max`, for the minimum."""
    return _extreme("min", input, args, kwargs)


def _extreme(name: str, input: Any, args: tuple, kwargs: dict) -> Any:  # noqa: A002
    x = _tensor(name, "input", input)
    other = kwargs.pop("other", args[0] if args and isinstance(args[0], Tensor) else None)
    if other is not None:
        return (_ops.maximum if name == "max" else _ops.minimum)(x, other)
    dim = kwargs.pop("dim", args[0] if args else None)
    keepdim = kwargs.pop("keepdim", args[1] if len(args) > 1 else False)
    if kwargs:
        raise TypeError(f"mint.{name}: unexpected arguments {sorted(kwargs)}")
    if dim is None:
        return (_ops.amax if name == "max" else _ops.amin)(x)
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"mint.{name}: dim must be an int, got {dim!r}")
    return _with_indices(name, name, x, int(dim), bool(keepdim))


# ---- joining, splitting, shapes -----------------------------------------------------------------------------
def cat(tensors: Sequence, dim: int = 0) -> Tensor:
    """``mint.cat(tensors, dim=0)``: join along ``dim``."""
    return _ops.cat(tensors, dim)


concat = cat


def stack(tensors: Sequence, dim: int = 0) -> Tensor:
    """``mint.stack(tensors, dim=0)``: join along a new axis ``dim``."""
    return _ops.stack(tensors, dim)


def split(tensor: Any, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``mint.split(tensor, split_size_or_sections, dim=0)``: pieces of that size (the last smaller) or of
    those sizes along ``dim``."""
    return _ops.split(tensor, split_size_or_sections, dim)


def chunk(input: Any, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``mint.chunk(input, chunks, dim=0)``: at most ``chunks`` equal pieces along ``dim``."""
    return _ops.chunk(input, chunks, dim)


def unbind(input: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``mint.unbind(input, dim=0)``: the slices along ``dim``, that axis removed."""
    return _ops.unbind(input, dim)


def transpose(input: Any, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    """``mint.transpose(input, dim0, dim1)``: exchange two axes."""
    return _ops.swapaxes(input, dim0, dim1)


def permute(input: Any, dims: Sequence[int]) -> Tensor:  # noqa: A002
    """``mint.permute(input, dims)``: reorder the axes."""
    return _ops.permute(input, tuple(dims))


def narrow(input: Any, dim: int, start: int, length: int) -> Tensor:  # noqa: A002
    """``mint.narrow(input, dim, start, length)``: ``length`` elements from ``start`` along ``dim``."""
    return _ops.narrow(input, dim, start, length)


def flatten(input: Any, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    """``mint.flatten(input, start_dim=0, end_dim=-1)``: merge the axes ``start_dim`` to ``end_dim``."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def reshape(input: Any, shape: Sequence[int]) -> Tensor:  # noqa: A002
    """``mint.reshape(input, shape)``: the same elements in ``shape`` (one -1 inferred)."""
    return _ops.reshape(input, tuple(shape))


def squeeze(input: Any, dim: Any) -> Tensor:  # noqa: A002
    """``mint.squeeze(input, dim)``: drop the axes of ``dim`` (an int or a tuple) that have size 1 (MindSpore
    2.10's ``mint.squeeze`` requires ``dim``)."""
    x = as_tensor(input)
    dims = (_dim("squeeze", dim, False),) if isinstance(dim, numbers.Integral) else _dim("squeeze", dim, False)
    keep = tuple(d % x.ndim for d in dims if x.shape[d] == 1)
    return _ops.squeeze(x, keep) if keep else x


def select(input: Any, dim: int, index: int) -> Tensor:  # noqa: A002
    """``mint.select(input, dim, index)``: the slice at ``index`` along ``dim``, that axis removed."""
    x = as_tensor(input)
    if not -x.shape[dim] <= index < x.shape[dim]:
        raise IndexError(f"mint.select: index {index} is out of range for axis {dim} of size {x.shape[dim]}")
    return _ops.squeeze(_ops.narrow(x, dim, index % x.shape[dim], 1), dim % x.ndim)


def gather(input: Any, dim: int, index: Any) -> Tensor:  # noqa: A002
    """``mint.gather(input, dim, index)``: ``input`` read at ``index`` along ``dim`` (torch's gather)."""
    return _ops.gather_elements(input, dim, index)


def index_select(input: Any, dim: int, index: Any) -> Tensor:  # noqa: A002
    """``mint.index_select(input, dim, index)``: the slices of ``dim`` that the 1-D ``index`` names."""
    return _ops.index_select(input, dim, index)


def cumsum(input: Any, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002
    """``mint.cumsum(input, dim, dtype=None)``: the running sum along ``dim``."""
    return _ops.cumsum(input, dim, dtype)


def sort(input: Any, *, dim: int = -1, descending: bool = False,  # noqa: A002
         stable: bool = False) -> tuple[Tensor, Tensor]:
    """``mint.sort(input, *, dim=-1, descending=False, stable=False)``: (values, int64 indices); ties keep
    their order whatever ``stable``."""
    values, index = _ops.sort(input, dim, descending)
    return values, _ops.cast(index, "int64")


def topk(input: Any, k: int, dim: int = -1, largest: bool = True,  # noqa: A002
         sorted: bool = True) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``mint.topk(input, k, dim=-1, largest=True, sorted=True)``: the ``k`` largest (or smallest) values and
    their int64 indices along ``dim``."""
    values, index = _ops.topk(input, k, dim, largest, sorted)
    return values, _ops.cast(index, "int64")


def softmax(input: Any, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``mint.softmax(input, dim, *, dtype=None)``: exp(x) / sum(exp(x)) along ``dim`` (cast first to
    ``dtype``)."""
    return _ops.softmax(_cast(as_tensor(input), dtype), dim)


# ---- creation -----------------------------------------------------------------------------------------------
def _size(size: Any) -> tuple:
    return (int(size),) if isinstance(size, numbers.Integral) else tuple(size)


def full(size: Any, fill_value: Any, *, dtype: Any = None) -> Tensor:
    """``mint.full(size, fill_value, *, dtype=None)``: ``fill_value`` everywhere."""
    return _ops.full(_size(size), fill_value, dtype=dtype)


def empty(*size: Any, dtype: Any = None) -> Tensor:
    """``mint.empty(*size, dtype=None)``: a tensor of ``size`` (zeros: opbuild has no uninitialised memory)."""
    shape = _size(size[0]) if len(size) == 1 and not isinstance(size[0], numbers.Integral) else _size(size)
    return _ops.zeros(shape, dtype)


def linspace(start: Any, end: Any, steps: int, *, dtype: Any = None) -> Tensor:
    """``mint.linspace(start, end, steps, *, dtype=None)``: ``steps`` evenly spaced values from ``start`` to
    ``end`` (float32 unless ``dtype``)."""
    return _cast(_ops.linspace(float(start), float(end), steps), dtype)


def allclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
             equal_nan: bool = False) -> bool:
    """``mint.allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)``: whether every element of
    ``input`` is within ``atol + rtol * |other|`` of ``other`` (one bool)."""
    return bool(np.asarray(_ops.isclose(input, other, rtol, atol, equal_nan).asnumpy()).all())


# ---- elementwise with torch's extras ------------------------------------------------------------------------
def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``mint.add(input, other, *, alpha=1)``: ``input + alpha * other``."""
    return _ops.add(input, other if alpha == 1 else _ops.mul(other, alpha))


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:  # noqa: A002
    """``mint.sub(input, other, *, alpha=1)``: ``input - alpha * other``."""
    return _ops.sub(input, other if alpha == 1 else _ops.mul(other, alpha))


def clamp(input: Any, min: Any = None, max: Any = None) -> Tensor:  # noqa: A001, A002
    """``mint.clamp(input, min=None, max=None)``: values limited to [min, max]."""
    return _ops.clamp(input, min, max)


clip = clamp

# Same signature as the ops function once MindSpore's overloads are reduced to their main form.
SAME_FORM = ("mul", "div", "eq", "ne", "lt", "le", "ge", "where", "remainder", "fmod", "floor_divide", "lerp",
             "xlogy", "isclose", "tril", "triu", "cross", "nonzero", "arange", "eye", "full_like", "zeros_like",
             "ones_like", "cumprod", "t", "round", "bincount", "searchsorted")

__all__ = ["sum", "mean", "prod", "all", "any", "amax", "amin", "argmax", "argmin", "logsumexp", "max", "min",
           "cat", "concat", "stack", "split", "chunk", "unbind", "transpose", "permute", "narrow", "flatten",
           "reshape", "squeeze", "select", "gather", "index_select", "cumsum", "sort", "topk", "softmax", "full",
           "empty", "linspace", "allclose", "add", "sub", "clamp", "clip"]
