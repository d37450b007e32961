"""Loading built kernels and executing graphs; also MindSpore's ``mindspore.runtime`` stream and
device-limit names (opbuild.runtime.device_limits), since ``mindspore.runtime`` resolves to this package."""

from .device_limits import (
    Stream,
    current_stream,
    default_stream,
    get_device_limit,
    get_kernel_launch_capture,
    get_stream_limit,
    reset_stream_limit,
    set_cur_stream,
    set_device_limit,
    set_kernel_launch_capture,
    set_stream_limit,
    synchronize,
)
from .events import Event, StreamCtx, StreamLimitCtx, communication_stream, launch_blocking
from .memory import (
    empty_cache,
    max_memory_allocated,
    max_memory_reserved,
    memory_allocated,
    memory_reserved,
    memory_stats,
    memory_summary,
    reset_max_memory_allocated,
    reset_max_memory_reserved,
    reset_peak_memory_stats,
)

__all__ = ["Stream", "default_stream", "current_stream", "set_cur_stream", "synchronize", "set_stream_limit",
           "reset_stream_limit", "get_stream_limit", "set_device_limit", "get_device_limit",
           "set_kernel_launch_capture", "get_kernel_launch_capture", "Event", "StreamCtx", "StreamLimitCtx",
           "communication_stream", "launch_blocking", "empty_cache", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "memory_summary", "reset_max_memory_allocated",
           "reset_max_memory_reserved", "reset_peak_memory_stats"]
