"""The functional API of ops/special_incomplete.py: ``ops.igamma``, ``ops.igammac`` and ``ops.nextafter``
(float32/float64 tensors of one dtype, broadcasting; MindSpore's names and argument names)."""

from __future__ import annotations

from typing import Any

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply


def _pair(name: str, input: Any, other: Any) -> list[Tensor]:  # noqa: A002 - MindSpore's argument name
    a, b = as_tensor(input), as_tensor(other)
    if a.dtype != b.dtype:
        raise TypeError(f"{name}: input and other must have the same dtype (float32 or float64), got {a.dtype} "
                        f"and {b.dtype}")
    return [a, b]


def igamma(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``ops.igamma(input, other)``: the regularised lower incomplete gamma function P(input, other)."""
    return apply("Igamma", {}, _pair("igamma", input, other))


def igammac(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``ops.igammac(input, other)``: the regularised upper incomplete gamma function Q(input, other)."""
    return apply("Igammac", {}, _pair("igammac", input, other))


def nextafter(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``ops.nextafter(input, other)``: the next representable value after ``input`` towards ``other``
    (float32 steps as MindSpore's CPU kernel does: in double, rounded back; see ops/special_incomplete.py)."""
    return apply("NextAfter", {}, _pair("nextafter", input, other))


__all__ = ["igamma", "igammac", "nextafter"]
