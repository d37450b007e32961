"""``experimental.optim`` against MindSpore 2.10 (tests/fixtures/mindspore/experimental_optim.npz, recorded by
scripts/record_experimental_optim.py on MindSpore's CPU, where all of these optimizers run): parameters after
each step with fixed gradients, schedulers' learning rates, and a scheduled update traced in GRAPH_MODE."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Parameter, Tensor
from opbuild.experimental import optim
from opbuild.experimental.optim import lr_scheduler

from .experimental_optim_cases import GRADS, OPTIMIZERS, PARAMS, PLATEAU_METRICS, SCHEDULERS, STEPS

FIX = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "experimental_optim.npz")


def _params() -> list[Parameter]:
    return [Parameter(Tensor(v.copy()), name=k) for k, v in PARAMS.items()]


def _run(key: str) -> np.ndarray:
    cls, kw, groups = OPTIMIZERS[key]
    ps = _params()
    given = [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}] if groups else ps
    opt = getattr(optim, cls)(given, **kw)
    rows = []
    for g in GRADS:
        assert opt(tuple(Tensor(a) for a in g))
        rows.append(np.concatenate([p.asnumpy().ravel() for p in ps]))
    return np.stack(rows)


@pytest.mark.parametrize("key", sorted(OPTIMIZERS))
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_optimizer_steps_match_mindspore(key: str, mode: str) -> None:
    """Recorded in PyNative; the GRAPH_MODE update (traced once, the step count a tensor) gives the same."""
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        got = _run(key)
    finally:
        ms.set_context(mode=old)
    np.testing.assert_allclose(got, FIX[f"opt/{key}"], rtol=1e-5, atol=1e-6)


def _lrs(s) -> list[float]:
    return [float(v.asnumpy()) for v in s.get_last_lr()]


@pytest.mark.parametrize("key", sorted(SCHEDULERS))
def test_scheduler_matches_mindspore(key: str) -> None:
    cls, kw = SCHEDULERS[key]
    ps = _params()
    opt = optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.05}], lr=0.1)
    s = getattr(lr_scheduler, cls)(opt, **kw)
    rows = [_lrs(s)]
    for _ in range(STEPS):
        s.step()
        rows.append(_lrs(s))
        assert [float(g["lr"].asnumpy()) for g in opt.param_groups] == rows[-1]
    np.testing.assert_allclose(rows, FIX[f"sched/{key}"], rtol=1e-5)


def test_sequential_and_plateau_match_mindspore() -> None:
    opt = optim.SGD(_params(), lr=0.1)
    seq = lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2),
                                          lr_scheduler.ExponentialLR(opt, gamma=0.7)], milestones=[3])
    rows = [_lrs(seq)]
    for _ in range(STEPS):
        seq.step()
        rows.append(_lrs(seq))
    np.testing.assert_allclose(rows, FIX["sched/sequential"], rtol=1e-5)
    opt = optim.SGD(_params(), lr=0.1)
    plateau = lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1, min_lr=0.02)
    rows = []
    for m in PLATEAU_METRICS:
        plateau.step(Tensor(np.float32(m)))
        rows.append(_lrs(plateau))
    np.testing.assert_allclose(rows, FIX["sched/plateau"], rtol=1e-5)


def test_groups_have_learning_rate_parameters() -> None:
    ps = _params()
    opt = optim.Adam([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1)
    assert isinstance(opt, optim.Optimizer)
    assert [p.name for p in opt.lrs] == ["learning_rate_group_0", "learning_rate_group_1"]
    assert opt.param_groups[1]["lr"] is opt.lrs[1] and opt.param_groups[1]["betas"] == (0.9, 0.999)


@pytest.mark.parametrize("cls", ["SGD", "Adam", "RMSprop"])
def test_a_scheduled_update_traced_in_graph_mode(cls: str) -> None:
    """The lr Parameter is read when the graph runs: the compiled step follows the scheduler."""
    def run(mode):
        old = ms.get_context("mode")
        ms.set_context(mode=mode)
        try:
            ps = _params()
            opt = getattr(optim, cls)(ps, lr=0.1)
            sched = lr_scheduler.StepLR(opt, 1, 0.5)
            rows = []
            for g in GRADS:
                opt(tuple(Tensor(a) for a in g))
                sched.step()
                rows.append(np.concatenate([p.asnumpy().ravel() for p in ps]))
            return np.stack(rows)
        finally:
            ms.set_context(mode=old)

    pynative = run(ms.PYNATIVE_MODE)
    np.testing.assert_allclose(run(ms.GRAPH_MODE), pynative, rtol=1e-5, atol=1e-7)


def test_add_param_group_gets_its_own_state() -> None:
    ps = _params()
    opt = optim.Adam([ps[0]], lr=0.1)
    opt.add_param_group({"params": [ps[1]], "lr": 0.02})
    assert len(opt.exp_avg) == 2 and len(opt.lrs) == 2
    opt((Tensor(GRADS[0][0]), Tensor(GRADS[0][1])))
    # Adam's first step moves each parameter by its group's lr
    np.testing.assert_allclose(ps[1].asnumpy(), PARAMS["b"] - 0.02, rtol=1e-5)
    with pytest.raises(ValueError, match="already in a group"):
        opt.add_param_group({"params": [ps[0]]})


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="etas"):
        optim.Rprop(_params(), etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="betas"):
        optim.NAdam(_params(), betas=(0.9,))
    with pytest.raises(TypeError, match="experimental.optim optimizer"):
        lr_scheduler.StepLR(object(), 2)
    with pytest.raises(ValueError, match="milestones"):
        opt = optim.SGD(_params(), lr=0.1)
        lr_scheduler.SequentialLR(opt, [lr_scheduler.StepLR(opt, 2), lr_scheduler.StepLR(opt, 3)], [])


def test_public_names_are_mindspore_s() -> None:
    names = json.loads(str(FIX["__names__"]))
    assert sorted(set(optim.__all__) - {"lr_scheduler"}) == sorted(names["optim"])
    assert sorted(lr_scheduler.__all__) == sorted(names["lr_scheduler"])
    assert ms.experimental.optim is optim
