"""``opbuild.ops.composite`` (``import opbuild.ops.composite as C``): MindSpore's path of the composite
operations; today ``GradOperation`` (autograd.py)."""

from __future__ import annotations

from ..autograd import GradOperation

__all__ = ["GradOperation"]
