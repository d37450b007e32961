"""MindSpore primitive classes whose MindSpore behaviour is a composition of registered ops rather than one op
of their own: ``ops.GeLU`` (MindSpore's primitive is the tanh approximation; the registered GeLU op is the
exact erf form, which ``ops.gelu(approximate='none')`` and ``nn.GELU(approximate=False)`` use), ``ops.OneHot``
and ``ops.Unstack``. They override the family classes of the same name in ``ops.operations``."""

from __future__ import annotations

from typing import Any

from .api import array as _array
from .api import math as _math
from .api import tensor_math as _tensor_math
from .primitive import Primitive


class GeLU(Primitive):
    """``ops.GeLU()(x)``: MindSpore's GeLU primitive, the tanh approximation
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (``ops.gelu(x, approximate='tanh')``)."""

    op_name = "GeLU"

    def __call__(self, x: Any) -> Any:
        return _math.gelu(x, approximate="tanh")


class OneHot(Primitive):
    """``ops.OneHot(axis=-1)(indices, depth, on_value, off_value)``: ``on_value`` (a Tensor) where the new axis'
    position equals the index, else ``off_value``; the result has on_value's dtype."""

    op_name = "OneHot"

    def __init__(self, axis: int = -1):
        super().__init__(axis=axis)

    def __call__(self, indices: Any, depth: int, on_value: Any, off_value: Any) -> Any:
        return _array.one_hot(indices, depth, on_value, off_value, self.attrs["axis"])


class Unstack(Primitive):
    """``ops.Unstack(axis=0, num=None)(x)``: the slices of ``x`` along ``axis`` as a tuple."""

    op_name = "Unstack"

    def __init__(self, axis: int = 0, num: int | None = None):
        super().__init__(axis=axis, num=num)

    def __call__(self, x: Any) -> Any:
        out = _tensor_math.unstack(x, self.attrs["axis"])
        if self.attrs["num"] is not None and self.attrs["num"] != len(out):
            raise ValueError(f"Unstack: num={self.attrs['num']} but axis {self.attrs['axis']} has {len(out)} "
                             "elements")
        return out


PRIMITIVES: dict[str, type[Primitive]] = {"GeLU": GeLU, "OneHot": OneHot, "Unstack": Unstack}
