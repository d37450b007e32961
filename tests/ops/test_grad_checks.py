"""Runs the gradient table of tests/ops/grad_cases.py: every case against torch.autograd in float64, or
against central finite differences in float64 where torch has no gradient for the op.

The scalar differentiated is ``sum_k sum(out_k * w_k)`` over the case's outputs with fixed random cotangents.
Each case also asserts that its op's own rule ran (a case that reached the op through another path, or not at
all, would prove nothing). GRAPH_MODE, so forward and backward run built kernels."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.ops as ops
from opbuild.ops.registry import REGISTRY
from tests.helpers import TORCH_MISSING, FnCell
from tests.ops import grad_cases as G

pytestmark = pytest.mark.slow

EPS = 1e-6
PARAMS = [(op, i) for op, cs in sorted(G.CASES.items()) for i in range(len(cs) if isinstance(cs, tuple) else 1)]


def _case(op: str, i: int) -> G.GradCase:
    cs = G.CASES[op]
    return cs[i] if isinstance(cs, tuple) else cs


def _outs(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _loss(fn, ws):
    def loss(*xs):
        total = None
        for o, w in zip(_outs(fn(*xs)), ws, strict=True):
            term = ops.ReduceSum()(o * ms.Tensor(w))
            total = term if total is None else total + term
        return total
    return loss


def _finite_differences(loss, arrays, i):
    cell = FnCell(loss)
    g = np.zeros_like(arrays[i])
    for idx in np.ndindex(arrays[i].shape):
        vals = []
        for step in (EPS, -EPS):
            moved = [a.copy() for a in arrays]
            moved[i][idx] += step
            vals.append(float(cell(*[ms.Tensor(a) for a in moved]).asnumpy()))
        g[idx] = (vals[0] - vals[1]) / (2 * EPS)
    return g


def _torch_grads(fn, arrays, ws, wrt):
    torch = G.torch
    ts = [torch.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
    outs = _outs(fn(*ts))
    assert len(outs) == len(ws), "the torch reference returns a different number of outputs"
    total = sum((o * torch.from_numpy(w).to(o.dtype)).sum() for o, w in zip(outs, ws, strict=True))
    total.backward()
    # torch leaves .grad unset for an input no differentiable path reaches (a mask's argument): zero
    return [np.zeros_like(arrays[i]) if ts[i].grad is None else ts[i].grad.numpy() for i in wrt]


@pytest.mark.parametrize("op,i", PARAMS, ids=[f"{op}-{i}" for op, i in PARAMS])
def test_gradient(graph_mode, monkeypatch, op, i):
    c = _case(op, i)
    if c.torch is not None and G.torch is None:
        pytest.skip(TORCH_MISSING)
    calls = []
    rule = REGISTRY[op].grad

    def counted(*args):
        calls.append(1)
        return rule(*args)

    monkeypatch.setattr(REGISTRY[op], "grad", counted)
    arrays = [a.copy() for a in c.inputs]
    outs = _outs(FnCell(c.fn)(*[ms.Tensor(a) for a in arrays]))
    rng = np.random.default_rng(99)
    ws = [rng.normal(size=o.shape).astype(o.asnumpy().dtype) for o in outs]
    wrt = tuple(range(len(arrays))) if c.wrt is None else c.wrt
    loss = _loss(c.fn, ws)
    grads = _outs(ms.grad(loss, wrt)(*[ms.Tensor(a) for a in arrays]))
    assert calls, f"the case for {op} never reached {op}'s gradient rule"
    if c.torch is not None:
        expected = _torch_grads(c.torch, arrays, ws, wrt)
    else:
        expected = [_finite_differences(loss, arrays, j) for j in wrt]
    for j, g, e in zip(wrt, grads, expected, strict=True):
        assert g.shape == arrays[j].shape, (j, g.shape, arrays[j].shape)
        np.testing.assert_allclose(g.asnumpy(), e, rtol=c.rtol, atol=c.atol,
                                   err_msg=f"{op} {c.label}: gradient of input {j}")


@pytest.mark.parametrize("op", sorted(G.REFUSED))
def test_refusal(graph_mode, op):
    """An op whose rule is not written yet refuses clearly, naming itself, instead of a wrong gradient."""
    c = G.REFUSED[op]
    with pytest.raises(NotImplementedError, match=op):
        ms.grad(_loss(c.fn, [np.ones(_outs(FnCell(c.fn)(*map(ms.Tensor, c.inputs)))[0].shape)]))(
            *map(ms.Tensor, c.inputs))


SECOND = {
    "sigmoid": (lambda t: ops.Sigmoid()(t), lambda t: G.torch.sigmoid(t)),
    "tanh": (lambda t: ops.Tanh()(t), lambda t: G.torch.tanh(t)),
    "gelu": (lambda t: G.P("GeLU")()(t), lambda t: G.F.gelu(t)),
    "relu-times-x": (lambda t: ops.ReLU()(t) * t, lambda t: G.torch.relu(t) * t),
    "relu6-squared": (lambda t: ops.ReLU6()(t * 4.0) * t, lambda t: G.F.relu6(t * 4.0) * t),
    "sparse-ce": (lambda t: G.P("SparseSoftmaxCrossEntropyWithLogits")()(ops.Reshape()(t, (2, 3)), G._i32([2, 0])),
                  lambda t: G.F.cross_entropy(t.reshape(2, 3), G._t(np.array([2, 0])))),
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivatives(graph_mode, name):
    """grad of a function of grad (the Hessian-vector product of the backward maps' rules) against torch's
    double backward: d/dx sum(w * d/dx sum(f(x) * v))."""
    if G.torch is None:
        pytest.skip(TORCH_MISSING)
    fn, tfn = SECOND[name]
    x = G._away(2, 3, seed=4)
    rng = np.random.default_rng(5)
    v, w = rng.normal(size=x.shape), rng.normal(size=x.shape)
    inner = ms.grad(lambda t: ops.ReduceSum()(fn(t) * ms.Tensor(v)))
    got = ms.grad(lambda t: ops.ReduceSum()(inner(t) * ms.Tensor(w)))(ms.Tensor(x))
    tx = G.torch.tensor(x, requires_grad=True)
    (g,) = G.torch.autograd.grad((tfn(tx) * G._t(v)).sum(), tx, create_graph=True)
    (want,) = G.torch.autograd.grad((g * G._t(w)).sum(), tx)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-6, atol=1e-9)
