"""MindSpore primitive classes that are compositions of registered primitives (no kernel of their own):
``AddN``, ``ScatterNd``, ``Einsum``, ``LpNorm``, ``Addcdiv``, ``Addcmul``. Each applies the composition the
functional API uses (ops/api/), so a class and its function give the same nodes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import Primitive, apply
from . import TENSORS
from . import einsum as E
from . import reductions as N


class AddN(Primitive):
    """``AddN()(x)``: the elementwise sum of a tuple or list of tensors of one shape and dtype."""

    def __call__(self, x: Sequence[Any]) -> Tensor:
        if not isinstance(x, (list, tuple)) or not x:
            raise TypeError("AddN: x must be a non-empty tuple or list of tensors")
        ts = [as_tensor(t) for t in x]
        if len({(t.shape, t.dtype.name) for t in ts}) != 1:
            raise ValueError("AddN: every tensor must have the same shape and dtype")
        out = ts[0]
        for t in ts[1:]:
            out = apply("Add", {}, [out, t])
        return out


class ScatterNd(Primitive):
    """``ScatterNd()(indices, updates, shape)``: zeros of ``shape`` with ``updates`` added at the index rows
    of ``indices`` (repeated rows add up; an index outside ``[0, n)`` raises, as MindSpore's)."""

    def __call__(self, indices: Any, updates: Any, shape: Sequence[int]) -> Tensor:
        u = as_tensor(updates)
        zeros = Tensor(np.zeros(tuple(int(d) for d in shape), u.dtype.np_dtype))
        return apply("TensorScatterAdd", {"bounds": "raise"}, [zeros, as_tensor(indices), u])


class Einsum(Primitive):
    """``Einsum(equation)(x)``: Einstein summation of the tuple of tensors ``x`` (ops/compose/einsum.py)."""

    def __init__(self, equation: str):
        if not isinstance(equation, str):
            raise TypeError(f"Einsum: equation must be a str, got {type(equation).__name__}")
        super().__init__(equation=equation)

    def __call__(self, x: Sequence[Any]) -> Tensor:
        ts = [as_tensor(t) for t in x]
        return E.einsum(TENSORS, self.attrs["equation"], ts, [t.shape for t in ts], ts[0].dtype.name)


class LpNorm(Primitive):
    """``LpNorm(axis, p=2, keep_dims=False, epsilon=1e-12)(input)``: the p-norm over ``axis``, at least
    ``epsilon`` (MindSpore returns ``epsilon`` for an all-zero slice)."""

    def __init__(self, axis: int | Sequence[int], p: int = 2, keep_dims: bool = False, epsilon: float = 1e-12):
        super().__init__(axis=axis, p=p, keep_dims=keep_dims, epsilon=epsilon)

    def __call__(self, input: Any) -> Tensor:  # noqa: A002 - MindSpore's argument name
        x = as_tensor(input)
        axis = self.attrs["axis"]
        axes = sorted({a % max(x.ndim, 1) for a in ([axis] if isinstance(axis, int) else axis)})
        norm = N.lp_reduce(TENSORS, x, float(self.attrs["p"]), axes, bool(self.attrs["keep_dims"]), x.dtype.name)
        return apply("Maximum", {}, [norm, Tensor(np.asarray(self.attrs["epsilon"], x.dtype.np_dtype))])


def _addc(op: str):
    class _Addc(Primitive):
        __doc__ = (f"``{op}()(input_data, x1, x2, value)``: ``input_data + value * x1 "
                   f"{'/' if op == 'Addcdiv' else '*'} x2`` (``value`` a tensor, broadcast).")

        def __call__(self, input_data: Any, x1: Any, x2: Any, value: Any) -> Tensor:
            x = as_tensor(input_data)
            inner = apply("RealDiv" if op == "Addcdiv" else "Mul", {}, [as_tensor(x1), as_tensor(x2)])
            return apply("Add", {}, [x, apply("Mul", {}, [inner, as_tensor(value, x)])])

    _Addc.__name__ = _Addc.__qualname__ = op
    return _Addc


Addcdiv = _addc("Addcdiv")
Addcmul = _addc("Addcmul")

PRIMITIVES: dict[str, type[Primitive]] = {"AddN": AddN, "ScatterNd": ScatterNd, "Einsum": Einsum, "LpNorm": LpNorm,
                                          "Addcdiv": Addcdiv, "Addcmul": Addcmul}

__all__ = ["AddN", "Addcdiv", "Addcmul", "Einsum", "LpNorm", "PRIMITIVES", "ScatterNd"]
