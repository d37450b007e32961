"""MindSpore 2.x's second spelling of Tensor methods: the ``dim``/``keepdim`` overloads next to the NumPy-style
``axis``/``keepdims`` ones (``x.sum(dim=1, keepdim=True)``, ``x.max(0)`` giving values and indices,
``x.add(y, alpha=2)``, ``x.gather(1, index)``, ...), resolved as MindSpore 2.10 resolves them (checked against
fixtures recorded by scripts/record_tensor_overloads.py). A mixin placed first among Tensor's bases: each method
picks the overload from its arguments and calls the NumPy-style method of the next base.
"""

from __future__ import annotations

from typing import Any

from .functional_slot import _ops


def _torch_reduce_kw(kw: dict, keep: str = "keepdims") -> dict:
    """``dim``/``keepdim`` keywords renamed to the NumPy-style method's ``axis``/``keep``."""
    if "dim" in kw:
        kw["axis"] = kw.pop("dim")
    if "keepdim" in kw:
        kw[keep] = kw.pop("keepdim")
    return kw


def _torch_style(args: tuple, kw: dict, numpy_only: tuple[str, ...]) -> bool:
    """True when the call reads ``(dim, keepdim=False)``: a ``dim``/``keepdim`` keyword, or an int first
    argument with no keyword only the NumPy-style overload has."""
    if "dim" in kw or "keepdim" in kw:
        return True
    if any(k in kw for k in numpy_only + ("axis", "keepdims")):
        return False
    return bool(args) and isinstance(args[0], int) and not isinstance(args[0], bool)


class TensorOverloads:
    """The ``dim``/``keepdim`` (and other MindSpore 2.x) overloads of Tensor methods."""

    __slots__ = ()

    def _values_indices(self, name: str, args: tuple, kw: dict):
        dim = kw.pop("dim", args[0] if args else None)
        keepdim = kw.pop("keepdim", args[1] if len(args) > 1 else False)
        if dim is None:
            return getattr(super(), name)(keepdims=keepdim)
        return getattr(super(), name)(dim, keepdim, return_indices=True)

    def max(self, *args, **kw):
        """``max()`` (value), ``max(dim, keepdim=False)`` (values, indices) or the NumPy-style overload
        ``max(axis=None, keepdims=False, *, initial=None, where=None, return_indices=False)``."""
        if _torch_style(args, kw, ("initial", "where", "return_indices")):
            return self._values_indices("max", args, kw)
        return super().max(*args, **kw)

    def min(self, *args, **kw):
        """As :meth:`max`, for the minimum."""
        if _torch_style(args, kw, ("initial", "where", "return_indices")):
            return self._values_indices("min", args, kw)
        return super().min(*args, **kw)

    def sum(self, *args, **kw):
        """``sum(axis=None, dtype=None, keepdims=False, initial=None)`` or ``sum(dim, keepdim=False, *,
        dtype=None)``."""
        if len(args) >= 2 and isinstance(args[1], bool):
            args, kw = args[:1], dict(kw, keepdims=args[1])
        return super().sum(*args, **_torch_reduce_kw(kw))

    def mean(self, *args, **kw):
        """``mean(axis=None, keep_dims=False)``, also with ``dim``/``keepdim``/``keepdims``."""
        kw = _torch_reduce_kw(kw, "keep_dims")
        if "keepdims" in kw:
            kw["keep_dims"] = kw.pop("keepdims")
        dtype = kw.pop("dtype", None)
        out = super().mean(*args, **kw)
        return out if dtype is None else out.astype(dtype)

    def prod(self, *args, **kw):
        """``prod(axis=None, keep_dims=False, dtype=None)``, also with ``dim``/``keepdim``/``keepdims``."""
        kw = _torch_reduce_kw(kw, "keep_dims")
        if "keepdims" in kw:
            kw["keep_dims"] = kw.pop("keepdims")
        return super().prod(*args, **kw)

    def argmax(self, *args, **kw):
        """``argmax(axis=None, keepdims=False)`` or ``argmax(dim, keepdim=False)``."""
        return super().argmax(*args, **_torch_reduce_kw(kw))

    def argmin(self, *args, **kw):
        """``argmin(axis=None, keepdims=False)`` or ``argmin(dim, keepdim=False)``."""
        return super().argmin(*args, **_torch_reduce_kw(kw))

    def all(self, *args, **kw):
        """``all(axis=(), keep_dims=False)`` or ``all(dim, keepdim=False)``."""
        kw = _torch_reduce_kw(kw, "keep_dims")
        if kw.get("axis", ()) is None:
            kw["axis"] = ()
        return super().all(*args, **kw)

    def any(self, *args, **kw):
        """``any(axis=(), keep_dims=False)`` or ``any(dim, keepdim=False)``."""
        kw = _torch_reduce_kw(kw, "keep_dims")
        if kw.get("axis", ()) is None:
            kw["axis"] = ()
        return super().any(*args, **kw)

    def sort(self, *args, **kw):
        """``sort(axis=-1, descending=False)``, also ``dim=``."""
        return super().sort(*args, **_torch_reduce_kw(kw))

    def cumsum(self, *args, **kw):
        """``cumsum(axis=None, dtype=None)``, also ``dim=``."""
        return super().cumsum(*args, **_torch_reduce_kw(kw))

    def chunk(self, *args, **kw):
        """``chunk(chunks, axis=0)``, also ``dim=``."""
        return super().chunk(*args, **_torch_reduce_kw(kw))

    def add(self, other, *, alpha: Any = 1):
        """``self + alpha * other``."""
        F = _ops()
        return F.add(self, other if alpha == 1 else F.mul(other, alpha))

    def sub(self, other, *, alpha: Any = 1):
        """``self - alpha * other``."""
        F = _ops()
        return F.sub(self, other if alpha == 1 else F.mul(other, alpha))

    def remainder(self, other=None, *, divisor=None):
        """Remainder with the divisor's sign (``other`` or ``divisor=``)."""
        return _ops().remainder(self, divisor if other is None else other)

    def expand_as(self, other=None, *, x=None):
        """Broadcast to the shape of ``other`` (or ``x=``)."""
        return super().expand_as(x if other is None else other)

    def select(self, *args, **kw):
        """``select(dim, index)``: the slice at ``index`` along ``dim``; ``select(condition, y)``: this
        tensor where ``condition`` is true, ``y`` elsewhere."""
        first = args[0] if args else kw.get("condition", kw.get("dim"))
        if isinstance(first, int) and not isinstance(first, bool):
            return super().select(*args, **kw)
        condition = kw.pop("condition", args[0] if args else None)
        y = kw.pop("y", args[1] if len(args) > 1 else None)
        return _ops().where(condition, self, y)

    def get_bytes(self) -> bytes:
        """The raw bytes of the data, in C order (``Tensor.get_bytes``)."""
        return self.asnumpy().tobytes()

    def gather(self, *args, **kw):
        """``gather(input_indices, axis, batch_dims=0)`` (``ops.gather``) or ``gather(dim, index)``
        (``ops.gather_elements``), told apart by an int first argument."""
        if (args and isinstance(args[0], int) and not isinstance(args[0], bool)) or "dim" in kw:
            dim = kw.pop("dim", args[0] if args else None)
            index = kw.pop("index", args[1] if len(args) > 1 else None)
            return _ops().gather_elements(self, dim, index)
        return super().gather(*args, **kw)
