"""The second-round ops functions (tests/compat/ops_more_cases.py) against real MindSpore 2.10's outputs
(tests/fixtures/ops_more.npz, recorded by scripts/record_ops_more.py), in PyNative mode and, except the
eager-only cases, in GRAPH_MODE: values within float tolerance, dtypes and shapes equal."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops

from ..helpers import FnCell
from .ops_more_cases import CASES, EAGER_ONLY, outputs

pytestmark = pytest.mark.slow  # a few hundred small kernels built in both modes

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "ops_more.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())


def test_fixture_covers_every_case_and_records_mindspore_2_10() -> None:
    assert META["mindspore"] == "2.10.0"
    assert META["errors"] == {}
    for name in CASES:
        assert f"{name}:out0" in FIXTURE, name


def _run(name: str, graph: bool) -> list[np.ndarray]:
    fn, inputs = CASES[name]
    arrays = [FIXTURE[f"{name}:in{i}"] for i in range(len(inputs))]

    def call(*ts):
        out = fn(ms, ops, *ts)
        if graph and hasattr(out, "values"):  # a graph returns Tensors: the sparse parts, the shape checked apart
            shapes.append(tuple(out.shape))
            return (out.indptr, out.indices, out.values) if hasattr(out, "indptr") else (out.indices, out.values)
        return out

    shapes: list[tuple[int, ...]] = []

    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
        tensors = [Tensor(a) for a in arrays]
        result = FnCell(call)(*tensors) if graph else call(*tensors)
    finally:
        ms.set_context(mode=old)
    return outputs(result) + [np.asarray(s, np.int64) for s in shapes]


CASE_MODES = [(n, m) for n in sorted(CASES) for m in ("pynative", "graph")
              if m == "pynative" or (n not in EAGER_ONLY and CASES[n][1])]


@pytest.mark.parametrize(("name", "mode"), CASE_MODES)
def test_matches_mindspore(name, mode) -> None:
    want = [FIXTURE[k] for k in sorted((k for k in FIXTURE.files if k.startswith(f"{name}:out")),
                                       key=lambda k: int(k.rsplit("out", 1)[1]))]
    got = _run(name, mode == "graph")
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        if g.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", ["argwhere", "unique", "masked_select", "unique_consecutive"])
def test_data_dependent_functions_refuse_inside_a_graph(name) -> None:
    x = Tensor(np.array([[1.0, 0.0], [2.0, 2.0]], np.float32))
    calls = {"argwhere": lambda t: ops.argwhere(t), "unique": lambda t: ops.unique(t)[0],
             "masked_select": lambda t: ops.masked_select(t, t > 0),
             "unique_consecutive": lambda t: ops.unique_consecutive(t)}
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(RuntimeError, match=f"{name}: the output shape depends on the input's values"):
            FnCell(calls[name])(x)
    finally:
        ms.set_context(mode=old)


def test_sparse_values_and_stacking_differentiate() -> None:
    x = Tensor(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32))
    # d/dt of sum(hstack(t, fliplr(t))) is 2, of sum(vander(ravel(t), 2)) = sum(t + 1) is 1
    g = ms.grad(lambda t: ops.hstack((t, ops.fliplr(t))).sum() + ops.vander(ops.ravel(t), 2).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), np.full((2, 2), 3.0))
    idx = Tensor(np.array([[0, 0], [1, 1]], np.int64))
    gv = ms.grad(lambda v: ops.coo_square(ms.COOTensor(idx, v, (2, 2))).values.sum())(
        Tensor(np.array([3.0, -1.0], np.float32)))
    np.testing.assert_allclose(gv.asnumpy(), [6.0, -2.0])


def test_sparse_reprs_show_their_parts_as_mindspore_prints_them() -> None:
    c = ms.COOTensor(Tensor(np.array([[0, 0], [0, 1]], np.int64)), Tensor(np.array([3, 1], np.int32)), (3, 4))
    assert repr(c) == ("COOTensor(shape=[3, 4], dtype=Int32, indices=Tensor(shape=[2, 2], dtype=Int64, value=\n"
                       "[[0 0]\n [0 1]]), values=Tensor(shape=[2], dtype=Int32, value=[3 1]))")
    assert repr(c.to_csr()).startswith("CSRTensor(shape=[3, 4], dtype=Int32, indptr=Tensor(shape=[4], dtype=Int64, "
                                       "value=[0 2 2 2]), indices=")


def test_sgn_of_complex_and_clear_refusals() -> None:
    got = ops.sgn(Tensor(np.array([3 + 4j, 0j, -2j], np.complex64))).asnumpy()
    np.testing.assert_allclose(got, [0.6 + 0.8j, 0, -1j], atol=1e-6)
    with pytest.raises(ValueError, match=r"matrix_diag: x holds 2 diagonals, k=\(0, 2\) needs 3"):
        ops.matrix_diag(Tensor(np.ones((2, 3), np.float32)), k=Tensor(np.array([0, 2], np.int32)))
    with pytest.raises(TypeError, match="coo_abs: x must be a COOTensor"):
        ops.coo_abs(Tensor(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="tensor_split: the number of sections must be positive"):
        ops.tensor_split(Tensor(np.ones(4, np.float32)), 0)


def test_assign_add_converts_the_value_to_the_parameters_dtype() -> None:
    p = ms.Parameter(Tensor(np.array([1], np.int64)), name="p")
    ops.assign_add(p, Tensor(np.array([2], np.int32)))
    ops.assign_sub(p, Tensor(np.array([1], np.int32)))
    assert p.asnumpy().tolist() == [2] and p.dtype == ms.int64
