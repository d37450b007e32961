"""After ``set_seed``, opbuild's initializers, nn layers' default parameters, ``np.random`` and ``random`` give
MindSpore 2.10's values bit for bit (tests/fixtures/mindspore/init_seeds.json, by scripts/record_init_seeds.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import random
from pathlib import Path

import numpy as np
import pytest

import opbuild as ob
from opbuild import nn
from opbuild.common import initializer as init_mod
from opbuild.core import philox_fill as pf
from opbuild.core.philox_fill import normal_fill, philox_uint32, truncated_normal_fill, uniform_fill

FIX = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "init_seeds.json").read_text())


def assert_bits(actual: np.ndarray, rec: dict, what: str) -> None:
    a = np.ascontiguousarray(actual, dtype=np.float32)
    assert list(a.shape) == rec["shape"], f"{what}: shape {a.shape} != {rec['shape']}"
    if "b64" in rec:
        want = np.frombuffer(base64.b64decode(rec["b64"]), np.float32).reshape(a.shape)
        diff = np.flatnonzero(a.view(np.uint32) != want.view(np.uint32))
        assert diff.size == 0, f"{what}: {diff.size} values differ, first at {diff[0]}: " \
                               f"{a.reshape(-1)[diff[0]]!r} != {want.reshape(-1)[diff[0]]!r}"
    else:
        assert [float(v) for v in a.reshape(-1)[:8]] == rec["head"], f"{what}: first values differ"
        assert hashlib.sha256(a.tobytes()).hexdigest() == rec["sha256"], f"{what}: some value differs"


def make_init(spec):
    name, args, kwargs = spec
    return getattr(init_mod, name)(*args, **kwargs)


@pytest.mark.parametrize("case", FIX["fills"], ids=lambda c: f"seed{c['seed']}-n{c['n']}")
def test_native_fills_match(case):
    seed, n = int(case["seed"]), case["n"]
    assert_bits(uniform_fill(seed, (n,), -0.3, 0.7), case["uniform"], "uniform")
    assert_bits(normal_fill(seed, (n,), 0.5, 2.0), case["normal"], "normal")
    assert_bits(truncated_normal_fill(seed, (n,), -0.1, 3.0, 0.2, 0.05), case["truncated_normal"], "truncated")


def test_philox_stream_offsets_agree():
    # Reading from an offset gives the tail of the stream read from 0 (how a split fill lines up).
    whole = philox_uint32(42, 23)
    for start in (1, 4, 7, 13):
        assert np.array_equal(philox_uint32(42, 23 - start, start), whole[start:])


@pytest.mark.parametrize("case", FIX["inits"],
                         ids=lambda c: f"{c['init'][0]}{c['init'][1]}-{c['shape']}-{c['dtype']}")
def test_initializer_after_set_seed_matches(case):
    ob.set_seed(case["seed"])
    value = init_mod.initializer(make_init(case["init"]), case["shape"], getattr(ob, case["dtype"])).asnumpy()
    assert value.dtype == np.dtype(case["dtype"])
    assert_bits(value, case["value"], f"{case['init']} {case['shape']}")


def test_initializers_in_sequence_take_successive_seeds():
    seq = FIX["sequence"]
    ob.set_seed(seq["seed"])
    for name, rec in zip(seq["names"], seq["values"]):
        assert_bits(init_mod.initializer(name, seq["shape"], ob.float32).asnumpy(), rec, name)
    assert_bits(np.random.rand(5), seq["np_after"], "np.random after the initializers")


_ALIAS = {"moving_mean": "mean", "moving_variance": "variance"}


def _layer_kwargs(kwargs):
    return {k: make_init(v["init"]) if isinstance(v, dict) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("name", sorted(FIX["nets"]))
def test_layers_default_parameters_match(name):
    net = FIX["nets"][name]
    ob.set_seed(net["seed"])
    cells = [getattr(nn, layer)(*args, **_layer_kwargs(kwargs)) for layer, args, kwargs in net["layers"]]
    for cell, (layer, _, _), want in zip(cells, net["layers"], net["params"]):
        # Matched by name (the order of get_parameters differs for nn.LSTM; BatchNorm's statistics are named
        # mean/variance in MindSpore's cells, moving_mean/moving_variance in opbuild's).
        got = {_ALIAS.get(n, n): p for n, p in ((p.name.split(".")[-1], p) for p in cell.get_parameters())}
        assert sorted(got) == sorted(w[0] for w in want), f"{layer}: parameter names"
        for pname, rec in want:
            assert_bits(got[pname].asnumpy(), rec, f"{name}/{layer}.{pname}")
    assert_bits(np.random.rand(4), net["np_after"], f"{name}: np.random after the layers")


def test_set_seed_seeds_numpy_and_python_random():
    host = FIX["host"]
    ob.set_seed(host["seed"])
    assert_bits(np.random.rand(6), host["np_rand"], "np.random")
    assert [random.random() for _ in range(3)] == host["random"]


def test_unseeded_initializers_repeat_without_touching_numpy(monkeypatch):
    # Before any set_seed the seeds come from a private generator: the same program gets the same weights,
    # and np.random's state is left alone.
    from opbuild.core import init_values

    monkeypatch.setattr(init_values._seed_epoch, "n", 0)
    runs = []
    for _ in range(2):
        monkeypatch.setattr(init_values, "_unseeded", [])
        state = np.random.get_state()[1].copy()
        runs.append(init_mod.initializer("normal", (3, 4), ob.float32).asnumpy())
        assert np.array_equal(np.random.get_state()[1], state)
    assert np.array_equal(runs[0], runs[1])


@pytest.mark.parametrize("bad, err", [(-1, ValueError), (2**32, ValueError), (1.5, TypeError), (True, TypeError)])
def test_set_seed_rejects_bad_seeds(bad, err):
    with pytest.raises(err, match="seed"):
        ob.set_seed(bad)


def test_fills_are_one_stream_across_their_chunks():
    """The fills work a chunk at a time; the values must be those of one sequential stream (MindSpore's)."""
    n = 2 * (1 << 18) + 3  # crosses two chunk boundaries, odd
    seed = 2**62 + 12345
    r = pf.philox_uint32(seed, n + 1)
    np.testing.assert_array_equal(pf.philox_uint32(seed, 1000, n - 999), r[n - 999:n + 1])
    lo, hi = np.float32(-0.3), np.float32(0.7)
    whole = ((float(hi) - float(lo)) * (r[:n].astype(np.float64) / 2**32) + float(lo)).astype(np.float32)
    np.testing.assert_array_equal(pf.uniform_fill(seed, (n,), -0.3, 0.7), whole)
    for fill, args in ((pf.normal_fill, (0.1, 0.02)), (pf.truncated_normal_fill, (-2, 2, 0.0, 1.0))):
        long = fill(seed, (n,), *args)
        for k in ((1 << 18) - 2, (1 << 18) + 6, n - 1):  # a prefix is the same stream's start
            np.testing.assert_array_equal(fill(seed, (k,), *args), long[:k])
