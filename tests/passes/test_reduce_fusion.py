"""Reduction fusion (passes/reduce_fusion.py, ops/fused_reduce.py): which nodes join a row kernel, randomised
reduction + elementwise graphs fused against unfused (OPBUILD_FUSION=0) against NumPy in every float dtype,
and the cache: one entry per fused kernel listing its members, reused by another process, distinct from the
unfused build's entries."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opbuild as ms
import opbuild.ops as ops
from opbuild.core.errors import ShapeError
from opbuild.passes import DEFAULT_PIPELINE, ReduceFusion
from opbuild.runtime.reference import run_reference
from opbuild.targets.cpu.kernels import emit

from ..conftest import run_python
from .test_fusion import _ops, _run, _trace, fusion

pytestmark = pytest.mark.slow

WORKER = str(Path(__file__).with_name("_reduce_fusion_worker.py"))
ROW = "FusedRowReduce"


def _members(node) -> list[str]:
    return [m["op"] for m in node.attrs["members"]]


def _softmax_chain(x):
    e = ops.Exp()(x - ops.ReduceMax(keep_dims=True)(x, -1))
    return e / ops.ReduceSum(keep_dims=True)(e, -1)


def _layernorm_chain(x, g, b):
    """LayerNormalization as torch.onnx exports it at low opsets: epsilon inside the square root."""
    d = x - ops.ReduceMean(keep_dims=True)(x, -1)
    var = ops.ReduceMean(keep_dims=True)(ops.Pow()(d, 2.0), -1)
    return d / ops.Sqrt()(var + 1e-5) * g + b


# ---- which nodes fuse ---------------------------------------------------------------------------------------

def test_decomposed_softmax_is_one_row_kernel():
    x = np.random.default_rng(0).standard_normal((4, 7)).astype(np.float32)
    graph = ReduceFusion().run(_trace(_softmax_chain, x))
    assert _ops(graph) == [ROW]
    assert _members(graph.nodes[0]) == ["ReduceMax", "Sub", "Exp", "ReduceSum", "RealDiv"]
    (out,) = _run(graph, [x])
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(-1, keepdims=True), rtol=1e-6, atol=1e-7)


def test_decomposed_layernorm_with_residual_prologue_is_one_row_kernel():
    rng = np.random.default_rng(1)
    x, r = rng.standard_normal((2, 5, 33)).astype(np.float32), rng.standard_normal((2, 5, 33)).astype(np.float32)
    g, b = rng.standard_normal(33).astype(np.float32), rng.standard_normal(33).astype(np.float32)
    graph = ReduceFusion().run(_trace(lambda x, r, g, b: _layernorm_chain(x + r, g, b), x, r, g, b))
    assert _ops(graph) == [ROW]
    assert _members(graph.nodes[0]) == ["Add", "ReduceMean", "Sub", "Pow", "ReduceMean", "Add", "Sqrt", "RealDiv",
                                        "Mul", "Add"]
    (out,) = _run(graph, [x, r, g, b])
    h = x + r
    d = h - h.mean(-1, keepdims=True)
    want = d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5) * g + b
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_single_op_softmax_and_layernorm_take_their_prologue_and_epilogue():
    rng = np.random.default_rng(2)
    x, m = rng.standard_normal((2, 3, 8, 8)).astype(np.float32), rng.standard_normal((2, 1, 8, 8)).astype(np.float32)

    def attention_probs(x, m):  # what the BERT export computes: Add(mask) -> Softmax -> Where(IsNaN, 0, .)
        p = ops.Softmax()(x + m)
        return ops.Select()(ops.IsNan()(p), ops.zeros_like(p), p)

    graph = DEFAULT_PIPELINE.run(_trace(attention_probs, x, m))
    kernels = [n.op for n in graph.memory_plan.kernel_nodes]
    assert ROW in kernels and "Softmax" not in kernels and "Add" not in kernels
    y, gm, bt = (rng.standard_normal(s).astype(np.float32) for s in ((4, 16), (16,), (16,)))
    ln = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)
    graph = ReduceFusion().run(_trace(lambda y, g, b: ln(y * 2.0, g, b)[0], y, gm, bt))
    assert _ops(graph) == [ROW]
    (out,) = _run(graph, [y, gm, bt])
    want = run_reference(_trace(lambda y, g, b: ln(y * 2.0, g, b)[0], y, gm, bt), [y, gm, bt])[0]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_what_does_not_fuse():
    x = np.ones((4, 6), np.float32)
    # The reduction over a non-innermost axis: no row kernel.
    assert ROW not in _ops(ReduceFusion().run(_trace(lambda x: x - ops.ReduceMean(keep_dims=True)(x, 0), x)))
    # An intermediate read outside the group stays a value of its own: the group ends before it.
    graph = ReduceFusion().run(_trace(lambda x: (ops.Exp()(x - ops.ReduceMax(keep_dims=True)(x, 1)),
                                                 ops.ReduceMax(keep_dims=True)(x, 1) * 2.0), x))
    assert len(graph.outputs) == 2 and all(v.producer in graph.nodes for v in graph.outputs)
    # LayerNorm whose mean is used: left as the single op.
    ln = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1)
    g = np.ones(6, np.float32)
    graph = ReduceFusion().run(_trace(lambda x, g: ln(x, g, g)[0] + ln(x, g, g)[1], x, g))
    assert "LayerNorm" in _ops(graph)


def test_switch_off_and_identity(monkeypatch):
    x = np.ones((3, 4), np.float32)
    monkeypatch.setenv("OPBUILD_FUSION", "0")
    assert "rowfuse@1:off" in DEFAULT_PIPELINE.identity
    assert ROW not in _ops(DEFAULT_PIPELINE.run(_trace(_softmax_chain, x)))
    monkeypatch.setenv("OPBUILD_FUSION", "1")
    assert "rowfuse@1:64" in DEFAULT_PIPELINE.identity


def test_fusion_is_deterministic_across_traces():
    x = np.ones((3, 5), np.float32)
    a = ReduceFusion().run(_trace(_softmax_chain, x)).nodes[0].spec
    b = ReduceFusion().run(_trace(_softmax_chain, x)).nodes[0].spec
    assert a.memo_key() == b.memo_key()


def test_malformed_recipe_is_a_shape_error():
    f32 = ms.Tensor(np.ones((2, 3), np.float32))
    ax = {"axis": [1], "keep_dims": True}
    with pytest.raises(ShapeError, match="at least one reduction"):
        ops.apply(ROW, {"members": [{"op": "Neg", "attrs": {}, "args": ["i0"]}]}, [f32])
    with pytest.raises(ShapeError, match="innermost axes"):
        ops.apply(ROW, {"members": [{"op": "ReduceSum", "attrs": {"axis": [0], "keep_dims": True},
                                     "args": ["i0"]}]}, [f32])
    with pytest.raises(ShapeError, match="bad operand"):
        ops.apply(ROW, {"members": [{"op": "ReduceSum", "attrs": ax, "args": ["t3"]}]}, [f32])
    with pytest.raises(ShapeError, match="neither elementwise"):
        ops.apply(ROW, {"members": [{"op": "MatMul", "attrs": {}, "args": ["i0", "i0"]}]}, [f32])
    with pytest.raises(ShapeError, match="only be the last member"):
        ops.apply(ROW, {"members": [{"op": "ReduceSum", "attrs": {"axis": [1], "keep_dims": False}, "args": ["i0"]},
                                    {"op": "Neg", "attrs": {}, "args": ["t0"]}]}, [f32])
    big = ms.Tensor(np.ones((2, 40000), np.float32))
    with pytest.raises(ShapeError, match="scratch"):  # exp(x - max) kept for the division: 160 kB per row
        ops.apply(ROW, {"members": [{"op": "ReduceMax", "attrs": ax, "args": ["i0"]},
                                    {"op": "Sub", "attrs": {}, "args": ["i0", "t0"]},
                                    {"op": "Exp", "attrs": {}, "args": ["t1"]},
                                    {"op": "ReduceSum", "attrs": ax, "args": ["t2"]},
                                    {"op": "RealDiv", "attrs": {}, "args": ["t2", "t3"]}]}, [big])


def test_too_long_rows_are_left_unfused_and_correct():
    x = np.random.default_rng(3).standard_normal((2, 40000)).astype(np.float32)
    with fusion(True):
        graph = _trace(_softmax_chain, x)
        (out,) = _run(graph, [x])
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-9)


def test_large_row_kernel_is_parallel_and_correct():
    x = np.random.default_rng(4).standard_normal((1024, 256)).astype(np.float32)
    graph = _trace(_softmax_chain, x)
    with fusion(True):
        (out,) = _run(graph, [x])
    node = graph.nodes[0]
    assert node.op == ROW and "omp parallel for" in emit(node.spec)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-8)


# ---- randomised graphs: fused == unfused == NumPy -----------------------------------------------------------

UNARY = ["Neg", "Abs", "Sigmoid", "Tanh", "Square", "Exp"]
BINARY = ["Add", "Sub", "Mul", "Maximum"]
REDUCE = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"]
NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
TOL = {"float32": {"rtol": 1e-4, "atol": 1e-5}, "float64": {"rtol": 1e-11, "atol": 1e-12},
       "float16": {"rtol": 2e-2, "atol": 2e-2}, "bfloat16": {"rtol": 5e-2, "atol": 5e-2}}


@st.composite
def programs(draw):
    """(dtype, shapes, begin, steps, last): a random program of elementwise steps and reductions over the
    innermost axes ``[begin, rank)``. Values are full (x's shape) or per row (keep_dims); a step combines a
    random earlier value with another one of either kind (broadcasting), an external per-column input, or
    reduces a full value. ``last``: end with a reduction without keep_dims."""
    dtype = draw(st.sampled_from(list(NP)))
    shape = tuple(draw(st.lists(st.integers(1, 9), min_size=2, max_size=4)))
    begin = draw(st.integers(1, len(shape) - 1))
    shape = shape[:begin] + tuple(max(2, d) for d in shape[begin:])  # at least two elements per row
    col = tuple(d if draw(st.booleans()) else 1 for d in shape[begin:])
    steps = [draw(st.tuples(st.sampled_from(["unary", "binary", "reduce", "column"]), st.integers(0, 99),
                            st.integers(0, 99), st.integers(0, 99))) for _ in range(draw(st.integers(1, 8)))]
    return dtype, [shape, col], begin, steps, draw(st.booleans())


def _program(begin, steps, last):
    def fn(x, col):
        axes = tuple(range(begin, len(x.shape)))
        full, pool = [x], [x]
        for kind, i, j, k in steps:
            a = full[i % len(full)]
            if kind == "unary":
                v = getattr(ops, UNARY[k % len(UNARY)])()(ops.Tanh()(a) if UNARY[k % len(UNARY)] == "Exp" else a)
            elif kind == "binary":
                v = getattr(ops, BINARY[k % len(BINARY)])()(a, pool[j % len(pool)])
            elif kind == "column":
                v = a * col
            else:
                r = getattr(ops, REDUCE[k % len(REDUCE)])(keep_dims=True)(a, axes)
                pool.append(r)
                v = a - r
            full.append(v)
            pool.append(v)
        out = full[-1]
        if last:
            out = ops.ReduceSum()(out, axes)
        return out

    return fn


@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), st.integers(0, 2**31 - 1))
def test_random_reduction_graphs_fused_match_unfused_and_numpy(program, seed):
    dtype, shapes, begin, steps, last = program
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-2, 2, s).astype(NP[dtype]) for s in shapes]
    fn = _program(begin, steps, last)
    with fusion(False):
        unfused_graph = _trace(fn, *arrays)
        expected = run_reference(unfused_graph, arrays)
        unfused = _run(unfused_graph, arrays)
        assert ROW not in _ops(unfused_graph)
    with fusion(True):
        fused_graph = _trace(fn, *arrays)
        fused = _run(fused_graph, arrays)
    assert len(fused_graph.nodes) <= len(unfused_graph.nodes)
    if any(op in REDUCE for op in _ops(unfused_graph)):  # a live reduction (after DCE) of the rows: fused
        assert ROW in _ops(fused_graph)
    for want, got_unfused, got_fused in zip(expected, unfused, fused, strict=True):
        assert got_fused.dtype == want.dtype and got_fused.shape == want.shape
        w, u, f = (np.asarray(a, np.float64) for a in (want, got_unfused, got_fused))
        scale = max(1.0, float(np.abs(w).max()))  # sums of many terms: tolerance relative to the magnitude
        tol = TOL[dtype]
        np.testing.assert_allclose(u, w, rtol=tol["rtol"], atol=tol["atol"] * scale)
        np.testing.assert_allclose(f, u, rtol=tol["rtol"], atol=tol["atol"] * scale)


# ---- the cache ---------------------------------------------------------------------------------------------

def _worker(root: Path, on: bool) -> dict:
    proc = run_python(WORKER, env={"OPBUILD_CACHE_PATH": str(root), "OPBUILD_FUSION": "1" if on else "0"})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_row_kernels_are_cache_entries_reused_across_processes_and_distinct_unfused(tmp_path):
    first = _worker(tmp_path, True)
    rows = [name for name, op, status in first["kernels"] if op == ROW]
    # Add(mask) -> Softmax -> LayerNorm: one row kernel (the LayerNorm reduces the same rows: an epilogue).
    assert len(rows) == 1 and {s for n, _, s in first["kernels"] if n in rows} == {"built"}
    assert first["members"][rows[0]] == ["Add", "ReduceMax", "Sub", "Exp", "ReduceSum", "RealDiv", "ReduceMean",
                                         "Sub", "Square", "ReduceMean", "Add", "Rsqrt", "Mul", "Mul", "Add"]

    again = _worker(tmp_path, True)  # another process: the same names, all reused
    assert sorted(k[0] for k in again["kernels"]) == sorted(k[0] for k in first["kernels"])
    assert {status for _, _, status in again["kernels"]} == {"reused"}

    off = _worker(tmp_path, False)  # fusion off: its own entries (no row kernel), built, not the fused ones
    assert ROW not in {op for _, op, _ in off["kernels"]}
    assert {"Softmax", "LayerNorm"} <= {op for _, op, _ in off["kernels"]}
    assert not {k[0] for k in off["kernels"]} & set(rows)
    assert any(status == "built" for _, _, status in off["kernels"])


def test_a_lone_row_op_keeps_its_own_kernel():
    x = np.ones((3, 5), np.float32)
    assert _ops(ReduceFusion().run(_trace(lambda x: ops.Softmax()(x), x))) == ["Softmax"]
    assert _ops(ReduceFusion().run(_trace(lambda x: ops.ReduceSum(keep_dims=True)(x, -1), x))) == ["ReduceSum"]
