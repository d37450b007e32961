"""Operator fusion (passes/fusion.py, ops/fused.py): which nodes fuse, randomised elementwise graphs fused
against unfused (OPBUILD_FUSION=0) against NumPy, and the cache: one entry per fused kernel listing its
members, the same names in every process, and a one-layer change rebuilding only that layer's fused kernel."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opbuild as ms
import opbuild.ops as ops
from opbuild.core import trace
from opbuild.core.errors import ConfigError, ShapeError
from opbuild.core.tensor import Tensor
from opbuild.passes import DEFAULT_PIPELINE, Fusion
from opbuild.runtime.reference import run_reference
from opbuild.runtime.session import session
from opbuild.targets.cpu.kernels import emit

from ..conftest import run_python

WORKER = str(Path(__file__).with_name("_fusion_worker.py"))


@contextlib.contextmanager
def fusion(on: bool):
    """OPBUILD_FUSION set for the block (hypothesis tests cannot take the monkeypatch fixture)."""
    old = os.environ.get("OPBUILD_FUSION")
    os.environ["OPBUILD_FUSION"] = "1" if on else "0"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("OPBUILD_FUSION", None)
        else:
            os.environ["OPBUILD_FUSION"] = old


def _trace(fn, *arrays):
    graph, _ = trace.trace(fn, [Tensor(a) for a in arrays])
    return graph


def _ops(graph):
    return [n.op for n in graph.nodes]


# ---- which nodes fuse ---------------------------------------------------------------------------------------

def test_chain_fuses_into_one_node_listing_its_members():
    x, b = np.ones((2, 3), np.float32), np.ones(3, np.float32)
    graph = Fusion().run(_trace(lambda x, b: ops.ReLU()(ops.Exp()(x) * b - 1.0), x, b))
    assert _ops(graph) == ["FusedElementwise"]
    node = graph.nodes[0]
    assert [m["op"] for m in node.attrs["members"]] == ["Exp", "Mul", "Sub", "ReLU"]
    assert [m["args"] for m in node.attrs["members"]] == [["i0"], ["t0", "i1"], ["t1", "i2"], ["t2"]]
    assert node.outputs[0] is graph.outputs[0] and node.outputs[0].producer is node


def test_intermediate_read_elsewhere_or_returned_is_not_absorbed():
    """An intermediate another (non-fusible) node reads, or a graph output, keeps its own node: fusing it
    would compute it twice or lose the buffer the other reader needs."""
    x = np.ones((4, 4), np.float32)

    def fn(x):
        e = ops.Exp()(x)
        return ops.ReLU()(ops.Neg()(e)), ops.MatMul()(e, x)

    graph = Fusion().run(_trace(fn, x))
    assert _ops(graph) == ["Exp", "FusedElementwise", "MatMul"]

    graph = Fusion().run(_trace(lambda x: (ops.Exp()(x), ops.Neg()(ops.Exp()(x))), x))
    assert _ops(graph) == ["Exp", "FusedElementwise"]


def test_smaller_intermediate_is_not_recomputed_per_output_element():
    """exp(b) of shape (3,) feeding an add of shape (100, 3) stays its own kernel (fused, it would run 100x)."""
    x, b = np.ones((100, 3), np.float32), np.ones(3, np.float32)
    graph = Fusion().run(_trace(lambda x, b: ops.Neg()(x + ops.Exp()(b)), x, b))
    assert _ops(graph) == ["Exp", "FusedElementwise"]
    assert [m["op"] for m in graph.nodes[1].attrs["members"]] == ["Add", "Neg"]


def test_groups_stop_at_non_elementwise_nodes_and_diamonds_fuse():
    """x * sigmoid(x) (x read twice inside the group) fuses; a MatMul splits two groups."""
    x, w = np.ones((2, 2), np.float32), np.ones((2, 2), np.float32)

    def fn(x, w):
        h = ops.Add()(x, 1.0)
        h = h * ops.Sigmoid()(h)
        return ops.Tanh()(ops.MatMul()(h, w)) * 2.0

    graph = Fusion().run(_trace(fn, x, w))
    assert _ops(graph) == ["FusedElementwise", "MatMul", "FusedElementwise"]
    assert [m["op"] for m in graph.nodes[0].attrs["members"]] == ["Add", "Sigmoid", "Mul"]


def test_max_members_splits_long_chains():
    x = np.ones(8, np.float32)

    def fn(x):
        for _ in range(5):
            x = ops.Neg()(x)
        return x

    graph = Fusion(max_members=2).run(_trace(fn, x))
    assert _ops(graph) == ["Neg", "FusedElementwise", "FusedElementwise"]
    assert [len(n.attrs["members"]) for n in graph.nodes[1:]] == [2, 2]


def test_switch_off_and_identity(monkeypatch):
    x = np.ones(3, np.float32)
    monkeypatch.setenv("OPBUILD_FUSION", "0")
    off = DEFAULT_PIPELINE.identity
    assert _ops(DEFAULT_PIPELINE.run(_trace(lambda x: ops.Neg()(ops.Exp()(x)), x))) == ["Exp", "Neg"]
    monkeypatch.setenv("OPBUILD_FUSION", "1")
    assert DEFAULT_PIPELINE.identity != off and "fuse@" in DEFAULT_PIPELINE.identity
    monkeypatch.setenv("OPBUILD_FUSION", "maybe")
    with pytest.raises(ConfigError, match="OPBUILD_FUSION"):
        DEFAULT_PIPELINE.identity  # noqa: B018  (the property validates the setting)


def test_malformed_recipe_is_a_shape_error():
    f32 = ms.Tensor(np.ones(3, np.float32))
    with pytest.raises(ShapeError, match="FusedElementwise"):
        ops.apply("FusedElementwise", {"members": [{"op": "MatMul", "attrs": {}, "args": ["i0", "i0"]}]}, [f32])
    with pytest.raises(ShapeError, match="FusedElementwise"):
        ops.apply("FusedElementwise", {"members": [{"op": "Neg", "attrs": {}, "args": ["t0"]}]}, [f32])


# ---- randomised graphs: fused == unfused == NumPy -----------------------------------------------------------

FLOAT_UNARY = ["Neg", "Abs", "Sigmoid", "Tanh", "Sin", "ReLU", "Square"]
INT_UNARY = ["Neg", "Abs", "ReLU", "Square"]
BINARY = ["Add", "Sub", "Mul", "Maximum", "Minimum"]


@st.composite
def programs(draw):
    """(dtype, input shapes, steps, extra output): a random elementwise program over broadcasting inputs.

    Comparisons (Select's condition, Cast to bool) read graph inputs only: on computed floats, a fused kernel
    may round differently (gcc contracts a * b + c into one FMA across what were separate kernels), and a
    comparison would turn that last-bit difference into a different branch. Casts to int read exact values."""
    dtype = draw(st.sampled_from(["float32", "float64", "int32"]))
    out_shape = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
    shapes = []
    for _ in range(draw(st.integers(1, 3))):
        keep = draw(st.integers(0, len(out_shape)))
        shapes.append(tuple(d if draw(st.booleans()) else 1 for d in out_shape[len(out_shape) - keep:]))
    steps = [draw(st.tuples(st.sampled_from(["unary", "binary", "select", "cast", "clip"]),
                            st.integers(0, 99), st.integers(0, 99), st.integers(0, 99)))
             for _ in range(draw(st.integers(1, 7)))]
    return dtype, shapes, steps, draw(st.booleans())


def _program(dtype, n_inputs, steps, extra_output):
    unary = FLOAT_UNARY if dtype != "int32" else INT_UNARY
    other = {"float32": "float64", "float64": "float32", "int32": "float64"}[dtype]

    def fn(*xs):
        pool = list(xs)
        for kind, i, j, k in steps:
            a, b = pool[i % len(pool)], pool[j % len(pool)]
            if kind == "unary":
                v = getattr(ops, unary[k % len(unary)])()(a)
            elif kind == "binary":
                v = getattr(ops, BINARY[k % len(BINARY)])()(a, b)
            elif kind == "select":
                cond = ops.Greater()(xs[i % len(xs)], xs[k % len(xs)])
                v = ops.Select()(cond, a, b)
            elif kind == "cast":  # a round trip through another dtype, exact for the values it sees
                v = ops.Cast()(ops.Abs()(ops.Cast()(a, getattr(ms, other))), getattr(ms, dtype))
                if k % 2:
                    v = v + ops.Cast()(ops.Cast()(xs[j % len(xs)], ms.bool_), getattr(ms, dtype))
            else:
                lo = Tensor(np.array(-1, dtype))
                v = ops.clip_by_value(a, lo, b)
            pool.append(v)
        return (pool[-1], pool[len(xs)]) if extra_output else pool[-1]

    return fn


def _run(graph, arrays):
    return session().compile_graph(graph)(arrays)


TOL = {"float32": {"rtol": 2e-5, "atol": 1e-6}, "float64": {"rtol": 1e-12, "atol": 1e-14}}


@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), st.integers(0, 2**31 - 1))
def test_random_elementwise_graphs_fused_match_unfused_and_numpy(program, seed):
    dtype, shapes, steps, extra = program
    rng = np.random.default_rng(seed)
    if dtype == "int32":
        arrays = [rng.integers(-20, 20, s).astype(dtype) for s in shapes]
    else:
        arrays = [rng.uniform(-2, 2, s).astype(dtype) for s in shapes]
    fn = _program(dtype, len(arrays), steps, extra)
    with fusion(False):
        unfused_graph = _trace(fn, *arrays)
        expected = run_reference(unfused_graph, arrays)
        unfused = _run(unfused_graph, arrays)
        assert "FusedElementwise" not in _ops(unfused_graph)
    with fusion(True):
        fused_graph = _trace(fn, *arrays)
        fused = _run(fused_graph, arrays)
    assert len(fused_graph.nodes) <= len(unfused_graph.nodes)
    for want, got_unfused, got_fused in zip(expected, unfused, fused, strict=True):
        assert got_fused.dtype == want.dtype and got_fused.shape == want.shape
        if want.dtype.kind in "iub":
            np.testing.assert_array_equal(got_unfused, want)
            np.testing.assert_array_equal(got_fused, want)
        else:
            np.testing.assert_allclose(got_unfused, want, equal_nan=True, **TOL[want.dtype.name])
            np.testing.assert_allclose(got_fused, got_unfused, equal_nan=True, **TOL[want.dtype.name])


def test_large_fused_loop_is_parallel_and_correct():
    """Above codegen's PARALLEL_MIN_ELEMENTS the fused loop carries the OpenMP pragma and stays correct."""
    x = np.linspace(-3, 3, 1 << 18, dtype=np.float32).reshape(512, 512)
    b = np.linspace(0, 1, 512, dtype=np.float32)
    graph = _trace(lambda x, b: ops.Tanh()(x * b) + 1.0, x, b)
    with fusion(True):
        (out,) = _run(graph, [x, b])

    node = graph.nodes[0]
    assert node.op == "FusedElementwise" and "omp parallel for" in emit(node.spec)
    np.testing.assert_allclose(out, np.tanh(x * b) + 1.0, rtol=1e-5, atol=1e-6)


# ---- the cache: one entry per fused kernel, deterministic names, local rebuilds -----------------------------

def _worker(act2: str, root: Path) -> dict:
    proc = run_python(WORKER, act2, env={"OPBUILD_CACHE_PATH": str(root), "OPBUILD_FUSION": "1"})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_fused_kernels_are_cache_entries_reused_across_processes_and_rebuilt_locally(tmp_path):
    """Each Dense layer and its elementwise chain is one FusedMatMul (elementwise fusion, then the epilogue
    pass); the entries are deterministic across processes and a one-layer change rebuilds that layer only."""
    first = _worker("relu", tmp_path)
    ops_built = sorted(op for _, op, status in first["kernels"] if status == "built")
    assert ops_built == ["FusedMatMul", "FusedMatMul"]
    assert sorted(first["members"].values()) == [["Add", "ReLU", "Mul", "Add"], ["Add", "Sigmoid", "Mul"]]

    # Another process, same network: the same kernel names (deterministic fusion), all reused.
    again = _worker("relu", tmp_path)
    assert sorted(k[0] for k in again["kernels"]) == sorted(k[0] for k in first["kernels"])
    assert {status for _, _, status in again["kernels"]} == {"reused"}

    # Layer 2's activation changes: only the fused kernel containing it is built, everything else reused.
    changed = _worker("tanh", tmp_path)
    built = [(name, op) for name, op, status in changed["kernels"] if status == "built"]
    assert [op for _, op in built] == ["FusedMatMul"]
    assert changed["members"][built[0][0]] == ["Add", "Tanh", "Mul", "Add"]
    reused = {name for name, _, status in changed["kernels"] if status == "reused"}
    assert reused == {k[0] for k in first["kernels"]} - {n for n, m in first["members"].items() if "ReLU" in m}
