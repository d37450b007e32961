"""``mindspore.device_context.ascend``: opbuild has no Ascend target, so there is never an Ascend device."""

from __future__ import annotations

from . import device as device  # the submodule, as MindSpore has it (not in __all__, as there)
from .device import device_count, is_available

__all__ = ["device_count", "is_available"]
