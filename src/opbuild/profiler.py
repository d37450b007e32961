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


class ExportType(enum.Enum):
    """The formats MindSpore's analysis writes (opbuild writes its JSON summary either way)."""

    Db = "db"
    Text = "text"


class HostSystem(enum.Enum):
    """The host resources MindSpore can sample (recorded in the summary's settings; opbuild samples none)."""

    CPU = "cpu"
    MEM = "mem"
    DISK = "disk"
    NETWORK = "network"
    OSRT = "osrt"


_CONFIG_KEYS = ("profiler_level", "aic_metrics", "l2_cache", "mstx", "data_simplification", "export_type",
                "mstx_domain_include", "mstx_domain_exclude", "sys_io", "sys_interconnection", "host_sys")


class _ExperimentalConfig:
    """MindSpore's extra profiler settings, kept as given (``mstx=True`` makes :data:`mstx` record into the
    running :class:`profile`); they appear in the summary's settings."""

    def __init__(self, profiler_level: Any = ProfilerLevel.Level0, aic_metrics: Any = AicoreMetrics.AiCoreNone,
                 l2_cache: bool = False, mstx: bool = False, data_simplification: bool = True,
                 export_type: list | None = None, mstx_domain_include: list | None = None,
                 mstx_domain_exclude: list | None = None, sys_io: bool = False, sys_interconnection: bool = False,
                 host_sys: list | None = None) -> None:
        values = locals()
        for key in _CONFIG_KEYS:
            setattr(self, key, values[key])

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON values (enum members as their values)."""
        def plain(v: Any) -> Any:
            return [plain(x) for x in v] if isinstance(v, (list, tuple)) else getattr(v, "value", v)

        return {key: plain(getattr(self, key)) for key in _CONFIG_KEYS}


_active: list[profile] = []


class profile(Profiler):  # noqa: N801 - MindSpore's name
    """``with profile(activities=..., schedule=..., on_trace_ready=...) as prof:`` (``mindspore.profiler.
    profile``): :class:`Profiler`'s host step times as a context manager that starts on entry (when
    ``start_profile``) and stops on exit. With ``experimental_config=_ExperimentalConfig(mstx=True)`` the
    :data:`mstx` marks and ranges are recorded, with their host times, under the summary's ``"mstx"``."""

    def __init__(self, activities: Any = None, with_stack: bool = False, profile_memory: bool = False,
                 data_process: bool = False, parallel_strategy: bool = False, start_profile: bool = True,
                 hbm_ddr: bool = False, pcie: bool = False, sync_enable: bool = True, record_shapes: bool = False,
                 schedule: Schedule | None = None, on_trace_ready: Callable[[Any], None] | None = None,
                 experimental_config: _ExperimentalConfig | None = None) -> None:
        if experimental_config is not None and not isinstance(experimental_config, _ExperimentalConfig):
            raise TypeError(f"profile: experimental_config must be a mindspore.profiler._ExperimentalConfig, got "
                            f"{type(experimental_config).__name__}")
        self._config = experimental_config or _ExperimentalConfig()
        super().__init__(activities=activities, schedule=schedule, on_trace_ready=on_trace_ready,
                         start_profile=False, with_stack=with_stack, profile_memory=profile_memory,
                         data_process=data_process, parallel_strategy=parallel_strategy, hbm_ddr=hbm_ddr,
                         pcie=pcie, sync_enable=sync_enable, record_shapes=record_shapes,
                         experimental_config=self._config.to_dict())
        self._start_profile = start_profile
        self._origin = time.perf_counter()
        self._ranges: dict[int, tuple[str, str, float]] = {}

    def __enter__(self) -> profile:
        if self._start_profile:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Begin recording (and accept :data:`mstx` records when configured)."""
        super().start()
        if self not in _active:
            _active.append(self)

    def stop(self) -> None:
        """End recording."""
        super().stop()
        if self in _active:
            _active.remove(self)

    def _mstx_record(self, entry: dict[str, Any]) -> None:
        domain = entry["domain"]
        include, exclude = self._config.mstx_domain_include, self._config.mstx_domain_exclude
        if self._config.mstx and (not include or domain in include) and not (exclude and domain in exclude):
            self.metadata.setdefault("mstx", []).append(entry)


class _Mstx:
    """``mindspore.profiler.mstx``: marks and ranges in the running :class:`profile`'s summary (its
    ``experimental_config`` must have ``mstx=True``). With no such profile, ``mark`` records nothing and
    ``range_start`` returns 0, as MindSpore's does when mstx is off."""

    def __init__(self) -> None:
        self._next_id = 1

    @staticmethod
    def _check(fn: str, message: Any, domain: Any) -> None:
        if not isinstance(message, str) or not isinstance(domain, str):
            raise TypeError(f"mstx.{fn}: message and domain must be str, got {type(message).__name__} and "
                            f"{type(domain).__name__}")

    @staticmethod
    def _recording() -> list[profile]:
        return [p for p in _active if p._config.mstx]

    def mark(self, message: str, stream: Any = None, domain: str = "default") -> None:
        """Record an instant with ``message``."""
        self._check("mark", message, domain)
        for p in self._recording():
            p._mstx_record({"mark": message, "domain": domain, "at": time.perf_counter() - p._origin})

    def range_start(self, message: str, stream: Any = None, domain: str = "default") -> int:
        """Open a range; its id (0 when no profile records mstx) goes to :meth:`range_end`."""
        self._check("range_start", message, domain)
        recording = self._recording()
        if not recording:
            return 0
        range_id, self._next_id = self._next_id, self._next_id + 1
        for p in recording:
            p._ranges[range_id] = (message, domain, time.perf_counter() - p._origin)
        return range_id

    def range_end(self, range_id: int, domain: str = "default") -> None:
        """Close range ``range_id``, recording its start and end times."""
        if isinstance(range_id, bool) or not isinstance(range_id, int):
            raise TypeError(f"mstx.range_end: range_id must be the int range_start returned, got {range_id!r}")
        for p in self._recording():
            opened = p._ranges.pop(range_id, None)
            if opened is not None:
                message, dom, begin = opened
                p._mstx_record({"range": message, "domain": dom, "start": begin,
                                "end": time.perf_counter() - p._origin})


mstx = _Mstx()


__all__ = ["Profiler", "ProfilerLevel", "ProfilerActivity", "AicoreMetrics", "ProfilerAction", "Schedule",
           "schedule", "tensorboard_trace_handler", "profile", "ExportType", "HostSystem", "mstx",
           "_ExperimentalConfig"]
