"""``mindspore.boost``: training accelerations. ``GradientAccumulation`` is provided; docs/mindspore-compat.md
lists the rest of MindSpore's names and why they are not."""

from __future__ import annotations

from .grad_accumulation import GradientAccumulation

__all__ = ["GradientAccumulation"]
