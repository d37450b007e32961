"""opbuild.profiler (MindSpore's Profiler names): host step times recorded between start and stop, a
schedule's cycles, the trace handler's files, and metadata in the written summary."""

from __future__ import annotations

import json
import os

import pytest

import opbuild
from opbuild.profiler import (
    Profiler,
    ProfilerAction,
    ProfilerActivity,
    ProfilerLevel,
    schedule,
    tensorboard_trace_handler,
)


def test_steps_and_metadata_are_written(tmp_path):
    prof = Profiler(output_path=str(tmp_path), profiler_level=ProfilerLevel.Level0,
                    activities=[ProfilerActivity.CPU, ProfilerActivity.NPU])
    for _ in range(3):
        prof.step()
    prof.add_metadata("run", "a")
    prof.add_metadata_json("cfg", json.dumps({"lr": 0.1}))
    prof.analyse()
    summary = Profiler.offline_analyse(str(tmp_path))
    assert [s["step"] for s in summary["steps"]] == [0, 1, 2, 3]
    assert all(s["seconds"] >= 0 for s in summary["steps"])
    assert summary["metadata"] == {"run": "a", "cfg": {"lr": 0.1}}
    assert summary["settings"]["activities"] == ["CPU", "NPU"]
    with pytest.raises(TypeError, match="strings"):
        prof.add_metadata("x", 1)
    with pytest.warns(UserWarning, match="no profiler data"):
        assert Profiler.offline_analyse(str(tmp_path / "nothing")) is None


def test_schedule_cycles_and_trace_handler(tmp_path):
    sched = schedule(wait=1, warmup=1, active=2, repeat=1)
    assert [sched(i) for i in range(5)] == [ProfilerAction.NONE, ProfilerAction.WARM_UP, ProfilerAction.RECORD,
                                            ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE]
    prof = Profiler(schedule=sched, on_trace_ready=tensorboard_trace_handler(str(tmp_path)))
    prof.start()
    for _ in range(6):
        prof.step()
    prof.stop()
    assert [s["step"] for s in prof.steps] == [2, 3]
    assert os.listdir(tmp_path) == ["opbuild_cycle1.json"]


def test_top_level_name_is_the_profiler():
    assert opbuild.Profiler is Profiler
