"""``mindspore.scipy``: SciPy-style functions over Tensors: ``linalg``, ``optimize`` and ``fft``
(docs/mindspore-compat.md lists what of ``mindspore.scipy`` is not provided)."""

from __future__ import annotations

from . import fft, linalg, optimize

__all__ = ["fft", "linalg", "optimize"]
