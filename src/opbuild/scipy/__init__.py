"""``mindspore.scipy``: SciPy-style functions over Tensors: ``linalg`` and ``optimize`` (docs/mindspore-compat.md
lists what of ``mindspore.scipy`` is not provided)."""

from __future__ import annotations

from . import linalg, optimize

__all__ = ["linalg", "optimize"]
