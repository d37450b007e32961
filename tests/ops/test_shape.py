"""Shape and data-movement ops: every op against an independent NumPy expression (np.transpose,
np.concatenate, Python indexing, ...) in PYNATIVE_MODE, in GRAPH_MODE (inside an nn.Cell, through the trace)
and through the reference interpreter (the ops' own NumPy references); plus error and layout tests.

Data movement is bit-exact, so results are compared exactly (no tolerance) for every dtype, including the
output shape and dtype. Shapes come from small pools so that a run compiles few distinct kernels.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opbuild as ms
from opbuild import ops
from opbuild.core.errors import ShapeError
from opbuild.core.ir import TensorType
from opbuild.core.tensor import Tensor
from opbuild.core.trace import trace
from opbuild.ops.primitive import apply
from opbuild.ops.registry import REGISTRY
from opbuild.runtime.reference import run_reference
from opbuild.targets.cpu.kernels import emit
from tests.helpers import FnCell

pytestmark = pytest.mark.slow

DTYPES = ["float32", "float64", "int32", "int64", "bool"]
SHAPES = [(), (5,), (2, 3), (3, 1, 4), (2, 3, 1, 2), (0, 3)]
RANKED = [s for s in SHAPES if s]  # rank >= 1
NONEMPTY = [s for s in RANKED if 0 not in s]
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def make_array(shape, dtype: str, seed: int) -> np.ndarray:
    """Distinct-ish values of ``dtype`` so that a misplaced element is noticed."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("int32", "int64"):
        return rng.integers(-1000, 1000, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _leaves(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _assert_same(got, want: np.ndarray, what: str) -> None:
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    np.testing.assert_array_equal(got, want, err_msg=what)


def check(fn, arrays: list[np.ndarray], expected) -> None:
    """``fn(*tensors)`` in PYNATIVE and GRAPH mode and the traced graph under the NumPy references must all
    equal ``expected`` (an array or a tuple of arrays) exactly. Also checks that every node's attributes are
    canonical (normalize is idempotent: the build re-derives specs from them)."""
    want = [np.asarray(e) for e in _leaves(expected)]
    tensors = [ms.Tensor(a) for a in arrays]
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = fn(*tensors)
        ms.set_context(mode=ms.GRAPH_MODE)
        graph = FnCell(fn)(*tensors)
    finally:
        ms.set_context(mode=old)
    g, _ = trace(fn, tensors)
    for node in g.nodes:
        assert REGISTRY[node.op].spec(node.attrs, [v.type for v in node.inputs]).attrs == node.attrs
    for name, out in (("pynative", eager), ("graph", graph), ("reference", run_reference(g, arrays))):
        got = _leaves(out)
        if name != "reference":  # the interpreter returns a flat list of graph outputs
            assert isinstance(out, tuple) == isinstance(expected, tuple), f"{name}: tuple-ness differs"
        assert len(got) == len(want), f"{name}: {len(got)} outputs, expected {len(want)}"
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            _assert_same(a, b, f"{name} output {i}")


shapes = st.sampled_from(SHAPES)
dtypes = st.sampled_from(DTYPES)
seeds = st.integers(0, 2**16)


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0] or [1]


# ---- hypothesis comparisons against independent NumPy ------------------------------------------------


@SETTINGS
@given(shape=shapes, dtype=dtypes, seed=seeds, data=st.data())
def test_reshape(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    n = x.size
    targets = [(n,), (-1,), tuple(reversed(shape)), (1, *shape), (*shape, 1)]
    targets += [(d, -1) for d in _divisors(n)] + [(-1, d) for d in _divisors(n)]
    target = data.draw(st.sampled_from(targets))
    check(lambda t: ops.Reshape()(t, target), [x], np.reshape(x, target))


@SETTINGS
@given(shape=shapes, dtype=dtypes, seed=seeds, data=st.data())
def test_transpose(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    perm = data.draw(st.permutations(range(x.ndim)))
    neg = data.draw(st.lists(st.booleans(), min_size=x.ndim, max_size=x.ndim))
    call_perm = tuple(p - x.ndim if b else p for p, b in zip(perm, neg, strict=True))
    check(lambda t: ops.Transpose()(t, call_perm), [x], np.transpose(x, perm))


@pytest.mark.parametrize("shape,perm,dtype", [
    ((70, 45), (1, 0), "float64"), ((3, 40, 5, 33), (0, 3, 2, 1), "float32"),
    ((33, 2, 64), (2, 1, 0), "int32"), ((40, 34), (1, 0), "bool")])
def test_transpose_tiled(shape, perm, dtype):
    """Large enough for the cache-blocked transpose path, with partial tiles at the edges."""
    x = make_array(shape, dtype, 1)
    k = REGISTRY["Transpose"].spec({"perm": perm}, [TensorType(shape, dtype)])
    assert "+= 32" in emit(k)
    check(lambda t: ops.Transpose()(t, perm), [x], np.transpose(x, perm))


@SETTINGS
@given(shape=shapes, dtype=dtypes, seed=seeds, data=st.data())
def test_expand_dims(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim))
    check(lambda t: ops.ExpandDims()(t, axis), [x], np.expand_dims(x, axis))


@SETTINGS
@given(shape=st.sampled_from([(1,), (3, 1, 4), (2, 3, 1, 2), (1, 2, 1, 1), (2, 3)]), dtype=dtypes, seed=seeds,
       data=st.data())
def test_squeeze(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    ones = [d for d, n in enumerate(shape) if n == 1]
    axes = data.draw(st.lists(st.sampled_from(ones), unique=True) if ones else st.just([]))
    axes = [a - x.ndim if data.draw(st.booleans()) else a for a in axes]
    if len(axes) == 1 and data.draw(st.booleans()):
        arg, want = axes[0], np.squeeze(x, axes[0])  # a plain int
    else:
        arg, want = tuple(axes), np.squeeze(x, tuple(axes) if axes else None)
    check(lambda t: ops.Squeeze(arg)(t), [x], want)


@SETTINGS
@given(shape=st.sampled_from(RANKED), dtype=dtypes, seed=seeds)
def test_flatten(shape, dtype, seed):
    x = make_array(shape, dtype, seed)
    check(lambda t: ops.Flatten()(t), [x], x.reshape(shape[0], int(np.prod(shape[1:], dtype=np.int64))))


@SETTINGS
@given(shape=st.sampled_from(RANKED), dtype=dtypes, seed=seeds, data=st.data())
def test_concat(shape, dtype, seed, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    xs = []
    for i, n in enumerate(sizes):
        s = list(shape)
        s[axis] = n
        xs.append(make_array(tuple(s), dtype, seed + i))
    check(lambda *ts: ops.Concat(axis)(ts), xs, np.concatenate(xs, axis=axis))


@SETTINGS
@given(shape=st.sampled_from([(6,), (2, 3), (4, 1, 6), (2, 6, 1, 2), (0, 4)]), dtype=dtypes, seed=seeds,
       data=st.data())
def test_split(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    num = data.draw(st.sampled_from(_divisors(shape[axis])))
    check(lambda t: ops.Split(axis, num)(t), [x], tuple(np.split(x, num, axis=axis)))


@SETTINGS
@given(shape=shapes, dtype=dtypes, seed=seeds, data=st.data())
def test_slice(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    begin = [data.draw(st.integers(0, n)) for n in shape]
    size = [data.draw(st.sampled_from([-1, *range(0, n - b + 1)])) for b, n in zip(begin, shape, strict=True)]
    want = x[tuple(slice(b, n if s == -1 else b + s) for b, s, n in zip(begin, size, shape, strict=True))]
    check(lambda t: ops.Slice()(t, tuple(begin), tuple(size)), [x], want)


@st.composite
def strided_specs(draw, shape):
    """A random TF-style strided-slice spec for ``shape`` and the equivalent Python index tuple (built
    independently of the op: NumPy basic indexing is the oracle)."""
    rank = len(shape)
    n = draw(st.integers(0, rank + 2))
    kinds = []
    used = 0
    for _ in range(n):
        options = ["slice", "newaxis"] + (["int"] if used < rank else [])
        if "ellipsis" not in kinds:
            options.append("ellipsis")
        kind = draw(st.sampled_from(options))
        if kind in ("slice", "int"):
            if used == rank:
                kind = "newaxis"
            else:
                used += 1
        kinds.append(kind)
    begin, end, strides, index = [], [], [], []
    masks = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0}
    # which input dim each consuming entry lands on (entries after an ellipsis count from the end)
    after = 0
    dims = []
    for i, kind in enumerate(kinds):
        if kind == "ellipsis":
            after = sum(1 for k in kinds[i + 1:] if k in ("slice", "int"))
        dims.append(None)
    pos_front, pos_back = 0, rank - after
    seen_ellipsis = False
    for i, kind in enumerate(kinds):
        if kind == "ellipsis":
            seen_ellipsis = True
        elif kind in ("slice", "int"):
            if seen_ellipsis:
                dims[i] = pos_back
                pos_back += 1
            else:
                dims[i] = pos_front
                pos_front += 1
    for i, kind in enumerate(kinds):
        b = e = 0
        s = 1
        if kind == "ellipsis":
            masks["ellipsis_mask"] |= 1 << i
            index.append(Ellipsis)
            # junk values: ignored by the op
            b, e, s = draw(st.integers(-3, 3)), draw(st.integers(-3, 3)), draw(st.sampled_from([1, -1, 2]))
        elif kind == "newaxis":
            masks["new_axis_mask"] |= 1 << i
            index.append(None)
        elif kind == "int":
            dim = shape[dims[i]]
            if dim == 0:  # nothing to index: make it a full slice instead
                masks["begin_mask"] |= 1 << i
                masks["end_mask"] |= 1 << i
                index.append(slice(None))
            else:
                masks["shrink_axis_mask"] |= 1 << i
                b = draw(st.integers(-dim, dim - 1))
                e = draw(st.integers(-3, 3))  # ignored for a shrunk axis
                index.append(b)
        else:
            dim = shape[dims[i]]
            s = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
            b, e = draw(st.integers(-dim - 2, dim + 2)), draw(st.integers(-dim - 2, dim + 2))
            bm, em = draw(st.booleans()), draw(st.booleans())
            masks["begin_mask"] |= bm << i
            masks["end_mask"] |= em << i
            index.append(slice(None if bm else b, None if em else e, s))
        begin.append(b)
        end.append(e)
        strides.append(s)
    return masks, tuple(begin), tuple(end), tuple(strides), tuple(index)


@SETTINGS
@given(shape=shapes, dtype=dtypes, seed=seeds, data=st.data())
def test_strided_slice(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    masks, begin, end, strides, index = data.draw(strided_specs(shape))
    want = np.array(x[index])
    check(lambda t: ops.StridedSlice(**masks)(t, begin, end, strides), [x], want)


@pytest.mark.parametrize("spec,index", [
    (({}, (1, 0), (3, 4), (1, 1)), np.s_[1:3, 0:4]),
    (({"begin_mask": 1, "end_mask": 2}, (9, -9), (3, 9), (1, 1)), np.s_[:3, -9:]),
    (({}, (-1,), (-5,), (-1,)), np.s_[-1:-5:-1]),
    (({"begin_mask": 1, "end_mask": 1}, (0,), (0,), (-2,)), np.s_[::-2]),
    (({"shrink_axis_mask": 1}, (-1,), (0,), (1,)), np.s_[-1]),
    (({"shrink_axis_mask": 2}, (0, -2), (0, 0), (1, 1)), np.s_[0:0, -2]),
    (({"ellipsis_mask": 1, "new_axis_mask": 2, "shrink_axis_mask": 4}, (0, 0, 2), (0, 0, 0), (1, 1, 1)),
     np.s_[..., None, 2]),
    (({"new_axis_mask": 1, "ellipsis_mask": 1}, (0, 1), (0, 3), (1, 1)), np.s_[..., 1:3]),
])
def test_strided_slice_cases(spec, index):
    """Hand-picked TF/MindSpore cases: clamped out-of-range bounds, negative strides, shrink, ellipsis plus
    new axis (ellipsis wins when both bits are set)."""
    masks, begin, end, strides = spec
    x = make_array((4, 5, 3), "float32", 3)
    check(lambda t: ops.StridedSlice(**masks)(t, begin, end, strides), [x], np.array(x[index]))


def test_strided_slice_equal_slices_share_a_kernel():
    """Different spellings of one slice normalise to the same attributes, hence the same kernel."""
    ss = REGISTRY["StridedSlice"]
    x = [TensorType((4, 6), "float32")]
    spellings = [
        {"begin": (1, 0), "end": (3, 6), "strides": (1, 1)},
        {"begin": (1, 0), "end": (-1, 100), "strides": (1, 1)},
        {"begin": (-3, 7), "end": (3, 0), "strides": (1, 1), "end_mask": 2, "begin_mask": 2},
        {"begin": (1,), "end": (3,), "strides": (1,)},
        {"begin": (1, 0), "end": (3, 0), "strides": (1, 1), "ellipsis_mask": 2},
    ]
    attrs = [ss.spec(s, x).attrs for s in spellings]
    assert all(a == attrs[0] for a in attrs), attrs
    assert ss.spec({"begin": (0,), "end": (3,), "strides": (1,)}, x).attrs != attrs[0]
    # A one-element range drops its step; empty slices share one canonical form.
    assert ss.spec({"begin": (2,), "end": (3,), "strides": (5,)}, x).attrs == ss.spec(
        {"begin": (2,), "end": (3,), "strides": (1,)}, x).attrs
    assert ss.spec({"begin": (3,), "end": (1,), "strides": (1,)}, x).attrs == ss.spec(
        {"begin": (0,), "end": (0,), "strides": (1,)}, x).attrs


@SETTINGS
@given(shape=st.sampled_from(RANKED), dtype=dtypes, idx_dtype=st.sampled_from(["int32", "int64"]), seed=seeds,
       idx_shape=st.sampled_from([(), (3,), (2, 2)]), data=st.data())
def test_gather(shape, dtype, idx_dtype, seed, idx_shape, data):
    x = make_array(shape, dtype, seed)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = shape[axis]
    if n == 0:
        # Every index is out of range: the composition form (bounds="ignore") gives zeros; ops.Gather() raises
        # (tests/ops/test_index_bounds.py).
        idx = np.full(idx_shape, 0, idx_dtype)
        want = np.zeros(shape[:axis % x.ndim] + idx_shape + shape[axis % x.ndim + 1:], dtype)
        check(lambda p, i: apply("Gather", {"axis": axis}, [p, i]), [x, idx], want)
        return
    idx = np.random.default_rng(seed).integers(0, n, size=idx_shape).astype(idx_dtype)
    check(lambda p, i: ops.Gather()(p, i, axis), [x, idx], np.take(x, idx, axis=axis))


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("idx_dtype", ["int32", "int64"])
def test_gather_counts_negatives_from_the_end_and_composition_form_writes_zeros(axis, idx_dtype):
    """MindSpore 2.10's CPU reads an index in [-n, 0) from the end (recorded: ops.gather(x, [-1, -3], 1) gives
    columns 3 and 1): ops.Gather() does. The composition form (bounds="ignore", what opbuild's own gradient
    rules send -1 to) takes [0, n) and gives zeros for the rest, never a clamp; outside [-n, n) ops.Gather()
    raises (tests/ops/test_index_bounds.py)."""
    x = make_array((3, 4, 2), "float64", 5) + 10.0  # no zeros among the valid values
    n = x.shape[axis]
    idx = np.array([0, n - 1, -1, -n, 1], idx_dtype)
    check(lambda p, i: ops.Gather()(p, i, axis), [x, idx], np.take(x, idx, axis=axis))
    idx = np.array([0, n - 1, n, -1, -n, -n - 1, n + 7, 1], idx_dtype)
    valid = (idx >= 0) & (idx < n)
    shape = [1, 1, 1]
    shape[axis] = len(idx)
    want = np.where(valid.reshape(shape), np.take(x, np.where(valid, idx, 0), axis=axis), 0.0)
    check(lambda p, i: apply("Gather", {"axis": axis}, [p, i]), [x, idx], want)
    assert (np.take(want, np.flatnonzero(~valid), axis=axis) == 0).all()


@SETTINGS
@given(shape=st.sampled_from(NONEMPTY), dtype=dtypes, idx_dtype=st.sampled_from(["int32", "int64"]),
       seed=seeds, data=st.data())
def test_gatherd(shape, dtype, idx_dtype, seed, data):
    x = make_array(shape, dtype, seed)
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = shape[dim]
    ishape = list(shape)
    ishape[dim] = data.draw(st.integers(1, 4))
    # negative indices count from the end, as in np.take_along_axis
    idx = np.random.default_rng(seed).integers(-n, n, size=ishape).astype(idx_dtype)
    check(lambda t, i: ops.GatherD()(t, dim, i), [x, idx], np.take_along_axis(x, idx, axis=dim))


def test_gatherd_composition_form_writes_zeros_out_of_range():
    """bounds="ignore" (opbuild's compositions): [-n, n) read, the rest zeros; ops.GatherD() raises for those
    (tests/ops/test_index_bounds.py)."""
    x = make_array((2, 3), "int32", 2) * 0 + 7
    idx = np.array([[0, 3, -4], [-3, 2, 9]], np.int64)
    want = np.array([[7, 0, 0], [7, 7, 0]], np.int32)
    check(lambda t, i: apply("GatherD", {"dim": 1}, [t, i]), [x, idx], want)


@SETTINGS
@given(shape=shapes, dtype=dtypes, seed=seeds, data=st.data())
def test_tile(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    mult = tuple(data.draw(st.lists(st.sampled_from([1, 2, 3, 1, 0]), min_size=0, max_size=len(shape) + 1)))
    check(lambda t: ops.Tile()(t, mult), [x], np.tile(x, mult))


@SETTINGS
@given(shape=shapes, dtype=dtypes, seed=seeds, data=st.data())
def test_broadcast_to(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    lead = data.draw(st.lists(st.integers(0, 3), max_size=2))
    dims, resolved = [], []
    for n in shape:
        t = data.draw(st.sampled_from([-1, n] + ([0, 2, 3] if n == 1 else [])))
        dims.append(t)
        resolved.append(n if t == -1 else t)
    target, want_shape = tuple(lead + dims), tuple(lead + resolved)
    check(lambda t: ops.BroadcastTo(target)(t), [x], np.broadcast_to(x, want_shape).copy())


@SETTINGS
@given(shape=shapes, dtype=dtypes, seed=seeds, data=st.data())
def test_pad(shape, dtype, seed, data):
    x = make_array(shape, dtype, seed)
    pads = tuple(tuple(data.draw(st.lists(st.integers(0, 2), min_size=2, max_size=2))) for _ in shape)
    check(lambda t: ops.Pad(pads)(t), [x], np.pad(x, pads) if pads else x)  # np.pad rejects a 0-d input


@SETTINGS
@given(shape=shapes, dtype=dtypes, seed=seeds)
def test_ones_and_zeros_like(shape, dtype, seed):
    x = make_array(shape, dtype, seed)
    check(lambda t: (ops.OnesLike()(t), ops.ZerosLike()(t)), [x], (np.ones_like(x), np.zeros_like(x)))


@SETTINGS
@given(shape=shapes, dtype=dtypes, value=st.sampled_from([0, 1, -3, 2.5, True, -0.75]))
def test_fill(shape, dtype, value):
    """Fill has no tensor inputs: a zero-input kernel in PyNative and a zero-input graph node."""
    want = np.full(shape, np.asarray(value).astype(dtype), dtype=dtype)  # NumPy's conversion of the value
    check(lambda: ops.Fill()(getattr(ms, dtype if dtype != "bool" else "bool_"), shape, value), [], want)


def test_fill_in_a_network_with_inputs():
    """A zero-input node alongside ordinary ones (its output feeds an elementwise op and a Concat)."""
    x = make_array((2, 3), "float32", 4)

    def fn(t):
        f = ops.Fill()(ms.float32, (2, 3), 0.5)
        return ops.Concat(0)((t + f, f))

    check(fn, [x], np.concatenate([x + np.float32(0.5), np.full((2, 3), 0.5, np.float32)]))


def test_no_getitem_needed(monkeypatch):
    """Slicing ops work without Tensor.__getitem__ (graph code never needs Python subscripts)."""

    def forbidden(self, key):
        raise AssertionError("Tensor.__getitem__ must not be used")

    monkeypatch.setattr(Tensor, "__getitem__", forbidden, raising=False)
    x = make_array((4, 6), "int64", 9)
    check(lambda t: ops.StridedSlice(shrink_axis_mask=1)(t, (2, -1), (3, 0), (1, -2)), [x], x[2, -1:0:-2])
    check(lambda t: ops.Slice()(t, (1, 2), (2, -1)), [x], x[1:3, 2:])
    check(lambda t: ops.Split(1, 2)(t), [x], (x[:, :3], x[:, 3:]))
    check(lambda t: ops.Gather()(t, Tensor(np.array([3, 0], np.int32)), 0), [x], x[[3, 0]])


@pytest.mark.parametrize("op,attrs,shapes", [
    ("Concat", {"axis": 1}, [(2, 3, 4), (2, 5, 4)]),
    ("Split", {"axis": 2, "output_num": 2}, [(2, 3, 4)]),
    ("Slice", {"begin": (0, 1, 0), "size": (2, 2, 4)}, [(2, 3, 4)]),
    ("Tile", {"multiples": (2, 1, 3)}, [(2, 3, 4)]),
    ("Pad", {"paddings": ((1, 1), (0, 2), (1, 0))}, [(2, 3, 4)]),
    ("Reshape", {"shape": (4, 6)}, [(2, 3, 4)]),
    ("BroadcastTo", {"shape": (3, 2, 4)}, [(1, 2, 4)]),
])
def test_data_movement_uses_memcpy(op, attrs, shapes):
    """Contiguous inner runs are copied with memcpy, not element by element."""
    opdef = REGISTRY[op]
    k = opdef.spec(attrs, [TensorType(s, "float32") for s in shapes])
    assert "memcpy" in emit(k)


# ---- errors -------------------------------------------------------------------------------------------


X234 = "float32[2, 3, 4]"


@pytest.mark.parametrize("call,message", [
    (lambda x: ops.Reshape()(x, (5, 5)), "cannot reshape 24 elements"),
    (lambda x: ops.Reshape()(x, (-1, -1)), "one -1"),
    (lambda x: ops.Reshape()(x, (5, -1)), "cannot infer the -1"),
    (lambda x: ops.Transpose()(x, (1, 1, 0)), "not a permutation"),
    (lambda x: ops.Transpose()(x, (0, 1)), "not a permutation"),
    (lambda x: ops.Transpose()(x, (0, 1, 3)), "not a permutation"),
    (lambda x: ops.ExpandDims()(x, 4), "out of range"),
    (lambda x: ops.ExpandDims()(x, -5), "out of range"),
    (lambda x: ops.Squeeze(3)(x), "out of range"),
    (lambda x: ops.Concat(1)((x, ops.Reshape()(x, (2, 4, 3)))), "must match except along axis 1"),
    (lambda x: ops.Concat(3)((x, x)), "out of range"),
    (lambda x: ops.Concat(0)((x, ops.Reshape()(x, (6, 4)))), "same rank"),
    (lambda x: ops.Concat(0)((x, ms.Tensor(np.zeros((2, 3, 4), np.int32)))), "same dtype"),
    (lambda x: ops.Concat(0)(x), "tuple or list"),
    (lambda x: ops.Split(1, 2)(x), "cannot be split evenly"),
    (lambda x: ops.Slice()(x, (0, 2, 0), (2, 2, 4)), "out of bounds on axis 1"),
    (lambda x: ops.Slice()(x, (0, 0), (2, 2)), "one entry per axis"),
    (lambda x: ops.StridedSlice()(x, (0,), (1,), (0,)), "zero stride"),
    (lambda x: ops.StridedSlice(shrink_axis_mask=1)(x, (2,), (3,), (1,)), "out of bounds for axis 0"),
    (lambda x: ops.StridedSlice(shrink_axis_mask=1)(x, (1,), (0,), (-1,)), "positive stride"),
    (lambda x: ops.StridedSlice(ellipsis_mask=3)(x, (0, 0), (1, 1), (1, 1)), "more than one bit"),
    (lambda x: ops.StridedSlice()(x, (0,) * 4, (1,) * 4, (1,) * 4), "more than the input's 3 axes"),
    (lambda x: ops.StridedSlice()(x, (0, 0), (1,), (1, 1)), "same length"),
    (lambda x: ops.Gather()(x, x, 0), "must be int32 or int64"),
    (lambda x: ops.Gather()(x, ms.Tensor(np.array([0], np.int32)), 3), "out of range"),
    (lambda x: ops.GatherD()(x, 1, ms.Tensor(np.zeros((2, 3, 3), np.int64))), "shape except along dim 1"),
    (lambda x: ops.Tile()(x, (2, -1)), "non-negative"),
    (lambda x: ops.BroadcastTo((2, 5, 4))(x), "cannot broadcast"),
    (lambda x: ops.BroadcastTo((3, 4))(x), "fewer dims"),
    (lambda x: ops.Pad(((1, 1), (1, 1)))(x), "one (before, after) pair"),
    (lambda x: ops.Pad(((1, 1), (1, -1), (0, 0)))(x), "non-negative"),
    (lambda x: ops.Reshape()(x, (24.0,)), "tuple of ints"),
])
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_errors_name_op_and_shapes(call, message, mode):
    """Bad input raises ShapeError at call/trace time, naming the op, the problem and the input shapes."""
    x = ms.Tensor(make_array((2, 3, 4), "float32", 0))
    with pytest.raises(ShapeError) as info:
        if mode == "pynative":
            call(x)
        else:
            trace(call, [x])
    text = str(info.value)
    assert message in text
    assert text.startswith(f"{info.value.op}:") and info.value.op in REGISTRY
    assert X234 in text


def test_error_names_the_right_op():
    x = ms.Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ShapeError, match=r"^Transpose: .*float32\[2, 3\]"):
        ops.Transpose()(x, (0, 0))
    shapes = r"\(input\[0\]: float32\[2, 3\], input\[1\]: float32\[3, 3\]\)$"
    with pytest.raises(ShapeError, match=r"^Concat: .*" + shapes):
        ops.Concat(1)((x, ms.Tensor(np.zeros((3, 3), np.float32))))


@pytest.mark.parametrize("call,message", [
    (lambda: ops.Fill()(ms.float32, (2,), 1j), r"Python scalar \(bool, int or float\), got 1j"),
    (lambda: ops.Fill()(ms.float32, (2, -1), 1), "negative dim"),
    (lambda: ops.Fill()(ms.int32, (2,), 2**40), "does not fit in int32"),
    (lambda: ops.Fill()(ms.float32, (2,), "a"), "Python scalar"),
])
def test_fill_errors(call, message):
    with pytest.raises(ShapeError, match=f"^Fill: .*{message}"):
        call()


def test_traced_tensor_as_static_argument_is_rejected():
    """A shape argument must be known when the graph is traced, not a value computed by the graph."""
    x = ms.Tensor(np.zeros((2, 3), np.float32))
    s = ms.Tensor(np.array([3, 2], np.int64))
    with pytest.raises(ShapeError, match="known when the graph is traced"):
        trace(lambda t, shp: ops.Reshape()(t, shp), [x, s])
    # A concrete Tensor is fine in PyNative mode (its values are known).
    np.testing.assert_array_equal(ops.Reshape()(x, s).asnumpy(), np.zeros((3, 2), np.float32))
