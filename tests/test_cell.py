"""nn.Cell: GRAPH_MODE tracing and graph reuse per input signature, PYNATIVE execution, sub-cells, Parameters
(deterministic initialisation, capture by reference), SequentialCell, set_train and parameter names."""

from __future__ import annotations

import inspect
import json
from collections import OrderedDict

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops
from opbuild.core.errors import ShapeError
from opbuild.nn import Parameter
from opbuild.runtime.reference import run_reference
from opbuild.runtime.session import Session

from .conftest import run_python


class Affine(nn.Cell):
    """x * weight + bias, elementwise (keeps these tests independent of the MatMul family)."""

    def __init__(self, n: int, init: str = "normal"):
        super().__init__()
        self.weight = Parameter(ms.initializer(init, (n,)))
        self.bias = Parameter(ms.initializer("uniform", (n,)))

    def construct(self, x):
        return x * self.weight + self.bias


class Block(nn.Cell):
    def __init__(self, n: int):
        super().__init__()
        self.dense = Affine(n)
        self.act = ReLU()

    def construct(self, x):
        return self.act(self.dense(x))


class ReLU(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = ops.ReLU()

    def construct(self, x):
        return self.relu(x)


class Net(nn.Cell):
    def __init__(self, n: int = 3):
        super().__init__()
        self.block = Block(n)
        self.head = Affine(n, init="truncatednormal")  # He/Xavier need a 2-D shape (MindSpore's fans)

    def construct(self, x):
        return self.head(self.block(x))


def net_numpy(net: Net, x: np.ndarray) -> np.ndarray:
    """The same network written with NumPy, reading the cell's current parameter values."""
    d, h = net.block.dense, net.head
    y = np.maximum(x * d.weight.asnumpy() + d.bias.asnumpy(), 0)
    return y * h.weight.asnumpy() + h.bias.asnumpy()


class Counting(nn.Cell):
    """Counts construct invocations (= traces in GRAPH_MODE)."""

    def __init__(self):
        super().__init__()
        self.calls = 0
        self.square = ops.Square()

    def construct(self, x, shift=1):
        self.calls += 1
        return self.square(x) + shift


@pytest.fixture
def count_graph_builds(monkeypatch):
    """Count Session.compile_graph calls (one per graph build)."""
    counter = {"n": 0}
    original = Session.compile_graph

    def counting(self, graph):
        counter["n"] += 1
        return original(self, graph)

    monkeypatch.setattr(Session, "compile_graph", counting)
    return counter


# ---- GRAPH_MODE: one trace and one build per input signature ------------------------------------------

def test_graph_mode_traces_once_per_signature(graph_mode, count_graph_builds, monkeypatch):
    monkeypatch.setenv("OPBUILD_FUSION", "0")  # the test reads the traced, unfused nodes
    cell = Counting()
    x3 = np.array([1.0, 2.0, 3.0], np.float32)
    out = cell(ms.Tensor(x3))
    assert cell.calls == 1 and count_graph_builds["n"] == 1
    np.testing.assert_array_equal(out.asnumpy(), x3 * x3 + 1)
    report = ms.build_report()  # the first call built (or found in the cache) every kernel of its graph
    assert sorted(k.op for k in report.kernels) == ["Add", "Square"]
    assert report.built + report.reused + report.repaired == 2

    for values in ([4.0, 5.0, 6.0], [-1.0, 0.0, 0.5]):  # same signature, new values: no re-trace, no build
        v = np.array(values, np.float32)
        np.testing.assert_array_equal(cell(ms.Tensor(v)).asnumpy(), v * v + 1)
    assert cell.calls == 1 and count_graph_builds["n"] == 1

    x4 = np.arange(4, dtype=np.float32)  # new shape
    np.testing.assert_array_equal(cell(ms.Tensor(x4)).asnumpy(), x4 * x4 + 1)
    assert cell.calls == 2 and count_graph_builds["n"] == 2
    x3d = x3.astype(np.float64)  # new dtype
    out = cell(ms.Tensor(x3d))
    assert out.dtype == ms.float64 and cell.calls == 3 and count_graph_builds["n"] == 3
    np.testing.assert_array_equal(out.asnumpy(), x3d * x3d + 1)
    cell(x3)  # an ndarray argument is a Tensor of the same signature
    cell(ms.Tensor(x4))
    assert cell.calls == 3 and count_graph_builds["n"] == 3
    np.testing.assert_array_equal(cell(ms.Tensor(x3), 5).asnumpy(), x3 * x3 + 5)  # new constant argument
    assert cell.calls == 4 and len(cell.compile_info()) == 4


def test_graph_mode_matches_reference_interpreter(graph_mode, monkeypatch):
    monkeypatch.setenv("OPBUILD_FUSION", "0")  # the test reads the traced, unfused nodes
    ms.set_seed(0)
    net = Net()
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(4, 3)
    out = net(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, net_numpy(net, x), rtol=1e-6)
    (compiled,) = net.compile_info()
    assert [n.op for n in compiled.graph.nodes] == ["Mul", "Add", "ReLU", "Mul", "Add"]
    (ref,) = run_reference(compiled.graph, [x])
    np.testing.assert_allclose(out, ref, rtol=1e-6)


def test_sub_cells_are_inlined_into_one_graph(graph_mode):
    """Calling a sub-cell inside a trace runs its construct inline; it does not build graphs of its own."""
    inner = Counting()

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def construct(self, x):
            return self.inner(x) * 2

    outer = Outer()
    x = np.array([1.0, -2.0], np.float32)
    for _ in range(3):
        np.testing.assert_array_equal(outer(ms.Tensor(x)).asnumpy(), (x * x + 1) * 2)
    assert inner.calls == 1 and inner.compile_info() == [] and len(outer.compile_info()) == 1


def test_pynative_mode_runs_construct_every_call(pynative_mode, count_graph_builds):
    cell = Counting()
    x = np.array([1.0, 2.0], np.float32)
    for i in range(3):
        np.testing.assert_array_equal(cell(ms.Tensor(x)).asnumpy(), x * x + 1)
        assert cell.calls == i + 1
    assert count_graph_builds["n"] == 0 and cell.compile_info() == []


def test_graph_and_pynative_agree(graph_mode):
    ms.set_seed(3)
    net = Net()
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    graph = net(ms.Tensor(x)).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(graph, eager)


def test_outputs_structures_and_copies(graph_mode):
    class Multi(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(np.array([1.0, 2.0], np.float32))

        def construct(self, x, y):
            return x + y, [x, (y * 2, self.p)]

    cell = Multi()
    x, y = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    s, (a, (b, p)) = cell(ms.Tensor(x), ms.Tensor(y))
    out = cell(ms.Tensor(x), ms.Tensor(y))
    assert isinstance(out, tuple) and isinstance(out[1], list) and isinstance(out[1][1], tuple)
    np.testing.assert_array_equal(s.asnumpy(), x + y)
    np.testing.assert_array_equal(a.asnumpy(), x)
    np.testing.assert_array_equal(b.asnumpy(), y * 2)
    np.testing.assert_array_equal(p.asnumpy(), [1.0, 2.0])
    # outputs are fresh arrays: writing to one does not leak into the parameter or the next call
    p.asnumpy()[:] = 0
    s.asnumpy()[:] = 0
    s2, (_, (_, p2)) = cell(ms.Tensor(x), ms.Tensor(y))
    np.testing.assert_array_equal(p2.asnumpy(), [1.0, 2.0])
    np.testing.assert_array_equal(s2.asnumpy(), x + y)


def test_shape_error_while_tracing_leaves_no_graph(graph_mode):
    class Bad(nn.Cell):
        def construct(self, x, y):
            return x + y

    cell = Bad()
    with pytest.raises(ShapeError, match=r"Add: shapes cannot be broadcast.*float32\[2\].*float32\[3\]"):
        cell(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(3, np.float32)))
    assert cell.compile_info() == []
    out = cell(ms.Tensor(np.ones(3, np.float32)), ms.Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 2.0, 2.0])


def test_cell_misuse_errors(graph_mode):
    class NoSuper(nn.Cell):
        def __init__(self):
            self.x = 1  # a plain attribute before (here: without) Cell.__init__ is allowed, as in MindSpore

        def construct(self, x):
            return x

    cell = NoSuper()
    with pytest.raises(RuntimeError, match=r"NoSuper.__init__ must call super\(\).__init__\(\)"):
        cell(ms.Tensor(np.ones(2, np.float32)))
    with pytest.raises(AttributeError, match=r"NoSuper.__init__ must call super\(\).__init__\(\)"):
        cell.trainable_params()

    class NoConstruct(nn.Cell):
        pass

    with pytest.raises(NotImplementedError, match="NoConstruct must define construct"):
        NoConstruct()(ms.Tensor(np.ones(2, np.float32)))

    class ReturnsObject(nn.Cell):
        def construct(self, x):
            return object()

    with pytest.raises(TypeError, match="must return Tensors, Python scalars, or tuples/lists/dicts of them"):
        ReturnsObject()(ms.Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="unexpected keyword argument 'y'"):  # keywords are taken, checked
        Counting()(y=ms.Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="hashable"):  # (tuples and lists are opened into their items)
        Counting()(ms.Tensor(np.ones(2, np.float32)), {"k": 1})


# ---- structure: parameters, names, SequentialCell, set_train ------------------------------------------

def test_parameters_and_names_are_qualified():
    net = Net()
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["block.dense.weight", "block.dense.bias", "head.weight", "head.bias"]
    params = dict(net.parameters_and_names())
    assert params["block.dense.weight"] is net.block.dense.weight
    block_names = [n for n, _ in net.block.parameters_and_names("block")]
    assert block_names == ["block.dense.weight", "block.dense.bias"]
    assert [n for n, _ in net.parameters_and_names(expand=False)] == []
    # Parameter.name is the full path, as MindSpore's auto_prefix names it.
    assert [p.name for p in net.get_parameters()] == names
    assert [n for n, _ in net.cells_and_names()] == ["", "block", "block.dense", "block.act", "head"]
    assert len(net.trainable_params()) == 4


def test_shared_parameter_is_listed_once():
    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Affine(2)
            self.b = Affine(2)
            self.b.weight = self.a.weight

        def construct(self, x):
            return self.b(self.a(x))

    assert [n for n, _ in Tied().parameters_and_names()] == ["a.weight", "a.bias", "b.bias"]


def _init_script() -> str:
    """A program that builds Net (the classes of this file, by source) under a seed given in argv and prints
    its parameters as JSON."""
    classes = "\n\n".join(inspect.getsource(c) for c in (Affine, Block, ReLU, Net))
    return (
        "import json, sys\nimport opbuild as ms\nfrom opbuild import nn, ops\n"
        "from opbuild.nn import Parameter\n"
        f"{classes}\n"
        "ms.set_seed(int(sys.argv[1]))\n"
        "net = Net(4)\n"
        "print(json.dumps({name: p.asnumpy().tolist() for name, p in net.parameters_and_names()}))\n"
    )


def test_parameter_initialisation_is_deterministic_across_processes():
    script = _init_script()
    runs = {seed: json.loads(run_python(script, str(seed)).stdout) for seed in (1, 2)}
    again = json.loads(run_python(script, "1").stdout)
    assert again == runs[1]  # same seed, fresh process: identical values
    assert list(runs[1]) == ["block.dense.weight", "block.dense.bias", "head.weight", "head.bias"]
    for name in runs[1]:
        assert runs[1][name] != runs[2][name], name  # a different seed changes every random initialiser
    # within one program each parameter draws its own values
    assert runs[1]["block.dense.weight"] != runs[1]["head.weight"]
    ms.set_seed(1)  # and this process, after set_seed, gets the same values as the fresh ones
    assert {n: p.asnumpy().tolist() for n, p in Net(4).parameters_and_names()} == runs[1]


def test_initializers():
    # MindSpore's initializer returns a Tensor.
    assert (ms.initializer("zeros", (2, 3)).asnumpy() == 0).all() and ms.initializer("ones", 4).shape == (4,)
    assert (ms.initializer(0.5, (2,), "float64").asnumpy() == 0.5).all()
    assert ms.initializer("he_normal", (8, 4), ms.float64).dtype == ms.float64
    assert np.array_equal(ms.initializer(np.arange(3), (3,)), [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="unknown initializer 'glorot'"):
        ms.initializer("glorot", (2,))
    with pytest.raises(ValueError, match="shape"):
        ms.initializer(np.arange(3), (4,))


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_set_data_is_seen_without_retracing(mode, graph_mode, count_graph_builds):
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(5)
    net = Net()
    x = np.linspace(-1, 1, 3, dtype=np.float32)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), net_numpy(net, x), rtol=1e-6)
    traces = count_graph_builds["n"]
    net.head.weight.set_data(np.array([10.0, 20.0, 30.0], np.float32))
    net.block.dense.bias.set_data(ms.Tensor(np.ones(3, np.float32)))
    out = net(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, net_numpy(net, x), rtol=1e-6)
    assert count_graph_builds["n"] == traces  # captured by reference, not re-traced
    assert net.head.weight.asnumpy().tolist() == [10.0, 20.0, 30.0]
    with pytest.raises(ValueError, match="set_data shape"):
        net.head.weight.set_data(np.ones(4, np.float32))


def test_scalar_parameter_keeps_its_shape(graph_mode):
    class Scaled(nn.Cell):
        def __init__(self):
            super().__init__()
            self.s = Parameter(np.array(2.0, np.float32))

        def construct(self, x):
            return x * self.s

    cell = Scaled()
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_array_equal(cell(ms.Tensor(x)).asnumpy(), x * 2)
    cell.s.set_data(3.0)
    assert cell.s.shape == ()
    np.testing.assert_array_equal(cell(ms.Tensor(x)).asnumpy(), x * 3)


def test_replacing_a_parameter_or_sub_cell_rebuilds_the_graph(graph_mode):
    """A graph captured the old objects: assigning a new Parameter or sub-cell (e.g. a new head) must not
    keep running the stale graph."""
    ms.set_seed(7)
    net = Net()
    x = np.linspace(-1, 1, 3, dtype=np.float32)
    net(ms.Tensor(x))
    net.head = Affine(3, init="ones")
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), net_numpy(net, x), rtol=1e-6)
    net.block.dense.weight = Parameter(np.full(3, -2.0, np.float32))
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), net_numpy(net, x), rtol=1e-6)
    assert [n for n, _ in net.parameters_and_names()][:2] == ["block.dense.weight", "block.dense.bias"]


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_sequential_cell(mode, graph_mode):
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(11)
    seq = nn.SequentialCell([Affine(3), ReLU(), Affine(3)])
    assert len(seq) == 3 and isinstance(seq[1], ReLU)
    assert [n for n, _ in seq.parameters_and_names()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    x = np.linspace(-3, 3, 6, dtype=np.float32).reshape(2, 3)
    a, c = seq[0], seq[2]
    want = np.maximum(x * a.weight.asnumpy() + a.bias.asnumpy(), 0) * c.weight.asnumpy() + c.bias.asnumpy()
    np.testing.assert_allclose(seq(ms.Tensor(x)).asnumpy(), want, rtol=1e-6)
    seq.append(ReLU())
    assert len(seq) == 4
    np.testing.assert_allclose(seq(ms.Tensor(x)).asnumpy(), np.maximum(want, 0), rtol=1e-6)

    named = nn.SequentialCell(OrderedDict([("fc", Affine(3)), ("act", ReLU())]))
    assert [n for n, _ in named.parameters_and_names()] == ["fc.weight", "fc.bias"]
    assert named[0] is named.fc
    fc = named.fc
    np.testing.assert_allclose(named(ms.Tensor(x)).asnumpy(),
                               np.maximum(x * fc.weight.asnumpy() + fc.bias.asnumpy(), 0), rtol=1e-6)
    with pytest.raises(TypeError, match="SequentialCell items must be Cells"):
        nn.SequentialCell([Affine(3), ops.ReLU()])


class Dropoutish(nn.Cell):
    """Halves its input in training mode (stands in for Dropout/BatchNorm, whose behaviour depends on it)."""

    def construct(self, x):
        return x * 0.5 if self.training else x


def test_set_train_propagates_and_selects_the_graph(graph_mode):
    net = nn.SequentialCell([Dropoutish(), nn.SequentialCell([Dropoutish()])])
    assert all(not c.training for _, c in net.cells_and_names())  # inference by default
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    x = np.array([4.0, 8.0], np.float32)
    np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), x * 0.25)
    net.set_train(False)
    assert all(not c.training for _, c in net.cells_and_names())
    np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), x)
    net[1][0].set_train(True)  # a sub-cell's own mode counts too
    np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), x * 0.5)
    net.set_train(True)
    np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), x * 0.25)
    assert len(net.compile_info()) == 3  # train, eval, mixed: the train graph was reused at the end


def test_traced_tensor_from_an_earlier_trace_is_a_clear_error(graph_mode):
    class Leaky(nn.Cell):
        def __init__(self):
            super().__init__()
            self.kept = None

        def construct(self, x):
            y = ops.Square()(x)
            if self.kept is not None:
                y = y + self.kept
            self.kept = y  # a symbolic tensor escapes its trace
            return y

    net = Leaky()
    net(ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(RuntimeError, match="another graph"):
        net(ms.Tensor(np.ones(4, np.float32)))


def test_a_parameter_name_must_be_a_str():
    """MindSpore 2.10 refuses a non-str name (ValueError): a number would be saved under a name nothing loads."""
    for bad in (5, b"w", 1.5):
        with pytest.raises(ValueError, match="name must be a str or None"):
            ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name=bad)
    assert ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w").name == "w"
