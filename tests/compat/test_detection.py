"""The detection and sequence operators of ops/api/detection.py, sequence_ops.py and
ops/ms_prim_detection.py against real MindSpore 2.10's outputs (tests/fixtures/detection.npz, recorded by
scripts/record_detection.py from tests/compat/detection_cases.py), in both modes (the value-dependent ones in
PyNative only): values within float tolerance, dtypes and shapes equal; a case MindSpore refuses is refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops

from ..helpers import FnCell
from .detection_cases import CASES, PYNATIVE_ONLY, outputs

pytestmark = pytest.mark.slow  # some twenty cases built in both modes

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "detection.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())
REFUSED = set(META["errors"])
EXPECTED_REFUSALS: set[str] = set()


def test_fixture_covers_every_case_and_records_mindspore_2_10() -> None:
    assert META["mindspore"] == "2.10.0"
    assert REFUSED == EXPECTED_REFUSALS
    for name in set(CASES) - REFUSED:
        assert f"{name}:out0" in FIXTURE, name


def _run(name: str, mode: str):
    fn, inputs = CASES[name]
    arrays = [FIXTURE[f"{name}:in{i}"] for i in range(len(inputs))]
    old = ms.get_context("mode")
    try:
        graph = mode == "graph" and name not in PYNATIVE_ONLY
        ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
        tensors = [Tensor(a) for a in arrays]
        return FnCell(lambda *ts: fn(ms, ops, *ts))(*tensors) if graph else fn(ms, ops, *tensors)
    finally:
        ms.set_context(mode=old)


RUNS = [(n, "pynative") for n in sorted(set(CASES) - REFUSED)] + \
    [(n, "graph") for n in sorted(set(CASES) - REFUSED - PYNATIVE_ONLY)]


@pytest.mark.parametrize(("name", "mode"), RUNS)
def test_matches_mindspore(name, mode) -> None:
    want = [FIXTURE[k] for k in sorted((k for k in FIXTURE.files if k.startswith(f"{name}:out")),
                                       key=lambda k: int(k.rsplit("out", 1)[1]))]
    got = outputs(_run(name, mode))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        # float16 results: a few units in the last place (the order of float16 roundings differs).
        tol = (2e-3, 1e-3) if g.dtype == np.float16 else (2e-5, 2e-6)
        np.testing.assert_allclose(g, w, rtol=tol[0], atol=tol[1])


def test_host_operators_refuse_a_graph_trace_and_bad_input() -> None:
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(RuntimeError, match="PYNATIVE_MODE"):
            FnCell(lambda b: ops.NMSWithMask(0.5)(b))(Tensor(np.ones((2, 5), np.float32)))
    finally:
        ms.set_context(mode=old)
    x = Tensor(np.zeros((2, 1, 3), np.float32))
    idx, n = Tensor(np.array([[0, 0], [0, 1], [0, 2]], np.int64)), Tensor(np.array([2], np.int32))
    with pytest.raises(ValueError, match="ignore_longer_outputs_than_inputs"):
        ops.CTCLoss()(x, idx, Tensor(np.array([0, 1, 0], np.int32)), n)
    with pytest.raises(ValueError, match="blank"):
        ops.CTCLoss()(x, idx[:1], Tensor(np.array([2], np.int32)), n)
    with pytest.raises(ValueError, match="sequence_length must be an int32"):
        ops.ctc_greedy_decoder(x, Tensor(np.array([2, 2], np.int32)))
    with pytest.raises(ValueError, match="roi_end_mode"):
        ops.ROIAlign(2, 2, 1.0, 2, 3)(Tensor(np.ones((1, 1, 4, 4), np.float32)), Tensor(np.ones((1, 5), np.float32)))


def test_ctc_loss_gradient_output_is_the_loss_gradient_in_a_trace() -> None:
    names = ("x", "labels_indices", "labels_values", "sequence_length")
    x, idx, val, n = (Tensor(FIXTURE[f"CTCLoss:in{i}"]) for i in range(len(names)))
    want_grad = FIXTURE["CTCLoss:out1"]
    got = ms.grad(lambda t: ops.CTCLoss()(t, idx, val, n)[0].sum())(x).asnumpy()
    np.testing.assert_allclose(got, want_grad, rtol=1e-4, atol=1e-5)
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(RuntimeError, match="default options"):
            FnCell(lambda t: ops.CTCLoss(ctc_merge_repeated=False)(t, idx, val, n))(x)
    finally:
        ms.set_context(mode=old)
