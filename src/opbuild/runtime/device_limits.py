"""MindSpore's ``mindspore.runtime`` stream and device-limit API (``Stream``, ``default_stream``,
``set_stream_limit``, ``set_device_limit``, ``set_kernel_launch_capture`` ...), for code written against it.

opbuild runs each graph on the CPU in the calling thread: there is one execution stream, no Ascend cube or
vector cores to partition and no kernel-launch capture. So these functions check their arguments as MindSpore
does, record what is set and return it, and change nothing in how graphs execute. An unset limit reads as the
number of CPU cores (MindSpore's CPU build returns uninitialised numbers there). docs/mindspore-compat.md says so.
"""

from __future__ import annotations

import os
from typing import Any

_CORE_KEYS = ("cube_core_num", "vector_core_num")


def _check_count(fn: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{fn}: {name} must be a positive int, got {value!r}")
    return value


def _default_limits() -> dict[str, int]:
    n = os.cpu_count() or 1
    return {key: n for key in _CORE_KEYS}


class Stream:
    """An execution stream (``mindspore.runtime.Stream``). opbuild executes synchronously on one CPU stream,
    so every Stream runs its work in order with all others: ``query`` is always True and ``synchronize``
    returns at once. ``priority`` is kept for inspection."""

    def __init__(self, priority: int = 0, **kwargs: Any) -> None:
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"Stream: priority must be an int, got {type(priority).__name__}")
        self.priority = priority
        self._limits: dict[str, int] | None = None

    def synchronize(self) -> None:
        """Wait for the stream's work: opbuild's work is already complete when a call returns."""

    def query(self) -> bool:
        """Whether all work of the stream is complete (always, on opbuild)."""
        return True

    def wait_stream(self, stream: Stream) -> None:
        """Order this stream after ``stream``: already so on opbuild's single stream."""
        if not isinstance(stream, Stream):
            raise TypeError(f"Stream.wait_stream: expected a Stream, got {type(stream).__name__}")

    def __repr__(self) -> str:
        return f"Stream(priority={self.priority})"


_DEFAULT_STREAM = Stream()
_current: list[Stream] = [_DEFAULT_STREAM]
_device_limits: dict[int, dict[str, int]] = {}
_capture: dict[str, Any] = {"enable": False, "op_capture_skip": []}


def default_stream() -> Stream:
    """The default stream (``mindspore.runtime.default_stream``)."""
    return _DEFAULT_STREAM


def current_stream() -> Stream:
    """The stream set by :func:`set_cur_stream` (the default stream unless changed)."""
    return _current[0]


def set_cur_stream(stream: Stream) -> None:
    """Make ``stream`` the current stream (no effect on execution on opbuild's single CPU stream)."""
    if not isinstance(stream, Stream):
        raise TypeError(f"set_cur_stream: expected a Stream, got {type(stream).__name__}")
    _current[0] = stream


def synchronize() -> None:
    """Wait for all streams: opbuild's work is complete when each call returns."""


def _check_stream(fn: str, stream: Any) -> Stream:
    if not isinstance(stream, Stream):
        raise TypeError(f"{fn}: stream must be a mindspore.runtime.Stream, got {type(stream).__name__}")
    return stream


def set_stream_limit(stream: Stream, cube_num: int, vector_num: int) -> None:
    """Record the core limits of ``stream`` (``mindspore.runtime.set_stream_limit``); recorded only."""
    s = _check_stream("set_stream_limit", stream)
    s._limits = {"cube_core_num": _check_count("set_stream_limit", "cube_num", cube_num),
                 "vector_core_num": _check_count("set_stream_limit", "vector_num", vector_num)}


def reset_stream_limit(stream: Stream) -> None:
    """Forget the core limits set on ``stream`` (``mindspore.runtime.reset_stream_limit``)."""
    _check_stream("reset_stream_limit", stream)._limits = None


def get_stream_limit(stream: Stream) -> dict[str, int]:
    """The core limits of ``stream``: what :func:`set_stream_limit` set, else the device's."""
    s = _check_stream("get_stream_limit", stream)
    return dict(s._limits) if s._limits is not None else get_device_limit(0)


def _check_device(fn: str, device: Any) -> int:
    if isinstance(device, bool) or not isinstance(device, int) or device < 0:
        raise ValueError(f"{fn}: device must be a device id (an int >= 0), got {device!r}")
    return device


def set_device_limit(device: int, cube_num: int | None = None, vector_num: int | None = None) -> None:
    """Record the core limits of ``device`` (``mindspore.runtime.set_device_limit``); a None keeps the
    current value. Recorded only: opbuild's CPU kernels use the threads the host gives them."""
    dev = _check_device("set_device_limit", device)
    limits = dict(_device_limits.get(dev) or _default_limits())
    if cube_num is not None:
        limits["cube_core_num"] = _check_count("set_device_limit", "cube_num", cube_num)
    if vector_num is not None:
        limits["vector_core_num"] = _check_count("set_device_limit", "vector_num", vector_num)
    _device_limits[dev] = limits


def get_device_limit(device: int) -> dict[str, int]:
    """The core limits of ``device`` (``mindspore.runtime.get_device_limit``): what was set, else the
    number of CPU cores for both."""
    dev = _check_device("get_device_limit", device)
    return dict(_device_limits.get(dev) or _default_limits())


def set_kernel_launch_capture(enable_capture_graph: bool, op_capture_skip: list | None = None) -> None:
    """Record MindSpore's kernel-launch capture switch (``mindspore.runtime.set_kernel_launch_capture``).
    opbuild already runs each graph as one compiled call, so there is nothing to capture."""
    if not isinstance(enable_capture_graph, bool):
        raise TypeError(f"set_kernel_launch_capture: enable_capture_graph must be a bool, got "
                        f"{type(enable_capture_graph).__name__}")
    skip = [] if op_capture_skip is None else op_capture_skip
    if not isinstance(skip, (list, tuple)) or not all(isinstance(s, str) for s in skip):
        raise TypeError(f"set_kernel_launch_capture: op_capture_skip must be a list of op names (str), "
                        f"got {op_capture_skip!r}")
    _capture.update(enable=enable_capture_graph, op_capture_skip=[s.lower() for s in skip])


def get_kernel_launch_capture() -> dict[str, Any]:
    """What :func:`set_kernel_launch_capture` recorded (an opbuild addition, for inspection)."""
    return {"enable": _capture["enable"], "op_capture_skip": list(_capture["op_capture_skip"])}


__all__ = ["Stream", "default_stream", "current_stream", "set_cur_stream", "synchronize", "set_stream_limit",
           "reset_stream_limit", "get_stream_limit", "set_device_limit", "get_device_limit",
           "set_kernel_launch_capture", "get_kernel_launch_capture"]
