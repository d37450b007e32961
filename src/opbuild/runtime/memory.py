"""MindSpore's memory-statistics API (``mindspore.runtime.memory_allocated``, ``memory_stats``,
``memory_summary``, ``reset_peak_memory_stats``, ``empty_cache`` ...) with opbuild's real host numbers.

What is counted: the arenas of the compiled graphs alive in this process (runtime/executor.py allocates one per
graph, sized by the memory-planning pass, kernels' workspaces included). An arena is counted from its allocation
until its graph is freed, so "allocated" and "reserved" are the same figure: opbuild keeps no cache of freed
blocks (``empty_cache`` has nothing to release and the idle and eager-free figures are 0). Tensors held
by the program are NumPy arrays outside any pool and are not counted. MindSpore's CPU build reports 0 for all of
these; docs/mindspore-compat.md says how the figures differ.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

_lock = threading.Lock()
_state = {"allocated": 0, "peak_allocated": 0, "peak_reserved": 0, "arenas": 0}


def _free(nbytes: int) -> None:
    with _lock:
        _state["allocated"] -= nbytes
        _state["arenas"] -= 1


def track(owner: object, nbytes: int) -> None:
    """Count ``nbytes`` (an arena's size) as allocated until ``owner`` is garbage-collected."""
    with _lock:
        _state["allocated"] += nbytes
        _state["arenas"] += 1
        _state["peak_allocated"] = max(_state["peak_allocated"], _state["allocated"])
        _state["peak_reserved"] = max(_state["peak_reserved"], _state["allocated"])
    weakref.finalize(owner, _free, nbytes)


def memory_allocated() -> int:
    """Bytes of the compiled graphs' arenas alive now."""
    return _state["allocated"]


def max_memory_allocated() -> int:
    """The peak of :func:`memory_allocated` since start or the last reset."""
    return _state["peak_allocated"]


def memory_reserved() -> int:
    """Bytes held for graphs: the same as :func:`memory_allocated` (no freed blocks are cached)."""
    return _state["allocated"]


def max_memory_reserved() -> int:
    """The peak of :func:`memory_reserved` since start or the last reset."""
    return _state["peak_reserved"]


def reset_max_memory_allocated() -> None:
    """Start the peak of allocated bytes again from the current figure."""
    with _lock:
        _state["peak_allocated"] = _state["allocated"]


def reset_max_memory_reserved() -> None:
    """Start the peak of reserved bytes again from the current figure."""
    with _lock:
        _state["peak_reserved"] = _state["allocated"]


def reset_peak_memory_stats() -> None:
    """Start both peaks again from the current figures."""
    reset_max_memory_allocated()
    reset_max_memory_reserved()


def empty_cache() -> None:
    """Release cached free blocks: opbuild caches none (an arena is freed with its graph)."""


def memory_stats() -> dict[str, Any]:
    """The figures under MindSpore's keys; the pool sections describe the live arenas as blocks."""
    with _lock:
        allocated, arenas = _state["allocated"], _state["arenas"]
        peak_alloc, peak_res = _state["peak_allocated"], _state["peak_reserved"]
    return {"total_reserved_memory": allocated, "total_allocated_memory": allocated, "total_idle_memory": 0,
            "total_eager_free_memory": 0, "max_reserved_memory": peak_res, "max_allocated_memory": peak_alloc,
            "common_mem_pool_stats": {"block_unit_size": 0, "block_counts": arenas, "blocks_info": {}},
            "persistent_mem_pool_stats": {"block_counts": 0, "block_unit_size": 0, "blocks_info": {}}}


def _size_text(n: int) -> str:
    units = ["B  ", "KB", "MB", "GB", "TB", "PB"]
    k = 0
    while n >= 768 * 1024 and k < len(units) - 1:
        n //= 1024
        k += 1
    return f"{n:6d} {units[k]}"


_ROWS = (("total_reserved_memory", "Reserved memory"), ("total_allocated_memory", "Allocated memory"),
         ("total_idle_memory", "Idle memory"), ("total_eager_free_memory", "Eager free memory"),
         ("max_reserved_memory", "Max reserved memory"), ("max_allocated_memory", "Max allocated memory"))


def memory_summary() -> str:
    """:func:`memory_stats` as a text table laid out as MindSpore's."""
    stats = memory_stats()
    bar, thin = "|" + "=" * 45 + "|", "|" + "-" * 45 + "|"
    lines = [bar, f"| {'Memory summary':^43} |", bar, f"| {'Metric':<20} | {'Data':<20} |"]
    for key, label in _ROWS:
        lines += [thin, f"| {label:<20} | {_size_text(stats[key]):<20} |"]
    lines.append(bar)
    return "\n".join(lines) + "\n"


__all__ = ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "reset_peak_memory_stats", "empty_cache",
           "memory_stats", "memory_summary"]
