"""Tensor's reduction methods (``sum``, ``mean``, ``prod``, ``max``, ``min``, ``argmax``, ``argmin``, ``all``,
``any``), a mixin of :class:`~opbuild.core.tensor.Tensor` over the functional API (core/functional_slot.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .functional_slot import _ops

if TYPE_CHECKING:
    from .tensor import Tensor


class TensorReductions:
    """The reductions of :class:`~opbuild.core.tensor.Tensor` (MindSpore's Tensor methods of those names)."""

    __slots__ = ()

    def sum(self, axis=None, dtype=None, keepdims: bool = False, initial=None) -> Tensor:
        """Sum over ``axis`` (None: all), optionally cast to ``dtype`` first, plus ``initial``."""
        F = _ops()
        out = F.sum(self, axis, keepdims, dtype=dtype)
        return out if initial is None else F.add(out, initial)

    def mean(self, axis=None, keep_dims: bool = False) -> Tensor:
        """Mean over ``axis`` (None: all)."""
        F = _ops()
        return F.mean(self, axis, keep_dims)

    def prod(self, axis=None, keep_dims: bool = False, dtype=None) -> Tensor:
        """Product over ``axis`` (None: all), as ``ops.prod`` (bool and integers multiply as int64)."""
        F = _ops()
        return F.prod(self, axis, keep_dims, dtype)

    def max(self, axis=None, keepdims: bool = False, *, initial=None, where=None, return_indices: bool = False):
        """Maximum over ``axis`` (None: all; an int or a tuple); with ``return_indices`` (int ``axis`` only)
        also the indices, as ``ops.max``. ``where`` masks elements out in favour of ``initial``."""
        F = _ops()
        if return_indices:
            return F.max(self, axis, keepdims, initial=initial, where=where)
        x = self if where is None else F.where(where, self, initial)
        out = F.amax(x, axis, keepdims)
        return out if initial is None else F.maximum(out, initial)

    def min(self, axis=None, keepdims: bool = False, *, initial=None, where=None, return_indices: bool = False):
        """Minimum over ``axis``; as :meth:`max`."""
        F = _ops()
        if return_indices:
            return F.min(self, axis, keepdims, initial=initial, where=where)
        x = self if where is None else F.where(where, self, initial)
        out = F.amin(x, axis, keepdims)
        return out if initial is None else F.minimum(out, initial)

    def argmax(self, axis=None, keepdims: bool = False) -> Tensor:
        """Index (int64, as MindSpore's) of the first maximum along ``axis`` (None: of the flattened tensor)."""
        F = _ops()
        return F.argmax(self, axis, keepdims)

    def argmin(self, axis=None, keepdims: bool = False) -> Tensor:
        """Index (int32) of the first minimum along ``axis`` (None: of the flattened tensor)."""
        F = _ops()
        return F.argmin(self, axis, keepdims)

    def all(self, axis=(), keep_dims: bool = False) -> Tensor:
        """True where every element over ``axis`` (default all) is true."""
        F = _ops()
        t = F.ne(self, 0) if self.dtype.name != "bool" else self
        return F.equal(F.amin(F.cast(t, "int32"), None if axis == () else axis, keep_dims), 1)

    def any(self, axis=(), keep_dims: bool = False) -> Tensor:
        """True where some element over ``axis`` (default all) is true."""
        F = _ops()
        t = F.ne(self, 0) if self.dtype.name != "bool" else self
        return F.equal(F.amax(F.cast(t, "int32"), None if axis == () else axis, keep_dims), 1)
