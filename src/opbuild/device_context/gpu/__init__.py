"""``mindspore.device_context.gpu``: whether opbuild's CUDA target finds a usable GPU, and how many it uses."""

from __future__ import annotations

from . import device as device  # the submodule, as MindSpore has it (not in __all__, as there)
from .device import device_count, is_available

__all__ = ["device_count", "is_available"]
