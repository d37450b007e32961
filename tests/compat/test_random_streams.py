"""MindSpore 2.10's random streams after set_seed, in PYNATIVE_MODE: ``ops.rand``/``randn``/``randint``/
``standard_normal``/``uniform``/``multinomial``/``shuffle``/``laplace``/``randperm``/``bernoulli``/
``random_categorical`` and ``UniformReal``/``UniformInt``/``StandardNormal``/``Multinomial``/``RandomShuffle``/
``StandardLaplace``/``RandomCategorical`` objects and
``mindspore.numpy``'s ``rand``/``randn``/``randint`` replay the call sequences recorded by
scripts/record_random_streams.py (tests/fixtures/mindspore/random_streams.json) and must give every bit of
MindSpore's values."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
import opbuild.numpy as msnp
from opbuild import ops
from opbuild.core.ms_random_streams import KernelStream, mix_seeds

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "random_streams.json"
CASES = json.loads(FIXTURE.read_text())


def tensor_values(v: dict) -> np.ndarray:
    """A recorded tensor argument's values (``tensor``, or ``arange``'s start, stop and step)."""
    if "arange" in v:
        return np.arange(*v["arange"]).astype(v["dtype"])
    return np.asarray(v["tensor"], v["dtype"])


def _arg(v):
    if isinstance(v, dict):
        return ms.Tensor(tensor_values(v))
    return tuple(v) if isinstance(v, list) else v


def replay(steps: list) -> list:
    """Run the recorded steps on opbuild and return each output as a NumPy array."""
    prims, outs = {}, []
    for step in steps:
        if step[0] == "set_seed":
            ms.set_seed(step[1])
        elif step[0] == "new" and isinstance(step[3], dict):
            prims[step[1]] = getattr(ops, step[2])(**{k: (getattr(ms, v) if k == "dtype" else v)
                                                      for k, v in step[3].items()})
        elif step[0] == "new":
            prims[step[1]] = getattr(ops, step[2])(seed=step[3], seed2=step[4])
        elif step[0] in ("call", "skip", "np"):  # skip: MindSpore's values are unseeded, only the count matters
            kwargs = {k: (getattr(ms, v) if k == "dtype" else v) for k, v in step[3].items()}
            fn = getattr(msnp if step[0] == "np" else ops, step[1])
            out = fn(*[_arg(v) for v in step[2]], **kwargs).asnumpy()
            if step[0] != "skip":
                outs.append(out)
        else:
            outs.append(prims[step[1]](*[_arg(v) for v in step[2]]).asnumpy())
    return outs


def check(got: np.ndarray, rec: dict, where: str) -> None:
    assert str(got.dtype) == rec["dtype"] and list(got.shape) == rec["shape"], where
    flat = got.reshape(-1)
    if "values" in rec:
        np.testing.assert_array_equal(flat, np.asarray(rec["values"], got.dtype), err_msg=where)
    else:
        np.testing.assert_array_equal(flat[:8], np.asarray(rec["first"], got.dtype), err_msg=where)
        assert hashlib.sha256(flat.tobytes()).hexdigest() == rec["sha256"], where


@pytest.mark.parametrize("name", [n for n in CASES if n != "unseeded_with_op_seed"])
def test_streams_match_mindspore(name):
    case = CASES[name]
    outs = replay(case["steps"])
    assert len(outs) == len(case["outputs"])
    for i, (got, rec) in enumerate(zip(outs, case["outputs"])):
        check(got, rec, f"{name} output {i}")


def test_op_seed_without_set_seed_in_a_fresh_process():
    """Before any set_seed an op seed alone seeds MindSpore's stream (global seed 0); a fresh process is
    needed, as set_seed cannot be undone."""
    here = str(Path(__file__).parent)
    code = (f"import sys; sys.path.insert(0, {here!r}); from test_random_streams import replay, CASES, check\n"
            "case = CASES['unseeded_with_op_seed']\n"
            "for i, (g, r) in enumerate(zip(replay(case['steps']), case['outputs'])): check(g, r, str(i))\n"
            "print('ok', len(case['outputs']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith(f"ok {len(CASES['unseeded_with_op_seed']['outputs'])}")


def test_seed_mixing_is_philox():
    """The seed pair is mixed by one Philox-4x32-10 block: the mixed seeds of two pairs feed the recorded
    first values (UniformReal from mt19937 of the low 32 bits)."""
    seed = mix_seeds(7, 0)
    w = np.random.RandomState(seed & 0xFFFFFFFF).randint(0, 2**32, size=8, dtype=np.uint32).astype(np.float64)
    first = ((w[0::2] + w[1::2] * 2.0**32) / 2.0**64).astype(np.float32)
    np.testing.assert_array_equal(first, np.asarray(CASES["functional_seed7"]["outputs"][0]["values"],
                                                    np.float32))


def test_jit_trace_draws_the_objects_stream_per_call_site():
    """Inside a jit trace a seeded primitive's call site gets its own generator seeded from (seed, seed2),
    continued at each call of the compiled function (tests/compat/test_random_graph.py has MindSpore's
    recorded graphs); the object's PyNative generator is another one."""
    ms.set_seed(7)
    prim = ops.UniformReal(seed=3, seed2=5)

    @ms.jit
    def f():
        return prim((4,))

    host = KernelStream(3, 5)
    for _ in range(2):
        np.testing.assert_array_equal(f().asnumpy(), host.uniform_real(4))
    np.testing.assert_array_equal(prim((4,)).asnumpy(), KernelStream(3, 5).uniform_real(4))


def test_samplers_without_mindspores_stream_keep_their_own(pynative_mode):
    """A seeded StandardLaplace gives float32 Laplace samples (it once fell through to the integer stream and
    gave zeros)."""
    out = ms.ops.StandardLaplace(seed=3, seed2=1)((2000,))
    values = out.asnumpy()
    assert out.dtype == ms.float32 and values.std() > 1.0 and abs(values.mean()) < 0.2  # Laplace(0, 1): sd 1.41


def test_seeded_bernoulli_object_repeats_the_functional_values():
    """MindSpore's Bernoulli kernel restarts its seed's Philox stream at every call and does not read
    ``offset``: an object with seed 5 gives the recorded ``ops.bernoulli(..., seed=5)`` values at every call."""
    rec = CASES["bernoulli"]["outputs"][0]
    prim = ops.Bernoulli(seed=5, offset=3)
    x = ms.Tensor(np.zeros(16, np.float32))
    for _ in range(2):
        check(prim(x, ms.Tensor(np.float32(0.5))).asnumpy(), rec, "Bernoulli(seed=5)")
