"""``mindspore.hal``: MindSpore's older device, stream and memory API, here the same objects as
``opbuild.runtime``'s (``hal.Stream is runtime.Stream``) plus device queries.

``device_target`` takes MindSpore's values ('CPU', 'GPU', 'Ascend'; None is the current target). 'GPU' is
available where opbuild's CUDA target finds a usable device (targets/cuda/device.py); there is no Ascend
target. The memory figures are the CPU graphs' arenas (runtime/memory.py), so they are given for the CPU target
only; asking for another target's raises a ValueError saying so.
"""

from __future__ import annotations

from typing import Any

from .core.config import get_context
from .runtime import memory as _memory
from .runtime.device_limits import Stream, current_stream, default_stream, set_cur_stream, synchronize
from .runtime.events import Event, StreamCtx, communication_stream
from .targets.cuda.device import probe as _probe_cuda

_TARGETS = ("CPU", "GPU", "Ascend")


def _target(fn: str, device_target: Any) -> str:
    if device_target is None:
        device_target = get_context("device_target")
    if device_target not in _TARGETS:
        raise ValueError(f"hal.{fn}: device_target must be one of {list(_TARGETS)}, got {device_target!r}")
    return device_target


def is_available(device_target: str) -> bool:
    """Whether opbuild can run on ``device_target``: the CPU always, a GPU where a CUDA device is usable."""
    target = _target("is_available", device_target)
    return target == "CPU" or (target == "GPU" and _probe_cuda().ok)


def _available(fn: str, device_target: Any) -> str:
    target = _target(fn, device_target)
    if not is_available(target):
        why = f": {_probe_cuda().reason}" if target == "GPU" else " (opbuild has no Ascend target)"
        raise ValueError(f"hal.{fn}: the {target} backend is not available{why}; call hal.is_available to check")
    return target


def is_initialized(device_target: str) -> bool:
    """Whether ``device_target`` is the target this process runs on (set by ``set_device``/``set_context``)."""
    return _target("is_initialized", device_target) == get_context("device_target")


def device_count(device_target: str | None = None) -> int:
    """The number of devices of ``device_target`` opbuild uses: 1 (one host, or GPU 0)."""
    _available("device_count", device_target)
    return 1


def _check_id(fn: str, device_id: Any) -> None:
    if isinstance(device_id, bool) or not isinstance(device_id, int):
        raise TypeError(f"hal.{fn}: device_id must be an int, got {type(device_id).__name__}")
    if device_id != 0:
        raise ValueError(f"hal.{fn}: opbuild uses device 0 only, got device_id={device_id}")


def get_device_name(device_id: int, device_target: str | None = None) -> str:
    """'CPU' for the host, the CUDA architecture (``sm_XY``) for the GPU."""
    _check_id("get_device_name", device_id)
    target = _available("get_device_name", device_target)
    return "CPU" if target == "CPU" else str(_probe_cuda().arch)


def get_device_capability(device_id: int, device_target: str | None = None) -> tuple[int, int] | None:
    """A GPU's compute capability (major, minor); None for the CPU, as in MindSpore."""
    _check_id("get_device_capability", device_id)
    if _available("get_device_capability", device_target) == "CPU":
        return None
    arch = str(_probe_cuda().arch)[3:]
    return int(arch[:-1]), int(arch[-1])


def get_device_properties(device_id: int, device_target: str | None = None) -> None:
    """None: MindSpore gives no properties for the CPU, and opbuild gives none for a GPU either."""
    _check_id("get_device_properties", device_id)
    _available("get_device_properties", device_target)


def get_arch_list(device_target: str | None = None) -> list[str] | None:
    """The GPU architecture opbuild builds kernels for; None for the CPU, as in MindSpore."""
    if _available("get_arch_list", device_target) == "CPU":
        return None
    return [str(_probe_cuda().arch)]


def _cpu_only(fn: str, device_target: Any) -> None:
    if _target(fn, device_target) != "CPU":
        raise ValueError(f"hal.{fn}: opbuild counts the CPU graphs' memory only; pass device_target='CPU'")


def memory_allocated(device_target: str | None = None) -> int:
    """Bytes of the compiled graphs' arenas alive now (runtime/memory.py)."""
    _cpu_only("memory_allocated", device_target)
    return _memory.memory_allocated()


def max_memory_allocated(device_target: str | None = None) -> int:
    """The peak of :func:`memory_allocated` since start or the last reset."""
    _cpu_only("max_memory_allocated", device_target)
    return _memory.max_memory_allocated()


def memory_reserved(device_target: str | None = None) -> int:
    """Bytes held for graphs: the same as :func:`memory_allocated` (nothing freed is cached)."""
    _cpu_only("memory_reserved", device_target)
    return _memory.memory_reserved()


def max_memory_reserved(device_target: str | None = None) -> int:
    """The peak of :func:`memory_reserved` since start or the last reset."""
    _cpu_only("max_memory_reserved", device_target)
    return _memory.max_memory_reserved()


def memory_stats(device_target: str | None = None) -> dict[str, Any]:
    """The figures under MindSpore's keys (runtime/memory.py)."""
    _cpu_only("memory_stats", device_target)
    return _memory.memory_stats()


def memory_summary(device_target: str | None = None) -> str:
    """The figures as a text table."""
    _cpu_only("memory_summary", device_target)
    return _memory.memory_summary()


def reset_peak_memory_stats(device_target: str | None = None) -> None:
    """Start both peaks again from the current figures."""
    _cpu_only("reset_peak_memory_stats", device_target)
    _memory.reset_peak_memory_stats()


def reset_max_memory_allocated(device_target: str | None = None) -> None:
    """Start the allocated peak again from the current figure."""
    _cpu_only("reset_max_memory_allocated", device_target)
    _memory.reset_max_memory_allocated()


def reset_max_memory_reserved(device_target: str | None = None) -> None:
    """Start the reserved peak again from the current figure."""
    _cpu_only("reset_max_memory_reserved", device_target)
    _memory.reset_max_memory_reserved()


def empty_cache() -> None:
    """Nothing to release: opbuild caches no freed memory."""


__all__ = ["Event", "Stream", "StreamCtx", "communication_stream", "current_stream", "default_stream",
           "device_count", "empty_cache", "get_arch_list", "get_device_capability", "get_device_name",
           "get_device_properties", "is_available", "is_initialized", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "memory_summary", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "reset_peak_memory_stats", "set_cur_stream", "synchronize"]
