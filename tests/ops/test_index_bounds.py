"""Indices out of range raise, as MindSpore 2.10's CPU kernels do (ops/bounds.py): the kernel reports the
first bad index through its status words (kernel ABI 3), the runtime raises a KernelInputError naming the
op, the index, its position and the valid range, in PyNative, in a compiled graph (also for indices computed
inside it) and in a dynamic-batch graph; the next call runs clean. MindSpore's own answers for these calls are
recorded in tests/fixtures/mindspore/index_bounds.json (tests/core/test_tensor_overloads.py)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops
from opbuild.core.errors import KernelInputError
from opbuild.core.ir import TensorType
from opbuild.ops.registry import REGISTRY, get
from tests.helpers import FnCell

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]
X = np.arange(15, dtype=np.float32).reshape(5, 3)
U = np.ones((1, 3), np.float32)


def i32(v) -> ms.Tensor:
    return ms.Tensor(np.array(v, np.int32))


def call(mode, fn, *args):
    """``fn(*args)`` in ``mode`` (GRAPH_MODE: a compiled cell taking every Tensor argument as an input)."""
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        return (FnCell(fn)(*args) if mode == ms.GRAPH_MODE else fn(*args)).asnumpy()
    finally:
        ms.set_context(mode=old)


# (call, its arguments, the op that reports, the message's index text, the range it names)
BAD = [
    (lambda x, i: ops.gather(x, i, 0), (X, [0, 5]), "Gather", "input_indices[1] = 5", "[-5, 5)"),
    (lambda x, i: ops.gather(x, i, 0), (X, [0, -6]), "Gather", "input_indices[1] = -6", "[-5, 5)"),
    (lambda x, i: ops.Gather()(x, i, 1), (X, [[2], [3]]), "Gather", "input_indices[1, 0] = 3", "[-3, 3)"),
    (lambda x, i: ops.index_select(x, 0, i), (X, [7]), "Gather", "input_indices[0] = 7", "[-5, 5)"),
    (lambda x, i: x.gather(i, 1), (X, [-4]), "Gather", "input_indices[0] = -4", "[-3, 3)"),
    (lambda x, i: x[i], (X, [1, 5]), "Gather", "input_indices[1] = 5", "[-5, 5)"),
    (lambda x, i: ops.gather_elements(x, 1, i), (X, [[0], [3], [0], [0], [0]]), "GatherD", "index[1, 0] = 3",
     "[-3, 3)"),
    (lambda x, i: ops.GatherD()(x, 1, i), (X, [[0], [0], [0], [-4], [0]]), "GatherD", "index[3, 0] = -4",
     "[-3, 3)"),
    (lambda x, i: ops.gather_nd(x, i), (X, [[4, 2], [0, 3]]), "GatherNd", "indices[1, 1] = 3", "[0, 3)"),
    (lambda x, i: ops.GatherNd()(x, i), (X, [[-1, 0]]), "GatherNd", "indices[0, 0] = -1", "[0, 5)"),
    (lambda x, i, u: ops.tensor_scatter_update(x, i, u), (X, [[5]], U), "TensorScatterUpdate",
     "indices[0, 0] = 5", "[0, 5)"),
    (lambda x, i, u: ops.tensor_scatter_add(x, i, u), (X, [[-1]], U), "TensorScatterAdd", "indices[0, 0] = -1",
     "[0, 5)"),
    (lambda x, i, u: ops.TensorScatterMax()(x, i, u), (X, [[9]], U), "TensorScatterMax", "indices[0, 0] = 9",
     "[0, 5)"),
    (lambda i, u: ops.scatter_nd(i, u, (5, 3)), ([[5]], U), "TensorScatterAdd", "indices[0, 0] = 5", "[0, 5)"),
]


def _tensors(args):
    return [ms.Tensor(a) if isinstance(a, np.ndarray) else i32(a) for a in args]


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
@pytest.mark.parametrize("case", BAD, ids=[f"{c[2]}-{c[3]}" for c in BAD])
def test_an_index_out_of_range_raises_naming_it(mode, case) -> None:
    fn, args, op, where, valid = case
    with pytest.raises(KernelInputError) as info:
        call(mode, fn, *_tensors(args))
    err = info.value
    assert isinstance(err, RuntimeError) and isinstance(err, IndexError)  # MindSpore's, and NumPy's
    assert err.op == op
    assert f"For '{op}', {where} is out of range" in str(err)
    assert f"an index must lie in {valid}" in str(err)
    assert err.value == int(where.rsplit("= ", 1)[1])


GOOD = [
    (lambda x, i: ops.gather(x, i, 0), (X, [-5, -1, 4]), lambda: X[[0, 4, 4]]),
    (lambda x, i: x.gather(i, 1), (X, [-3, 2]), lambda: X[:, [0, 2]]),
    (lambda x, i: x[i], (X, [-5, 1]), lambda: X[[0, 1]]),
    (lambda x, i: ops.gather_elements(x, 1, i), (X, [[0], [-1], [-3], [2], [1]]),
     lambda: np.take_along_axis(X, np.array([[0], [2], [0], [2], [1]]), 1)),
    (lambda x, i: ops.gather_nd(x, i), (X, [[4, 2], [0, 0]]), lambda: X[[4, 0], [2, 0]]),
]


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
@pytest.mark.parametrize("case", GOOD, ids=[str(c[1][1]) for c in GOOD])
def test_indices_in_range_including_negatives_where_allowed(mode, case) -> None:
    fn, args, want = case
    np.testing.assert_array_equal(call(mode, fn, *_tensors(args)), want())


class _Doubled(nn.Cell):
    """Indices computed inside the graph (the error can only come from the kernel)."""

    def construct(self, x, i):
        return ops.gather(x, i * 2, 0) + 1


def test_a_graph_raises_for_indices_it_computes_and_runs_clean_afterwards(graph_mode) -> None:
    net, x = _Doubled(), ms.Tensor(X)
    np.testing.assert_array_equal(net(x, i32([1, 2])).asnumpy(), X[[2, 4]] + 1)
    with pytest.raises(KernelInputError, match=r"input_indices\[1\] = 6 is out of range"):
        net(x, i32([1, 3]))
    # The same compiled graph: its status words were cleared, its next call is exact.
    np.testing.assert_array_equal(net(x, i32([-1, 0])).asnumpy(), X[[3, 0]] + 1)
    assert ms.build_report().built == 0


def test_pynative_runs_clean_after_an_error(pynative_mode) -> None:
    x = ms.Tensor(X)
    with pytest.raises(KernelInputError):
        ops.gather(x, i32([9]), 0)
    np.testing.assert_array_equal(ops.gather(x, i32([2]), 0).asnumpy(), X[[2]])


def test_the_first_bad_node_in_graph_order_is_reported(graph_mode) -> None:
    def two(x, i, j):
        return ops.gather(x, i, 0), ops.gather_elements(x, 1, j)

    cell = FnCell(two)
    x = ms.Tensor(X)
    with pytest.raises(KernelInputError) as info:
        cell(x, i32([8]), i32([[0], [0], [0], [0], [7]]))
    assert info.value.op == "Gather" and info.value.value == 8
    with pytest.raises(KernelInputError) as info:
        cell(x, i32([1]), i32([[0], [0], [0], [0], [7]]))
    assert info.value.op == "GatherD" and info.value.position == 4


class _Lookup(nn.Cell):
    def __init__(self):
        super().__init__()
        self.table = ms.Parameter(ms.Tensor(X), name="table")

    def construct(self, ids):
        return ops.relu(ops.gather(self.table, ids, 0))


def test_a_dynamic_batch_graph_raises_and_runs_clean_afterwards(graph_mode) -> None:
    net = _Lookup()
    net.set_inputs(ms.Tensor(shape=[None, 2], dtype=ms.int32))
    np.testing.assert_array_equal(net(i32([[0, 1]])).asnumpy(), X[[[0, 1]]])
    ids = np.zeros((6, 2), np.int32)
    ids[4, 1] = 5
    with pytest.raises(KernelInputError, match=r"= 5 is out of range .*\[-5, 5\)"):
        net(ms.Tensor(ids))
    ids[4, 1] = -1
    np.testing.assert_array_equal(net(ms.Tensor(ids)).asnumpy(), X[ids])


@pytest.mark.parametrize("op,attrs,arrays", [
    ("Gather", {"axis": 0, "bounds": "raise"}, (X, np.array([1, -6], np.int64))),
    ("GatherD", {"dim": 1, "bounds": "raise"}, (X, np.array([[0], [3], [0], [0], [0]], np.int32))),
    ("GatherNd", {"bounds": "raise"}, (X, np.array([[0, 0], [5, 1]], np.int32))),
    ("TensorScatterAdd", {"bounds": "raise"}, (X, np.array([[-1]], np.int32), U)),
])
def test_the_reference_raises_what_the_kernel_reports(op, attrs, arrays, pynative_mode) -> None:
    """The NumPy reference (and constant folding, which runs it) raises the kernel's error word for word."""
    opdef = REGISTRY[op]
    spec = opdef.spec(attrs, [TensorType(a.shape, a.dtype.name) for a in arrays])
    with pytest.raises(KernelInputError) as ref:
        opdef.run_reference(spec, list(arrays))
    from opbuild.ops.primitive import apply

    with pytest.raises(KernelInputError) as kernel:
        apply(op, attrs, [ms.Tensor(a) for a in arrays])
    assert str(ref.value) == str(kernel.value)


def test_composition_form_keeps_zeros_and_reports_nothing(pynative_mode) -> None:
    """bounds="ignore" (opbuild's gradient rules send -1 to read a zero row) never raises."""
    from opbuild.ops.primitive import apply

    got = apply("Gather", {"axis": 0}, [ms.Tensor(X), i32([-1, 2, 5])]).asnumpy()
    np.testing.assert_array_equal(got, np.stack([np.zeros(3), X[2], np.zeros(3)]))
    got = apply("TensorScatterAdd", {}, [ms.Tensor(X), i32([[7], [-1]]), ms.Tensor(np.ones((2, 3), np.float32))])
    np.testing.assert_array_equal(got.asnumpy(), X + np.array([[0], [0], [0], [0], [1]], np.float32))


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
def test_scatter_elements_skips_as_mindspore_and_raises_where_asked(mode) -> None:
    """ops.tensor_scatter_elements skips an update out of range, as MindSpore 2.10's CPU does (recorded by hand:
    the input comes back unchanged); bounds="raise" (ONNX's ScatterElements) raises before any update."""
    from opbuild.ops.primitive import apply

    x, u = ms.Tensor(X), ms.Tensor(np.ones((1, 1), np.float32))
    got = call(mode, lambda a, i, b: ops.tensor_scatter_elements(a, i, b, axis=1), x, i32([[3]]), u)
    np.testing.assert_array_equal(got, X)
    with pytest.raises(KernelInputError, match=r"indices\[0, 0\] = -4 is out of range .*\[-3, 3\)"):
        call(mode, lambda a, i, b: apply("TensorScatterElements", {"axis": 1, "bounds": "raise"}, [a, i, b]),
             x, i32([[-4]]), u)


def test_bounds_must_be_known(pynative_mode) -> None:
    from opbuild.ops.primitive import apply

    with pytest.raises(ValueError, match=r"bounds must be one of \('ignore', 'raise'\), got 'clip'"):
        apply("Gather", {"axis": 0, "bounds": "clip"}, [ms.Tensor(X), i32([0])])


class _ScatterInto(nn.Cell):
    """An in-place scatter on a captured Parameter (MindSpore's Ref input)."""

    def __init__(self, nd: bool):
        super().__init__()
        self.nd = nd
        self.p = ms.Parameter(ms.Tensor(X.copy()), name="p")

    def construct(self, i, u):
        return ops.scatter_nd_add(self.p, i, u) if self.nd else ops.scatter_add(self.p, i, u)


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
@pytest.mark.parametrize("nd", [False, True], ids=["scatter_add", "scatter_nd_add"])
def test_in_place_scatters_raise_for_indices_outside_0_n(mode, nd) -> None:
    """MindSpore 2.10 refuses negative indices here too (recorded in index_bounds.json). The kernel checks every
    index before it updates anything: the refused call leaves the Parameter as it was (its valid first row is
    not applied), and the same call with valid rows afterwards updates it exactly."""
    net = _ScatterInto(nd)
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        idx = [[1], [-1]] if nd else [1, -1]
        with pytest.raises(KernelInputError, match=r"indices\[1, 0\] = -1 is out of range .*\[0, 5\)"):
            net(i32(idx), ms.Tensor(np.ones((2, 3), np.float32)))
        np.testing.assert_array_equal(net.p.asnumpy(), X)
        idx = [[1], [4]] if nd else [1, 4]
        got = net(i32(idx), ms.Tensor(np.ones((2, 3), np.float32))).asnumpy()
    finally:
        ms.set_context(mode=old)
    want = X.copy()
    want[[1, 4]] += 1
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(net.p.asnumpy(), want)


class _EmbedHead(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 3)
        self.head = nn.Dense(3, 2)

    def construct(self, ids):
        return self.head(self.emb(ids)).mean(1)


def test_a_refused_train_step_updates_no_parameter(graph_mode) -> None:
    """The graph stops at the kernel that reported: the backward and the optimizer's in-place updates after it
    do not run, so a step fed an id out of range leaves every Parameter as it was (MindSpore raises at the
    Gather too); the next valid step trains."""
    net = _EmbedHead()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True)),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    labels = ms.Tensor(np.array([0, 1], np.int32))
    step(i32([[0, 1], [2, 3]]), labels)
    before = {p.name: p.asnumpy().copy() for p in step.get_parameters()}
    with pytest.raises(KernelInputError, match=r"input_indices\[1, 1\] = 5 is out of range"):
        step(i32([[0, 1], [2, 5]]), labels)
    for p in step.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), before[p.name], err_msg=p.name)
    step(i32([[0, 1], [2, 3]]), labels)
    assert any(not np.array_equal(p.asnumpy(), before[p.name]) for p in step.get_parameters())


# x[i, j] with several index tensors: each is checked by a Gather of 0..n-1 (ops/api/indexing.py), whose report
# names the subscript's index tensor and the dim it indexes, not that internal Gather.
SEVERAL = [
    (lambda x, i, j: x[i, j], (X, [0, 5], [1, 2]), 0, 5, "[1]", 5),
    (lambda x, i, j: x[i, j], (X, [0, 1], [1, -4]), 1, -4, "[1]", 3),
    (lambda x, i, j: x[i, j], (X, [[0, 1], [2, 3]], [[0, 3], [1, 2]]), 1, 3, "[0, 1]", 3),
    (lambda x, i, j: x[..., i, j], (X, [4], [7]), 2, 7, "[0]", 3),  # the Ellipsis is position 0
]


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
@pytest.mark.parametrize("case", SEVERAL, ids=[f"{c[2]}-{c[3]}" for c in SEVERAL])
def test_several_index_tensors_name_the_bad_one(mode, case) -> None:
    fn, args, at, value, where, n = case
    with pytest.raises(KernelInputError) as info:
        call(mode, fn, *_tensors(args))
    err = info.value
    assert isinstance(err, RuntimeError) and isinstance(err, IndexError) and err.op == "Tensor.__getitem__"
    assert str(err).startswith(f"For 'Tensor.__getitem__', the index tensor at position {at} of the subscript holds "
                               f"{value} at {where}, out of range for the dim of size {n} it indexes: its entries "
                               f"must lie in [{-n}, {n})"), str(err)
    assert "ops.clamp" in str(err) and "Gather" not in str(err) and err.value == value


@pytest.mark.parametrize("mode", MODES, ids=["pynative", "graph"])
def test_several_index_tensors_in_range_count_negatives_from_the_end(mode) -> None:
    got = call(mode, lambda x, i, j: x[i, j], *_tensors((X, [-5, 4, 2], [-1, 0, -3])))
    np.testing.assert_array_equal(got, X[[-5, 4, 2], [-1, 0, -3]])


def test_the_reference_words_the_subscript_error_as_the_kernel(pynative_mode) -> None:
    """Constant folding runs the reference: the same error, the same words."""
    gather = get("Gather")
    attrs = gather.normalize({"axis": 0, "bounds": "raise", "subscript": 1},
                             [TensorType((4,), "int64"), TensorType((2,), "int32")])
    with pytest.raises(KernelInputError, match=r"index tensor at position 1 of the subscript holds 9 at \[1\]"):
        gather.reference(attrs, np.arange(4), np.array([0, 9], np.int32))


def test_a_float_index_tensor_says_how_to_fix_it(pynative_mode) -> None:
    with pytest.raises(IndexError, match=r"got Float32: cast the index tensor"):
        ms.Tensor(X)[ms.Tensor(np.array([0.0, 1.0], np.float32)), i32([0, 1])]
