"""MindSpore's small fused large-model functions that MindSpore 2.10 implements on Ascend only:
``rotary_position_embedding`` (rotate-half and interleaved rotary embeddings), ``add_rms_norm`` and
``add_layer_norm``, composed here from registered primitives from their documented formulas (they trace in
GRAPH_MODE and differentiate)."""

from __future__ import annotations

from typing import Any

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .array import cat, reshape, split, stack
from .base import binary, unary
from .inplace_ext import rms_norm

__all__ = ["rotary_position_embedding", "add_rms_norm", "add_layer_norm"]


def _rotate(x: Tensor, mode: int) -> Tensor:
    """mode 0 (GPT-NeoX): (x1, x2) halves -> (-x2, x1); mode 1 (GPT-J): pairs (a, b) -> (-b, a)."""
    d = x.shape[-1]
    if mode == 0:
        a, b = split(x, d // 2, -1)
        return cat([unary("Neg", b), a], -1)
    pairs = reshape(x, (*x.shape[:-1], d // 2, 2))
    a, b = split(pairs, 1, -1)
    return reshape(stack([unary("Neg", b), a], -1), tuple(x.shape))


def rotary_position_embedding(x: Any, cos: Any, sin: Any, mode: int = 0) -> Tensor:
    """``ops.rotary_position_embedding(x, cos, sin, mode=0)``: ``x * cos + rotate(x) * sin`` for a 4-D ``x``
    whose last axis D is even; ``rotate`` is rotate-half (mode 0, GPT-NeoX) or rotate-interleaved (mode 1,
    GPT-J). ``cos``/``sin`` (4-D, x's dtype) broadcast against ``x`` (11SD, B1SD, 1S1D, ... as documented)."""
    t, c, s = as_tensor(x), as_tensor(cos), as_tensor(sin)
    if isinstance(mode, bool) or not isinstance(mode, int) or mode not in (0, 1):
        raise ValueError(f"rotary_position_embedding: mode must be 0 (rotate_half) or 1 (rotate_interleaved), got "
                         f"{mode!r}")
    if t.dtype.name not in ("float16", "bfloat16", "float32"):
        raise TypeError(f"rotary_position_embedding: x must be float16, bfloat16 or float32, got {t.dtype.name}")
    if c.dtype != t.dtype or s.dtype != t.dtype:
        raise TypeError(f"rotary_position_embedding: cos and sin must have x's dtype {t.dtype.name}, got "
                        f"{c.dtype.name} and {s.dtype.name}")
    if t.ndim != 4 or c.ndim != 4 or s.ndim != 4 or t.shape[-1] % 2:
        raise ValueError(f"rotary_position_embedding: x, cos and sin must be 4-D with an even last axis, got "
                         f"{tuple(t.shape)}, {tuple(c.shape)} and {tuple(s.shape)}")
    if tuple(c.shape) != tuple(s.shape) or c.shape[-1] != t.shape[-1] or any(
            cd not in (1, xd) for cd, xd in zip(c.shape, t.shape)):
        raise ValueError(f"rotary_position_embedding: cos/sin {tuple(c.shape)}, {tuple(s.shape)} must be one shape "
                         f"that broadcasts to x's {tuple(t.shape)} with the same last axis")
    return binary("Add", binary("Mul", t, c), binary("Mul", _rotate(t, mode), s))


def add_rms_norm(x1: Any, x2: Any, gamma: Any, epsilon: float = 1e-6) -> tuple[Tensor, Tensor, Tensor]:
    """``ops.add_rms_norm(x1, x2, gamma, epsilon=1e-6)``: ``x = x1 + x2`` normalised by its root mean square
    over gamma's trailing axes and scaled by ``gamma``. Returns ``(y, rstd, x)``: rstd is float32 with the
    reduced axes kept as 1."""
    a, b = as_tensor(x1), as_tensor(x2)
    if not (a.dtype.is_float and b.dtype.is_float) or a.dtype != b.dtype:
        raise TypeError(f"add_rms_norm: x1 and x2 must share one float dtype, got {a.dtype.name} and {b.dtype.name}")
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"add_rms_norm: x1 and x2 must have one shape, got {tuple(a.shape)} and {tuple(b.shape)}")
    x = binary("Add", a, b)
    y, rstd = rms_norm(x, gamma, epsilon)
    return y, rstd, x


def add_layer_norm(x1: Any, x2: Any, gamma: Any, beta: Any, epsilon: float = 1e-5,
                   additional_output: bool = False) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """``ops.add_layer_norm(x1, x2, gamma, beta, epsilon=1e-5, additional_output=False)``: layer norm over the
    last axis of ``x = x1 + x2``, ``(x - mean) * rstd * gamma + beta``. Returns ``(y, mean, rstd, x)`` with mean
    and rstd shaped (..., 1) in x1's dtype; ``x`` is returned whatever ``additional_output`` says (it only asks
    Ascend's kernel to write it)."""
    a, b, g, be = as_tensor(x1), as_tensor(x2), as_tensor(gamma), as_tensor(beta)
    if a.dtype.name not in ("float16", "bfloat16", "float32") or b.dtype != a.dtype:
        raise TypeError(f"add_layer_norm: x1 and x2 must share one dtype of float16, bfloat16 or float32, got "
                        f"{a.dtype.name} and {b.dtype.name}")
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"add_layer_norm: x1 and x2 must have one shape, got {tuple(a.shape)} and {tuple(b.shape)}")
    if a.ndim == 0 or tuple(g.shape) != (a.shape[-1],) or tuple(be.shape) != (a.shape[-1],):
        raise ValueError(f"add_layer_norm: gamma and beta must be 1-D of x1's last axis ({a.shape[-1:]}), got "
                         f"{tuple(g.shape)} and {tuple(be.shape)}")
    if isinstance(epsilon, bool) or not isinstance(epsilon, float):
        raise TypeError(f"add_layer_norm: epsilon must be a float, got {type(epsilon).__name__}")
    if not isinstance(additional_output, bool):
        raise TypeError(f"add_layer_norm: additional_output must be a bool, got {type(additional_output).__name__}")
    x = binary("Add", a, b)
    x32 = apply("Cast", {"dtype": "float32"}, [x])
    mean = apply("ReduceMean", {"axis": (-1,), "keep_dims": True}, [x32])
    centred = binary("Sub", x32, mean)
    var = apply("ReduceMean", {"axis": (-1,), "keep_dims": True}, [binary("Mul", centred, centred)])
    rstd = unary("Rsqrt", binary("Add", var, float(epsilon)))
    y32 = binary("Add", binary("Mul", binary("Mul", centred, rstd), apply("Cast", {"dtype": "float32"}, [g])),
                 apply("Cast", {"dtype": "float32"}, [be]))
    y, mean, rstd = (apply("Cast", {"dtype": a.dtype}, [t]) for t in (y32, mean, rstd))
    return y, mean, rstd, x
