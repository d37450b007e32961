"""The compiled initializer fills (runtime/init_fill.py, the ``PhiloxFill`` kernels) give the NumPy path's
values bit for bit (core/philox_fill.py's ``*_numpy`` fills, which match MindSpore's recorded fixtures): over
many seeds, lengths (across kernel chunks, odd, empty), parameters and edge values; the whole domain of the
normal fill's angle; every range of the truncated normal's erf_inv; MindSpore's fixtures through the compiled
path; and the kernels are ordinary cache entries, reused by a second builder without a compile."""

from __future__ import annotations

import base64
import ctypes
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from opbuild.core import config
from opbuild.core import philox_fill as pf
from opbuild.core.errors import CompilerNotFoundError
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.runtime import init_fill

FIX = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "init_seeds.json").read_text())
CAP = init_fill.CAPACITY
SEEDS = [0, 1, 42, 987654321987, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1]
LENGTHS = [0, 1, 2, 3, 4, 5, 7, 1030, CAP - 1, CAP, CAP + 1, 2 * CAP + 3]


@pytest.fixture(scope="module")
def fns():
    """The loaded kernels (built into the session's test cache the first time)."""
    assert init_fill.FILLS.load(), "the PhiloxFill kernels did not build or did not pass their probe"
    return init_fill.FILLS._fns


@pytest.fixture
def compiled(fns, monkeypatch):
    """The public fills with their NumPy path taken away: they must run the kernels. Yields the NumPy
    fills to compare with."""
    reference = {"uniform": pf.uniform_fill_numpy, "normal": pf.normal_fill_numpy,
                 "truncated": pf.truncated_normal_fill_numpy}

    def refuse(*args):
        raise AssertionError("the NumPy path ran where the compiled fill should have")
    for name in ("uniform_fill_numpy", "normal_fill_numpy", "truncated_normal_fill_numpy"):
        monkeypatch.setattr(pf, name, refuse)
    return reference


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype == np.float32 and a.shape == b.shape and np.array_equal(a.view(np.uint32),
                                                                                       b.view(np.uint32))


@pytest.mark.parametrize("seed", SEEDS)
def test_compiled_fills_equal_numpy_over_lengths(compiled, seed):
    for n in LENGTHS:
        assert same_bits(pf.uniform_fill(seed, (n,), -0.3, 0.7), compiled["uniform"](seed, (n,), -0.3, 0.7)), n
        assert same_bits(pf.normal_fill(seed, (n,), 0.5, 2.0), compiled["normal"](seed, (n,), 0.5, 2.0)), n
        assert same_bits(pf.truncated_normal_fill(seed, (n,), -0.1, 3.0, 0.2, 0.05),
                         compiled["truncated"](seed, (n,), -0.1, 3.0, 0.2, 0.05)), n


@pytest.mark.parametrize("shape", [(3, 5), (64, 3, 3, 3), (7, 1, 11), (0, 4), (1,)])
@pytest.mark.parametrize("args", [(-1.0, 1.0), (0.0, 0.0), (-1e30, 1e30), (2.5, -7.25), (1e-40, 3e-39)])
def test_compiled_uniform_edge_bounds(compiled, shape, args):
    assert same_bits(pf.uniform_fill(77, shape, *args), compiled["uniform"](77, shape, *args))


@pytest.mark.parametrize("mean, sigma", [(0.0, 1.0), (0.0, 0.02), (-3.5, 1e-6), (1e6, 1e3), (0.0, 0.0),
                                         (0.0, -2.0), (0.1, 1e30)])
def test_compiled_normal_edge_parameters(compiled, mean, sigma):
    for seed in (5, 2**64 - 1):
        assert same_bits(pf.normal_fill(seed, (4097,), mean, sigma), compiled["normal"](seed, (4097,), mean, sigma))


@pytest.mark.parametrize("a, b, mean, sigma", [
    (-2.0, 2.0, 0.0, 1.0), (-0.04, 0.04, 0.0, 0.02),  # mindcv's ViT (trunc_normal std 0.02)
    (-0.1, 3.0, 0.2, 0.05), (0.0, 1.0, 0.0, 1.0), (-9.0, 9.0, 0.0, 1.0), (-40.0, 40.0, 0.0, 1.0),
    (3.0, 8.0, 0.0, 1.0), (-8.0, -3.0, 1.0, 2.0), (1.0, 1.0, 0.0, 1.0), (2.0, -2.0, 0.0, 1.0),
    (-1e-3, 1e-3, 0.0, 1.0), (-5.0, 5.0, 0.0, 1e-30)])
def test_compiled_truncated_normal_edge_parameters(compiled, a, b, mean, sigma):
    for seed in (5, 2**63 + 3):
        assert same_bits(pf.truncated_normal_fill(seed, (4099,), a, b, mean, sigma),
                         compiled["truncated"](seed, (4099,), a, b, mean, sigma))


def test_compiled_truncated_normal_refuses_a_bad_sigma(compiled):
    with pytest.raises(ValueError, match="sigma must be > 0"):
        pf.truncated_normal_fill(1, (CAP,), -2, 2, 0.0, 0.0)


@pytest.mark.parametrize("case", FIX["fills"], ids=lambda c: f"seed{c['seed']}-n{c['n']}")
def test_compiled_fills_match_mindspores_fixtures(compiled, case):
    seed, n = int(case["seed"]), case["n"]
    for got, rec in ((pf.uniform_fill(seed, (n,), -0.3, 0.7), case["uniform"]),
                     (pf.normal_fill(seed, (n,), 0.5, 2.0), case["normal"]),
                     (pf.truncated_normal_fill(seed, (n,), -0.1, 3.0, 0.2, 0.05), case["truncated_normal"])):
        if "b64" in rec:
            assert same_bits(got, np.frombuffer(base64.b64decode(rec["b64"]), np.float32).reshape(got.shape))
        else:  # the longer records keep the first values and a digest of all
            assert [float(v) for v in got[:8]] == rec["head"]
            assert hashlib.sha256(got.tobytes()).hexdigest() == rec["sha256"]


def _call(fn, *arrays):
    fn((ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays]))


def test_normal_finish_over_the_whole_angle_domain(fns):
    """The angle ``y = turn * max(u2, floor)`` takes 2**23 values: the kernel's glibc sin/cos give NumPy's
    float64 sin/cos on every one of them (with a different ``log(u1)`` per pair)."""
    k = np.arange(1 << 23, dtype=np.uint32)
    y_all = pf._TURN * np.maximum(pf.unit23(k), pf._NORMAL_FLOOR)
    log_all = np.log(np.maximum(pf.unit23(k[::-1] * np.uint32(2654435761)), pf._NORMAL_FLOOR))
    mean, sigma = 0.25, 1.5
    pairs = CAP // 2
    got = np.empty(2 * k.size, np.float32)
    for j in range(0, k.size, pairs):
        out = np.empty(CAP, np.float32)
        _call(fns["normal_finish"], np.array([0, 0, CAP], np.int64), np.array([mean, sigma, 0.0, 0.0]),
              np.ascontiguousarray(y_all[j:j + pairs]), np.ascontiguousarray(log_all[j:j + pairs]), out)
        got[2 * j:2 * j + CAP] = out
    x = np.sqrt(-2.0 * log_all) * sigma
    want = np.stack([mean + x * np.cos(y_all), mean + x * np.sin(y_all)], 1).reshape(-1).astype(np.float32)
    assert same_bits(got, want)


def test_truncated_finish_over_every_erf_inv_range(fns):
    """erf_inv's argument q from 1 down to the smallest double on both halves: the small and middle ranges and
    every tail range a double reaches (sqrt(-log q) stays below 27.3, short of the last range's 44), against
    the NumPy path's erf_inv."""
    q = np.concatenate([np.geomspace(1e-320, 1.0, CAP // 2 - 7), [1.0, 0.5, 0.25, np.nextafter(0.25, 0), 5e-324,
                                                                   0.75, np.nextafter(0.5, 1)]])
    signed = np.concatenate([q, -q])
    assert signed.size == CAP
    x_tail = np.sqrt(-np.log(q))
    for lo, hi in ((0.0, 3.0), (3.0, 6.0), (6.0, 18.0), (18.0, 44.0)):
        assert ((x_tail >= lo) & (x_tail < hi) & (q < 0.25)).sum() > 100
    params = np.array([0.1, 0.5, pf._f32(1.4142135), 0.0])
    out = np.empty(CAP, np.float32)
    _call(fns["truncated_finish"], np.array([0, 0, CAP], np.int64), params, signed, np.log(np.abs(signed)), out)
    e = pf.erf_inv(1.0 - np.abs(signed), np.abs(signed))
    e = np.where(signed < 0, -1.0, 1.0) * e
    want = (0.1 + (-e * params[2]) * 0.5).astype(np.float32)
    assert same_bits(out, want)


_STAGE_CASES = [("uniform", "float32"), ("normal_draw", "float32"), ("normal_finish", "float32"),
                ("truncated_draw", "float32"), ("truncated_finish", "float32"),
                ("uniform", "float64"), ("normal_finish", "float64"), ("truncated_finish", "float64")]


@pytest.mark.parametrize("stage, dtype", _STAGE_CASES)
def test_each_stage_matches_the_ops_reference(fns, stage, dtype):
    """The op's NumPy reference (ops/philox_fill_ops.py) is what the kernel computes, stage by stage: the
    draws' float64 buffers and, with ``dtype`` float64, the values before their float32 rounding (a fused
    multiply-add changes a double's last bit, hardly ever the float32 a fill keeps)."""
    cap = CAP
    op = get_op("PhiloxFill")
    rng = np.random.default_rng(3)
    params = {"uniform": [0.6, -0.3, 0, 0], "normal_draw": [pf._NORMAL_FLOOR, pf._TURN, 0, 0],
              "normal_finish": [0.5, 2.0, 0, 0], "truncated_draw": [0.02, 0.9, pf._TINY, pf._BIG],
              "truncated_finish": [0.2, 0.05, pf._f32(1.4142135), 0]}[stage]
    extra = []
    if stage == "normal_finish":
        extra = [rng.random(cap // 2) * 6.2, np.log(rng.random(cap // 2) + 1e-7)]
    elif stage == "truncated_finish":  # every range of erf_inv: q from 1 down to 1e-300
        q = np.exp(-rng.random(cap) * 690.0) * np.where(rng.random(cap) < 0.7, 1.0, 0.0) + rng.random(cap) * 1e-300
        q = np.where(q == 0, rng.random(cap), q)
        extra = [np.where(rng.random(cap) < 0.5, -q, q), np.log(q)]
    count = cap - 5
    pos = np.array([2**63 - 9, 6, count], np.int64)
    arrays = [pos, np.array(params, np.float64), *extra]
    spec = op.spec({"stage": stage, "capacity": cap, "dtype": dtype},
                   [TensorType(a.shape, str(a.dtype)) for a in arrays])
    fn = fns[stage] if dtype == "float32" else init_fill._HostBuilder().build([spec])[0][0].fn
    outs = [np.zeros(t.shape, t.dtype) for t in spec.outputs]
    _call(fn, *arrays, *outs)
    for got, want in zip(outs, op.run_reference(spec, arrays)):
        assert got.dtype == want.dtype and np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_the_kernels_are_cache_entries_a_second_builder_reuses(fns):
    """A second process finds the kernels in kernel_meta: a fresh builder (no memory tier) compiles nothing."""
    kernels, report = init_fill._HostBuilder().build(init_fill._specs())
    assert report.built == 0 and report.reused == len(kernels) == 5


def test_the_kernels_are_the_cpus_whatever_the_device_target(fns, monkeypatch):
    monkeypatch.setattr(config, "device_target", lambda: "GPU")
    fills = init_fill.InitFills()
    assert fills.load()
    assert same_bits(fills.uniform(9, 5000, (0.5, -0.25)), pf.uniform_fill_numpy(9, (5000,), -0.25, 0.25))


def test_a_failed_build_leaves_the_numpy_path(monkeypatch):
    def no_compiler(self, *args, **kwargs):
        raise CompilerNotFoundError("no C compiler here")
    monkeypatch.setattr(init_fill._HostBuilder, "build", no_compiler)
    fills = init_fill.InitFills()
    assert not fills.usable(init_fill.FAST_MIN)
    assert not fills.usable(init_fill.FAST_MIN)  # decided once: no second attempt
    monkeypatch.setattr(pf, "provider", lambda service: fills)
    got = pf.normal_fill(4, (init_fill.FAST_MIN,), 0.0, 1.0)
    assert same_bits(got, pf.normal_fill_numpy(4, (init_fill.FAST_MIN,), 0.0, 1.0))


def test_kernels_failing_the_probe_are_not_used(fns, monkeypatch, caplog):
    monkeypatch.setattr(init_fill, "_probe", lambda fns: False)
    fills = init_fill.InitFills()
    with caplog.at_level("WARNING", logger="opbuild"):
        assert not fills.usable(init_fill.FAST_MIN)
    assert "differ from NumPy's" in caplog.text


def test_small_fills_do_not_build_the_kernels(monkeypatch):
    monkeypatch.setattr(init_fill.InitFills, "load", lambda self: pytest.fail("a small fill built the kernels"))
    assert not init_fill.InitFills().usable(init_fill.FAST_MIN - 1)
