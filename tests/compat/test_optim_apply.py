"""MindSpore's ``Apply*`` optimizer primitives (ops/optim_apply.py) against real MindSpore 2.10's outputs
(tests/fixtures/optim_image.npz, recorded by scripts/record_optim_image.py from tests/compat/optim_apply_cases.py):
two calls in PyNative mode, and the same two calls traced into a graph whose Parameters the kernels update in
place; returned values and the Parameters' final values within float tolerance, dtypes and shapes equal."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
from opbuild import Parameter, Tensor, ops
from opbuild.core.errors import KernelInputError, ShapeError
from opbuild.ops.registry import get

from ..helpers import FnCell
from .optim_apply_cases import CASES, run

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "optim_image.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())
# MindSpore 2.10's CPU backend has no ApplyKerasMomentum kernel: opbuild's is checked against its reference.
NOT_ON_MINDSPORE_CPU = {"ApplyKerasMomentum", "ApplyKerasMomentum_nesterov"}
# MindSpore's CPU leaves the tensor these return unwritten (the Parameters hold the update): only the state
# is compared; opbuild returns the updated variable, checked against the state after each call.
RETURN_UNWRITTEN = {"ApplyRMSProp", "ApplyCenteredRMSProp"}


def _want(name: str) -> list[np.ndarray]:
    keys = sorted((k for k in FIXTURE.files if k.startswith(f"{name}:out")), key=lambda k: int(k.rsplit("out", 1)[1]))
    return [FIXTURE[k] for k in keys]


def _close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    tol = (2e-3, 2e-3) if got.dtype == np.float16 else (2e-5, 2e-6)
    np.testing.assert_allclose(got, want, rtol=tol[0], atol=tol[1])


def _compare(name: str, got: list[np.ndarray]) -> None:
    want = _want(name)
    assert len(got) == len(want)
    n_state = len(CASES[name][2])
    skip = set(range(len(got) - n_state)) if name in RETURN_UNWRITTEN else set()
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if i not in skip:
            _close(g, w)
    if name in RETURN_UNWRITTEN:  # the second call's return is the final variable
        _close(got[1], want[2])


def test_fixture_covers_every_case_and_records_mindspore_2_10() -> None:
    assert META["mindspore"] == "2.10.0"
    assert {n for n in META["errors"] if n in CASES} == NOT_ON_MINDSPORE_CPU
    for name in set(CASES) - NOT_ON_MINDSPORE_CPU:
        assert f"{name}:out0" in FIXTURE, name


@pytest.mark.parametrize("name", sorted(set(CASES) - NOT_ON_MINDSPORE_CPU))
def test_pynative_matches_mindspore(name: str) -> None:
    _compare(name, run(ms, ops, name))


class _Step(nn.Cell):
    """One call of a primitive whose state inputs are this cell's Parameters."""

    def __init__(self, prim, inputs, state):
        super().__init__()
        self.prim, self.state, self.n = prim, state, len(inputs)
        for i in state:
            setattr(self, f"p{i}", Parameter(Tensor(np.array(inputs[i])), name=f"p{i}"))

    def construct(self, *others):
        it = iter(others)
        return self.prim(*[getattr(self, f"p{i}") if i in self.state else next(it) for i in range(self.n)])


@pytest.mark.parametrize("name", sorted(set(CASES) - NOT_ON_MINDSPORE_CPU - {"ApplyGradientDescent_number"}))
def test_graph_mode_updates_parameters_in_place(name: str) -> None:
    make, inputs, state = CASES[name]
    net = _Step(make(ops), inputs, state)
    others = [Tensor(a) if isinstance(a, np.ndarray) else a for i, a in enumerate(inputs) if i not in state]
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = []
        for _ in range(2):
            res = net(*others)
            got += [r.asnumpy() for r in (res if isinstance(res, tuple) else (res,))]
    finally:
        ms.set_context(mode=old)
    got += [getattr(net, f"p{i}").asnumpy() for i in state]
    _compare(name, got)


@pytest.mark.parametrize("name", sorted(NOT_ON_MINDSPORE_CPU))
def test_keras_momentum_matches_its_reference(name: str) -> None:
    make, inputs, state = CASES[name]
    prim = make(ops)
    ref = get("ApplyKerasMomentum").reference
    expect = ref(get("ApplyKerasMomentum").spec(prim.attrs, [Tensor(a)._type for a in inputs]).attrs, *inputs)
    var = Parameter(Tensor(inputs[0].copy()), name="var")  # the kernel writes the Parameter's buffer
    accum = Parameter(Tensor(inputs[1].copy()), name="accum")
    out = prim(var, accum, *[Tensor(a) for a in inputs[2:]])
    for g, w in zip((out[0].asnumpy(), out[1].asnumpy(), var.asnumpy(), accum.asnumpy()), expect * 2):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)
    nesterov = name.endswith("nesterov")
    acc = inputs[1] * inputs[4] - inputs[2] * inputs[3]
    step = acc * inputs[4] - inputs[2] * inputs[3] if nesterov else acc
    np.testing.assert_allclose(var.asnumpy(), inputs[0] + step, rtol=2e-6, atol=1e-7)


def test_a_tensor_is_updated_in_place_in_pynative_and_refused_in_a_graph() -> None:
    # MindSpore's PyNative writes a Tensor passed for a Ref input (tests/compat/test_nn_extras.py records it);
    # inside a graph the Tensor would be a graph input the caller owns: refused.
    x = Tensor(np.ones((2, 2), np.float32))
    ops.ApplyAdagrad()(x, Parameter(Tensor(np.ones((2, 2), np.float32)), name="a"), 0.1, x)
    assert (x.asnumpy() != 1.0).all()
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        acc = Parameter(Tensor(np.ones((2, 2), np.float32)), name="a")
        with pytest.raises(TypeError, match="must be a Parameter"):
            FnCell(lambda v, g: ops.ApplyAdagrad()(v, acc, 0.1, g))(Tensor(np.ones((2, 2), np.float32)), x)
    finally:
        ms.set_context(mode=old)


def test_refuses_a_gradient_of_another_shape() -> None:
    var = Parameter(Tensor(np.ones((2, 2), np.float32)), name="v")
    acc = Parameter(Tensor(np.ones((2, 2), np.float32)), name="a")
    with pytest.raises(ShapeError, match="grad must have var's type"):
        ops.ApplyAdagrad()(var, acc, 0.1, Tensor(np.ones((2, 3), np.float32)))


def test_refuses_a_non_scalar_learning_rate_and_a_missing_attribute() -> None:
    var = Parameter(Tensor(np.ones((2, 2), np.float32)), name="v")
    acc = Parameter(Tensor(np.ones((2, 2), np.float32)), name="a")
    with pytest.raises(ShapeError, match="lr must be a one-element"):
        ops.ApplyAdagrad()(var, acc, Tensor(np.ones((2,), np.float32)), Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(ShapeError, match="missing attribute"):
        ops.ApplyAdagradV2()(var, acc, 0.1, Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(TypeError, match="takes 4 inputs"):
        ops.ApplyAdagrad()(var, acc, 0.1)


def test_sparse_skips_an_index_out_of_range_and_refuses_a_gradient_of_the_wrong_rows() -> None:
    var = Parameter(Tensor(np.ones((3, 2), np.float32)), name="v")
    acc = Parameter(Tensor(np.ones((3, 2), np.float32)), name="a")
    with pytest.raises(ShapeError, match=r"grad must be float32 of shape \(2, 2\)"):
        ops.SparseApplyAdagrad(lr=0.1)(var, acc, Tensor(np.ones((3, 2), np.float32)), Tensor(np.array([0, 1])))
    np.testing.assert_array_equal(var.asnumpy(), 1.0)  # nothing written by a refused call
    # MindSpore's CPU kernel logs an error for index 3 and updates row 0 only (tests/compat/test_nn_extras.py)
    with pytest.warns(RuntimeWarning, match=r"indices must be in \[0, 3\).*\[3\] skipped"):
        ops.SparseApplyAdagrad(lr=0.1)(var, acc, Tensor(np.ones((2, 2), np.float32)), Tensor(np.array([0, 3])))
    assert (var.asnumpy()[0] != 1.0).all() and (var.asnumpy()[1:] == 1.0).all()


def test_sparse_kernel_skips_an_index_out_of_range_inside_a_graph() -> None:
    var0, acc0 = np.arange(6, dtype=np.float32).reshape(3, 2), np.full((3, 2), 0.5, np.float32)
    grad = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    net = _Step(ops.SparseApplyFtrl(lr=0.1, l1=0.01, l2=0.0, lr_power=-0.5),
                [var0, acc0, np.zeros_like(var0), grad, None], (0, 1, 2))
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net(Tensor(grad), Tensor(np.array([2, 7, -1], np.int64)))
    finally:
        ms.set_context(mode=old)
    ref = get("SparseApplyFtrl").reference
    attrs = {"lr": 0.1, "l1": 0.01, "l2": 0.0, "lr_power": -0.5}
    want = ref(attrs, var0, acc0, np.zeros_like(var0), grad[:1], np.array([2]))
    np.testing.assert_allclose(net.p0.asnumpy(), want[0], rtol=2e-6)
    np.testing.assert_array_equal(net.p0.asnumpy()[:2], var0[:2])  # rows no valid index names are untouched


def test_scatter_refuses_an_index_out_of_range_eagerly() -> None:
    x = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="x")
    with pytest.raises(KernelInputError, match=r"indices\[1, 0\] = 3 is out of range .*\[0, 3\)"):
        ops.ScatterAdd()(x, Tensor(np.array([0, 3], np.int32)), Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(ShapeError, match="updates must have shape"):
        ops.ScatterNdUpdate()(x, Tensor(np.array([[0, 1]], np.int32)), Tensor(np.ones((2,), np.float32)))
    np.testing.assert_array_equal(x.asnumpy(), 0.0)
