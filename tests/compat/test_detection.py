"""The detection and sequence operators of ops/api/detection.py, sequence_ops.py and
ops/ms_prim_detection.py against real MindSpore 2.10's outputs (tests/fixtures/detection.npz, recorded by
scripts/record_detection.py from tests/compat/detection_cases.py), in both modes (the value-dependent ones in
PyNative only): values within float tolerance, dtypes and shapes equal; a case MindSpore refuses is refused."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops

from ..helpers import FnCell
from .detection_cases import CASES, PYNATIVE_ONLY, outputs
from .recorded import Recorded

pytestmark = pytest.mark.slow  # some twenty cases built in both modes

REC = Recorded("detection", CASES, outputs, PYNATIVE_ONLY)
EXPECTED_REFUSALS: set[str] = set()


def test_fixture_covers_every_case_and_records_mindspore_2_10() -> None:
    assert REC.meta["mindspore"] == "2.10.0"
    assert REC.refused == EXPECTED_REFUSALS
    assert REC.missing() == []


@pytest.mark.parametrize(("name", "mode"), REC.runs())
def test_matches_mindspore(name, mode) -> None:
    REC.check(name, mode)


def test_host_operators_refuse_a_graph_trace_and_bad_input() -> None:
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(RuntimeError, match="PYNATIVE_MODE"):
            FnCell(lambda x, n: ops.CTCGreedyDecoder()(x, n))(Tensor(np.zeros((2, 1, 3), np.float32)),
                                                               Tensor(np.array([2], np.int32)))
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
    x, idx, val, n = (Tensor(REC.fixture[f"CTCLoss:in{i}"]) for i in range(len(names)))
    want_grad = REC.fixture["CTCLoss:out1"]
    got = ms.grad(lambda t: ops.CTCLoss()(t, idx, val, n)[0].sum())(x).asnumpy()
    np.testing.assert_allclose(got, want_grad, rtol=1e-4, atol=1e-5)
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(RuntimeError, match="default options"):
            FnCell(lambda t: ops.CTCLoss(ctc_merge_repeated=False)(t, idx, val, n))(x)
    finally:
        ms.set_context(mode=old)
