"""``mindspore.device_manager``: choosing the device (``set_device``, ``get_current_device``) and
deterministic kernels (``set_deterministic``), the same functions as the package's top-level ones."""

from __future__ import annotations

from .core.config import set_device
from .core.device import get_current_device, set_deterministic

__all__ = ["set_device", "set_deterministic", "get_current_device"]
