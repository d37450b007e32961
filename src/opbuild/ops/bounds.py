"""The ``bounds`` attribute of the ops that index with run-time values (Gather, GatherD, GatherNd, the
TensorScatter* family) and the messages of their kernels' reports (``OpDef.status``).

``bounds="raise"``: an index outside the valid range (``[-n, n)`` for Gather and GatherD, ``[0, n)`` for
GatherNd and the TensorScatter* family, as MindSpore 2.10's CPU kernels check) makes the kernel report it (the
first one it meets: its value and its position in the indices), raised after the call as a
:class:`~opbuild.core.errors.KernelInputError`, as MindSpore raises for the same input. ``"ignore"`` (the
default: opbuild's own compositions, which may send an index out of range on purpose): the element reads
zeros, or the update is skipped (negative indices count from the end, except in Gather). Either way no kernel
reads or writes out of bounds. NumPy references (and constant folding, which runs them) raise the same error
for the same input.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.dtypes import np_name
from ..core.errors import KernelInputError, OpbuildError, ShapeError
from ..core.ir import TensorType
from .registry import StatusFn

#: The values of ``bounds``.
BOUNDS = ("ignore", "raise")


def norm_bounds(op: str, attrs: dict, ins: Sequence[TensorType]) -> str:
    """``attrs["bounds"]`` checked (default ``"ignore"``)."""
    bounds = attrs.get("bounds", "ignore")
    if bounds not in BOUNDS:
        raise ShapeError(op, f"bounds must be one of {BOUNDS}, got {bounds!r}", list(ins))
    return bounds


def index_report(what: str, shape: Sequence[int], value: int, position: int, n: int, axis: str,
                 from_end: bool = True) -> str:
    """The message for index ``value`` at flat ``position`` of ``what`` (of ``shape``), out of range for an axis
    of length ``n`` (``axis`` says which); ``from_end``: the op counts ``[-n, 0)`` from the end."""
    where = ", ".join(str(int(i)) for i in np.unravel_index(position, tuple(shape))) if len(shape) else ""
    valid = f"[{-n}, {n}) (a negative one counts from the end)" if from_end else f"[0, {n})"
    return f"{what}[{where}] = {value} is out of range for {axis}: an index must lie in {valid}"


def raise_out_of_range(op: str, status: StatusFn, attrs: dict, data: np.ndarray, indices: np.ndarray,
                       idx: np.ndarray, n: int | np.ndarray, from_end: bool = True) -> None:
    """Raise ``status``'s error for the first entry of ``idx`` (``indices`` as int64) outside ``[-n, n)`` (``n``
    an axis length, or one per index axis broadcast against ``idx``), as the kernel reports it (a reference of
    a ``bounds="raise"`` op); ``from_end=False``: the range is ``[0, n)``."""
    bad = ((idx < (-n if from_end else 0)) | (idx >= n)).reshape(-1)
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        value = int(idx.reshape(-1)[position])
        types = [TensorType(tuple(a.shape), np_name(a.dtype)) for a in (data, indices)]
        report = status(attrs, types, value, position)
        raise report if isinstance(report, OpbuildError) else KernelInputError(op, report, value, position)


__all__ = ["BOUNDS", "index_report", "norm_bounds", "raise_out_of_range"]
