"""The in-place update ops (ops/optim.py) against NumPy implementations of MindSpore's formulas, several steps
in a row, in PyNative (the kernel writes the Parameter's array) and in a compiled graph (the executor binds
the output to the Parameter's buffer); Assign's read-before/after-write rule; errors."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Parameter, Tensor, nn, ops
from opbuild.core.errors import ShapeError

RNG = np.random.default_rng(7)
SHAPE = (3, 5)


def _p(a, name):
    return Parameter(np.array(a, np.float32), name=name)


def _s(v):
    return Tensor(np.array(v, np.float32))


class _Apply(nn.Cell):
    """Applies ``fn(*params, *inputs)`` inside construct, so GRAPH_MODE compiles it into a graph."""

    def __init__(self, fn, params):
        super().__init__()
        self.fn = fn
        for i, p in enumerate(params):
            setattr(self, f"p{i}", p)
        self.n = len(params)

    def construct(self, *inputs):
        out = self.fn(*[getattr(self, f"p{i}") for i in range(self.n)], *inputs)
        return out * 1.0


def _run_steps(mode, fn, params, inputs_per_step):
    if mode == "pynative":
        for ins in inputs_per_step:
            fn(*params, *ins)
        return
    cell = _Apply(fn, params)
    for ins in inputs_per_step:
        cell(*ins)


def _grads(n=4):
    return [RNG.normal(size=SHAPE).astype(np.float32) for _ in range(n)]


@pytest.mark.parametrize("nesterov", [False, True])
def test_apply_momentum_matches_numpy_over_steps(mode, nesterov):
    var0, grads = RNG.normal(size=SHAPE).astype(np.float32), _grads()
    var, acc = _p(var0, "w"), _p(np.zeros(SHAPE), "moments.w")
    data = var.asnumpy()
    op = ops.ApplyMomentum(use_nesterov=nesterov)
    _run_steps(mode, lambda v, a, lr, g, m: op(v, a, lr, g, m), [var, acc],
               [(_s(0.1), Tensor(g), _s(0.9)) for g in grads])
    v, a = var0.astype(np.float64), np.zeros(SHAPE)
    for g in grads:
        a = a * 0.9 + g
        v = v - 0.1 * (g + a * 0.9) if nesterov else v - 0.1 * a
    np.testing.assert_allclose(var.asnumpy(), v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acc.asnumpy(), a, rtol=1e-5, atol=1e-6)
    assert var.asnumpy() is data  # the parameter's own array was written


@pytest.mark.parametrize("momentum,dampening,wd,nesterov", [(0.0, 0.0, 0.0, False), (0.9, 0.1, 0.01, False),
                                                             (0.9, 0.0, 0.05, True)])
def test_sgd_matches_numpy_over_steps(mode, momentum, dampening, wd, nesterov):
    p0, grads = RNG.normal(size=SHAPE).astype(np.float32), _grads()
    param, accum, stat = _p(p0, "w"), _p(np.zeros(SHAPE), "accum.w"), _p(np.ones(SHAPE), "stat.w")
    op = ops.SGD(dampening, wd, nesterov)
    _run_steps(mode, lambda p, a, s, g, lr, m: op(p, g, lr, a, m, s), [param, accum, stat],
               [(Tensor(g), _s(0.05), _s(momentum)) for g in grads])
    p, a, first = p0.astype(np.float64), np.zeros(SHAPE), True
    for g in grads:
        d = g + wd * p
        if momentum > 0:
            a = d if first else a * momentum + (1 - dampening) * d
            first = False
            d = d + momentum * a if nesterov else a
        p = p - 0.05 * d
    np.testing.assert_allclose(param.asnumpy(), p, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(accum.asnumpy(), a, rtol=1e-5, atol=1e-6)
    assert (stat.asnumpy() == (0 if momentum > 0 else 1)).all()


@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_matches_numpy_over_steps(mode, nesterov):
    p0, grads = RNG.normal(size=SHAPE).astype(np.float32), _grads()
    var, m1, m2 = _p(p0, "w"), _p(np.zeros(SHAPE), "moment1.w"), _p(np.zeros(SHAPE), "moment2.w")
    op = ops.Adam(use_nesterov=nesterov)
    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 0.01
    steps = [(_s(b1 ** t), _s(b2 ** t), _s(lr), _s(b1), _s(b2), _s(eps), Tensor(g))
             for t, g in enumerate(grads, start=1)]
    _run_steps(mode, lambda v, m, s, *rest: op(v, m, s, *rest), [var, m1, m2], steps)
    v, m, s = p0.astype(np.float64), np.zeros(SHAPE), np.zeros(SHAPE)
    for t, g in enumerate(grads, start=1):
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = m + (g - m) * (1 - b1)
        s = s + (g * g - s) * (1 - b2)
        v = v - lr_t * ((m * b1 + (1 - b1) * g) if nesterov else m) / (eps + np.sqrt(s))
    np.testing.assert_allclose(var.asnumpy(), v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m1.asnumpy(), m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m2.asnumpy(), s, rtol=1e-4, atol=1e-7)


def test_adam_weight_decay_matches_numpy_over_steps(mode):
    p0, grads = RNG.normal(size=SHAPE).astype(np.float32), _grads()
    var, m1, m2 = _p(p0, "w"), _p(np.zeros(SHAPE), "adam_m.w"), _p(np.zeros(SHAPE), "adam_v.w")
    op = ops.AdamWeightDecay()
    b1, b2, eps, lr, wd = 0.9, 0.999, 1e-6, 0.01, 0.1
    _run_steps(mode, lambda v, m, s, *rest: op(v, m, s, *rest), [var, m1, m2],
               [(_s(lr), _s(b1), _s(b2), _s(eps), _s(wd), Tensor(g)) for g in grads])
    v, m, s = p0.astype(np.float64), np.zeros(SHAPE), np.zeros(SHAPE)
    for g in grads:
        m = b1 * m + (1 - b1) * g
        s = b2 * s + (1 - b2) * g * g
        v = v - lr * (m / (np.sqrt(s) + eps) + wd * v)
    np.testing.assert_allclose(var.asnumpy(), v, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m1.asnumpy(), m, rtol=1e-5, atol=1e-6)


class _ReadAroundWrite(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(np.ones(3, np.float32), name="w")

    def construct(self, x):
        before = self.w * 2.0
        ops.Assign()(self.w, x)
        ops.AssignAdd()(self.w, x)
        return before, self.w * 1.0, self.w


def test_assign_reads_before_see_old_values_reads_after_see_new(mode):
    cell = _ReadAroundWrite()
    x = Tensor(np.arange(3, dtype=np.float32))
    before, after, raw = cell(x)
    np.testing.assert_array_equal(before.asnumpy(), [2, 2, 2])
    np.testing.assert_array_equal(after.asnumpy(), [0, 2, 4])
    np.testing.assert_array_equal(raw.asnumpy(), [0, 2, 4])
    np.testing.assert_array_equal(cell.w.asnumpy(), [0, 2, 4])
    before, _, _ = cell(x)  # the second run starts from the written value
    np.testing.assert_array_equal(before.asnumpy(), [0, 4, 8])


def test_update_nodes_survive_dead_code_elimination(graph_mode):
    class OnlyUpdate(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(np.zeros(2, np.float32), name="w")

        def construct(self, x):
            ops.AssignAdd()(self.w, x)
            return x * 1.0

    cell = OnlyUpdate()
    cell(Tensor(np.ones(2, np.float32)))
    cell(Tensor(np.ones(2, np.float32)))
    np.testing.assert_array_equal(cell.w.asnumpy(), [2, 2])
    assert [n.op for n in cell.compile_info()[0].graph.nodes].count("AssignAdd") == 1


def test_errors(pynative_mode):
    w = _p(np.zeros(SHAPE), "w")
    t = Tensor(np.zeros(SHAPE, np.float32))  # PyNative writes a Tensor in place, as MindSpore's does
    ops.Assign()(t, Tensor(np.ones(SHAPE, np.float32)))
    np.testing.assert_array_equal(t.asnumpy(), 1.0)
    with pytest.raises(ShapeError, match="one-element"):
        ops.ApplyMomentum()(w, _p(np.zeros(SHAPE), "a"), Tensor(np.ones(2, np.float32)),
                            Tensor(np.ones(SHAPE, np.float32)), _s(0.9))
    with pytest.raises(ShapeError, match="variable's type"):
        ops.ApplyMomentum()(w, _p(np.zeros((2, 2)), "a"), _s(0.1), Tensor(np.ones(SHAPE, np.float32)), _s(0.9))
    with pytest.raises(ShapeError, match="nesterov needs dampening"):
        ops.SGD(0.1, 0.0, True)(w, Tensor(np.ones(SHAPE, np.float32)), _s(0.1), _p(np.zeros(SHAPE), "a"),
                                _s(0.9), _p(np.ones(SHAPE), "s"))
    with pytest.raises(ValueError, match="two in-place inputs"):
        ops.ApplyMomentum()(w, w, _s(0.1), Tensor(np.ones(SHAPE, np.float32)), _s(0.9))
    assert ms.build_report() is not None
