"""Argument validation shared by the layers: errors name the layer and the offending argument."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from ...core.dtypes import ALL_FLOATS
from ...core.errors import ShapeError
from ...core.tensor import Tensor
from ...ops.primitive import apply


def positive_int(layer: str, name: str, value: object) -> int:
    """``value`` as an int >= 1, or ValueError naming the layer and argument."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{layer}: {name} must be a positive int, got {value!r}")
    return value


def int_pair(layer: str, name: str, value: int | Sequence[int], minimum: int = 1) -> tuple[int, int]:
    """An int or a pair of ints (each >= ``minimum``) as a pair, e.g. a kernel size or a stride."""
    pair = (value, value) if isinstance(value, int) and not isinstance(value, bool) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in pair):
        raise ValueError(f"{layer}: {name} must be an int >= {minimum} or a pair of them, got {value!r}")
    return pair  # type: ignore[return-value]


def int_tuple(layer: str, name: str, value: object, n: int, minimum: int = 0) -> tuple[int, ...]:
    """``value`` (an int, or ``n`` ints, or one int in a sequence) as ``n`` ints, each at least ``minimum``
    (``layer`` names the caller in the error)."""
    vals = (value,) * n if isinstance(value, numbers.Integral) else tuple(value) if isinstance(value, Sequence) \
        else None
    if vals is not None and len(vals) == 1:
        vals = vals * n
    if vals is None or len(vals) != n or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                                 and v >= minimum for v in vals):
        raise ValueError(f"{layer}: {name} must be an int >= {minimum} or {n} of them, got {value!r}")
    return tuple(int(v) for v in vals)


def check_pad_mode(layer: str, mode: str, padding: int | Sequence[int]) -> str:
    """Canonical (lower-case) pad mode; explicit padding is only meaningful with pad_mode='pad'."""
    mode_l = mode.lower() if isinstance(mode, str) else mode
    if mode_l not in ("same", "valid", "pad"):
        raise ValueError(f"{layer}: pad_mode must be 'same', 'valid' or 'pad', got {mode!r}")
    nonzero = any(padding) if isinstance(padding, (tuple, list)) else bool(padding)
    if mode_l != "pad" and nonzero:
        raise ValueError(f"{layer}: padding={padding!r} requires pad_mode='pad' (got pad_mode={mode!r})")
    return mode_l


def check_input(layer: str, x: Tensor, rank: int | None = None, min_rank: int | None = None,
                dim: tuple[int, int] | None = None) -> None:
    """Check an input's rank (exact or minimum) and one dimension ``(axis, size)``; ShapeError otherwise."""
    shape = x.shape
    if rank is not None and len(shape) != rank:
        raise ShapeError(layer, f"expects a rank-{rank} input", [x._type])
    if min_rank is not None and len(shape) < min_rank:
        raise ShapeError(layer, f"expects an input of rank >= {min_rank}", [x._type])
    if dim is not None:
        axis, size = dim
        if shape[axis] != size:
            raise ShapeError(layer, f"expects size {size} on axis {axis}, got {shape[axis]}", [x._type])


def padding4(layer: str, padding: int | Sequence[int]) -> tuple[int, int, int, int]:
    """An int or (top, bottom, left, right) as a 4-tuple of non-negative ints."""
    pads = (padding,) * 4 if isinstance(padding, int) and not isinstance(padding, bool) else tuple(padding)
    if len(pads) != 4 or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in pads):
        raise ValueError(f"{layer}: padding must be a non-negative int or (top, bottom, left, right), "
                         f"got {padding!r}")
    return pads  # type: ignore[return-value]


def in_input_dtype(param: Tensor, x: Tensor) -> Tensor:
    """``param`` (a float32 gamma, beta or slope) in the floating dtype of the input ``x``: MindSpore's
    normalisation layers and PReLU take a float16 input with their float32 parameters and give float16."""
    if param.dtype == x.dtype or x.dtype.name not in ALL_FLOATS or param.dtype.name not in ALL_FLOATS:
        return param
    return apply("Cast", {"dtype": x.dtype.name}, [param])
