"""``mindspore.device_context.cpu.device``: the CPU backend's availability and device count."""

from __future__ import annotations

__all__ = ["device_count", "is_available"]


def is_available() -> bool:
    """Whether the CPU backend is available: always True (opbuild compiles every kernel for the host)."""
    return True


def device_count() -> int:
    """The number of CPU devices: 1 (the host, whatever its core count)."""
    return 1
