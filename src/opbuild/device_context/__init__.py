"""``mindspore.device_context``: per-backend device queries and settings (``cpu``, ``gpu``, ``ascend``).

The answers are opbuild's own: the CPU is always there, a GPU is there where opbuild's CUDA target finds a
usable device (targets/cuda/device.py), and there is never an Ascend device (opbuild has no Ascend target).
"""

from __future__ import annotations

from . import ascend, cpu, gpu

__all__ = ["ascend", "cpu", "gpu"]
