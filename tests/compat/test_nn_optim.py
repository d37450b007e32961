"""MindSpore's ``nn`` optimizers built on the Apply* primitives (Adagrad, Adadelta, AdaMax, RMSProp, FTRL,
ProximalAdagrad, Adam's amsgrad/lazy/offload forms) and the composed ones (Rprop, ASGD, AdaFactor) against real
MindSpore 2.10 (tests/fixtures/optim_image.npz, recorded by scripts/record_optim_image.py from
tests/compat/nn_optim_cases.py): three steps on fixed gradients in PyNative mode and as compiled update graphs,
and the optimizers' Parameter names (checkpoint keys)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn

from .nn_optim_cases import CASES, GRADS, make, run, state_names

pytestmark = pytest.mark.slow  # a hundred-odd kernels built in both modes

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "optim_image.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())


def _want(name: str) -> list[np.ndarray]:
    keys = sorted((k for k in FIXTURE.files if k.startswith(f"{name}:out")), key=lambda k: int(k.rsplit("out", 1)[1]))
    return [FIXTURE[k] for k in keys]


def _compare(name: str, got: list[np.ndarray]) -> None:
    want = _want(name)
    assert len(got) == len(want) == 2 * len(GRADS)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


def test_fixture_records_every_case() -> None:
    assert META["mindspore"] == "2.10.0"
    for name in CASES:
        assert f"{name}:out0" in FIXTURE and name in META["state_names"], name


@pytest.mark.parametrize("name", sorted(CASES))
def test_pynative_matches_mindspore(name: str) -> None:
    _compare(name, run(ms, nn, name))


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_update_matches_mindspore(name: str) -> None:
    opt, ps = make(ms, nn, name)
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = []
        for g in GRADS:
            opt(tuple(Tensor(a) for a in g))
            got += [np.array(p.asnumpy()) for p in ps]  # a copy: the next step writes the buffer
    finally:
        ms.set_context(mode=old)
    _compare(name, got)


@pytest.mark.parametrize("name", sorted(CASES))
def test_state_parameter_names_match_mindspore(name: str) -> None:
    def state(names):  # the state these optimizers add (the rates and the weights are the base class's;
        # MindSpore's AdaFactor without first moment keeps an unnamed placeholder, opbuild keeps nothing)
        return [n for n in names if not n.startswith(("learning_rate", "Parameter$")) and n not in ("w", "gamma")]

    assert state(state_names(ms, nn, name)) == state(META["state_names"][name])


@pytest.mark.parametrize("make_bad, error", [
    (lambda ps: nn.Adadelta(ps, rho=1.5), "rho must be in"),
    (lambda ps: nn.AdaMax(ps, beta1=1.0), "beta1 must be in"),
    (lambda ps: nn.RMSProp(ps, epsilon=0.0), "epsilon must be > 0"),
    (lambda ps: nn.FTRL(ps, lr_power=0.5), "lr_power must be a float <= 0"),
    (lambda ps: nn.Rprop(ps, etas=(0.5, 0.9)), "etaplus must be greater than 1.0"),
    (lambda ps: nn.Rprop(ps, step_sizes=(1.0, 0.1)), "minimal step size"),
    (lambda ps: nn.Adagrad(ps, accum=-0.1), "accum must be >= 0"),
])
def test_bad_hyper_parameters_are_refused(make_bad, error) -> None:
    ps = [ms.Parameter(Tensor(np.zeros((2,), np.float32)), name="w")]
    with pytest.raises(ValueError, match=error):
        make_bad(ps)


def test_asgd_refuses_an_int_hyper_parameter() -> None:
    ps = [ms.Parameter(Tensor(np.zeros((2,), np.float32)), name="w")]
    with pytest.raises(TypeError, match="t0 must be a float"):
        nn.ASGD(ps, t0=10)
