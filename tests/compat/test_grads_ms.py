"""Gradients against real MindSpore 2.10 where the answer is a convention (ties, kinks, zeros, labels) and second
derivatives (tests/fixtures/mindspore/grads.npz, recorded by scripts/record_grads.py from
tests/compat/grad_ms_cases.py), in both modes; also the in-place scatter into a Parameter
(ScatterNdUpdateInplace, MindSpore's ScatterNdUpdate), whose rule is MindSpore's own. Smooth gradients are
checked against torch in tests/ops/test_grad_checks.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops
from opbuild.passes import GradientError

from ..helpers import FnCell
from .grad_ms_cases import CASES, outputs

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "grads.npz")
REFUSED = json.loads(bytes(FIXTURE["__meta__"]).decode())["errors"]
# Where opbuild answers differently on purpose, with the reason (checked to still differ only so).
TIE_ORDER = {"topk_ties", "topk_ties_forward"}  # which of equal elements TopK returns (below)


def _run(name: str, mode: str) -> list[np.ndarray]:
    fn, inputs = CASES[name]
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        tensors = [Tensor(a) for a in inputs]
        result = FnCell(lambda *ts: fn(ms, ops, *ts))(*tensors) if mode == "graph" else fn(ms, ops, *tensors)
    finally:
        ms.set_context(mode=old)
    return outputs(result)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", sorted(n for n in CASES if n not in REFUSED and n not in TIE_ORDER))
def test_matches_mindspore(name: str, mode: str) -> None:
    got = _run(name, mode)
    assert len(got) == sum(1 for k in FIXTURE.files if k.startswith(f"{name}:out"))
    for i, g in enumerate(got):
        want = FIXTURE[f"{name}:out{i}"]
        assert g.shape == want.shape and g.dtype == want.dtype, (i, g.shape, want.shape, g.dtype, want.dtype)
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6, err_msg=f"{name}: output {i}")


def test_topk_ties_pick_equal_values() -> None:
    """Among equal elements MindSpore's CPU TopK returns other indices than opbuild's (lowest index first, as
    NumPy's stable sort and torch): the values, and so each picked element's value, agree."""
    x = CASES["topk_ties_forward"][1][0]
    values, indices = _run("topk_ties_forward", "pynative")
    np.testing.assert_array_equal(values, FIXTURE["topk_ties_forward:out0"])
    np.testing.assert_array_equal(np.take_along_axis(x, indices.astype(np.int64), 1), values)
    assert not np.array_equal(indices, FIXTURE["topk_ties_forward:out1"])  # the known difference


# Cases MindSpore 2.10 cannot differentiate that opbuild can (below); every other refusal is opbuild's too.
FURTHER = {"cummax_ties", "cummin_ties"}


@pytest.mark.parametrize("name", sorted(set(REFUSED) - FURTHER))
def test_refused_as_mindspore_does(name: str) -> None:
    """Where MindSpore has no bprop (Qr; ScatterNdAdd and the other in-place scatter reductions) opbuild refuses
    too, naming the primitive, rather than answer zero (ScatterNdUpdate's rule is MindSpore's, compared above)."""
    assert "bprop not defined" in REFUSED[name]
    primitive = REFUSED[name].split("primitive ")[1].split("'")[0]
    with pytest.raises((NotImplementedError, GradientError), match=primitive):
        _run(name, "pynative")


def test_cummax_gradient_where_mindspore_has_none() -> None:
    """MindSpore 2.10's CPU backend cannot differentiate cummax/cummin (RuntimeError); opbuild gives each
    running extreme's cotangent to the element it came from (checked against torch in test_grad_checks.py)."""
    assert {"cummax_ties", "cummin_ties"} <= set(REFUSED)
    (g,) = _run("cummax_ties", "pynative")
    assert g.shape == CASES["cummax_ties"][1][0].shape
