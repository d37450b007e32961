"""set_context accepts every key MindSpore 2.10 accepts (a one-time note where it changes nothing), refuses the
others naming the key; set_device; jit's MindSpore 2.10 keywords; PYNATIVE_MODE is the default mode."""

from __future__ import annotations

import gc
import json
import logging

import numpy as np
import pytest

import opbuild as ms
from opbuild.core import context_keys

from .conftest import run_python

DEFAULT_MODE_CELL = """
import json, numpy as np, opbuild as ms
from opbuild import nn, ops
class Net(nn.Cell):
    def construct(self, x):
        return ops.exp(x) * 2.0
mode = ms.get_context("mode")
out = Net()(ms.tensor(np.linspace(-1, 1, 5).astype(np.float32)))
rep = ms.build_report().as_dict()
print(json.dumps([mode, rep["built"], rep["reused"], float(out.asnumpy()[0])]))
"""


def test_default_mode_is_pynative_and_its_kernels_are_cached(tmp_path):
    env = {"OPBUILD_CACHE_PATH": str(tmp_path), "RANK_ID": "", "OPBUILD_CACHE": ""}
    first = json.loads(run_python(DEFAULT_MODE_CELL, env=env).stdout.strip().splitlines()[-1])
    second = json.loads(run_python(DEFAULT_MODE_CELL, env=env).stdout.strip().splitlines()[-1])
    assert first[0] == ms.PYNATIVE_MODE  # MindSpore 2.x's default
    assert first[1:3] == [2, 0] and second[1:3] == [0, 2]  # Exp and Mul, op by op: built once, then reused
    assert first[3] == pytest.approx(2 * np.exp(-1.0), rel=1e-6)


@pytest.mark.parametrize("key,value", [
    ("max_call_depth", 2000), ("save_graphs", True), ("save_graphs", 3), ("save_graphs_path", "./ir"),
    ("jit_config", {"jit_level": "O1"}), ("enable_compile_cache", True), ("compile_cache_path", "/tmp/c"),
    ("runtime_num_threads", 4), ("deterministic", "ON"), ("pynative_synchronize", True),
    ("memory_optimize_level", "O1"), ("max_device_memory", "4GB"), ("ascend_config", {}),
    ("jit_syntax_level", 2), ("inter_op_parallel_num", 2), ("support_binary", True),
])
def test_mindspore_keys_are_accepted_and_read_back(key, value, caplog, monkeypatch):
    monkeypatch.setattr(context_keys, "_noted", set())
    monkeypatch.setattr(ms.core.config, "_context", dict(ms.core.config._context))
    with caplog.at_level(logging.WARNING, logger="opbuild.context"):
        ms.set_context(**{key: value})
        ms.set_context(**{key: value})
    expected = {True: 2, False: 0}[value] if key == "save_graphs" and isinstance(value, bool) else value
    assert ms.get_context(key) == expected
    notes = [r.getMessage() for r in caplog.records if key in r.getMessage()]
    assert len(notes) == 1 and "changes nothing on opbuild" in notes[0]  # once per process, saying why


def test_unset_mindspore_keys_read_their_defaults(monkeypatch):
    fresh = {k: v for k, v in ms.core.config._context.items() if k not in context_keys.KEYS}
    monkeypatch.setattr(ms.core.config, "_context", fresh)
    assert ms.get_context("max_call_depth") == 1000
    assert ms.get_context("save_graphs") == 0


@pytest.mark.parametrize("kwargs,error,match", [
    ({"save_graph": 1}, ValueError, "unknown key 'save_graph'"),
    ({"max_call_depth": "10"}, TypeError, "max_call_depth must be int"),
    ({"max_call_depth": True}, TypeError, "max_call_depth must be int"),
    ({"save_graphs": 7}, ValueError, "save_graphs must be a bool or 0-3"),
    ({"jit_config": {"jit_level": "O9"}}, ValueError, r"jit_config\['jit_level'\] must be one of"),
    ({"jit_config": {"level": "O1"}}, ValueError, "jit_config has unknown keys"),
    ({"enable_compile_cache": 1}, TypeError, "enable_compile_cache must be bool"),
])
def test_invalid_keys_and_values_are_refused_naming_the_key(kwargs, error, match):
    before = dict(ms.core.config._context)
    with pytest.raises(error, match=match):
        ms.set_context(**kwargs)
    assert ms.core.config._context == before


def test_set_device():
    ms.set_device("CPU")
    assert ms.get_context("device_target") == "CPU"
    ms.set_device("cpu", 0)
    assert ms.get_context("device_id") == 0
    with pytest.raises(ms.core.errors.UnsupportedTargetError, match="not supported"):
        ms.set_device("Ascend")


def test_jit_accepts_mindspore_2_10_keywords(graph_mode):
    @ms.jit(capture_mode="ast", jit_level="O1", dynamic=1, fullgraph=True, backend="ms_backend")
    def f(a, b):
        return a * b + 1.0

    x = ms.tensor([1.0, -2.0])
    np.testing.assert_allclose(f(x, x).asnumpy(), [2.0, 5.0])
    np.testing.assert_allclose(ms.jit(f.fn)(x, x).asnumpy(), [2.0, 5.0])


@pytest.mark.parametrize("kwargs,error,match", [
    ({"capture_mode": "graph"}, ValueError, "capture_mode must be one of"),
    ({"jit_level": "O5"}, ValueError, "jit_level must be one of"),
    ({"dynamic": 2}, ValueError, "dynamic must be one of"),
    ({"fullgraph": "yes"}, TypeError, "fullgraph must be a bool"),
    ({"no_such": 1}, TypeError, r"unexpected keyword arguments \['no_such'\]"),
])
def test_jit_refuses_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        ms.jit(lambda x: x, **kwargs)


def test_jit_on_a_cell_method_compiles_once_per_signature_and_follows_the_structure(pynative_mode):
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.scale = ms.Parameter(ms.tensor([2.0]), name="scale")

        @ms.jit
        def construct(self, a):
            return a * self.scale

    net, other = Net(), Net()
    other.scale.set_data(np.array([3.0], np.float32))
    assert net(ms.tensor([1.0, 2.0])).tolist() == [2.0, 4.0]
    assert other(ms.tensor([1.0, 2.0])).tolist() == [3.0, 6.0]  # its own graph, its own parameter
    net.scale.set_data(np.array([5.0], np.float32))
    assert net(ms.tensor([1.0, 1.0])).tolist() == [5.0, 5.0]  # parameters are read live
    assert [len(g) for g in Net.construct._bound.values()] == [1, 1]
    net.set_train(True)  # a new training flag: a new graph
    net(ms.tensor([1.0, 1.0]))
    assert sorted(len(g) for g in Net.construct._bound.values()) == [1, 2]
    del other
    gc.collect()
    assert len(Net.construct._bound) == 1  # a dead instance's graphs go with it


def test_device_helpers(monkeypatch):
    monkeypatch.setattr(ms.core.config, "_context", dict(ms.core.config._context))
    ms.set_device("CPU", 0)
    info = ms.get_current_device()
    assert tuple(info) == ("CPU", 0) and info.device_target == "CPU" and info.device_id == 0
    ms.set_deterministic(True)
    assert ms.get_context("deterministic") == "ON"
    ms.set_recursion_limit(50)
    assert ms.get_context("max_call_depth") == 50
    with pytest.raises(TypeError, match="deterministic must be a bool"):
        ms.set_deterministic("yes")


def test_jit_config_object(pynative_mode):
    net = ms.nn.Dense(2, 2)
    net.set_jit_config(ms.JitConfig(jit_level="O1"))
    assert net.get_jit_config()["jit_level"] == "O1"
    with pytest.raises(ValueError, match="jit_level must be"):
        ms.JitConfig(jit_level="O7")
    with pytest.raises(TypeError, match="expected a JitConfig"):
        net.set_jit_config({"jit_level": "O1"})
