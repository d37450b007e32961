"""``mindspore.device_context.cpu``: the CPU backend's availability, device count and kernel thread count."""

from __future__ import annotations

from . import device as device  # the submodules, as MindSpore has them (not in __all__, as there)
from . import op_tuning as op_tuning
from .device import device_count, is_available
from .op_tuning import threads_num

__all__ = ["device_count", "is_available", "threads_num"]
