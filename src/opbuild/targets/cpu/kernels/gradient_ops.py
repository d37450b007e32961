"""CPU kernel of StopGradient (ops/python_calls.py): the input's bytes (a view inside graphs, so this copy
runs only in PyNative)."""

from __future__ import annotations

from .layout import _copy_all
from .registry import register

register("StopGradient", _copy_all, copy=True)
