"""The C of run-time-batch kernels (targets/cpu/runtime_batch.py): the batch count after the pointers, the
``gemm`` kind (one GEMM of n * rows) for products with an unbatched right operand, the ``rows`` kind (the
batch-1 body once per row, rows copied where the batch lies inside other dims) for the rest."""

from __future__ import annotations

import re

from opbuild.core.ir import TensorType
from opbuild.ops.registry import get
from opbuild.passes.row_plan import (
    BATCH_DIM,
    RUNTIME_BATCH,
    batch_axes,
    is_runtime,
    row_scratch,
    row_spec,
    runtime_spec,
)
from opbuild.targets.cpu import CpuTarget, runtime_batch

F32 = "float32"


def _c(op: str, attrs: dict, ins: list, in_dims: list, out_dims: list) -> str:
    spec = get(op).spec(attrs, [TensorType(s, F32) for s in ins])
    r = runtime_spec(spec, in_dims, out_dims, runtime_batch.tag())
    assert is_runtime(r) and not is_runtime(spec) and row_spec(r) == spec
    return runtime_batch.function("ob_k", r, CpuTarget().emit(r))


def test_descriptor_round_trip() -> None:
    spec = get("BatchMatMul").spec({"transpose_a": False, "transpose_b": False},
                                   [TensorType((5, 8), F32), TensorType((8, 6), F32)])
    r = runtime_spec(spec, [(0, 5), None], [(0, 5)], "tag")
    assert r.inputs[0].shape == (BATCH_DIM * 5, 8) and r.inputs[1].shape == (8, 6)
    assert r.attrs[RUNTIME_BATCH] == {"generator": "tag"} and batch_axes(r) == [0, None, 0]
    assert row_spec(r) == spec


def test_matmul_with_a_shared_weight_is_one_gemm() -> None:
    code = _c("BatchMatMul", {"transpose_a": False, "transpose_b": False}, [(1, 5, 8), (8, 6)], [(0, 1), None],
              [(0, 1)])
    assert "const int64_t ob_n = (int64_t)(intptr_t)args[3];" in code
    assert "const int64_t ob_m = ob_n * 5;" in code and "ob_k_row_body" not in code
    mm = _c("MatMul", {"transpose_a": False, "transpose_b": True}, [(1, 8), (6, 8)], [(0, 1), None], [(0, 1)])
    assert "ob_m = ob_n * 1;" in mm and "OB_BLAS_SGEMV" in mm  # one row: gemv, as the static kernel


def test_products_of_two_batched_values_loop_over_rows() -> None:
    code = _c("BatchMatMul", {"transpose_a": False, "transpose_b": False}, [(1, 5, 8), (1, 8, 6)],
              [(0, 1), (0, 1)], [(0, 1)])
    assert "ob_m" not in code and "for (int64_t ob_i = 0; ob_i < ob_n; ob_i++)" in code
    assert "(const char *)args[1] + ob_i * 192" in code  # 8 x 6 floats per row of b


def test_batch_inside_other_dims_copies_rows() -> None:
    """The scratch row of an operand whose batch lies inside other dims is part of the kernel's planned workspace
    (after the pointers, before the batch count): the kernel allocates nothing, so it cannot abort mid-call."""
    code = _c("Transpose", {"perm": [1, 0, 2]}, [(1, 3, 4)], [(0, 1)], [(1, 1)])
    assert not re.search(r"\b(malloc|calloc|aligned_alloc|free|abort)\s*\(", code), code
    assert "char *ob_t1 = (char *)args[2] + 0;" in code and "(intptr_t)args[3]" in code
    assert "memcpy((char *)args[1] + (ob_b * ob_n + ob_i) * 16, ob_t1 + ob_b * 16, 16)" in code


def test_copied_rows_follow_the_ops_own_workspace() -> None:
    """A half BatchMatMul (its float32 copies in its own workspace) on a batch inside other dims: the batch-1
    body gets the workspace's start, the copied rows lie after the op's bytes (each on cache lines), and the
    graph plans the same bytes (row_scratch is the one function both use)."""
    h = "float16"
    spec = get("BatchMatMul").spec({}, [TensorType((3, 1, 4, 8), h), TensorType((8, 5), h)])
    own = get("BatchMatMul").workspace_bytes(spec.attrs, spec.inputs, spec.outputs)
    r = runtime_spec(spec, [(1, 1), None], [(1, 1)], runtime_batch.tag())
    scratch, total = row_scratch(own, [*spec.inputs, *spec.outputs], batch_axes(r))
    assert own > 0 and scratch == [own, None, own + 192] and total == own + 192 + 128  # 192, 120 bytes
    code = runtime_batch.function("ob_k", r, CpuTarget().emit(r))
    assert f"char *ob_t0 = (char *)args[3] + {own};" in code and f"char *ob_t2 = (char *)args[3] + {own + 192};" in code
    assert re.search(r"ob_k_row_body\(\(const \w+ \*\)ob_t0, \(const \w+ \*\)args\[1\], \(\w+ \*\)ob_t2, "
                     r"\(char \*\)args\[3\]\);", code), code
    assert "(intptr_t)args[4]" in code and not re.search(r"\b(malloc|free|abort)\s*\(", code)
    t = TensorType((1, 3, 8), F32)
    assert row_scratch(0, [t, t], [1, None]) == ([None, None], 0)  # dims before the batch all 1: rows in place


def test_small_rows_thread_only_above_the_threshold() -> None:
    code = _c("Add", {}, [(1, 300), (300,)], [(0, 1), None], [(0, 1)])
    assert "if (ob_n * 300 >= 131072) {\n#pragma omp parallel for" in code.replace("  ", "")
