"""Pad folding (passes/pad_fold.py): which zero Pads become their Conv2D readers' padding, that the folded
convolution's algorithm is chosen for its new shapes, and that a compiled graph gives the unfolded graph's
result bit for bit."""

from __future__ import annotations

import numpy as np

import opbuild.ops as ops
from opbuild.core import trace
from opbuild.core.tensor import Tensor
from opbuild.ops.registry import get
from opbuild.passes import DeadCodeElimination, Pipeline
from opbuild.passes.pad_fold import PadFolding
from opbuild.runtime.session import session

F32 = np.float32


def _trace(fn, *arrays):
    graph, _ = trace.trace(fn, [Tensor(a) for a in arrays])
    return graph


def _fold(graph):
    return DeadCodeElimination().run(PadFolding().run(graph))


def _ops(graph):
    return [n.op for n in graph.nodes]


def _depthwise_after_pad(widths, stride=2, c=32):
    def fn(x, w):
        return ops.Conv2D(c, 3, pad_mode="valid", stride=stride, group=c)(ops.Pad(widths)(x), w)
    return fn


def test_a_tf_style_uneven_pad_becomes_the_convolutions_padding():
    x, w = np.ones((1, 32, 12, 12), F32), np.ones((32, 1, 3, 3), F32)
    widths = ((0, 0), (0, 0), (0, 1), (0, 1))  # TensorFlow's "same" for stride 2: all of it after
    graph = _fold(_trace(_depthwise_after_pad(widths), x, w))
    assert _ops(graph) == ["Conv2D"]
    conv = graph.nodes[0]
    assert conv.attrs["pad"] == [0, 1, 0, 1] and conv.attrs["pad_mode"] == "pad"
    assert conv.inputs[0] is graph.inputs[0]
    assert conv.outputs[0] is graph.outputs[0] and conv.outputs[0].producer is conv
    assert conv.outputs[0].type.shape == (1, 32, 6, 6)


def test_the_folded_convolution_is_the_one_written_with_that_padding():
    """Its attributes (the algorithm included) and spec are those of the padded convolution written directly:
    normalized again for the new shapes, not copied from the pre-padded one."""
    x, w = np.ones((1, 16, 7, 9), F32), np.ones((24, 16, 3, 3), F32)

    def fn(x, w):
        return ops.Conv2D(24, 3, pad_mode="pad", pad=(1, 0, 0, 1), stride=2)(
            ops.Pad(((0, 0), (0, 0), (2, 1), (0, 3)))(x), w)

    folded = _fold(_trace(fn, x, w)).nodes[0]
    direct = _trace(lambda x, w: ops.Conv2D(24, 3, pad_mode="pad", pad=(3, 1, 0, 4), stride=2)(x, w), x, w)
    assert folded.attrs == direct.nodes[0].attrs
    assert folded.spec.outputs == direct.nodes[0].spec.outputs
    assert get("Conv2D").workspace_bytes(folded.attrs, folded.spec.inputs, folded.spec.outputs) == \
        get("Conv2D").workspace_bytes(direct.nodes[0].attrs, direct.nodes[0].spec.inputs, direct.nodes[0].spec.outputs)


def test_pads_read_elsewhere_or_of_other_axes_stay():
    x, w = np.ones((1, 8, 6, 6), F32), np.ones((8, 8, 3, 3), F32)
    conv = ops.Conv2D(8, 3, pad_mode="valid")

    def read_twice(x, w):
        p = ops.Pad(((0, 0), (0, 0), (1, 1), (1, 1)))(x)
        return conv(p, w), ops.Exp()(p)

    assert _ops(_fold(_trace(read_twice, x, w))) == ["Pad", "Conv2D", "Exp"]

    def channels(x, w):  # a pad of the channel axis is not a convolution's padding
        return ops.Conv2D(8, 3, pad_mode="valid")(ops.Pad(((0, 0), (1, 1), (1, 1), (1, 1)))(x), np.ones(
            (8, 10, 3, 3), F32))

    assert _ops(_fold(_trace(channels, x, w))) == ["Pad", "Conv2D"]

    def returned(x, w):
        p = ops.Pad(((0, 0), (0, 0), (1, 1), (1, 1)))(x)
        return conv(p, w), p

    assert _ops(_fold(_trace(returned, x, w))) == ["Pad", "Conv2D"]

    def as_weight(x, w):  # the Pad's output is the weight, not the image
        return conv(x, ops.Pad(((0, 0), (0, 0), (1, 1), (1, 1)))(w[:, :, :1, :1]))

    assert "Pad" in _ops(_fold(_trace(as_weight, x, w)))


def test_two_convolutions_reading_one_pad_both_fold():
    x = np.ones((1, 8, 7, 7), F32)
    w1, w2 = np.ones((8, 8, 3, 3), F32), np.ones((4, 8, 5, 5), F32)

    def fn(x, w1, w2):
        p = ops.Pad(((0, 0), (0, 0), (2, 2), (1, 3)))(x)
        return ops.Conv2D(8, 3, pad_mode="pad", pad=1)(p, w1), ops.Conv2D(4, 5, pad_mode="valid", stride=2)(p, w2)

    graph = _fold(_trace(fn, x, w1, w2))
    assert _ops(graph) == ["Conv2D", "Conv2D"]
    assert [n.attrs["pad"] for n in graph.nodes] == [[3, 3, 2, 4], [2, 2, 1, 3]]


def test_compiled_graph_with_folding_equals_the_unfolded_graph_bit_for_bit():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 24, 11, 11)).astype(F32)
    w1 = rng.standard_normal((24, 1, 5, 5)).astype(F32)
    w2 = rng.standard_normal((16, 24, 3, 3)).astype(F32)

    def fn(x, w1, w2):
        y = ops.Conv2D(24, 5, pad_mode="valid", stride=2, group=24)(ops.Pad(((0, 0), (0, 0), (1, 2), (1, 2)))(x), w1)
        return ops.ReLU()(ops.Conv2D(16, 3, pad_mode="valid")(ops.Pad(((0, 0), (0, 0), (1, 1), (0, 2)))(y), w2))

    arrays = [x, w1, w2]
    outs = []
    for passes in ([], [PadFolding(), DeadCodeElimination()]):
        graph = _trace(fn, *arrays)
        compiled = session().compile_graph(graph, Pipeline(passes))
        outs.append(compiled(arrays)[0])
        assert ("Pad" in _ops(graph)) == (not passes)
    np.testing.assert_array_equal(outs[0], outs[1])
