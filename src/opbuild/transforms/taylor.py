"""Higher-order derivatives along a curve: ``ops.jet`` and ``ops.derivative``.

``jet(fn, primals, series)``: with the input curve ``x(t) = x0 + sum_k series[k-1] t^k / k!`` (``series[k-1]``
its k-th derivative at 0), ``out_series[k-1]`` is the k-th derivative of ``fn(x(t))`` at ``t = 0``
(MindSpore's convention: derivatives, not Taylor coefficients). Each order is one more Jacobian-vector
product with respect to the scalar ``t``, so order n nests n forward products.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from .forward import _jvp_values, _tensors


def _derivatives(fn: Callable[..., Any], primals: tuple[Tensor, ...], series: tuple[Tensor, ...],
                 order: int) -> tuple[Any, list[Any]]:
    """(fn at the primals, [the k-th derivative of fn along the curve for k = 1..order])."""

    def along(t: Tensor) -> Any:
        point = []
        for x0, s in zip(primals, series, strict=True):
            # Horner's form x0 + t (s1 + t (s2/2! + t (s3/3! ...))): products only, so every derivative at
            # t = 0 is finite (a power's gradient rule divides by its base).
            acc = s[order - 1] / float(math.factorial(order))
            for k in range(order - 2, -1, -1):
                acc = s[k] / float(math.factorial(k + 1)) + t * acc
            point.append(x0 + t * acc)
        return fn(*point)

    def nth(k: int) -> Callable[[Tensor], Any]:
        if k == 0:
            return along
        prev = nth(k - 1)

        def derived(t: Tensor) -> Any:
            return _jvp_values(prev, (t,), (Tensor(np.ones((), np.float32)),), prev(t))

        return derived

    t0 = Tensor(np.zeros((), np.float32))
    return fn(*primals), [nth(k)(t0) for k in range(1, order + 1)]


def _stack(values: list[Any]) -> Any:
    if isinstance(values[0], (tuple, list)):
        return tuple(_stack([v[i] for v in values]) for i in range(len(values[0])))
    return Tensor(np.stack([v.asnumpy() for v in values]))


def jet(fn: Callable[..., Any], primals: Any, series: Any) -> tuple[Any, Any]:
    """``(fn(primals), out_series)``: ``series`` stacks the input curve's derivatives (shape
    ``(order, *primals.shape)``, one such Tensor per primal for several), ``out_series`` the output's."""
    xs = _tensors(primals, "jet", "primals")
    ss = _tensors(series, "jet", "series")
    if len(ss) != len(xs) or any(s.ndim != x.ndim + 1 or tuple(s.shape[1:]) != tuple(x.shape)
                                 for s, x in zip(ss, xs)):
        raise ValueError("jet: series must hold, per primal, a Tensor of shape (order, *primal.shape)")
    orders = {s.shape[0] for s in ss}
    if len(orders) != 1 or 0 in orders:
        raise ValueError("jet: every series needs the same order >= 1 (its first dimension)")
    out, ders = _derivatives(fn, xs, ss, orders.pop())
    return out, _stack(ders)


def derivative(fn: Callable[..., Any], primals: Any, order: int) -> tuple[Any, Any]:
    """``(fn(primals), the order-th derivative of fn along the direction of ones)``."""
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise ValueError(f"derivative: order must be an int >= 1, got {order!r}")
    xs = _tensors(primals, "derivative", "primals")
    series = tuple(Tensor(np.concatenate([np.ones((1, *x.shape), x.asnumpy().dtype),
                                          np.zeros((order - 1, *x.shape), x.asnumpy().dtype)]))
                   for x in xs)
    out, ders = _derivatives(fn, xs, series, order)
    return out, ders[-1]
