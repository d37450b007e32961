"""The array, sparse, box and sequence operators of ops/api/array_ext.py, boxes.py, gather_batch.py and
ops/ms_prim_arrayops.py against real MindSpore 2.10's outputs (tests/fixtures/arrayops.npz, recorded by
scripts/record_arrayops.py from tests/compat/arrayops_cases.py), in both modes (the value-dependent ones in
PyNative only): values within float tolerance, dtypes and shapes equal; a case MindSpore refuses is refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops

from ..helpers import FnCell
from .arrayops_cases import CASES, PYNATIVE_ONLY, outputs

pytestmark = pytest.mark.slow  # some fifty cases built in both modes

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "arrayops.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())
REFUSED = set(META["errors"])
EXPECTED_REFUSALS = {"CTCLossV2_mean", "Unique_2d"}  # CTCLossV2 has only reduction='none'; Unique 1-D inputs


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


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refuses_what_mindspore_refuses(name) -> None:
    with pytest.raises((ValueError, TypeError)):
        _run(name, "pynative")


def test_value_dependent_shapes_refuse_a_graph_trace() -> None:
    x = Tensor(np.array([3, 1, 3], np.int64))
    for fn in (lambda t: ops.Unique()(t), lambda t: ops.unique_with_pad(t, 0), lambda t: ops.NonZero()(t)):
        old = ms.get_context("mode")
        try:
            ms.set_context(mode=ms.GRAPH_MODE)
            with pytest.raises(RuntimeError, match="PYNATIVE_MODE"):
                FnCell(fn)(x)
        finally:
            ms.set_context(mode=old)


def test_bad_arguments_are_refused_clearly() -> None:
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="REFLECT padding of axis 1 must be in"):
        ops.mirror_pad(x, Tensor(np.array([[0, 0], [3, 0]])), "REFLECT")
    with pytest.raises(ValueError, match="mode must be 'REFLECT' or 'SYMMETRIC'"):
        ops.mirror_pad(x, Tensor(np.array([[0, 0], [1, 0]])), "EDGE")
    with pytest.raises(ValueError, match="divisible by its block"):
        ops.space_to_batch_nd(Tensor(np.ones((1, 1, 3, 4), np.float32)), [2, 2], [[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="batch_dims"):
        ops.gather(x, Tensor(np.zeros((2, 1), np.int32)), 0, 1)
    with pytest.raises(ValueError, match="first axis of size 1"):
        ops.ParallelConcat()((x, x))


def test_nonzero_function_and_method() -> None:
    # MindSpore 2.10's CPU backend has no NonZeroExt kernel (its ops.nonzero example fails there): checked
    # against NumPy, and against the NonZero primitive MindSpore does run.
    a = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], np.float32)
    x = Tensor(a)
    np.testing.assert_array_equal(ops.nonzero(x).asnumpy(), np.argwhere(a))
    np.testing.assert_array_equal(x.nonzero().asnumpy(), ops.NonZero()(x).asnumpy())
    rows, cols = ops.nonzero(x, as_tuple=True)
    assert rows.dtype == ms.int64 and rows.asnumpy().tolist() == [0, 1, 1] and cols.asnumpy().tolist() == [1, 0, 2]
