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
    return [ts[i].grad.numpy() for i in wrt]


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
