"""Kernels whose work arrays are planned workspaces instead of a ``malloc`` in the kernel (ops/scratch_plan.py,
ops/pool_plan.py, targets/cpu/kernels/scratch.py): their C allocates nothing, the op declares the bytes the C
carves, a graph plans them in its arena, per-thread slots are never shared, and the one allocation left that
no plan can size (pocketfft's, inside FFTN) raises a clear MemoryError when it fails, leaving the cache and
the next call intact."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import opbuild.targets as targets_pkg
from opbuild import Tensor, ops
from opbuild.core import trace
from opbuild.core.ir import TensorType
from opbuild.ops import gemm_plan, scratch_plan
from opbuild.ops.registry import get
from opbuild.passes import ConstantFolding, DeadCodeElimination, MemoryPlanning, Pipeline
from opbuild.runtime.session import session
from opbuild.targets.cpu.generation import codegen_files, emit
from tests.conftest import run_python

F32, F64, I64 = "float32", "float64", "int64"
STATE = TensorType((2,), I64)
POOL_WIDE = {"kernel_size": [3, 3], "strides": [2, 2], "pad_mode": "pad", "pad": [1, 1, 1, 1]}
# (op, attrs, input types): every kernel path that malloc'd its scratch before.
SPECS = {
    "inverse": ("MatrixInverse", {"adjoint": True}, [TensorType((3, 5, 5), F32)]),
    "det": ("MatrixDeterminant", {}, [TensorType((3, 5, 5), F64)]),
    "slogdet": ("LogMatrixDeterminant", {}, [TensorType((2, 4, 4), F32)]),
    "qr": ("Qr", {"full_matrices": True}, [TensorType((2, 6, 4), F64)]),
    "svd jacobi": ("Svd", {}, [TensorType((80, 16, 8), F32)]),
    "svd jacobi serial": ("Svd", {"full_matrices": True}, [TensorType((3, 9, 4), F64)]),
    "svd gesdd": ("Svd", {}, [TensorType((2, 20, 18), F32)]),
    "solve": ("MatrixSolve", {"adjoint": False}, [TensorType((3, 5, 5), F64), TensorType((3, 5, 2), F64)]),
    "eig": ("Eig", {"compute_v": True}, [TensorType((2, 6, 6), F32)]),
    "eigvals": ("Eig", {}, [TensorType((6, 6), F64)]),
    "multinomial": ("Multinomial", {"num_samples": 5, "replacement": False}, [STATE, TensorType((4, 10), F32)]),
    "shuffle": ("RandomShuffle", {}, [STATE, TensorType((6, 4), F32)]),
    "randperm": ("RandpermV2", {"n": 17, "dtype": "int32"}, [STATE]),
    "max pool wide": ("MaxPool", POOL_WIDE, [TensorType((2, 3, 3, 9000), F32)]),
    "avg pool wide f16": ("AvgPool", POOL_WIDE, [TensorType((1, 2, 3, 9000), "float16")]),
    "fft": ("FFTN", None, [TensorType((3, 10, 12), F32)]),
    "matmul f16": ("MatMul", {"transpose_b": True}, [TensorType((7, 33), "float16"), TensorType((20, 33), "float16")]),
    "batch matmul bf16": ("BatchMatMul", {}, [TensorType((3, 4, 5, 6), "bfloat16"), TensorType((4, 6, 9), "bfloat16")]),
    # The generated GEMM's panel of a transposed b past the stack's budget (k > 512): the workspace's first part.
    "matmul large k": ("MatMul", {"transpose_b": True}, [TensorType((8, 3000), F32), TensorType((24, 3000), F32)]),
    "matmul large k f16": ("MatMul", {"transpose_b": True},
                           [TensorType((8, 1000), "float16"), TensorType((24, 1000), "float16")]),
    "batch matmul large k": ("BatchMatMul", {"transpose_b": True},
                             [TensorType((3, 4, 700), F64), TensorType((3, 9, 700), F64)]),
    "batch matmul tall large k": ("BatchMatMul", {"transpose_b": True},
                                  [TensorType((3, 4, 700), F32), TensorType((17, 700), F32)]),
}
# The layout each op's kernel carves (ops/scratch_plan.py); pooling's is ops/pool_plan.py's.
LAYOUTS = {"MatrixInverse": "matrix_inverse", "MatrixDeterminant": "lu_copy", "LogMatrixDeterminant": "lu_copy",
           "Qr": "qr", "Svd": "svd", "MatrixSolve": "matrix_solve", "Eig": "eig", "Multinomial": "multinomial",
           "RandomShuffle": "random_shuffle", "RandpermV2": "randperm", "FFTN": "fftn", "MatMul": "matmul_layout",
           "BatchMatMul": "batch_matmul_layout"}
ALLOC = re.compile(r"\b(malloc|calloc|realloc|aligned_alloc|posix_memalign|free)\s*\(")


def _spec(name: str):
    op, attrs, types = SPECS[name]
    if attrs is None:  # FFTN's attrs as ops.rfft normalizes them
        attrs = {"dims": [2], "s": [16], "kind": "r2c", "forward": True, "norm": "backward"}
    return get(op).spec(attrs, types)


@pytest.mark.parametrize("name", list(SPECS))
def test_the_kernel_allocates_nothing_and_carves_what_the_op_declares(name):
    spec = _spec(name)
    op = get(spec.op)
    body = emit(spec)
    assert not ALLOC.search(body), body
    layout = LAYOUTS.get(spec.op)
    plan = gemm_plan if spec.op in ("MatMul", "BatchMatMul") else scratch_plan
    parts = getattr(plan, layout)(spec.attrs, spec.inputs, spec.outputs) if layout else None
    size = op.workspace_bytes(spec.attrs, spec.inputs, spec.outputs)
    assert size > 0 and size % 64 == 0 and "ob_ws" in body
    if parts is not None and spec.op != "Svd":  # each part's pointer at its planned offset
        offsets, total = scratch_plan.offsets(parts)
        assert total == size
        for (part, _, _), at in zip(parts, offsets, strict=True):
            assert f"*restrict {part} = " in body and f"(ob_ws + {at});" in body


LAPACK_SPECS = [("Cholesky", {}, [TensorType((2, 4, 4), F32)]), ("Geqrf", {}, [TensorType((5, 3), F64)]),
                ("Orgqr", {}, [TensorType((5, 3), F64), TensorType((3,), F64)]),
                ("CholeskyInverse", {}, [TensorType((4, 4), F32)]),
                ("CholeskySolve", {}, [TensorType((4, 2), F64), TensorType((4, 4), F64)]),
                ("MatrixTriangularSolve", {}, [TensorType((4, 4), F32), TensorType((4, 3), F32)])]


LAPACK = ["inverse", "det", "slogdet", "qr", "svd gesdd", "solve", "eig", "eigvals"]


@pytest.mark.parametrize("case", LAPACK + LAPACK_SPECS, ids=LAPACK + [s[0] for s in LAPACK_SPECS])
def test_every_lapacke_call_reports_its_own_allocation_failures(case):
    """LAPACKE allocates its row-major copies and work arrays itself: the codes of such a failure are reported
    through the status words (the op declares a status), not turned into NaN results."""
    spec = _spec(case) if isinstance(case, str) else get(case[0]).spec(case[1], case[2])
    body = emit(spec)
    item = "m" if spec.op in ("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "Cholesky") else "t"
    check = f"if (info == -1010 || info == -1011) {{ ob_fail(ob_status, {item}, info); return; }}"
    assert check in body and get(spec.op).status is not None and not ALLOC.search(body)
    error = get(spec.op).status_error(spec.attrs, spec.inputs, [1, 2, -1010])
    assert isinstance(error, MemoryError) and "LAPACK could not allocate its work arrays for matrix 2" in str(error)


def test_small_and_empty_shapes_need_no_workspace():
    pool = get("MaxPool").spec(POOL_WIDE, [TensorType((1, 3, 48, 48), F32)])  # buffers on the stack
    assert get("MaxPool").workspace_bytes(pool.attrs, pool.inputs, pool.outputs) == 0 and "ob_ws" not in emit(pool)
    empty = get("MatrixInverse").spec({}, [TensorType((0, 3, 3), F32)])
    assert get("MatrixInverse").workspace_bytes(empty.attrs, empty.inputs, empty.outputs) == 0
    f32 = get("MatMul").spec({}, [TensorType((7, 33), F32), TensorType((33, 20), F32)])  # no float32 copies
    assert get("MatMul").workspace_bytes(f32.attrs, f32.inputs, f32.outputs) == 0 and "ob_ws" not in emit(f32)


def test_the_layouts_are_part_of_every_key_they_shape():
    """A change to a layout changes the code-generator digest of the ops that carve it (new keys)."""
    for op in ("Svd", "MatrixInverse", "Eig", "RandpermV2", "FFTN", "MaxPool", "AvgPool", "MatMul", "FusedMatMul"):
        files = {f.replace("\\", "/").split("opbuild/")[-1] for f in codegen_files([op])}
        assert {"ops/scratch_plan.py", "targets/cpu/kernels/scratch.py"} <= files, op
    assert "ops/pool_plan.py" in {f.split("opbuild/")[-1] for f in codegen_files(["MaxPool"])}


def test_per_thread_slots_are_bounded():
    assert scratch_plan.slots(1000, 1024) == scratch_plan.MAX_SLOTS
    assert scratch_plan.slots(3, 1024) == 3
    assert scratch_plan.slots(1000, scratch_plan.SLOTS_BUDGET_BYTES // 4) == 4
    assert scratch_plan.slots(1000, 10 * scratch_plan.SLOTS_BUDGET_BYTES) == 1  # one slot, whatever its size
    body = emit(_spec("svd jacobi"))
    assert "num_threads(omp_get_max_threads() < 64 ? omp_get_max_threads() : 64)" in body
    assert "ob_ws + ob_slot *" in body and "omp_get_thread_num()" in body
    assert "omp" not in emit(_spec("svd jacobi serial"))  # serial: slot 0, one slot


PLANNED = Pipeline([ConstantFolding(), DeadCodeElimination(), MemoryPlanning()])


def _net(a, x, s):
    inv = ops.inverse(a)
    u, v = ops.svd(s)[1:]
    pooled = ops.MaxPool(**{k: v for k, v in POOL_WIDE.items()})(x)
    return inv + 1.0, (u.sum() + v.sum()), pooled, ops.rfft(x, n=9000)


def test_a_graph_plans_the_workspaces_and_matches_pynative(monkeypatch):
    monkeypatch.setenv("OPBUILD_FUSION", "0")
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 5, 5)).astype(np.float32)
    x = rng.standard_normal((2, 3, 3, 9000)).astype(np.float32)
    s = rng.standard_normal((40, 12, 6)).astype(np.float32)
    graph, _ = trace.trace(_net, [Tensor(a), Tensor(x), Tensor(s)])
    compiled = session().compile_graph(graph, PLANNED)
    plan = compiled.plan
    plan.verify(compiled.graph)
    planned = {n.op: n for n in plan.workspaces}
    assert {"MatrixInverse", "Svd", "MaxPool", "FFTN"} <= set(planned)
    for op, n in planned.items():
        size = get(op).workspace_bytes(n.attrs, [v.type for v in n.inputs], [v.type for v in n.outputs])
        assert plan.workspaces[n][1] >= size > 0 and plan.workspaces[n][0] % 64 == 0
    outs = compiled([a, x, s])
    eager = _net(Tensor(a), Tensor(x), Tensor(s))
    for got, want in zip(outs, eager, strict=True):
        np.testing.assert_array_equal(got, want.asnumpy())
    again = compiled([a, x, s])  # through the same arena
    for got, want in zip(again, outs, strict=True):
        np.testing.assert_array_equal(got, want)


THREADS = r"""
import json, sys
import numpy as np
from opbuild import Tensor, ops
from opbuild.core.ir import TensorType
from opbuild.ops import pool_plan, scratch_plan
from opbuild.ops.registry import get
n_slots = int(sys.argv[1])
rng = np.random.default_rng(7)
s = rng.standard_normal((96, 14, 7)).astype(np.float32)
x = rng.standard_normal((24, 2, 3, 9000)).astype(np.float32)
item = scratch_plan.layout_bytes(scratch_plan.jacobi_item(14, 7, "float32"))
scratch_plan.SLOTS_BUDGET_BYTES = n_slots * item
out, slots = [o.asnumpy() for o in ops.svd(Tensor(s))], [scratch_plan.jacobi_slots(TensorType(s.shape, "float32"))]
for avg, pool in ((False, ops.MaxPool(kernel_size=3, strides=2, pad_mode="pad", pad=1)),
                  (True, ops.AvgPool(kernel_size=3, strides=1, pad_mode="pad", pad=1))):
    spec = get("AvgPool" if avg else "MaxPool").spec(pool.attrs, [TensorType(x.shape, "float32")])
    slot = scratch_plan.layout_bytes(pool_plan.plane_slot(avg, spec.attrs, *spec.inputs, *spec.outputs))
    scratch_plan.SLOTS_BUDGET_BYTES = n_slots * slot
    out.append(pool(Tensor(x)).asnumpy())
    slots.append(pool_plan.plane_slots(avg, spec.attrs, *spec.inputs, *spec.outputs))
np.savez(sys.argv[2], *out)
print(json.dumps(slots))
"""


@pytest.mark.slow
def test_more_threads_than_slots_give_the_serial_results(tmp_path):
    """Eight threads sharing three slots (Svd's Jacobi path, wide pooling) compute what one slot serially
    computes: a thread never works in another's slot."""
    script = tmp_path / "threads.py"
    script.write_text(THREADS)
    # Separate caches: the patched budget changes the emitted C but not the key (a real change to the budget
    # changes scratch_plan.py, whose digest is in the key).
    few = run_python(str(script), "3", str(tmp_path / "few.npz"),
                     env={"OPBUILD_CACHE_PATH": str(tmp_path / "few"), "OMP_NUM_THREADS": "8"})
    one = run_python(str(script), "1", str(tmp_path / "one.npz"),
                     env={"OPBUILD_CACHE_PATH": str(tmp_path / "one"), "OMP_NUM_THREADS": "1"})
    assert json.loads(few.stdout.splitlines()[-1]) == [3, 3, 3] and json.loads(one.stdout.splitlines()[-1]) == [1, 1, 1]
    got, want = np.load(tmp_path / "few.npz"), np.load(tmp_path / "one.npz")
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])


OOM = r"""
import json, os, resource, sys
import numpy as np
from opbuild import Tensor, ops
import opbuild as ms
from opbuild.core.errors import KernelMemoryError

L = 1 << 21
x = Tensor(np.random.default_rng(0).standard_normal(L))
cache = os.environ["OPBUILD_CACHE_PATH"]

def files():
    return sorted((os.path.relpath(os.path.join(d, f), cache), os.path.getsize(os.path.join(d, f)))
                  for d, _, fs in os.walk(cache) for f in fs if not f.endswith((".lock", ".log")))

def vm():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024

graph = ms.jit(lambda t: ops.fft(t * 2.0))
n = 1536  # LAPACKE's transposed copy of one matrix (8 * n * n bytes), allocated inside it
m = Tensor(np.random.default_rng(1).standard_normal((n, n)) + n * np.eye(n))
inv = ms.jit(lambda t: ops.inverse(t) * 2.0)
# Every kernel built and loaded first: no compiler runs under the limit.
first, g_first = ops.fft(x).asnumpy(), graph(x).asnumpy()
m_first, m_graph = ops.inverse(m).asnumpy(), inv(m).asnumpy()
before = files()
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
report = {}
# Room for what Python allocates for the call (PyNative's outputs and workspace; a graph's arena exists already),
# not for what the library allocates inside the kernel.
for name, call, room in (("pynative", lambda: ops.fft(x), 32 * L), ("graph", lambda: graph(x), 0),
                         ("lapack", lambda: ops.inverse(m), 8 * n * n), ("lapack graph", lambda: inv(m), 0)):
    resource.setrlimit(resource.RLIMIT_AS, (vm() + room + (8 << 20), hard))
    try:
        call()
        report[name] = None
    except KernelMemoryError as e:
        report[name] = [str(e), isinstance(e, MemoryError), e.value, e.position]
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
report["same"] = bool(np.array_equal(ops.inverse(m).asnumpy(), m_first) and np.array_equal(inv(m).asnumpy(), m_graph)
                      and np.array_equal(ops.fft(x).asnumpy(), first) and np.array_equal(graph(x).asnumpy(), g_first))
report["cache_intact"] = files() == before
print(json.dumps(report))
"""


@pytest.mark.slow
def test_allocations_no_plan_can_size_raise_a_clear_error_and_leave_the_cache_intact(tmp_path):
    """pocketfft's plan (FFTN) and LAPACKE's row-major copy (MatrixInverse) failing under RLIMIT_AS: a
    KernelMemoryError naming what failed, in PyNative and in a graph, nothing built or rewritten in the cache,
    and the next call right."""
    script = tmp_path / "oom.py"
    script.write_text(OOM)
    # Large blocks straight from mmap and back on free (no heap kept from the first call), one thread (no
    # thread stacks to map under the limit).
    proc = run_python(str(script), env={"OPBUILD_CACHE_PATH": str(tmp_path / "cache"), "OMP_NUM_THREADS": "1",
                                        "OPENBLAS_NUM_THREADS": "1", "MALLOC_MMAP_THRESHOLD_": "65536"})
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    for mode in ("pynative", "graph"):
        assert report[mode] is not None, (mode, proc.stdout, proc.stderr)
        message, is_memory_error, value, position = report[mode]
        assert is_memory_error and value == 1 << 21 and position == 0
        assert message.startswith("For 'FFTN', could not allocate scratch memory for the length-2097152 transform "
                                  "along axis 0")
    for mode in ("lapack", "lapack graph"):
        assert report[mode] is not None, (mode, proc.stdout, proc.stderr)
        message, is_memory_error, value, position = report[mode]
        assert is_memory_error and value == 0 and position == -1011
        assert message.startswith("For 'MatrixInverse', LAPACK could not allocate the row-major copy of matrix 0 of "
                                  "the batch (1536x1536, LAPACKE error -1011)")
    assert report["same"] and report["cache_intact"]


def test_the_gemm_panel_is_planned_exactly_when_the_stack_cannot_hold_it():
    """The generated GEMM copies a transposed b into a K x 4-vector panel: on the stack up to 128 KiB (k = 512
    for any dtype), the workspace's first part beyond it; the BLAS (gemv, untransposed b) needs none."""
    def parts(a, b, tb=True, op="MatMul", dtype=F32):
        spec = get(op).spec({"transpose_b": tb}, [TensorType(a, dtype), TensorType(b, dtype)])
        layout = gemm_plan.product(spec.attrs, spec.inputs, spec.outputs, op)
        assert get(op).workspace_bytes(spec.attrs, spec.inputs, spec.outputs) == scratch_plan.layout_bytes(layout)
        return [(name, kind, count) for name, kind, count in layout], emit(spec)
    assert parts((8, 512), (24, 512))[0] == []
    layout, body = parts((8, 513), (24, 513))
    assert layout == [("ob_panel", F32, 513 * 64)] and "ob_panel = (float *)(ob_ws + 0);" in body
    assert parts((8, 513), (24, 513), dtype=F64)[0] == [("ob_panel", F64, 513 * 32)]
    assert parts((1, 4000), (24, 4000))[0] == []  # one row: gemv
    assert parts((8, 4000), (4000, 24), tb=False)[0] == []  # b read in place
    layout, body = parts((8, 600), (24, 600), dtype="float16")  # the float32 product's panel, then the copies
    assert [p[0] for p in layout] == ["ob_panel", "ob_a", "ob_b", "ob_c"] and body.count("*restrict ob_panel") == 1
    fused = get("FusedMatMul")
    mm = get("MatMul").spec({"transpose_b": True}, [TensorType((8, 513), F32), TensorType((24, 513), F32)])
    assert fused is not None and get("MatMul").workspace_bytes(mm.attrs, mm.inputs, mm.outputs) == 513 * 64 * 4


GEMM_OOM = r"""
import json, resource, sys
import numpy as np
import opbuild as ms
from opbuild import Tensor, nn, ops

def vm():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024

rng = np.random.default_rng(3)
if sys.argv[1] == "gemm":
    k = 1 << 16  # the panel of the transposed b: k * 256 bytes = 16 MiB, more than the room left below
    a = Tensor(rng.standard_normal((4, k)).astype(np.float32))
    b = Tensor(rng.standard_normal((16, k)).astype(np.float32))
    mm = ops.MatMul(transpose_b=True)
    graph = ms.jit(lambda x, y: mm(x, y) * 2.0)
    cases = {"pynative": lambda: mm(a, b), "graph": lambda: graph(a, b)}
else:
    class Inside(nn.Cell):
        # The batch moved inside other dims: each 16 MiB row is copied through a scratch row; a small output
        # (a call allocates its outputs).
        def construct(self, x):
            t = ops.transpose(x, (1, 0, 2)) * 2.0
            return (ops.transpose(t, (1, 0, 2)) + 1.0).sum(2)

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Inside()
    net.set_inputs(Tensor(shape=[None, 2, 1 << 21], dtype=ms.float32))
    xs = Tensor(rng.standard_normal((2, 2, 1 << 21)).astype(np.float32))
    cases = {"rows": lambda: net(xs)}
# Every kernel built and loaded, every arena allocated first: nothing but the calls runs under the limit.
first = {name: call().asnumpy() for name, call in cases.items()}
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
report = {}
for name, call in cases.items():
    out = None
    resource.setrlimit(resource.RLIMIT_AS, (vm() + (4 << 20), hard))
    try:
        out = call()
        report[name] = None
    except MemoryError as e:
        report[name] = type(e).__name__
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    report[name + " same"] = out is not None and bool(np.array_equal(out.asnumpy(), first[name]))
    report[name + " after"] = bool(np.array_equal(call().asnumpy(), first[name]))
print(json.dumps(report))
"""


@pytest.mark.slow
def test_gemm_panel_and_copied_rows_never_abort_when_memory_runs_out(tmp_path):
    """With no memory to spare, a large-k product with a transposed b and a run-time-batch kernel copying 16 MiB
    rows do not abort the process (they allocated their scratch in the kernel, and aborted when that failed):
    a graph's calls run in the arena planned beforehand and give the same bits, PyNative's workspace fails in
    Python with a MemoryError, and the next call is right."""
    script = tmp_path / "gemm_oom.py"
    script.write_text(GEMM_OOM)
    report = {}
    # rows twice: the second process runs with every kernel in the cache (no compiler ran in it: the
    # allocations its build left behind could otherwise serve a kernel's malloc under the limit).
    for case in ("gemm", "rows", "rows"):
        proc = run_python(str(script), case, env={"OPBUILD_CACHE_PATH": str(tmp_path / "cache"), "OMP_NUM_THREADS": "1",
                                                  "OPENBLAS_NUM_THREADS": "1", "MALLOC_MMAP_THRESHOLD_": "65536"},
                          check=False)
        assert proc.returncode == 0, (case, proc.returncode, proc.stdout, proc.stderr)  # -6: abort()
        report.update(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert report["pynative"] == "MemoryError" and report["pynative after"], report
    assert report["graph"] is None and report["graph same"] and report["graph after"], report
    assert report["rows"] is None and report["rows same"] and report["rows after"], report


def test_no_emitter_writes_an_abort_or_an_unchecked_allocation():
    """The C every emitter writes (the Python files under targets/ that hold it) calls no ``abort()`` and
    allocates only where no plan can size the memory: pocketfft's driver (fft_prelude.py), whose failure is
    checked and reported through the status words."""
    root = Path(targets_pkg.__file__).parent
    allowed = {"cpu/fft_prelude.py"}
    found = {}
    for path in root.rglob("*.py"):
        text = path.read_text()
        rel = path.relative_to(root).as_posix()
        assert not re.search(r"\babort\s*\(\s*\)", text), rel
        if re.search(r"\b(malloc|calloc|realloc|aligned_alloc|posix_memalign)\s*\(", text):
            found[rel] = text
    assert set(found) <= allowed, sorted(found)
    fft = found.get("cpu/fft_prelude.py", "")
    assert "if (!buf) failed = 1;" in fft and "if (!plan) return -1;" in fft
