"""MindSpore primitive classes whose MindSpore behaviour is a composition of registered ops rather than one op
of their own: ``ops.GeLU`` (MindSpore's primitive is the tanh approximation; the registered GeLU op is the
exact erf form, which ``ops.gelu(approximate='none')`` and ``nn.GELU(approximate=False)`` use), ``ops.OneHot``,
``ops.Unstack``, and ``ops.Lgamma``/``ops.Sinc``/``ops.CholeskyInverse`` (MindSpore's dtype rules and
whole-matrix read, which the functions of the same name apply). They override the family classes of the same
name in ``ops.operations``."""

from __future__ import annotations

from typing import Any

from .api import array as _array
from .api import linalg as _linalg
from .api import math as _math
from .api import special as _special
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


class Lgamma(Primitive):
    """``ops.Lgamma()(x)``: ``ops.lgamma(x)`` (an int32 ``x`` computes in float32)."""

    op_name = "Lgamma"

    def __call__(self, x: Any) -> Any:
        return _special.lgamma(x)


class Sinc(Primitive):
    """``ops.Sinc()(x)``: ``ops.sinc(x)`` (integer and bool ``x`` compute in float32)."""

    op_name = "Sinc"

    def __call__(self, x: Any) -> Any:
        return _special.sinc(x)


class CholeskyInverse(Primitive):
    """``ops.CholeskyInverse(upper=False)(x)``: ``ops.cholesky_inverse(x, upper)``, the inverse of ``x @ x^T``
    (``x^T @ x`` when ``upper``), reading the whole of ``x`` as MindSpore 2.10 does."""

    op_name = "CholeskyInverse"

    def __init__(self, upper: bool = False):
        super().__init__(upper=upper)

    def __call__(self, x: Any) -> Any:
        return _linalg.cholesky_inverse(x, self.attrs["upper"])


PRIMITIVES: dict[str, type[Primitive]] = {"GeLU": GeLU, "OneHot": OneHot, "Unstack": Unstack, "Lgamma": Lgamma,
                                          "Sinc": Sinc, "CholeskyInverse": CholeskyInverse}
