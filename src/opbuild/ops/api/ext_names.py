"""Functions of MindSpore 2.10's ``mindspore.ops`` that opbuild lacked: ``cond`` (the condition number of a
matrix), the ``*_ext`` spellings ``float_power_ext`` and ``isnan_ext``, and the in-place random fills
``random_`` and ``uniform_`` (also the Tensor methods of those names).

``cond(A, p)`` is, as in MindSpore, ``norm(A, p) * norm(inverse(A), p)``: the matrices must be square and
invertible for every ``p``. The random fills draw on the host, in PyNative mode, from NumPy's Philox generator
keyed by a :class:`~opbuild.rng.Generator`'s (seed, offset) (the default generator when none is given), so the
same seed gives the same values; the bits are not MindSpore's (whose CPU backend has no kernel for them).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ... import rng
from ...core.tensor import Tensor, as_tensor
from . import math as M
from .linalg import inverse
from .linalg_more import matrix_norm

_P_NAMES = "2, -2, 1, -1, inf, -inf, 'fro', 'nuc' or None"


def _p_ok(p: Any) -> bool:
    if isinstance(p, str):
        return p in ("fro", "nuc")
    return isinstance(p, numbers.Real) and not isinstance(p, bool) and p in (1, -1, 2, -2, math.inf, -math.inf)


def cond(A: Any, p: Any = None) -> Tensor:  # noqa: N803 - MindSpore's name
    """``ops.cond(A, p=None)``: the condition number ``norm(A, p) * norm(inverse(A), p)`` of each square
    matrix of ``A`` (..., n, n); ``p`` is 2 (None: the ratio of the largest to the smallest singular value),
    -2 (its inverse), 1 / -1 (max / min column sum), inf / -inf (max / min row sum), ``'fro'`` or ``'nuc'``.
    A batch of matrices gives float32 values of the batch's shape, one matrix a scalar of its dtype."""
    t = as_tensor(A)
    if not _p_ok(p) and p is not None:
        raise ValueError(f"cond: p must be one of {_P_NAMES} for matrices, got {p!r}")
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError(f"cond: A must be square matrices (..., n, n) (cond inverts them), got shape "
                         f"{tuple(t.shape)}")
    order = 2 if p is None else p
    out = M.mul(matrix_norm(t, order), matrix_norm(inverse(t), order))
    return M.cast(out, "float32") if t.ndim > 2 else out


def float_power_ext(input: Any, exponent: Any) -> Tensor:  # noqa: A002 - MindSpore's name
    """``ops.float_power_ext(input, exponent)``: ``input ** exponent`` computed and returned in float64 (a
    Python number on either side is accepted; one of the two must be a Tensor)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError(f"float_power_ext: input or exponent must be a Tensor, got {type(input).__name__} and "
                        f"{type(exponent).__name__}")
    base = M.cast(input, "float64") if isinstance(input, Tensor) else Tensor(np.float64(input))
    power = M.cast(exponent, "float64") if isinstance(exponent, Tensor) else float(exponent)
    return M.pow(base, power)


def isnan_ext(tensor: Any) -> Tensor:
    """``ops.isnan_ext(tensor)``: where ``tensor`` is NaN (bool; all False for integers)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"isnan_ext: tensor must be a Tensor, got {type(tensor).__name__}")
    # An integer or bool value is never NaN: x != x is False everywhere, in the input's shape.
    return M.isnan(tensor) if tensor.dtype.is_float else M.not_equal(tensor, tensor)


def _host_rng(name: str, t: Any, generator: Any) -> tuple[np.ndarray, np.random.Generator]:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(t).__name__}")
    gen = rng.default_generator if generator is None else generator
    if not isinstance(gen, rng.Generator):
        raise TypeError(f"{name}: generator must be a mindspore.Generator, got {type(generator).__name__}")
    data = t.asnumpy()  # raises, naming the mode, for a tensor being traced in GRAPH_MODE
    seed, offset = gen._step(max(data.size, 1))
    return data, np.random.Generator(np.random.Philox(key=seed, counter=offset))


# The largest integer every value below it is exact for, per float dtype: the default upper bound of random_.
_FLOAT_TOP = {"float16": 2**11, "bfloat16": 2**8, "float32": 2**24, "float64": 2**53}


def random_(input: Any, from_: int = 0, to: int | None = None, *, generator: Any = None) -> Tensor:  # noqa: A002
    """``ops.random_(input, from_=0, to=None, *, generator=None)``: fill ``input`` in place with integers
    drawn uniformly from [from_, to) and return it; ``to`` None draws up to the dtype's largest value,
    included (for a float dtype the largest integer it and every integer below it hold exactly; 1 for bool)."""
    for arg, v in (("from_", from_), ("to", to)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral)):
            raise TypeError(f"random_: {arg} must be an int, got {type(v).__name__}")
    if not isinstance(input, Tensor):
        raise TypeError(f"random_: input must be a Tensor, got {type(input).__name__}")
    np_type = np.dtype(input.dtype.np_dtype)
    kind = np_type.kind
    if to is None:  # inclusive: the dtype's largest value (a float's largest exact integer), 1 for bool
        top = (int(np.iinfo(np_type).max) if kind in "iu" else 1 if kind == "b"
               else _FLOAT_TOP.get(input.dtype.name, 2**24))
        if from_ > top:
            raise ValueError(f"random_: from_ ({from_}) exceeds the largest value of {input.dtype.name} ({top})")
    else:
        if from_ >= to:
            raise ValueError(f"random_: from_ ({from_}) must be less than to ({to})")
        top = int(to) - 1
    if kind in "iu" and (from_ < np.iinfo(np_type).min or top > np.iinfo(np_type).max):
        raise ValueError(f"random_: [{from_}, {top}] does not fit {input.dtype.name}")
    data, gen = _host_rng("random_", input, generator)
    draw_type = np.uint64 if np_type == np.uint64 else np.int64
    data[...] = gen.integers(int(from_), top, size=data.shape, dtype=draw_type, endpoint=True).astype(data.dtype)
    return input


def uniform_(input: Any, from_: float = 0, to: float = 1, *, generator: Any = None) -> Tensor:  # noqa: A002
    """``ops.uniform_(input, from_=0, to=1, *, generator=None)``: fill the float tensor ``input`` in place with
    values drawn uniformly from [from_, to) and return it."""
    for arg, v in (("from_", from_), ("to", to)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"uniform_: {arg} must be a number, got {type(v).__name__}")
    if from_ > to:
        raise ValueError(f"uniform_: from_ ({from_}) must not exceed to ({to})")
    if isinstance(input, Tensor) and not input.dtype.is_float:
        raise TypeError(f"uniform_: input must be a float tensor, got {input.dtype.name}")
    data, gen = _host_rng("uniform_", input, generator)
    data[...] = gen.uniform(float(from_), float(to), data.shape).astype(data.dtype)
    return input


__all__ = ["cond", "float_power_ext", "isnan_ext", "random_", "uniform_"]
