"""``t[index] = value`` in both modes (in place in PyNative, a select/gather node in a traced graph), type
promotion inside traced graphs, Cell forward hooks and buffers in GRAPH_MODE, and the refusals that say what
is not supported."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops

from ..helpers import FnCell

KEYS = [
    (0, 5.0),
    ((slice(1, None), 0), -1.0),
    ((Ellipsis, 2), 7.5),
    (np.array([2, 0, 2]), 9.0),
    ((slice(None), [0, 3]), np.array([1.0, 2.0], np.float32)),
    (1, np.arange(4, dtype=np.float32)),
    (np.array([[True, False, True, False]] * 3), 0.5),
    ((slice(None, None, -2), slice(1, 3)), np.array([[10.0, 11.0], [12.0, 13.0]], np.float32)),
]


def _expected(x, key, value):
    y = x.copy()
    y[key] = value
    return y


@pytest.mark.parametrize("key,value", KEYS, ids=[str(i) for i in range(len(KEYS))])
def test_setitem_matches_numpy_in_both_modes(mode, key, value):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)

    def fn(t):
        v = ms.Tensor(value) if isinstance(value, np.ndarray) else value
        t[key] = v
        return t * 1.0

    out = FnCell(fn)(ms.Tensor(x)) if mode == "graph" else fn(ms.Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), _expected(x, key, value))


def test_setitem_is_in_place_in_pynative(pynative_mode):
    t = ms.tensor([1, 2, 3], ms.int32)
    alias = t
    t[1] = 7.9  # cast to the tensor's dtype, as MindSpore
    assert alias is t and t.tolist() == [1, 7, 3] and t.dtype == ms.int32


def test_setitem_in_graph_on_local_tensor_mask_and_parameter(graph_mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(ms.tensor([0.0, 0.0, 0.0]), name="p")
            self.const = ms.tensor([1.0, 2.0, 3.0])

        def construct(self, x):
            local = ms.tensor([5.0, 6.0, 7.0])
            local[0] = x[1]  # a value known only when the graph runs
            x[x < 0] = 0.0  # a mask computed in construct: a Select
            self.p[2] = x[2]  # a Parameter: written with Assign
            c = self.const
            c[1] = 20.0  # a captured constant: rebound inside this trace only
            return local, x, c

    net = Net()
    for _ in range(2):  # the second call runs the cached graph
        local, x, c = net(ms.tensor([-1.0, 4.0, 9.0]))
        np.testing.assert_array_equal(local.asnumpy(), [4.0, 6.0, 7.0])
        np.testing.assert_array_equal(x.asnumpy(), [0.0, 4.0, 9.0])
        np.testing.assert_array_equal(c.asnumpy(), [1.0, 20.0, 3.0])
    np.testing.assert_array_equal(net.p.asnumpy(), [0.0, 0.0, 9.0])
    np.testing.assert_array_equal(net.const.asnumpy(), [1.0, 2.0, 3.0])  # the constant itself is untouched


def test_setitem_refusals(graph_mode):
    def dynamic_index(x, i):
        x[i] = 1.0
        return x

    with pytest.raises(IndexError, match="index tensor computed inside a GRAPH_MODE construct"):
        FnCell(dynamic_index)(ms.tensor([1.0, 2.0]), ms.tensor([0], ms.int64))


def test_setitem_value_of_the_wrong_shape_is_refused(pynative_mode):
    t = ms.tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="cannot be broadcast to the selection's shape"):
        t[0] = ms.tensor([1.0, 2.0])


def test_promotion_inside_a_graph(graph_mode):
    out = FnCell(lambda a, b: (a + b, a * 2.5, a // 2, b > a))(ms.tensor([1, 2], ms.int32),
                                                              ms.tensor([0.5, 4.0], ms.float16))
    assert [o.dtype for o in out] == [ms.float16, ms.float32, ms.int32, ms.bool_]
    np.testing.assert_array_equal(out[0].asnumpy(), [1.5, 6.0])


def test_forward_hooks_and_buffers_in_graph_mode(graph_mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.register_buffer("offset", ms.tensor([10.0, 20.0]))

        def construct(self, x):
            return x + self.offset

    net, seen = Net(), []
    h = net.register_forward_pre_hook(lambda cell, inputs: (inputs[0] * 2,))
    net.register_forward_hook(lambda cell, inputs, out: seen.append(out.asnumpy().tolist()))
    np.testing.assert_array_equal(net(ms.tensor([1.0, 1.0])).asnumpy(), [12.0, 22.0])
    h.remove()
    np.testing.assert_array_equal(net(ms.tensor([1.0, 1.0])).asnumpy(), [11.0, 21.0])
    assert seen == [[12.0, 22.0], [11.0, 21.0]]
    assert [n for n, _ in net.named_buffers()] == ["offset"] and not list(net.get_parameters())
    with pytest.raises(TypeError, match="hook must be callable"):  # backward hooks: tests/compat/test_functional_*
        net.register_backward_hook(None)


def test_tensor_constructor_refusals():
    with pytest.raises(ValueError, match="dynamic dimensions"):  # a declaration (below) takes no init
        ms.Tensor(shape=[None, 3], dtype=ms.float32, init="ones")
    assert ms.Tensor(shape=[None, 3], dtype=ms.float32).shape == (-1, 3)  # set_inputs' declaration
    with pytest.raises(ValueError, match="either input_data, or shape"):
        ms.Tensor([1.0], shape=(1,))
    with pytest.raises(ValueError, match="only a one-element tensor"):
        ms.tensor([1, 2]).item()
    assert ms.Tensor(shape=(2,), dtype=ms.int32, init="ones").tolist() == [1, 1]
    assert ops.full((2,), 1.5, dtype=ms.float32).tolist() == [1.5, 1.5]


def test_cell_compile_builds_without_running_and_set_inputs_records(graph_mode):
    class Net(nn.Cell):
        def construct(self, x):
            return ops.exp(x) + 1.0

    net = Net()
    x = ms.tensor(np.zeros((2, 3), np.float32))
    net.set_inputs(ms.Tensor(shape=(2, 3), dtype=ms.float32))
    assert net.get_inputs()[0].shape == (2, 3)
    net.compile(x)
    (compiled,) = net.compile_info()
    assert ms.build_report().built == 1  # built by compile, before any call
    np.testing.assert_allclose(net(x).asnumpy(), np.full((2, 3), 2.0))
    (after,) = net.compile_info()
    assert after is compiled  # the call ran the graph compile built: no second trace
