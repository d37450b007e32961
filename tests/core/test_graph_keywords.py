"""Keyword inputs of graph-mode calls: a GRAPH_MODE Cell and a ``@jit`` function take them as MindSpore 2.10's
graph mode does (it used to refuse them: a Cell with "pass inputs positionally", ``@jit`` with Python's bare
"unexpected keyword argument"). Each binding gets its own graph, and the results match the same calls in
PyNative."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn


class _Keyed(nn.Cell):
    def construct(self, x, y=None, scale=2.0):
        if y is None:
            return x * scale
        return x + y * scale


def _calls(x, y):
    return [((x,), {}), ((x,), {"y": y}), ((x,), {"scale": 3.0}), ((x, y), {"scale": 4.0}),
            ((), {"y": y, "x": x}), ((x,), {"y": y, "scale": 0.5})]


def _pynative(fn, args, kwargs):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        return fn(*args, **kwargs).asnumpy()
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


def test_cell_takes_keyword_inputs(graph_mode):
    net = _Keyed()
    x = Tensor(np.arange(3, dtype=np.float32))
    y = Tensor(np.array([10.0, 20.0, 30.0], np.float32))
    for args, kwargs in _calls(x, y):
        want = _pynative(net, args, kwargs)
        np.testing.assert_allclose(net(*args, **kwargs).asnumpy(), want, err_msg=str(kwargs))
    # a second round runs the graphs kept per binding, with new values for the keyword Tensor
    y2 = Tensor(np.array([-1.0, 0.0, 1.0], np.float32))
    for args, kwargs in _calls(x, y2):
        np.testing.assert_allclose(net(*args, **kwargs).asnumpy(), _pynative(net, args, kwargs))


def test_jit_function_takes_keywords_and_defaults(graph_mode):
    @ms.jit
    def f(a, b=2.0, *, c=3):
        return a * b + c

    x = np.arange(3, dtype=np.float32)
    t = Tensor(x)
    np.testing.assert_allclose(f(t).asnumpy(), x * 2.0 + 3)
    np.testing.assert_allclose(f(t, b=5.0).asnumpy(), x * 5.0 + 3)
    np.testing.assert_allclose(f(t, c=10).asnumpy(), x * 2.0 + 10)
    np.testing.assert_allclose(f(a=t, c=1, b=0.5).asnumpy(), x * 0.5 + 1)
    np.testing.assert_allclose(f(a=x).asnumpy(), x * 2.0 + 3)  # a NumPy array by keyword is an input too
    # a Tensor by keyword is a graph input, read at each call (not a constant of the first trace)
    np.testing.assert_allclose(f(t, b=Tensor(x)).asnumpy(), x * x + 3)
    np.testing.assert_allclose(f(t, b=Tensor(x + 1)).asnumpy(), x * (x + 1) + 3)


def test_jit_method_takes_keywords(graph_mode):
    class Net(nn.Cell):
        @ms.jit
        def construct(self, x, shift=1.0):
            return x - shift

    net = Net()
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(net.construct(Tensor(x), shift=3.0).asnumpy(), x - 3.0)
    np.testing.assert_allclose(net.construct(Tensor(x)).asnumpy(), x - 1.0)


def test_a_wrong_keyword_names_it(graph_mode):
    @ms.jit
    def f(a):
        return a + 1

    with pytest.raises(TypeError, match="nope"):
        f(Tensor(np.ones(2, np.float32)), nope=1)
    with pytest.raises(TypeError, match="nope"):
        _Keyed()(Tensor(np.ones(2, np.float32)), nope=1)


class _Pairs(nn.Cell):
    def construct(self, xs, scale=1.0):
        a, (b, c) = xs
        return (a * b + c) * scale


def test_tensors_in_tuples_and_lists_are_inputs_not_constants(graph_mode):
    # A tuple of Tensors used to be a constant of the key (hashed by identity): every call compiled and kept
    # a new graph. Lists were refused. MindSpore's graph mode takes both as inputs.
    net = _Pairs()
    rng = np.random.default_rng(0)
    for _ in range(4):
        a, b, c = (rng.random(3).astype(np.float32) for _ in range(3))
        want = a * b + c
        np.testing.assert_allclose(net((Tensor(a), (Tensor(b), Tensor(c)))).asnumpy(), want, rtol=1e-6)
        np.testing.assert_allclose(net([Tensor(a), [Tensor(b), Tensor(c)]], scale=2.0).asnumpy(), want * 2,
                                   rtol=1e-6)
        np.testing.assert_allclose(net((a, (b, Tensor(c)))).asnumpy(), want, rtol=1e-6)  # NumPy items too
    assert len(net._graphs) == 2  # one per layout: the tuple call (with or without NumPy items), the list call

    @ms.jit
    def f(pair, k=(1, 2)):
        return pair[0] + pair[1] * k[1]

    for i in range(3):
        x = np.full(2, i, np.float32)
        np.testing.assert_allclose(f((Tensor(x), Tensor(x + 1))).asnumpy(), x + (x + 1) * 2)
    np.testing.assert_allclose(f([Tensor(x), Tensor(x)], k=[0, 5]).asnumpy(), x + x * 5)
    assert len(f._graphs) == 2
