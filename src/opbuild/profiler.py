"""``mindspore.Profiler`` and ``mindspore.profiler`` on opbuild: a host-side step profiler.

It records what a CPU process can measure without device tracing: the wall-clock time of each profiled step
(``step()`` marks step boundaries, ``start()``/``stop()`` the window; a ``schedule`` picks which steps are
recorded), plus metadata from ``add_metadata``/``add_metadata_json``. ``analyse()`` writes them to
``<output_path>/profiler_summary.json``; ``tensorboard_trace_handler(dir)`` writes one such file per recorded
cycle. There are no device (NPU/GPU) activities or per-kernel traces: the levels, activities and AI Core
metrics are accepted as MindSpore names them and change nothing (per-kernel build and run data:
``opbuild.build_report()``).
"""

from __future__ import annotations

import enum
import json
import os
import time
import warnings
from collections.abc import Callable
from typing import Any


class ProfilerLevel(enum.Enum):
    """How much device data MindSpore collects (opbuild records host step times at every level)."""

    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ProfilerActivity(enum.Enum):
    """Which processors MindSpore traces (opbuild: the host only)."""

    CPU = "CPU"
    NPU = "NPU"
    GPU = "GPU"


class AicoreMetrics(enum.Enum):
    """Ascend AI Core counters (no meaning on a CPU)."""

    AiCoreNone = "AiCoreNone"
    ArithmeticUtilization = "ArithmeticUtilization"
    PipeUtilization = "PipeUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    ResourceConflictRatio = "ResourceConflictRatio"
    MemoryUB = "MemoryUB"
    L2Cache = "L2Cache"


class ProfilerAction(enum.Enum):
    """What a schedule asks for at a step."""

    NONE = 0
    WARM_UP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


class Schedule:
    """``schedule(wait, active, warmup=0, repeat=0, skip_first=0)``: skip ``skip_first`` steps, then cycles
    of ``wait`` idle, ``warmup`` and ``active`` recorded steps (``repeat`` cycles; 0: forever)."""

    def __init__(self, *, wait: int, active: int, warmup: int = 0, repeat: int = 0, skip_first: int = 0) -> None:
        if min(wait, warmup, repeat, skip_first) < 0 or active < 1:
            raise ValueError("schedule: wait, warmup, repeat, skip_first must be >= 0 and active >= 1")
        self.wait, self.active, self.warmup, self.repeat, self.skip_first = wait, active, warmup, repeat, skip_first

    def __call__(self, step: int) -> ProfilerAction:
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if self.repeat and step // cycle >= self.repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < self.wait:
            return ProfilerAction.NONE
        if pos < self.wait + self.warmup:
            return ProfilerAction.WARM_UP
        return ProfilerAction.RECORD_AND_SAVE if pos == cycle - 1 else ProfilerAction.RECORD


def schedule(*, wait: int, active: int, warmup: int = 0, repeat: int = 0, skip_first: int = 0) -> Schedule:
    """A :class:`Schedule` (MindSpore's ``mindspore.profiler.schedule``)."""
    return Schedule(wait=wait, active=active, warmup=warmup, repeat=repeat, skip_first=skip_first)


def tensorboard_trace_handler(dir_name: str | None = None, worker_name: str | None = None,
                              analyse_flag: bool = True) -> Callable[[Any], None]:
    """A callback for ``on_trace_ready`` that writes each recorded cycle's summary under ``dir_name``."""
    directory = dir_name or "./data"

    def handler(prof: Profiler) -> None:
        prof._write(os.path.join(directory, f"{worker_name or 'opbuild'}_cycle{prof._cycles}.json"))

    return handler


class Profiler:
    """``Profiler(output_path='./data', profiler_level=..., activities=..., schedule=None,
    on_trace_ready=None, start_profile=True, ...)``: host step times between ``start`` and ``stop``."""

    def __init__(self, output_path: str = "./data", profiler_level: Any = ProfilerLevel.Level0,
                 activities: Any = None, schedule: Schedule | None = None,
                 on_trace_ready: Callable[[Any], None] | None = None, start_profile: bool = True,
                 **kwargs: Any) -> None:
        self.output_path = output_path
        self.settings = {"profiler_level": getattr(profiler_level, "value", profiler_level),
                         "activities": [getattr(a, "value", a) for a in (activities or [ProfilerActivity.CPU])],
                         **{k: getattr(v, "value", v) for k, v in kwargs.items()}}
        self.schedule, self.on_trace_ready = schedule, on_trace_ready
        self.metadata: dict[str, Any] = {}
        self.steps: list[dict[str, float]] = []
        self._running, self._step, self._t0, self._cycles = False, 0, 0.0, 0
        if start_profile and schedule is None:
            self.start()

    def start(self) -> None:
        """Begin recording (the current step starts now)."""
        self._running, self._t0 = True, time.perf_counter()

    def step(self) -> None:
        """Mark the end of a step: record its time (if the schedule records it) and begin the next."""
        if not self._running:
            self.start()
            return
        now = time.perf_counter()
        action = self.schedule(self._step) if self.schedule else ProfilerAction.RECORD
        if action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self.steps.append({"step": self._step, "seconds": now - self._t0})
        if action == ProfilerAction.RECORD_AND_SAVE and self.on_trace_ready is not None:
            self._cycles += 1
            self.on_trace_ready(self)
        self._step, self._t0 = self._step + 1, now

    def stop(self) -> None:
        """End recording (the open step is recorded when no schedule is set)."""
        if self._running and self.schedule is None:
            self.steps.append({"step": self._step, "seconds": time.perf_counter() - self._t0})
        self._running = False

    def add_metadata(self, key: str, value: str) -> None:
        """Attach a string entry to the written summary."""
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("add_metadata: key and value must be strings (add_metadata_json takes JSON values)")
        self.metadata[key] = value

    def add_metadata_json(self, key: str, value: str) -> None:
        """Attach a JSON-encoded entry (given as a JSON string) to the written summary."""
        self.metadata[key] = json.loads(value)

    def _write(self, path: str) -> str:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"settings": self.settings, "metadata": self.metadata, "steps": self.steps}, f, indent=1)
        return path

    def analyse(self, offline_path: str | None = None, pretty: bool = False, step_list: Any = None,
                mode: str = "sync") -> None:
        """Write the summary to ``<output_path>/profiler_summary.json``."""
        self.stop()
        self._write(os.path.join(offline_path or self.output_path, "profiler_summary.json"))

    @classmethod
    def offline_analyse(cls, path: str, pretty: bool = False, step_list: Any = None, data_simplification: bool = True):
        """Read back a summary written by :meth:`analyse` under ``path`` (None, with a warning, when there is
        none: MindSpore's offline analysis also only warns about a path without data)."""
        summary = os.path.join(path, "profiler_summary.json")
        if not os.path.isfile(summary):
            warnings.warn(f"Profiler.offline_analyse: no profiler data under {path!r} (expected "
                          f"{summary}, written by Profiler.analyse)", stacklevel=2)
            return None
        with open(summary, encoding="utf-8") as f:
            return json.load(f)


__all__ = ["Profiler", "ProfilerLevel", "ProfilerActivity", "AicoreMetrics", "ProfilerAction", "Schedule",
           "schedule", "tensorboard_trace_handler"]
