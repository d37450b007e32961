"""``opbuild.numpy`` (``mindspore.numpy``) gives MindSpore 2.10's results: the programs of
tests/compat/msnumpy_programs.py in PYNATIVE_MODE and in GRAPH_MODE (inside a Cell's ``construct``), and the
facts of tests/compat/msnumpy_facts.py, against the fixtures scripts/record_msnumpy.py recorded."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
import opbuild.numpy as mnp
from opbuild import nn
from tests.compat import msnumpy_programs as programs
from tests.compat.msnumpy_facts import CASES as FACTS

pytestmark = pytest.mark.slow  # about a hundred small graphs built, twice

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"
RECORDED = np.load(FIXTURES / "msnumpy.npz")
META = json.loads(bytes(RECORDED["__meta__"]).decode())
FACT_RESULTS = json.loads((FIXTURES / "msnumpy_facts.json").read_text())
programs.bind(mnp)


class Prog1(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x):
        return self.fn(x)


class Prog2(Prog1):
    def construct(self, x, y):
        return self.fn(x, y)


# Programs whose GRAPH_MODE result under MindSpore 2.10 differs from its own PyNative result (MindSpore's graph
# compiler gives zeros for ``mnp.array([x, 2 * x])`` and drops the choices of ``mnp.select`` with a scalar
# default): opbuild gives the PyNative result in both modes, and test_mindspore_graph_divergences_are_real
# keeps this list honest.
MS_GRAPH_DIVERGES = {"creation_array_of_tensors": [0], "idx_where_select": [2]}


def _expected(key: str) -> list[np.ndarray]:
    out, k = [], 0
    while f"{key}:out{k}" in RECORDED:
        out.append(RECORDED[f"{key}:out{k}"])
        k += 1
    return out


def _check(key: str, result) -> None:
    if key in META["errors"]:
        pytest.fail(f"MindSpore refused {key} ({META['errors'][key]}); the case must be one it runs")
    want = _expected(key)
    mode, name = key.split("/")
    if mode == "graph" and name in MS_GRAPH_DIVERGES:
        want = _expected(f"pynative/{name}")
    got = programs.outputs(result)
    assert len(got) == len(want), f"{key}: {len(got)} outputs, MindSpore gave {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype, f"{key} output {i}: dtype {g.dtype}, MindSpore's {w.dtype}"
        assert g.shape == w.shape, f"{key} output {i}: shape {g.shape}, MindSpore's {w.shape}"
        np.testing.assert_allclose(g.astype(np.float64) if g.dtype != np.bool_ else g,
                                   w.astype(np.float64) if w.dtype != np.bool_ else w,
                                   rtol=2e-5, atol=2e-6, equal_nan=True, err_msg=f"{key} output {i}")


@pytest.mark.parametrize("name", sorted(programs.CASES))
def test_program_pynative(name, pynative_mode):
    fn, inputs = programs.CASES[name]
    _check(f"pynative/{name}", fn(*[ms.Tensor(a) for a in inputs]))


@pytest.mark.parametrize("name", sorted(set(programs.CASES) - programs.PYNATIVE_ONLY))
def test_program_graph_mode(name, graph_mode):
    fn, inputs = programs.CASES[name]
    cell = (Prog1 if len(inputs) == 1 else Prog2)(fn)
    _check(f"graph/{name}", cell(*[ms.Tensor(a) for a in inputs]))


@pytest.mark.parametrize("name", sorted(FACTS))
def test_fact_matches_mindspore(name, pynative_mode):
    env = {"ms": ms, "np": np}
    want = FACT_RESULTS[name]
    if "error" in want:
        with pytest.raises(Exception) as info:  # noqa: B017 - MindSpore raises here; so must opbuild
            exec(FACTS[name], env)  # noqa: S102 - the repository's own programs
        # MindSpore's error class, or a subclass of it (opbuild's ShapeError is a ValueError).
        assert isinstance(info.value, getattr(builtins, want["error"].split(":")[0])), str(info.value)
        return
    exec(FACTS[name], env)  # noqa: S102 - the repository's own programs
    assert str(env["result"]) == want["str"]


def test_mindspore_graph_divergences_are_real():
    for name, outs in MS_GRAPH_DIVERGES.items():
        graph, pynative = _expected(f"graph/{name}"), _expected(f"pynative/{name}")
        differ = [i for i, (g, p) in enumerate(zip(graph, pynative)) if not np.allclose(g, p, equal_nan=True)]
        assert differ == outs, f"{name}: MindSpore's graph and PyNative results differ at {differ}"


def test_bad_input_is_refused_with_a_clear_message(pynative_mode):
    with pytest.raises(ValueError, match="does not divide into 2 equal sections; use array_split"):
        mnp.split(mnp.arange(5), 2)
    with pytest.raises(ValueError, match="axis=2 is out of range for a 2-d tensor"):
        mnp.sum(mnp.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match="cannot make a tensor of 'abc'"):
        mnp.asarray("abc")
    with pytest.raises(ValueError, match="pad: mode 'median' is not supported"):
        mnp.pad(mnp.ones(3), 1, mode="median")
    with pytest.raises(ValueError, match="a where= mask needs initial="):
        mnp.amax(mnp.ones((2, 2)), where=mnp.array([True, False]))
    with pytest.raises(TypeError, match="dtype 'nope' is not a dtype mindspore.numpy knows"):
        mnp.zeros(2, "nope")
