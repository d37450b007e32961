"""``mindspore.device_context.ascend.device``: opbuild has no Ascend target, so there is never an Ascend device."""

from __future__ import annotations

__all__ = ["device_count", "is_available"]


def is_available() -> bool:
    """False: opbuild compiles kernels for the CPU and CUDA GPUs only."""
    return False


def device_count() -> int:
    """Raises a RuntimeError, as MindSpore does where no Ascend device exists: opbuild has no Ascend target."""
    raise RuntimeError("device_context.ascend.device_count: opbuild has no Ascend target, so no Ascend device "
                       "exists; use device_context.cpu or device_context.gpu")
