"""``mindspore.scipy``: SciPy-style functions over Tensors. ``linalg`` is provided (docs/mindspore-compat.md
lists what of ``mindspore.scipy`` is not)."""

from __future__ import annotations

from . import linalg

__all__ = ["linalg"]
