"""More ``mindspore.mint`` functions with torch's signatures, over the ``ops`` functions: ``argsort``,
``cummax``/``cummin`` (int64 indices), ``median`` (torch's two forms), ``meshgrid`` (``'ij'`` by default),
``repeat_interleave``, ``diff``, ``nansum``, ``count_nonzero``, ``addcmul``/``addcdiv`` (keyword ``value``),
``mv``, ``diag`` (with ``diagonal``), ``scatter``/``scatter_add``, ``take``, ``clone``, ``fix``, ``dstack``
and the aliases ``greater_equal``, ``less``, ``divide``, ``real``, ``imag``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import ops as _ops
from ..core.tensor import Tensor, as_tensor

# The same function as the ops one (MindSpore's overloads reduced to their main form).
ALIASES = ("greater_equal", "less", "divide", "real", "imag")


def argsort(input: Any, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:  # noqa: A002
    """``argsort(input, dim=-1, descending=False, stable=False)``: the int64 indices that sort ``dim`` (ties
    keep their order whatever ``stable``)."""
    return _ops.cast(_ops.argsort(input, dim, descending), "int64")


def cummax(input: Any, dim: int) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``cummax(input, dim)``: the running maximum along ``dim`` and its int64 indices."""
    values, index = _ops.cummax(input, dim)
    return values, _ops.cast(index, "int64")


def cummin(input: Any, dim: int) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``cummin(input, dim)``: the running minimum along ``dim`` and its int64 indices."""
    values, index = _ops.cummin(input, dim)
    return values, _ops.cast(index, "int64")


def median(input: Any, dim: int | None = None, keepdim: bool = False) -> Any:  # noqa: A002
    """``median(input, dim=None, keepdim=False)``: the lower median of all elements (a 0-d tensor), or with
    ``dim`` the (values, int64 indices) of the lower medians along it."""
    x = as_tensor(input)
    if dim is None:
        return _ops.median(_ops.reshape(x, (-1,)), 0, False)[0]
    values, index = _ops.median(x, dim, bool(keepdim))
    return values, _ops.cast(index, "int64")


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """``meshgrid(*tensors, indexing=None)``: coordinate grids; ``indexing`` 'ij' (None, torch's default) or
    'xy'."""
    if len(tensors) == 1 and isinstance(tensors[0], Sequence) and not isinstance(tensors[0], Tensor):
        tensors = tuple(tensors[0])
    return _ops.meshgrid(*tensors, indexing=indexing or "ij")


def repeat_interleave(input: Any, repeats: Any, dim: int | None = None) -> Tensor:  # noqa: A002
    """``repeat_interleave(input, repeats, dim=None)``: each element repeated along ``dim`` (None: flattened)."""
    return _ops.repeat_interleave(input, repeats, dim)


def diff(input: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Tensor:  # noqa: A002
    """``diff(input, n=1, dim=-1, prepend=None, append=None)``: the ``n``-th forward difference along ``dim``."""
    return _ops.diff(input, n, dim, prepend, append)


def nansum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``nansum(input, dim=None, keepdim=False, *, dtype=None)``: the sum over ``dim`` with NaN counted as 0."""
    return _ops.nansum(input, dim, bool(keepdim), dtype=dtype)


def count_nonzero(input: Any, dim: Any = None) -> Tensor:  # noqa: A002
    """``count_nonzero(input, dim=None)``: the int64 count of non-zero elements over ``dim`` (None: all)."""
    return _ops.count_nonzero(input, () if dim is None else dim, False, "int64")


def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:  # noqa: A002
    """``addcmul(input, tensor1, tensor2, *, value=1)``: input + value * tensor1 * tensor2."""
    return _ops.addcmul(input, tensor1, tensor2, value)


def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Tensor:  # noqa: A002
    """``addcdiv(input, tensor1, tensor2, *, value=1)``: input + value * tensor1 / tensor2."""
    return _ops.addcdiv(input, tensor1, tensor2, value)


def mv(input: Any, vec: Any) -> Tensor:  # noqa: A002
    """``mv(input, vec)``: the matrix-vector product."""
    return _ops.mv(input, vec)


def diag(input: Any, diagonal: int = 0) -> Tensor:  # noqa: A002
    """``diag(input, diagonal=0)``: a 1-D input on the ``diagonal``-th diagonal of a square matrix, or the
    ``diagonal``-th diagonal of a 2-D input."""
    x = as_tensor(input)
    if x.ndim == 1:
        return _ops.diagflat(x, diagonal)
    if x.ndim != 2:
        raise ValueError(f"mint.diag: input must be 1-D or 2-D, got {x.ndim}-D")
    return _ops.diagonal(x, diagonal)


def scatter(input: Any, dim: int, index: Any, src: Any) -> Tensor:  # noqa: A002
    """``scatter(input, dim, index, src)``: ``input`` with ``src`` written at ``index`` along ``dim``."""
    return _ops.scatter(input, dim, index, src)


def scatter_add(input: Any, dim: int, index: Any, src: Any) -> Tensor:  # noqa: A002
    """``scatter_add(input, dim, index, src)``: ``input`` with ``src`` added at ``index`` along ``dim``."""
    return _ops.tensor_scatter_elements(input, index, src, dim, "add")


def take(input: Any, index: Any) -> Tensor:  # noqa: A002
    """``take(input, index)``: the elements of the flattened ``input`` at ``index``, in ``index``'s shape."""
    return _ops.gather(_ops.reshape(as_tensor(input), (-1,)), index, 0)


def clone(input: Any) -> Tensor:  # noqa: A002
    """``clone(input)``: a copy of ``input``."""
    x = as_tensor(input)
    return _ops.add(x, _ops.zeros_like(x)) if x.dtype.name != "bool" else _ops.logical_or(x, x)


def fix(input: Any) -> Tensor:  # noqa: A002
    """``fix(input)``: rounded toward zero (``trunc``)."""
    return _ops.trunc(input)


def dstack(tensors: Sequence) -> Tensor:
    """``dstack(tensors)``: join along the third axis (1-D and 2-D inputs made 3-D first)."""
    return _ops.dstack(tensors)


__all__ = ["argsort", "cummax", "cummin", "median", "meshgrid", "repeat_interleave", "diff", "nansum",
           "count_nonzero", "addcmul", "addcdiv", "mv", "diag", "scatter", "scatter_add", "take", "clone", "fix",
           "dstack"]
