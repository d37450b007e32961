"""Control flow over tensor values in GRAPH_MODE: graph breaks (core/graph_breaks.py) give MindSpore's results,
reuse every piece on later calls with the same branch decisions, and are explained."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.core import trace
from opbuild.ops.primitive import apply
from tests.conftest import execution_mode
from tests.core import control_flow_programs as programs

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "control_flow.npz"


@pytest.fixture
def compiles(monkeypatch):
    """Counts the graphs compiled through the engine."""
    count = {"n": 0}
    engine = trace.engine()
    real = engine.compile_graph

    def counting(graph, *a, **k):
        count["n"] += 1
        return real(graph, *a, **k)

    monkeypatch.setattr(engine, "compile_graph", counting)
    return count


@pytest.mark.parametrize("name", list(programs.build(ms)))
def test_programs_give_mindspore_results(name, graph_mode):
    expected = np.load(FIXTURE)
    fn = programs.build(ms)[name]
    for case, arrays in programs.inputs().items():
        got = programs.leaves(fn(*[ms.Tensor(a) for a in arrays]))
        for k, leaf in enumerate(got):
            key = f"{name}/{case}/{k}"
            if f"{key}/py" in expected.files:  # MindSpore returned a Python value here: so must opbuild
                assert not isinstance(leaf, ms.Tensor) and leaf == expected[f"{key}/py"].item(), key
                continue
            want = expected[key]
            assert leaf.asnumpy().dtype == want.dtype
            np.testing.assert_allclose(leaf.asnumpy(), want, rtol=1e-5, atol=1e-5, err_msg=key)
        # the same program op by op gives the same values
        with execution_mode("pynative"):
            eager = programs.leaves(programs.build(ms)[name](*[ms.Tensor(a) for a in arrays]))
        for g, e in zip(got, eager, strict=True):
            if isinstance(g, ms.Tensor):
                np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6)
            else:
                assert g == e


def test_numpy_reference_of_a_while_loop(graph_mode):
    x = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
    y = np.abs(x)
    while y.sum() < 100.0:
        y = y * 2.0 + 1.0
    np.testing.assert_allclose(programs.build(ms)["while"](ms.Tensor(x)).asnumpy(), y, rtol=1e-6)


def test_pieces_are_reused_per_branch_decision(graph_mode, compiles):
    net = programs.build(ms)["if_else"]
    pos, neg = (ms.Tensor(programs.inputs()[c][0]) for c in ("pos", "neg"))
    net(pos)
    assert compiles["n"] == 2  # the piece up to the condition, then the true branch
    net(pos)
    assert compiles["n"] == 2  # same decision: both pieces reused, the Python code not run again
    np.testing.assert_allclose(net(neg).asnumpy(), programs.inputs()["neg"][0] - 1.0 + 1.0, rtol=1e-6)
    assert compiles["n"] == 3  # the condition's piece reused; only the false branch is new
    net(neg)
    net(pos)
    assert compiles["n"] == 3
    assert len(net.compile_info()) == 3


def test_loop_pieces_equal_in_structure_compile_once(graph_mode, compiles):
    net = programs.build(ms)["while"]
    x = ms.Tensor(np.full((3, 4), 0.01, np.float32))
    net(x)
    # the first piece (abs, sum, compare), one loop body piece shared by every iteration, the exit piece
    assert compiles["n"] == 3
    more = ms.Tensor(np.full((3, 4), 0.001, np.float32))  # more iterations: a replay, then new decisions
    y = np.full((3, 4), 0.001, np.float32)
    while y.sum() < 100.0:
        y = y * 2.0 + 1.0
    np.testing.assert_allclose(net(more).asnumpy(), y, rtol=1e-6)
    assert compiles["n"] == 3


def test_in_place_updates_before_a_break_happen_once(graph_mode):
    p = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="p")

    @ms.jit
    def step(x):
        apply("AssignAdd", {}, [p, x])
        if p.sum() > 4.0:
            return p * 10.0
        return p * 1.0

    one = ms.Tensor(np.ones(3, np.float32))
    np.testing.assert_allclose(step(one).asnumpy(), [1, 1, 1])
    np.testing.assert_allclose(step(one).asnumpy(), [20, 20, 20])  # new branch: the update ran once
    np.testing.assert_allclose(step(one).asnumpy(), [30, 30, 30])
    np.testing.assert_allclose(p.asnumpy(), [3, 3, 3])


def test_int_and_float_of_traced_values(graph_mode):
    @ms.jit
    def f(x):
        n = int(x.sum())
        out = x
        for _ in range(n):
            out = out * 2.0
        return out * float(x.max())

    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(f(x).asnumpy(), np.array([1.0, 2.0]) * 8 * 2.0)
    np.testing.assert_allclose(f(ms.Tensor(np.array([0.0, 1.0], np.float32))).asnumpy(), [0.0, 2.0])


def test_explain_says_where_and_why(graph_mode):
    net = programs.build(ms)["if_else"]
    report = ms.explain(net, ms.Tensor(programs.inputs()["neg"][0]))
    assert report.graph_count == 2 and report.break_count == 1
    (brk,) = report.breaks
    assert "control_flow_programs.py" in brk.location and "if x.sum() > 0:" in brk.location
    assert brk.reason.startswith("bool() of a traced bool[] tensor") and brk.value is False
    assert "1 graph break(s)" in str(report) and "if x.sum() > 0:" in str(report)
    loop = ms.explain(programs.build(ms)["jit_while"], ms.Tensor(np.full((3, 4), 0.1, np.float32)))
    assert loop.break_count >= 2 and all("while s > -10.0" in b.location for b in loop.breaks)
    plain = ms.explain(lambda x: x + 1.0, ms.Tensor(np.ones(2, np.float32)))
    assert plain.graph_count == 1 and plain.breaks == []


def test_report_lists_the_breaks(graph_mode):
    net = programs.build(ms)["two_outputs_if"]
    net(ms.Tensor(programs.inputs()["pos"][0]))
    report = ms.build_report().as_dict()
    assert len(report["graph_breaks"]) == 1 and "if b > 1.0:" in report["graph_breaks"][0]


def test_condition_inside_a_differentiated_function():
    def loss(x):
        if x.sum() > 0:
            return (x * x).sum()
        return x.sum()

    # From Python the condition is answered on the call's values (core/concrete_trace.py) ...
    np.testing.assert_array_equal(ms.grad(loss)(ms.Tensor(np.ones(2, np.float32))).asnumpy(), [2.0, 2.0])
    # ... inside a compiled graph there are no values to answer it with yet: before anything has run, the call
    # runs as Python (explain says so); after a piece has run, it is refused.
    jitted = ms.jit(ms.grad(loss))
    np.testing.assert_array_equal(jitted(ms.Tensor(np.ones(2, np.float32))).asnumpy(), [2.0, 2.0])
    np.testing.assert_array_equal(jitted(ms.Tensor(-np.ones(2, np.float32))).asnumpy(), [1.0, 1.0])
    why = ms.explain(jitted, ms.Tensor(np.ones(2, np.float32)))
    assert why.break_count == 1 and "the call runs as Python" in str(why.breaks[0])

    def after_a_break(x):
        if x.max() > 5:
            x = x * 2
        return ms.grad(loss)(x)

    with pytest.raises(RuntimeError, match="differentiated inside a compiled graph"):
        ms.jit(after_a_break)(ms.Tensor(np.ones(2, np.float32)))


def test_control_flow_in_a_sub_cell_breaks_the_parent_graph(graph_mode, compiles):
    class Gate(nn.Cell):
        def construct(self, x):
            if x.max() > 1.0:
                return x / x.max()
            return x

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gate = Gate()
            self.dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")

        def construct(self, x):
            return self.dense(self.gate(x * 2.0))

    net = Net()
    big, small = np.array([[1.0, 2.0, 3.0]], np.float32), np.array([[0.1, 0.2, 0.1]], np.float32)
    np.testing.assert_allclose(net(ms.Tensor(big)).asnumpy(), [[2.0, 2.0]], rtol=1e-6)
    np.testing.assert_allclose(net(ms.Tensor(small)).asnumpy(), [[0.8, 0.8]], rtol=1e-6)
    assert compiles["n"] == 3
    report = ms.explain(net, ms.Tensor(big))
    assert report.break_count == 1 and "if x.max() > 1.0:" in report.breaks[0].location


def test_a_traced_tensor_kept_on_self_is_still_refused(graph_mode):
    class Leaky(nn.Cell):
        def construct(self, x):
            if x.sum() > 0:
                self.kept = x * 2.0
            return x + 1.0

    class User(nn.Cell):
        def __init__(self, leaky):
            super().__init__()
            self.leaky = leaky

        def construct(self, x):
            return x + self.leaky.kept

    leaky = Leaky()
    leaky(ms.Tensor(np.ones(2, np.float32)))
    with pytest.raises(RuntimeError, match="from another graph"):
        User(leaky)(ms.Tensor(np.ones(2, np.float32)))


def test_cell_compile_builds_up_to_the_first_break_without_running(graph_mode, compiles):
    """Cell.compile of a network with a condition builds the piece that computes it and nothing after (the
    condition needs a call's values); the first call then reuses that piece and builds only its branch."""
    net = programs.build(ms)["if_else"]
    pos = ms.Tensor(programs.inputs()["pos"][0])
    net.compile(pos)
    assert compiles["n"] == 1 and len(net.compile_info()) == 1
    net.compile(pos)
    assert compiles["n"] == 1  # compiled already: nothing traced again
    out = net(pos)
    assert compiles["n"] == 2  # the condition's piece reused, the branch taken built
    np.testing.assert_allclose(out.asnumpy(), net(pos).asnumpy())
    assert compiles["n"] == 2


def test_python_values_returned_follow_the_path_each_call_takes(graph_mode, compiles):
    """A loop counter returned beside Tensors is the one of the path this call took (it is fixed per path:
    the pieces along it are replayed without the Python code), on the first and on later calls."""

    class Doubling(nn.Cell):
        def construct(self, x):
            steps = 0
            while x.sum() < 100.0:
                x = x * 2.0
                steps += 1
            return x, steps, {"n": x.shape[0]}

    net = Doubling()
    for start, want in (([1.0, 2.0], 6), ([30.0, 40.0], 1), ([1.0, 2.0], 6), ([200.0, 1.0], 0)):
        y, steps, info = net(ms.Tensor(np.array(start, np.float32)))
        assert steps == want and type(steps) is int and info == {"n": 2}
        np.testing.assert_array_equal(y.asnumpy(), np.array(start, np.float32) * 2.0 ** want)
    built = compiles["n"]
    net(ms.Tensor(np.array([1.0, 2.0], np.float32)))
    assert compiles["n"] == built  # a path already taken: nothing traced or compiled again
