"""The functional API of the special functions (ops/special.py): ``lgamma``, ``digamma``, ``polygamma``,
``erfinv``, ``sinc``, ``i0`` and the Bessel functions, float tensors in, the same dtype out."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core import trace
from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from ..special import polygamma_order


def _unary(op: str, name: str, arg: str):
    def fn(x: Any) -> Tensor:
        return apply(op, {}, [as_tensor(x)])

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``ops.{name}({arg})``: elementwise {op} (ops/special.py) of a float tensor."
    return fn


digamma = _unary("Digamma", "digamma", "input")
erfinv = _unary("Erfinv", "erfinv", "input")
i0 = _unary("BesselI0", "i0", "input")
bessel_j0 = _unary("BesselJ0", "bessel_j0", "x")
bessel_j1 = _unary("BesselJ1", "bessel_j1", "x")
bessel_y0 = _unary("BesselY0", "bessel_y0", "x")
bessel_y1 = _unary("BesselY1", "bessel_y1", "x")
bessel_i0 = _unary("BesselI0", "bessel_i0", "x")
bessel_i0e = _unary("BesselI0e", "bessel_i0e", "x")
bessel_i1 = _unary("BesselI1", "bessel_i1", "x")
bessel_i1e = _unary("BesselI1e", "bessel_i1e", "x")
bessel_k0 = _unary("BesselK0", "bessel_k0", "x")
bessel_k0e = _unary("BesselK0e", "bessel_k0e", "x")
bessel_k1 = _unary("BesselK1", "bessel_k1", "x")
bessel_k1e = _unary("BesselK1e", "bessel_k1e", "x")


def lgamma(input: Any) -> Tensor:  # noqa: A002 - MindSpore's argument name
    """``ops.lgamma(input)``: the log of the absolute gamma function, elementwise. As MindSpore 2.10's, an int32
    tensor computes in float32; other integer and bool tensors are refused."""
    x = as_tensor(input)
    if x.dtype.name == "int32":
        x = apply("Cast", {"dtype": "float32"}, [x])
    elif not x.dtype.is_float:
        raise TypeError(f"lgamma: dtype {x.dtype.name} is not supported (a float tensor or int32; cast it first)")
    return apply("Lgamma", {}, [x])


def sinc(input: Any) -> Tensor:  # noqa: A002 - MindSpore's argument name
    """``ops.sinc(input)``: sin(pi x) / (pi x), 1 at 0, elementwise. As MindSpore 2.10's, integer and bool tensors
    compute in float32 (MindSpore's CPU gives NaN for a False element; opbuild gives sinc(0) = 1)."""
    x = as_tensor(input)
    if not (x.dtype.is_float or x.dtype.is_complex):
        x = apply("Cast", {"dtype": "float32"}, [x])
    return apply("Sinc", {}, [x])


def zeta(input: Any, other: Any) -> Tensor:  # noqa: A002 - MindSpore's name
    """``ops.zeta(input, other)``: the Hurwitz zeta function ``sum_k (other + k) ** -input`` (float tensors of
    one dtype, broadcasting)."""
    return apply("Zeta", {}, [as_tensor(input), as_tensor(other)])


def mvlgamma(input: Any, p: int) -> Tensor:  # noqa: A002 - MindSpore's name
    """``ops.mvlgamma(input, p)``: the multivariate log-gamma ``sum_{i<p} lgamma(input - i / 2) + p (p - 1) / 4 *
    log(pi)``; every element must exceed ``(p - 1) / 2`` (checked when the values are known)."""
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(f"mvlgamma: p must be an int >= 1, got {p!r}")
    x = as_tensor(input)
    if trace.current() is None and x.dtype.is_float:
        low = float(np.min(x.asnumpy())) if x.size else math.inf
        if not low > (p - 1) / 2:
            raise ValueError(f"mvlgamma: every element of input must be greater than (p - 1) / 2 = {(p - 1) / 2}, "
                             f"got {low}")
    total = None
    for i in range(p):
        term = apply("Lgamma", {}, [apply("Sub", {}, [x, np.asarray(i / 2, x.dtype.np_dtype)])])
        total = term if total is None else apply("Add", {}, [total, term])
    return apply("Add", {}, [total, np.asarray(p * (p - 1) / 4 * math.log(math.pi), x.dtype.np_dtype)])


def polygamma(n: Any, input: Any) -> Tensor:  # noqa: A002 - MindSpore's name
    """``ops.polygamma(n, input)``: the n-th derivative of digamma (n an integer >= 0, a Tensor or an int, whose
    value must be known when the call is traced: it selects the kernel)."""
    return apply("Polygamma", {"n": polygamma_order(n)}, [as_tensor(input)])


__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_k0", "bessel_k0e",
           "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1", "digamma", "erfinv", "i0", "lgamma", "mvlgamma",
           "polygamma", "sinc", "zeta"]
