"""The random creation functions of ``mindspore.mint``: ``rand``, ``randn``, ``randint``, ``normal``,
``randperm``, ``rand_like``, ``randn_like``, with a ``generator`` (a :class:`~opbuild.rng.Generator`; the
default generator when None, so ``ms.manual_seed`` repeats a draw). They draw on the host from NumPy's Philox
generator keyed by the generator's (seed, offset), as ``ops.random_`` does: the same seed gives the same values,
not MindSpore's bits. ``device`` is accepted and ignored (opbuild builds for one CPU)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import rng
from ..core.dtypes import dtype_of
from ..core.tensor import Tensor, as_tensor


def _size(name: str, size: tuple) -> tuple[int, ...]:
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], numbers.Integral) else tuple(size)
    if not all(isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise TypeError(f"mint.{name}: size must be non-negative ints, got {size!r}")
    return tuple(int(d) for d in shape)


def _draw(name: str, shape: tuple[int, ...], generator: Any) -> np.random.Generator:
    gen = rng.default_generator if generator is None else generator
    if not isinstance(gen, rng.Generator):
        raise TypeError(f"mint.{name}: generator must be a mindspore.Generator, got {type(generator).__name__}")
    seed, offset = gen._step(max(int(np.prod(shape)), 1))
    return np.random.Generator(np.random.Philox(key=seed, counter=offset))


def _float_out(name: str, values: np.ndarray, dtype: Any) -> Tensor:
    dt = dtype_of(dtype or "float32")
    if not dt.is_float:
        raise TypeError(f"mint.{name}: dtype must be a float dtype, got {dt.name}")
    return Tensor(values.astype(np.dtype(dt.np_dtype)), dt)


def rand(*size: Any, generator: Any = None, dtype: Any = None, device: Any = None) -> Tensor:
    """``rand(*size, generator=None, dtype=None)``: uniform values in [0, 1) (float32 unless ``dtype``)."""
    shape = _size("rand", size)
    return _float_out("rand", _draw("rand", shape, generator).random(shape), dtype)


def randn(*size: Any, generator: Any = None, dtype: Any = None, device: Any = None) -> Tensor:
    """``randn(*size, generator=None, dtype=None)``: standard normal values (float32 unless ``dtype``)."""
    shape = _size("randn", size)
    return _float_out("randn", _draw("randn", shape, generator).standard_normal(shape), dtype)


def randint(*args: Any, generator: Any = None, dtype: Any = None, device: Any = None, **kwargs: Any) -> Tensor:
    """``randint([low=0,] high, size, *, generator=None, dtype=None)``: integers drawn uniformly from
    [low, high) (int64 unless ``dtype``)."""
    names = ("low", "high", "size") if len(args) + len(kwargs) >= 3 else ("high", "size")
    values = dict(zip(names, args), **kwargs)
    low, high, size = values.get("low", 0), values.get("high"), values.get("size")
    if high is None or size is None:
        raise TypeError("mint.randint: expected (low, high, size) or (high, size)")
    for arg, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"mint.randint: {arg} must be an int, got {v!r}")
    if low >= high:
        raise ValueError(f"mint.randint: low ({low}) must be less than high ({high})")
    shape = _size("randint", (size,))
    dt = dtype_of(dtype or "int64")
    out = _draw("randint", shape, generator).integers(int(low), int(high), shape, dtype=np.int64)
    return Tensor(out.astype(np.dtype(dt.np_dtype)), dt)


def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, generator: Any = None) -> Tensor:
    """``normal(mean=0.0, std=1.0, size=None, generator=None)``: normal values of ``mean`` and ``std`` (numbers
    with ``size``, or tensors broadcast together)."""
    m = as_tensor(mean).asnumpy() if isinstance(mean, Tensor) else np.float32(mean)
    s = as_tensor(std).asnumpy() if isinstance(std, Tensor) else np.float32(std)
    if size is None and not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        raise TypeError("mint.normal: give size, or mean or std as a Tensor")
    shape = _size("normal", (size,)) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    if np.any(np.asarray(s) < 0):
        raise ValueError("mint.normal: std must not be negative")
    z = _draw("normal", shape, generator).standard_normal(shape)
    dt = next((t.dtype.name for t in (mean, std) if isinstance(t, Tensor) and t.dtype.is_float), "float32")
    return _float_out("normal", m + s * z, dt)


def randperm(n: int, *, generator: Any = None, dtype: Any = "int64") -> Tensor:
    """``randperm(n, *, generator=None, dtype=int64)``: a random permutation of 0 .. n - 1."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"mint.randperm: n must be a non-negative int, got {n!r}")
    dt = dtype_of(dtype)
    return Tensor(_draw("randperm", (int(n),), generator).permutation(int(n)).astype(np.dtype(dt.np_dtype)), dt)


def rand_like(input: Any, *, dtype: Any = None, device: Any = None) -> Tensor:  # noqa: A002
    """``rand_like(input, *, dtype=None)``: :func:`rand` of ``input``'s shape (and dtype)."""
    x = as_tensor(input)
    return rand(*x.shape, dtype=dtype or x.dtype)


def randn_like(input: Any, *, dtype: Any = None, device: Any = None) -> Tensor:  # noqa: A002
    """``randn_like(input, *, dtype=None)``: :func:`randn` of ``input``'s shape (and dtype)."""
    x = as_tensor(input)
    return randn(*x.shape, dtype=dtype or x.dtype)


__all__ = ["normal", "rand", "rand_like", "randint", "randn", "randn_like", "randperm"]
