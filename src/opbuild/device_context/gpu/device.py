"""``mindspore.device_context.gpu.device``: whether opbuild's CUDA target finds a usable GPU, and how many it uses."""

from __future__ import annotations

from ...targets.cuda.device import probe as _probe_cuda

__all__ = ["device_count", "is_available"]


def is_available() -> bool:
    """Whether opbuild can run kernels on a GPU: its CUDA target found a usable device (a driver, a device,
    and a compiler for it)."""
    return bool(_probe_cuda().ok)


def device_count() -> int:
    """The number of GPUs opbuild uses: 1 (device 0) where one is available; a RuntimeError, as in MindSpore,
    where none is."""
    probe = _probe_cuda()
    if not probe.ok:
        raise RuntimeError(f"device_context.gpu.device_count: no GPU is available to opbuild ({probe.reason}); "
                           "check with device_context.gpu.is_available() first")
    return 1
