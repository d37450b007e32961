"""MindSpore's ``mindspore.runtime.Event``, ``StreamCtx`` and ``communication_stream`` on opbuild's single
synchronous CPU stream (runtime/device_limits.py): work is complete when each call returns, so an Event records
the host time at which it is recorded, ``elapsed_time`` is the wall time between two records, and a stream
context only changes what :func:`current_stream` returns. MindSpore's CPU build refuses to create either
object; docs/mindspore-compat.md says so.
"""

from __future__ import annotations

import time

from .device_limits import Stream, _current, current_stream, default_stream, get_stream_limit, set_stream_limit


class Event:
    """A marker in a stream's work (``mindspore.runtime.Event``): recorded at a host time."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False) -> None:
        for name, value in (("enable_timing", enable_timing), ("blocking", blocking)):
            if not isinstance(value, bool):
                raise TypeError(f"Event: {name} must be a bool, got {type(value).__name__}")
        self.enable_timing = enable_timing
        self.blocking = blocking
        self._time: float | None = None

    def record(self, stream: Stream | None = None) -> None:
        """Record the event on ``stream`` (the current one if None): the work before it is already done."""
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"Event.record: stream must be a Stream, got {type(stream).__name__}")
        self._time = time.perf_counter()

    def wait(self, stream: Stream | None = None) -> None:
        """Make ``stream`` wait for the event: already so on one synchronous stream."""
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"Event.wait: stream must be a Stream, got {type(stream).__name__}")

    def synchronize(self) -> None:
        """Wait for the event's work: done when it was recorded."""

    def query(self) -> bool:
        """Whether the event's work is complete (always)."""
        return True

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds from this event's record to ``end_event``'s; both need ``enable_timing=True``."""
        if not isinstance(end_event, Event):
            raise TypeError(f"Event.elapsed_time: end_event must be an Event, got {type(end_event).__name__}")
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Event.elapsed_time: both events must be created with enable_timing=True")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Event.elapsed_time: record() both events first")
        return (end_event._time - self._time) * 1000.0


class StreamCtx:
    """``with StreamCtx(stream):`` makes ``stream`` the current stream for the block (None changes nothing)."""

    def __init__(self, ctx_stream: Stream | None) -> None:
        if ctx_stream is not None and not isinstance(ctx_stream, Stream):
            raise TypeError(f"StreamCtx: ctx_stream must be a Stream or None, got {type(ctx_stream).__name__}")
        self.stream = ctx_stream
        self._prev: Stream | None = None

    def __enter__(self) -> StreamCtx:
        if self.stream is not None:
            self._prev = current_stream()
            _current[0] = self.stream
        return self

    def __exit__(self, *exc: object) -> None:
        if self.stream is not None and self._prev is not None:
            _current[0] = self._prev


class StreamLimitCtx(StreamCtx):
    """``with StreamLimitCtx(stream, cube_num, vector_num):`` makes ``stream`` current and sets its core limits
    for the block (a -1 keeps a limit as it is), restoring both after. The limits are recorded only, as
    :func:`set_stream_limit`'s (runtime/device_limits.py)."""

    def __init__(self, stream: Stream, cube_num: int = -1, vector_num: int = -1) -> None:
        if not isinstance(stream, Stream):
            raise TypeError(f"StreamLimitCtx: stream must be a mindspore.runtime.Stream, got {type(stream).__name__}")
        super().__init__(stream)
        self.cube_num, self.vector_num = cube_num, vector_num
        self._prev_limits: dict[str, int] | None = None

    def __enter__(self) -> StreamLimitCtx:
        super().__enter__()
        self._prev_limits = self.stream._limits
        now = get_stream_limit(self.stream)
        cube = now["cube_core_num"] if self.cube_num == -1 else self.cube_num
        vector = now["vector_core_num"] if self.vector_num == -1 else self.vector_num
        set_stream_limit(self.stream, cube, vector)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stream._limits = self._prev_limits
        super().__exit__(*exc)


def launch_blocking() -> None:
    """Make kernel launches synchronous: opbuild's always are (each kernel has finished when its call returns)."""


def communication_stream() -> Stream:
    """The stream collectives run on: opbuild runs them in order on its one stream, the default stream."""
    return default_stream()


__all__ = ["Event", "StreamCtx", "StreamLimitCtx", "communication_stream", "launch_blocking"]
