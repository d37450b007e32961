"""The functional API of the special functions (ops/special.py): ``lgamma``, ``digamma``, ``polygamma``,
``erfinv``, ``sinc``, ``i0`` and the Bessel functions, float tensors in, the same dtype out."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply


def _unary(op: str, name: str, arg: str):
    def fn(x: Any) -> Tensor:
        return apply(op, {}, [as_tensor(x)])

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``ops.{name}({arg})``: elementwise {op} (ops/special.py) of a float tensor."
    return fn


lgamma = _unary("Lgamma", "lgamma", "input")
digamma = _unary("Digamma", "digamma", "input")
erfinv = _unary("Erfinv", "erfinv", "input")
sinc = _unary("Sinc", "sinc", "input")
i0 = _unary("BesselI0", "i0", "input")
bessel_j0 = _unary("BesselJ0", "bessel_j0", "x")
bessel_j1 = _unary("BesselJ1", "bessel_j1", "x")
bessel_y0 = _unary("BesselY0", "bessel_y0", "x")
bessel_y1 = _unary("BesselY1", "bessel_y1", "x")
bessel_i0 = _unary("BesselI0", "bessel_i0", "x")
bessel_i0e = _unary("BesselI0e", "bessel_i0e", "x")
bessel_i1 = _unary("BesselI1", "bessel_i1", "x")
bessel_i1e = _unary("BesselI1e", "bessel_i1e", "x")


def polygamma(n: Any, input: Any) -> Tensor:  # noqa: A002 - MindSpore's name
    """``ops.polygamma(n, input)``: the n-th derivative of digamma (n an integer >= 0, a Tensor or an int, whose
    value must be known when the call is traced: it selects the kernel)."""
    if isinstance(n, Tensor):
        if n._type.dtype not in ("int32", "int64") or n._type.size != 1:
            raise TypeError(f"polygamma: n must be a one-element int32 or int64 Tensor, got {n._type}")
        try:
            n = int(np.asarray(n.asnumpy()).reshape(()))
        except Exception as e:  # a symbolic Tensor inside a trace has no value yet
            raise TypeError("polygamma: n must be a constant (its value selects the kernel), not a value "
                            "computed inside the graph") from e
    return apply("Polygamma", {"n": n}, [as_tensor(input)])


__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "digamma", "erfinv", "i0", "lgamma", "polygamma", "sinc"]
