"""GRAPH_MODE programs drawing random numbers after ``set_seed``, written once for both frameworks:
``run(ms, name)`` takes the framework module (``mindspore`` in scripts/record_random_graph.py, ``opbuild`` in
tests/compat/test_random_graph.py), runs the scenario ``name`` in GRAPH_MODE and returns every drawn Tensor as
a NumPy array, in order. Each scenario runs in a fresh process (the op-seed counters are process-wide). Imports
no framework itself."""

from __future__ import annotations

import numpy as np


def _functional_net(ms):
    nn, ops = ms.nn, ms.ops

    class Functional(nn.Cell):
        """Every seeded functional sampler and a primitive, at one call site each."""

        def __init__(self):
            super().__init__()
            self.u = ops.UniformReal(seed=3, seed2=5)

        def construct(self, x):
            a = ops.rand(4)
            b = ops.rand(4)
            c = ops.randn(3)
            d = self.u((4,))
            e = ops.randint(0, 10, (5,))
            f = ops.rand(3, seed=3)
            g = ops.standard_normal((2, 2))
            h = ops.uniform((4,), ms.Tensor(1.0, ms.float32), ms.Tensor(2.0, ms.float32))
            i = ops.uniform((5,), ms.Tensor(1, ms.int32), ms.Tensor(100, ms.int32), dtype=ms.int32)
            j = ops.normal((3,), ms.Tensor([[0.0], [5.0]], ms.float32), ms.Tensor(0.5, ms.float32), seed=8)
            k = ops.rand_like(x)
            m = ops.randn_like(x)
            n = ops.randint_like(ops.zeros((4,), ms.int32), 0, 100)
            p = ops.rand(4, dtype=ms.float64)
            q = ops.randn(1001)
            r = ops.randint(-5, 1000000, (7,), dtype=ms.int32)
            return a, b, c, d, e, f, g, h, i, j, k, m, n, p, q, r

    return Functional


def _sites_net(ms):
    nn, ops = ms.nn, ms.ops

    class Sites(nn.Cell):
        """A seeded primitive at several call sites, an unseeded one, and a graph input for the shape key."""

        def __init__(self):
            super().__init__()
            self.u = ops.UniformReal(seed=3, seed2=5)

        def construct(self, x):
            a = ops.rand(4)
            d1 = self.u((4,))
            d2 = self.u((4,))
            d3 = self.u((2,))
            return a + 0 * x.sum(), d1, d2, d3

    return Sites


def _primitives_net(ms):
    nn, ops = ms.nn, ms.ops

    class Primitives(nn.Cell):
        """StandardNormal, UniformInt (bounds given as graph inputs) and UniformReal objects."""

        def __init__(self):
            super().__init__()
            self.n = ops.StandardNormal(seed=1, seed2=2)
            self.i = ops.UniformInt(seed=0, seed2=9)
            self.u = ops.UniformReal(seed=0, seed2=4)

        def construct(self, lo, hi):
            return (self.n((5,)), self.n((1000,)), self.i((10,), lo, hi), self.i((3,), lo, hi), self.u((3,)),
                    self.n((3,)))

    return Primitives


def _scenario_functional(ms) -> list:
    ms.set_seed(7)
    net = _functional_net(ms)()
    x = ms.Tensor(np.zeros((2, 3), np.float32))
    return [o for _ in range(3) for o in net(x)]


def _scenario_compile_keys(ms) -> list:
    """Eager calls share the seed counters with graph compiles; a compiled graph keeps its kernels' generators
    across calls and set_seed; a new Cell or a new input shape compiles again with new seeds."""
    ops, outs = ms.ops, []
    ms.set_seed(7)
    outs.append(ops.rand(4))
    net_cls = _sites_net(ms)
    n1 = net_cls()
    x2, x3 = ms.Tensor(np.zeros(2, np.float32)), ms.Tensor(np.zeros(3, np.float32))
    outs += list(n1(x2)) + list(n1(x2))
    outs += list(net_cls()(x2))
    ms.set_seed(7)
    outs += list(n1(x2))
    outs += list(n1(x3))
    outs += list(n1(x2))
    outs.append(ops.rand(4))

    @ms.jit
    def f():
        return ops.rand(4), ops.randn(3), ops.rand(4, seed=3)

    for _ in range(2):
        outs += list(f())
    return outs


def _scenario_primitives(ms) -> list:
    ms.set_seed(99)  # a primitive's seeds are its own: the global seed changes nothing
    net = _primitives_net(ms)()
    lo, hi = ms.Tensor(-3, ms.int32), ms.Tensor(2147483647, ms.int32)
    outs = [o for _ in range(2) for o in net(lo, hi)]
    return outs + list(net(ms.Tensor(5, ms.int32), ms.Tensor(6, ms.int32)))


def _scenario_other_seeds(ms) -> list:
    ops, outs = ms.ops, []

    @ms.jit
    def f():
        return ops.rand(3, seed=5), ops.randn(3, seed=5), ops.randint(0, 50, (4,), seed=2)

    for _ in range(2):  # before any set_seed: an op seed alone seeds the stream (global seed 0)
        outs += list(f())
    ms.set_seed(0)  # a global seed of 0 counts as MindSpore's default, 87654321

    @ms.jit
    def g():
        return ops.rand(3), ops.randn(4)

    for _ in range(2):
        outs += list(g())
    return outs


def _scenario_graph_break(ms) -> list:
    """Control flow over a tensor value: a call site before the condition and one after it, whichever branch
    led there, keep one generator each across calls (opbuild traces again at each new branch)."""
    nn, ops = ms.nn, ms.ops

    class Branchy(nn.Cell):
        def __init__(self):
            super().__init__()
            self.n = ops.StandardNormal(seed=2, seed2=3)

        def construct(self, x):
            a = ops.rand(2)
            if x.sum() > 0:  # noqa: SIM108 - an if statement is what is tested
                y = x + 1
            else:
                y = x - 1
            return a, y, ops.randn(3) + self.n((2,)).sum()

    ms.set_seed(5)
    net = Branchy()
    return [o for v in (1, -1, 1, -1, -1) for o in net(ms.Tensor(np.full(2, v, np.float32)))]


def _scenario_pynative_jit(ms) -> list:
    """@jit in PYNATIVE_MODE compiles a graph too: its nodes keep their generators across calls, apart from
    the primitive object's own eager generator and from the eager functional calls' new seeds."""
    ops = ms.ops
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(7)
    prim = ops.UniformReal(seed=3, seed2=5)

    @ms.jit
    def f():
        return prim((4,)), ops.rand(3), ops.randn(2)

    outs = [o for _ in range(2) for o in f()]
    return outs + [prim((4,)), ops.rand(3), ops.randn(2), prim((4,))]


def _scenario_pynative_grad(ms) -> list:
    """A function differentiated in PYNATIVE_MODE (opbuild compiles it; MindSpore runs it op by op): each call
    seeds the functional op afresh, and the primitive's two call sites and its eager calls share its one
    generator per shape."""
    ops = ms.ops
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(5)
    prim = ops.StandardNormal(seed=4, seed2=5)

    def fn(w):
        a = ops.randn(4)
        b, c = prim((3,)), prim((3,))
        return (w * a).sum(), a, b, c

    grad_fn = ms.value_and_grad(fn, grad_position=0, has_aux=True)
    w, outs = ms.Tensor(np.ones(4, np.float32)), []
    for _ in range(3):
        (_, a, b, c), g = grad_fn(w)
        outs += [a, b, c, g, prim((3,)), ops.randn(4)]
    return outs


SCENARIOS = {"functional": _scenario_functional, "compile_keys": _scenario_compile_keys,
             "primitives": _scenario_primitives, "other_seeds": _scenario_other_seeds,
             "graph_break": _scenario_graph_break, "pynative_jit": _scenario_pynative_jit,
             "pynative_grad": _scenario_pynative_grad}


def run(ms, name: str) -> list[np.ndarray]:
    """Run scenario ``name`` with the framework ``ms`` in GRAPH_MODE on the CPU; the drawn arrays in order."""
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    return [np.asarray(t.asnumpy()) for t in SCENARIOS[name](ms)]
