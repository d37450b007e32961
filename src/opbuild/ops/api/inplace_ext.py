"""MindSpore 2.10's ``ops`` names of its newer (``*_ext``) and in-place (``*_``) functions that its CPU backend
has no kernel for, so that programs written for its Ascend path run here: ``tanh_``, ``zero_``, ``clamp_``,
``inplace_sigmoid``, ``erfinv_``, ``put_`` and the random fills ``normal_``, ``exponential_``, ``bernoulli_``
(drawn on the host from a ``Generator``'s (seed, offset), as ``ops.uniform_``: seeded draws repeat, the bits
are not MindSpore's), and ``type_as``, ``mse_loss_ext``, ``adaptive_avg_pool2d_ext``, ``baddbmm_ext``,
``einsum_ext``, ``bernoulli_ext``, ``swiglu``, ``rms_norm``, ``tensor_muls``, ``scalar_to_array``,
``array_to_scalar`` and ``move_to``. The in-place functions change ``input``'s data and return it (PyNative
only, as every in-place write); the others compose registered primitives.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .array import split
from .base import binary, unary
from .ext_names import _host_rng
from .math import silu
from .math_more import einsum
from .more_math import baddbmm
from .nn import mse_loss
from .pooling_adaptive import adaptive_avg_pool2d
from .special import erfinv

__all__ = ["tanh_", "zero_", "clamp_", "inplace_sigmoid", "erfinv_", "put_", "normal_", "exponential_",
           "bernoulli_", "type_as", "mse_loss_ext", "adaptive_avg_pool2d_ext", "baddbmm_ext", "einsum_ext",
           "bernoulli_ext", "swiglu", "rms_norm", "tensor_muls", "scalar_to_array", "array_to_scalar", "move_to"]


def _tensor(name: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(x).__name__}")
    return x


def _write(name: str, input: Tensor, value: Tensor) -> Tensor:  # noqa: A002
    """Copy ``value`` into ``input``'s data (cast to its dtype) and return ``input``."""
    _tensor(name, input).asnumpy()[...] = value.asnumpy().astype(input.asnumpy().dtype)
    return input


def tanh_(input: Tensor) -> Tensor:  # noqa: A002
    """``ops.tanh_(input)``: ``input`` = tanh(``input``), in place."""
    return _write("tanh_", input, unary("Tanh", input))


def zero_(input: Tensor) -> Tensor:  # noqa: A002
    """``ops.zero_(input)``: every element of ``input`` set to 0, in place."""
    _tensor("zero_", input).asnumpy()[...] = 0
    return input


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """``ops.clamp_(input, min=None, max=None)``: ``input`` clamped to [min, max], in place."""
    if min is None and max is None:
        raise ValueError("clamp_: give min, max or both")
    out = _tensor("clamp_", input)
    if min is not None:
        out = binary("Maximum", out, min)
    if max is not None:
        out = binary("Minimum", out, max)
    return _write("clamp_", input, out)


def inplace_sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """``ops.inplace_sigmoid(input)``: ``input`` = sigmoid(``input``), in place."""
    return _write("inplace_sigmoid", input, unary("Sigmoid", input))


def erfinv_(input: Tensor) -> Tensor:  # noqa: A002
    """``ops.erfinv_(input)``: ``input`` = erfinv(``input``), in place."""
    return _write("erfinv_", input, erfinv(input))


def put_(input: Tensor, index: Any, source: Any, accumulate: bool = False) -> Tensor:  # noqa: A002
    """``ops.put_(input, index, source, accumulate=False)``: write ``source`` at the flat positions ``index`` of
    ``input`` (negative counts from the end; ``accumulate``: add, repeated positions adding up), in place."""
    data = _tensor("put_", input).asnumpy()
    idx = as_tensor(index).asnumpy().reshape(-1)
    src = as_tensor(source).asnumpy().reshape(-1)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"put_: index must be an integer tensor, got {idx.dtype}")
    if idx.size != src.size:
        raise ValueError(f"put_: index has {idx.size} elements but source has {src.size}")
    if idx.size and (idx.min() < -data.size or idx.max() >= data.size):
        raise IndexError(f"put_: an index is out of range for an input of {data.size} elements")
    flat = data.reshape(-1)
    if accumulate:
        np.add.at(flat, idx, src.astype(flat.dtype))
    else:
        flat[idx] = src.astype(flat.dtype)
    return input


def _float_input(name: str, input: Any) -> None:  # noqa: A002
    if isinstance(input, Tensor) and not input.dtype.is_float:
        raise TypeError(f"{name}: input must be a float tensor, got {input.dtype.name}")


def normal_(input: Tensor, mean: float = 0, std: float = 1, *, generator: Any = None) -> Tensor:  # noqa: A002
    """``ops.normal_(input, mean=0, std=1, *, generator=None)``: fill ``input`` with N(mean, std²) draws."""
    _float_input("normal_", input)
    if isinstance(std, bool) or not isinstance(std, numbers.Real) or std < 0:
        raise ValueError(f"normal_: std must be a non-negative number, got {std!r}")
    data, gen = _host_rng("normal_", input, generator)
    data[...] = gen.normal(float(mean), float(std), data.shape).astype(data.dtype)
    return input


def exponential_(input: Tensor, lambd: float = 1, *, generator: Any = None) -> Tensor:  # noqa: A002
    """``ops.exponential_(input, lambd=1, *, generator=None)``: fill ``input`` with Exponential(``lambd``)
    draws."""
    _float_input("exponential_", input)
    if isinstance(lambd, bool) or not isinstance(lambd, numbers.Real) or lambd <= 0:
        raise ValueError(f"exponential_: lambd must be a positive number, got {lambd!r}")
    data, gen = _host_rng("exponential_", input, generator)
    data[...] = gen.exponential(1.0 / float(lambd), data.shape).astype(data.dtype)
    return input


def bernoulli_(input: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:  # noqa: A002
    """``ops.bernoulli_(input, p=0.5, *, generator=None)``: fill ``input`` with 0/1 draws, 1 with probability
    ``p`` (a number, or a tensor broadcast to ``input``)."""
    probs = as_tensor(p).asnumpy().astype(np.float64) if isinstance(p, Tensor) else np.float64(p)
    if np.any((probs < 0) | (probs > 1)):
        raise ValueError("bernoulli_: p must lie in [0, 1]")
    data, gen = _host_rng("bernoulli_", input, generator)
    data[...] = (gen.random(data.shape) < np.broadcast_to(probs, data.shape)).astype(data.dtype)
    return input


def type_as(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``ops.type_as(input, other)``: ``input`` cast to ``other``'s dtype."""
    return apply("Cast", {"dtype": as_tensor(other).dtype}, [as_tensor(input)])


def mse_loss_ext(input: Any, target: Any, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``ops.mse_loss_ext(input, target, reduction='mean')``: ``ops.mse_loss``."""
    return mse_loss(input, target, reduction)


def adaptive_avg_pool2d_ext(input: Any, output_size: Any) -> Tensor:  # noqa: A002
    """``ops.adaptive_avg_pool2d_ext(input, output_size)``: ``ops.adaptive_avg_pool2d``."""
    return adaptive_avg_pool2d(input, output_size)


def baddbmm_ext(input: Any, batch1: Any, batch2: Any, *, beta: float = 1, alpha: float = 1) -> Tensor:  # noqa: A002
    """``ops.baddbmm_ext(input, batch1, batch2, *, beta=1, alpha=1)``: ``ops.baddbmm``."""
    return baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def einsum_ext(equation: str, *operands: Any) -> Tensor:
    """``ops.einsum_ext(equation, *operands)``: ``ops.einsum``."""
    return einsum(equation, *operands)


def bernoulli_ext(input: Any, *, generator: Any = None) -> Tensor:  # noqa: A002
    """``ops.bernoulli_ext(input, *, generator=None)``: 0/1 draws, 1 with probability ``input`` (elementwise),
    in ``input``'s dtype."""
    x = as_tensor(input)
    return bernoulli_(Tensor(np.zeros(x.shape, x.dtype.np_dtype), dtype=x.dtype), x, generator=generator)


def swiglu(input: Any, dim: int = -1) -> Tensor:  # noqa: A002
    """``ops.swiglu(input, dim=-1)``: ``silu(a) * b`` of the two halves ``a``, ``b`` of ``input`` along ``dim``."""
    x = as_tensor(input)
    if not x.dtype.is_float:
        raise TypeError(f"swiglu: input must be float16, float32 or bfloat16, got {x.dtype.name}")
    if isinstance(dim, bool) or not isinstance(dim, int) or not -x.ndim <= dim < x.ndim:
        raise ValueError(f"swiglu: dim must be an int in [{-x.ndim}, {x.ndim}), got {dim!r}")
    if x.shape[dim] % 2:
        raise ValueError(f"swiglu: axis {dim} has {x.shape[dim]} elements; it must split into two halves")
    a, b = split(x, x.shape[dim] // 2, dim)
    return binary("Mul", silu(a), b)


def rms_norm(x: Any, gamma: Any, epsilon: float = 1e-6) -> tuple[Tensor, Tensor]:
    """``ops.rms_norm(x, gamma, epsilon=1e-6)``: ``(x / sqrt(mean(x², over gamma's trailing axes) + epsilon)
    * gamma, the reciprocal root mean square)``; the second output keeps the reduced axes as 1, in float32."""
    t, g = as_tensor(x), as_tensor(gamma)
    if not (t.dtype.is_float and g.dtype.is_float) or t.dtype != g.dtype:
        raise TypeError(f"rms_norm: x and gamma must share one float dtype, got {t.dtype.name} and {g.dtype.name}")
    if not 0 < epsilon <= 1:
        raise ValueError(f"rms_norm: epsilon must lie in (0, 1], got {epsilon!r}")
    if g.ndim == 0 or g.ndim > t.ndim or tuple(t.shape[-g.ndim:]) != tuple(g.shape):
        raise ValueError(f"rms_norm: gamma's shape {tuple(g.shape)} must be the trailing axes of x's "
                         f"{tuple(t.shape)}")
    x32 = apply("Cast", {"dtype": "float32"}, [t])
    axes = tuple(range(t.ndim - g.ndim, t.ndim))
    mean_sq = apply("ReduceMean", {"axis": axes, "keep_dims": True}, [binary("Mul", x32, x32)])
    rstd = unary("Rsqrt", binary("Add", mean_sq, float(epsilon)))
    y = binary("Mul", apply("Cast", {"dtype": t.dtype}, [binary("Mul", x32, rstd)]), g)
    return y, rstd


def tensor_muls(input: Any, other: float) -> Tensor:  # noqa: A002
    """``ops.tensor_muls(input, other)``: ``input`` times the Python number ``other``."""
    if isinstance(other, bool) or not isinstance(other, numbers.Number):
        raise TypeError(f"tensor_muls: other must be a Python number, got {type(other).__name__}")
    return binary("Mul", input, other)


def scalar_to_array(input_x: Any) -> Tensor:
    """``ops.scalar_to_array(input_x)``: the Python number as a 0-D Tensor (float32 for a float, int64 for an
    int)."""
    if isinstance(input_x, bool) or not isinstance(input_x, (int, float)):
        raise TypeError(f"scalar_to_array: input_x must be an int or float, got {type(input_x).__name__}")
    return Tensor(np.array(input_x, np.float32 if isinstance(input_x, float) else np.int64))


def array_to_scalar(input_x: Any) -> int | float | bool:
    """``ops.array_to_scalar(input_x)``: the value of a one-element Tensor as a Python number."""
    t = as_tensor(input_x)
    if t.size != 1:
        raise ValueError(f"array_to_scalar: input_x must have one element, got shape {tuple(t.shape)}")
    return t.asnumpy().reshape(()).item()


def move_to(input: Any, to: str = "CPU", blocking: bool = True) -> Tensor:  # noqa: A002
    """``ops.move_to(input, to='CPU', blocking=True)``: a copy on device ``to`` (a list or tuple is made a
    Tensor first)."""
    return as_tensor(input).move_to(to, blocking)
