"""The nn layers and losses (and their ops functions) against real MindSpore 2.10's outputs and gradients
(tests/fixtures/ms_nn_layers.npz, recorded by scripts/record_nn_layers.py from tests/nn/nn_layer_cases.py):
values within float tolerance, dtypes and shapes equal, gradients of the summed output equal. The cases
MindSpore 2.10 cannot run on the CPU are compared with PyTorch in tests/nn/test_losses_torch.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops

from ..helpers import FnCell
from .nn_layer_cases import CASES, grad_positions, outputs

pytestmark = pytest.mark.slow  # a few hundred small kernels

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "ms_nn_layers.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())
# MindSpore 2.10 has no CPU kernel for these (errors recorded in the fixture): PyTorch is the reference.
NOT_ON_MINDSPORE_CPU = {n for n in CASES if n.startswith(("soft_margin", "SoftMargin", "multilabel_margin",
                                                          "MultilabelMargin", "triplet_margin", "TripletMarginLoss"))}
COMPARED = sorted(set(CASES) - NOT_ON_MINDSPORE_CPU)
# Cases that make Parameters from their inputs inside the function: a graph cannot do that.
PYNATIVE_ONLY = {"batch_norm_training"}


def test_fixture_covers_every_case_and_records_mindspore_2_10() -> None:
    assert META["mindspore"] == "2.10.0"
    assert set(META["errors"]) == NOT_ON_MINDSPORE_CPU
    assert not META["grad_errors"]
    for name in COMPARED:
        assert f"{name}:out0" in FIXTURE, name
        for p in grad_positions(CASES[name][1], CASES[name][2]):
            assert f"{name}:grad{p}" in FIXTURE, (name, p)


def _inputs(name: str) -> list[np.ndarray]:
    return [FIXTURE[f"{name}:in{i}"] for i in range(len(CASES[name][1]))]


def _check(got: np.ndarray, want: np.ndarray, what: str, rtol: float = 2e-5, atol: float = 2e-6) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


@pytest.mark.parametrize(("name", "mode"), [(n, m) for n in COMPARED for m in ("pynative", "graph")
                                            if m == "pynative" or n not in PYNATIVE_ONLY])
def test_forward_matches_mindspore(name, mode) -> None:
    fn = CASES[name][0]
    inputs = _inputs(name)
    want = [FIXTURE[f"{name}:out{i}"] for i in range(len(inputs) + 4) if f"{name}:out{i}" in FIXTURE]

    def call(*ts):
        return fn(ms, nn, ops, *ts)

    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        tensors = [Tensor(a) for a in inputs]
        got = outputs(FnCell(call)(*tensors) if mode == "graph" else call(*tensors))
    finally:
        ms.set_context(mode=old)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        _check(g, w, f"{name} output {i}")


@pytest.mark.parametrize("name", [n for n in COMPARED if grad_positions(CASES[n][1], CASES[n][2])])
def test_gradient_matches_mindspore(name) -> None:
    fn, _, grad = CASES[name]
    inputs = _inputs(name)
    pos = grad_positions(inputs, grad)

    def total(*ts):
        out = fn(ms, nn, ops, *ts)
        return (out[0] if isinstance(out, (tuple, list)) else out).sum()

    grads = ms.grad(total, grad_position=pos)(*[Tensor(a) for a in inputs])
    grads = grads if isinstance(grads, tuple) else (grads,)
    for p, g in zip(pos, grads, strict=True):
        # A backward pass sums in another order than MindSpore's kernels: a looser tolerance.
        _check(g.asnumpy(), FIXTURE[f"{name}:grad{p}"], f"{name} gradient of input {p}", 1e-4, 1e-5)
