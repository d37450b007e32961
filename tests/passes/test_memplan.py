"""Memory planning (src/opbuild/passes/memplan.py) and the executor that follows the plan: results equal to
unplanned execution on randomised graphs, the plan's invariants, views without kernels, outputs that later
calls do not clobber, inputs and parameters never written, gradients through planned graphs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.core import trace
from opbuild.core.tensor import Tensor
from opbuild.passes import ConstantFolding, DeadCodeElimination, MemoryPlanning, Pipeline, plan_memory
from opbuild.passes.memplan import Location, PlanError
from opbuild.runtime.session import session

# The memory plan is a compiled graph's (PYNATIVE_MODE, the default, runs op by op).
pytestmark = pytest.mark.usefixtures("graph_mode")

UNPLANNED = Pipeline([ConstantFolding(), DeadCodeElimination()])
PLANNED = Pipeline([ConstantFolding(), DeadCodeElimination(), MemoryPlanning()])
SHAPE = (2, 3, 4)
UNARY = {"tanh": ops.tanh, "sigmoid": ops.sigmoid, "neg": ops.neg, "abs": ops.abs, "relu": ops.relu}
BINARY = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "sub": lambda a, b: a - b, "max": ops.maximum}
VIEWS = {  # a view out of the (2, 3, 4) or (2, 3, 1) layout, and back into it
    "reshape": (lambda v: ops.reshape(v, (-1,)), lambda v, s: ops.reshape(v, s)),
    "flatten": (ops.flatten, lambda v, s: ops.reshape(v, s)),
    "expand": (lambda v: ops.expand_dims(v, 0), lambda v, s: ops.squeeze(v, 0)),
}

_index = st.integers(0, 10_000)
_step = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(sorted(UNARY)), _index),
    st.tuples(st.just("binary"), st.sampled_from(sorted(BINARY)), _index, _index),
    st.tuples(st.just("reduce"), _index),
    st.tuples(st.just("view"), st.sampled_from(sorted(VIEWS)), st.sampled_from(sorted(UNARY)), _index),
)


@pytest.fixture(autouse=True)
def _unfused(monkeypatch):
    """The planner's own decisions (in place, views) are asserted on unfused graphs: the fusion pass would
    merge the elementwise chains these tests build into one kernel (tests/passes/test_fusion.py covers it)."""
    monkeypatch.setenv("OPBUILD_FUSION", "0")


def _program(steps, outs):
    """A function over one input running ``steps`` (each names earlier values by index modulo their count) and
    returning the values picked by ``outs`` (the last value always among them)."""

    def fn(x):
        vals = [x]
        for step in steps:
            pick = lambda i: vals[i % len(vals)]  # noqa: E731
            if step[0] == "unary":
                vals.append(UNARY[step[1]](pick(step[2])))
            elif step[0] == "binary":
                vals.append(BINARY[step[1]](pick(step[2]), pick(step[3])))
            elif step[0] == "reduce":
                vals.append(ops.sum(pick(step[1]), -1, keepdim=True))
            else:
                v = pick(step[3])
                into, back = VIEWS[step[1]]
                vals.append(back(UNARY[step[2]](into(v)), v.shape))
        picked = sorted({i % len(vals) for i in outs} | {len(vals) - 1})
        return tuple(vals[i] for i in picked)

    return fn


def _compile(fn, x, pipeline):
    graph, _ = trace.trace(fn, [Tensor(x)])
    return session().compile_graph(graph, pipeline)


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(_step, min_size=1, max_size=10), outs=st.lists(_index, max_size=3),
       seed=st.integers(0, 2**16))
def test_random_graphs_give_the_same_results_with_and_without_the_plan(steps, outs, seed):
    x = np.random.default_rng(seed).standard_normal(SHAPE).astype(np.float32)
    fn = _program(steps, outs)
    planned, unplanned = _compile(fn, x, PLANNED), _compile(fn, x, UNPLANNED)
    planned.plan.verify(planned.graph)
    unplanned.plan.verify(unplanned.graph)
    assert planned.plan.arena_bytes <= unplanned.plan.arena_bytes
    x0 = x.copy()
    for got, want in zip(planned([x]), unplanned([x]), strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x, x0)  # the graph input is never written


def _chain(x):
    a = ops.tanh(x * 2.0)
    b = ops.sigmoid(a) + a
    c = ops.relu(b - 1.0)
    return ops.neg(ops.exp(c))


def test_chain_shares_buffers_and_runs_in_place():
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(SHAPE)
    compiled = _compile(_chain, x, PLANNED)
    plan = compiled.plan
    plan.verify(compiled.graph)
    # Mul reads the input (never written), so it gets a buffer; every later map runs in place over it
    # except Sigmoid, whose input ``a`` is read again by the Add.
    assert plan.reused_inputs == 6 and len(plan.buffers) == 2
    assert plan.arena_bytes == 2 * 128 and plan.intermediate_bytes == 8 * 96
    t = np.tanh(x * 2)
    want = -np.exp(np.maximum(1 / (1 + np.exp(-t)) + t - 1, 0))
    np.testing.assert_allclose(compiled([x])[0], want, rtol=1e-5)


def test_plan_is_deterministic():
    x = np.zeros(SHAPE, np.float32)
    g1, _ = trace.trace(_chain, [Tensor(x)])
    g2, _ = trace.trace(_chain, [Tensor(x)])
    p1, p2 = plan_memory(g1), plan_memory(g2)
    offsets = lambda g, p: [p.locations[v] for n in g.nodes for v in n.outputs]  # noqa: E731
    assert offsets(g1, p1) == offsets(g2, p2) and p1.arena_bytes == p2.arena_bytes


def test_verify_rejects_a_plan_that_overwrites_a_live_value():
    x = np.zeros(SHAPE, np.float32)
    graph, _ = trace.trace(_chain, [Tensor(x)])
    plan = plan_memory(graph)
    plan.verify(graph)
    tanh, sigmoid = graph.nodes[1], graph.nodes[2]  # ``a`` stays live across Sigmoid (the Add reads it)
    assert (tanh.op, sigmoid.op) == ("Tanh", "Sigmoid")
    plan.locations[sigmoid.outputs[0]] = plan.locations[tanh.outputs[0]]
    with pytest.raises(PlanError, match="overwrites"):
        plan.verify(graph)
    plan = plan_memory(graph)
    plan.locations[graph.nodes[0].outputs[0]] = Location("input", 0)
    with pytest.raises(PlanError, match="writes its output into input"):
        plan.verify(graph)


class _Views(nn.Cell):
    def construct(self, x):
        y = ops.relu(x)
        z = ops.flatten(ops.expand_dims(ops.reshape(y, (6, 4)), 1))
        return ops.squeeze(ops.expand_dims(z, 0), 0) * 3.0, ops.reshape(x, (24,))


def test_views_build_no_kernel_and_alias_their_input():
    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    net = _Views()
    out, flat = net(Tensor(x))
    report = ms.build_report()
    assert sorted(k.op for k in report.kernels) == ["Mul", "ReLU"]
    assert report.memory["views"] == 6 and report.memory["kernels"] == 2
    assert report.as_dict()["memory"]["arena_bytes"] == report.memory["arena_bytes"]
    np.testing.assert_array_equal(out.asnumpy(), np.maximum(x, 0).reshape(6, 4) * 3)
    np.testing.assert_array_equal(flat.asnumpy(), x.reshape(24))  # a view of the input, returned as a copy
    compiled = net.compile_info()[0]
    assert compiled.plan.locations[compiled.graph.outputs[1]] == Location("input", 0)
    assert len(compiled.plan.buffers) == 1  # relu's buffer, its views and the Mul in place over them


def test_outputs_are_not_clobbered_by_later_calls():
    net = _Views()
    x1 = np.full(SHAPE, 2.0, np.float32)
    first = net(Tensor(x1))
    keep = [t.asnumpy().copy() for t in first]
    net(Tensor(np.full(SHAPE, 5.0, np.float32)))
    for t, k in zip(first, keep):
        np.testing.assert_array_equal(t.asnumpy(), k)


class _Affine(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(np.linspace(-1, 1, 4, dtype=np.float32), name="w")

    def construct(self, x):
        return ops.relu(ops.neg(x)) + ops.tanh(self.w)


def test_inputs_and_parameters_are_never_written():
    net = _Affine()
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(SHAPE)
    x0, w0 = x.copy(), net.w.asnumpy().copy()
    out = net(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), np.maximum(-x0, 0) + np.tanh(w0), rtol=1e-6)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(net.w.asnumpy(), w0)
    compiled = net.compile_info()[0]
    compiled.plan.verify(compiled.graph)
    # Neg reads the input and Tanh the parameter: neither runs in place; ReLU and Add do, over Neg's buffer.
    assert compiled.plan.reused_inputs == 2


def test_gradients_through_planned_graphs():
    w = ms.Parameter(np.linspace(0.5, 1.5, 6, dtype=np.float32).reshape(2, 3), name="w")

    def loss(x):
        h = ops.tanh(ops.reshape(x, (2, 3)) * w)
        return ops.sum(ops.flatten(h * h))

    x = np.linspace(-1, 1, 6, dtype=np.float32)
    dx = ms.grad(loss)(Tensor(x)).asnumpy()
    report = ms.build_report()
    assert report.memory is not None and report.memory["views"] >= 2
    assert report.memory["arena_bytes"] < report.memory["intermediate_bytes"]
    assert "Reshape" not in {k.op for k in report.kernels}
    t = np.tanh(x.reshape(2, 3) * w.asnumpy())
    np.testing.assert_allclose(dx, (2 * t * (1 - t * t) * w.asnumpy()).reshape(6), rtol=1e-5)
