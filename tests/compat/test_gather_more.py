"""gather_d, gather_nd / GatherNd, index_fill, searchsorted, bucketize, unsorted_segment_max/min/prod, the
inplace_add/sub/update row updates and the bit shifts (ops/api/gather_more.py, rows_update.py, ops/bitshift.py)
against real MindSpore 2.10 (tests/fixtures/optim_image.npz, recorded by scripts/record_optim_image.py from
tests/compat/gather_cases.py), in both modes; where MindSpore's CPU fails (``out_int32=True``, ``bucketize``: its
SearchSorted kernel rejects an int32 output), against NumPy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops

from ..helpers import FnCell
from .gather_cases import CASES, outputs

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "optim_image.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())
FAILS_ON_MINDSPORE = {"searchsorted_right", "bucketize", "bucketize_right"}


def _numpy_expected(name: str, inputs: list[np.ndarray]) -> np.ndarray:
    if name == "searchsorted_right":
        return np.searchsorted(inputs[0], inputs[1], side="right").astype(np.int32)
    bounds = np.array([-1.0, 0.0, 0.5, 2.0], np.float32)
    return np.searchsorted(bounds, inputs[0], side="right" if name.endswith("right") else "left").astype(np.int32)


def test_fixture_records_every_case() -> None:
    assert {n for n in META["errors"] if n in CASES} == FAILS_ON_MINDSPORE
    for name in set(CASES) - FAILS_ON_MINDSPORE:
        assert f"{name}:out0" in FIXTURE, name


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mindspore(name: str, mode: str) -> None:
    fn, inputs = CASES[name]
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        tensors = [Tensor(a) for a in inputs]
        result = FnCell(lambda *ts: fn(ms, ops, *ts))(*tensors) if mode == "graph" else fn(ms, ops, *tensors)
    finally:
        ms.set_context(mode=old)
    got = outputs(result)[0]
    want = _numpy_expected(name, inputs) if name in FAILS_ON_MINDSPORE else FIXTURE[f"{name}:out0"]
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


def test_gather_nd_and_unsorted_segment_max_are_differentiable() -> None:
    x = np.random.default_rng(4).uniform(-1, 1, (3, 4)).astype(np.float32)
    idx = Tensor(np.array([[2, 1], [0, 3], [2, 1]], np.int32))
    g = ms.grad(lambda t: ops.gather_nd(t, idx).sum())(Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    want[2, 1], want[0, 3] = 2.0, 1.0
    np.testing.assert_array_equal(g, want)
    seg = Tensor(np.array([1, 0, 1], np.int32))
    g = ms.grad(lambda t: ops.unsorted_segment_max(t, seg, 2).sum())(Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    for rows in ([1], [0, 2]):
        for c in range(4):
            want[rows[int(np.argmax(x[rows, c]))], c] = 1.0
    np.testing.assert_array_equal(g, want)


def test_bad_inputs_are_refused_clearly() -> None:
    x = Tensor(np.zeros((3, 2), np.float32))
    with pytest.raises(TypeError, match="index must be a 0-D or 1-D int32 Tensor"):
        ops.index_fill(x, 0, Tensor(np.array([0], np.int64)), 1.0)
    with pytest.raises(ValueError, match="last axis no longer than input_x's rank"):
        ops.gather_nd(x, Tensor(np.zeros((1, 3), np.int32)))
    with pytest.raises(NotImplementedError, match="sorter is not supported"):
        ops.searchsorted(x, x, sorter=Tensor(np.zeros((3, 2), np.int64)))
    with pytest.raises(TypeError, match="integer tensor"):
        ops.bitwise_left_shift(x, x)
    with pytest.raises(TypeError, match="indices must be an int or a tuple of ints, got a Tensor"):
        ops.inplace_sub(x, Tensor(np.ones((1, 2), np.float32)), Tensor(np.array([0], np.int32)))
    with pytest.raises(ValueError, match=r"indices \[5\] are out of range"):
        ops.inplace_add(x, Tensor(np.ones((1, 2), np.float32)), 5)
    with pytest.raises(ValueError, match="prefix of x's"):
        ops.unsorted_segment_min(x, Tensor(np.zeros((2,), np.int32)), 2)
