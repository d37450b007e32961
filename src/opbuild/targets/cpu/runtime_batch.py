"""CPU kernels that take the batch size at run time (passes/row_plan.py makes their descriptors).

ABI: a run-time-batch kernel is ``void <symbol>(void *const *args)`` like every kernel (codegen.py), whose
``args`` hold its inputs, its outputs, its workspace when it has one (the op's own, then the scratch rows
below: passes/row_plan.py ``row_scratch``, planned by the graph), then the **batch count** ``n``
as an integer in a pointer slot (``(intptr_t)args[k]``), after the status words of an op that declares a
status (every row reports into the same words). A batched operand (its descriptor's shape has ``-k``
at its batch dim: ``k`` rows per batch row, ``-1`` for the batch itself) holds ``n`` batch rows of its batch-1
bytes: one after the other when every dim before the batch dim has size 1, else interleaved as the dims
before it say (``A`` blocks per batch row, each block of the ``n`` rows together).

Two ways to compute one:

* ``rows``: the op's own emitter writes the batch-1 kernel (its descriptor without ``runtime_batch``, the
  batch dim 1) as a static function, and the exported function calls it once per row with each batched
  operand's pointer advanced by its bytes per row, the others as they are (a convolution, pooling,
  BatchNorm, Softmax or an elementwise chain: an outer loop over the ``n`` images or rows). An operand whose
  batch dim lies inside other dims (after a Transpose moving it) has its row copied into a scratch row of
  the workspace before the call, or from it after (nothing allocated in the kernel). Correct for any op of a
  row-wise graph: row i of its outputs depends on row i of its batched inputs only.
* ``gemm``: a float MatMul or BatchMatMul (or one with a fused epilogue) whose left operand is batched (not in
  its K dim, not transposed) and right one is not (a BatchMatMul's ``b`` without batch dims) makes one GEMM
  with ``M = n * rows`` (gemv at one row, as the static kernel does), then runs its epilogue
  (``fused_gemm.py``'s loops, batch 1) once per row.

Rows run on OpenMP's threads when their bodies are small and independent (:func:`_row_loop`); a larger
body uses threads inside, as its static kernel does.
"""

from __future__ import annotations

import functools
import hashlib
import math
from pathlib import Path

from ...core.dtypes import BY_NAME
from ...core.ir import KernelSpec
from ...ops.fused_gemm import _parts
from ...ops.matmul import _as_matrices
from ...ops.registry import get as get_op
from ...passes.row_plan import batch_axes, is_runtime, outer, row_scratch, row_spec
from . import codegen, kernels
from .kernels import fused_gemm as k_fused_gemm
from .kernels import matmul as k_matmul
from .kernels.fused_gemm import epilogue_loop, pre_loops
from .kernels.matmul import _Gemm, _gemv_call

_GEMM_OPS = ("MatMul", "FusedMatMul", "BatchMatMul", "FusedBatchMatMul")
_PLAIN = ("MatMul", "BatchMatMul")  # no epilogue: the GEMM is the whole kernel
_FLOATS = ("float32", "float64")


@functools.cache
def tag() -> str:
    """The generator tag joined to every run-time-batch descriptor: sha256 of the files that write their
    wrappers (this one, and the GEMM, epilogue and operand-shape helpers it calls); the op's own emitter is
    in the descriptor's ``codegen`` field as for its static kernels."""
    h = hashlib.sha256()
    for mod in (__file__, k_fused_gemm.__file__, k_matmul.__file__, codegen.__file__,
                _as_matrices.__code__.co_filename, _parts.__code__.co_filename, row_scratch.__code__.co_filename):
        h.update(Path(mod).read_bytes())
    return h.hexdigest()[:32]


def _gemm_producer(spec: KernelSpec) -> tuple[KernelSpec, _Gemm] | None:
    """The batch-1 product whose M can take the batch (the ``gemm`` way) and its GEMM for one batch row (``m``:
    the rows of ``a`` per batch row, every batch dim of ``a`` stacked), or None."""
    if spec.op not in _GEMM_OPS:
        return None
    axes = batch_axes(spec)
    inner = row_spec(spec)
    producer = inner if spec.op in _PLAIN else _parts(inner.op, inner.attrs, inner.inputs).producer
    a, b = producer.inputs
    if axes[0] is None or axes[1] is not None or a.rank < 2 or axes[0] >= a.rank - 1 or not outer(a, axes[0]) \
            or producer.attrs.get("transpose_a") or a.dtype not in _FLOATS \
            or any(t.dtype != a.dtype for t in (*producer.inputs, *producer.outputs)) \
            or any(x == 0 for t in (*producer.inputs, *producer.outputs) for x in t.shape):
        return None
    if producer.op == "MatMul":
        a_mat, b_mat = a.shape, b.shape
    else:
        a_batch, b_batch, a_mat, b_mat = _as_matrices(producer.op, producer.attrs, producer.inputs)
        if math.prod(b_batch) != 1:
            return None
        a_mat = (math.prod(a_batch) * a_mat[0], a_mat[1])  # b is shared: a's batches are stacked rows
    return producer, _Gemm.of(a_mat, b_mat, False, bool(producer.attrs.get("transpose_b")))


def emit(spec: KernelSpec) -> str:
    """The body of the batch-1 function of a run-time-batch kernel: the op's batch-1 body (``rows``), the
    epilogue alone (``gemm`` with a fused epilogue) or nothing (a plain MatMul)."""
    inner = row_spec(spec)
    if _gemm_producer(spec) is None:
        return kernels.emit(inner)
    if spec.op in _PLAIN:
        return ""
    parts = _parts(inner.op, inner.attrs, inner.inputs)
    return "\n".join([pre_loops(parts, inner.attrs.get("pre", [])), epilogue_loop(parts, inner.attrs["members"])])


def _gemm_statement(producer: KernelSpec, g: _Gemm, out: int) -> str:
    """C running the product ``g`` (one batch row's) on ``ob_n`` batch rows of its left operand into
    ``args[out]``: one GEMM of ``ob_n * g.m`` rows."""
    a = producer.inputs[0]
    t = codegen.ctype(a.dtype)
    pa, pb, pc = f"((const {t} *)args[0])", f"((const {t} *)args[1])", f"(({t} *)args[{out}])"
    gemv = _gemv_call(g, a.dtype, pa, pb, pc, 1)
    fn, one, zero = codegen.gemm_symbols(a.dtype)
    tb = "ObTrans" if g.tb else "ObNoTrans"
    gemm = (f"{fn}(ObRowMajor, ObNoTrans, {tb}, ob_m, {g.n}, {g.k}, {one}, {pa}, {max(g.a_cols, 1)}, {pb}, "
            f"{max(g.b_cols, 1)}, {zero}, {pc}, {max(g.n, 1)});")
    # Small products stay on the calling thread (codegen.blas_serial), decided per call from the rows.
    serial = codegen.blas_serial("ob_call", 0).replace("ob_call", "{call}")
    one_row = codegen.blas_serial(gemv, g.n * g.k) if gemv else serial.replace("{call}", gemm)
    return "\n".join([
        f"const int64_t ob_m = ob_n * {g.m};",
        f"if (ob_m == 1) {{ {one_row} }}",
        f"else if (ob_m * {g.n * g.k} < {codegen.BLAS_PARALLEL_MIN_MACS}) {{ {serial.replace('{call}', gemm)} }}",
        f"else {{ {gemm} }}",
    ])


def _row_loop(symbol: str, inner: KernelSpec, axes: list, own: bool, scratch: list, status: bool,
              blas: bool) -> str:
    """C calling ``<symbol>_row_body`` once per row ``ob_i``: batched operands whose rows are contiguous (the
    batch dim outermost) at their row's offset; one whose batch dim lies inside other dims (``A`` blocks of
    ``B`` bytes per row, the blocks ``n`` rows apart) copied into its scratch row (``scratch``: its offset in
    the kernel's planned workspace, passes/row_plan.py ``row_scratch``) before the call (inputs) and back after
    it (outputs); the others as they are. ``own``: the batch-1 body takes the op's own workspace (at the
    workspace's start). Rows run on OpenMP's threads when the batch is large, the row body small and nothing
    shares scratch memory between rows (no workspace, no copied rows, no BLAS)."""
    types = [*inner.inputs, *inner.outputs]
    n_in = len(inner.inputs)
    workspace = own or any(at is not None for at in scratch)
    call, before, after, rows = [], [], [], []
    widest = 0
    for i, (t, axis, at) in enumerate(zip(types, axes, scratch)):
        const = "const " if i < n_in else ""
        c = codegen.ctype(t.dtype)
        if axis is None:
            call.append(f"({const}{c} *)args[{i}]")
            continue
        widest = max(widest, t.size)
        row = t.size * BY_NAME[t.dtype].np_dtype.itemsize  # t is the batch-1 type: one row
        if at is None:  # the batch dim outermost: row i in place
            call.append(f"({const}{c} *)((const char *)args[{i}] + ob_i * {row})")
            continue
        blocks = math.prod(t.shape[:axis])
        block = row // blocks
        rows.append(f"char *ob_t{i} = (char *)args[{len(types)}] + {at};")
        copy = (f"for (int64_t ob_b = 0; ob_b < {blocks}; ob_b++) memcpy({{dst}}, {{src}}, {block});")
        strided = f"(char *)args[{i}] + (ob_b * ob_n + ob_i) * {block}"
        if i < n_in:
            before.append(copy.format(dst=f"ob_t{i} + ob_b * {block}", src=strided))
        else:
            after.append(copy.format(dst=strided, src=f"ob_t{i} + ob_b * {block}"))
        call.append(f"({const}{c} *)ob_t{i}")
    if own:
        call.append(f"(char *)args[{len(types)}]")
    if status:
        call.append(f"(int64_t *)args[{len(types) + workspace}]")
    body = "\n  ".join([*before, f"{symbol}_row_body({', '.join(call)});", *after])
    loop = f"for (int64_t ob_i = 0; ob_i < ob_n; ob_i++) {{\n  {body}\n}}"
    if not (workspace or blas) and widest < codegen.PARALLEL_MIN_ELEMENTS:
        # Two loops, not an `if` clause: entering a parallel region whose `if` is false still costs more than
        # a small pooling or elementwise kernel's whole call (docs/dynamic-batch.md).
        loop = (f"if (ob_n * {widest} >= {codegen.PARALLEL_MIN_ELEMENTS}) {{\n"
                f"#pragma omp parallel for schedule(static)\n{loop}\n}} else {{\n{loop}\n}}")
    return "\n".join([*rows, loop])


def function(symbol: str, spec: KernelSpec, body: str) -> str:
    """The C of run-time-batch kernel ``spec`` exported as ``symbol`` (``body``: :func:`emit`'s)."""
    inner = row_spec(spec)
    op = get_op(spec.op)
    opt = codegen.CLASS_OPT[kernels.opt_class(inner)]
    own = op.workspace_bytes(inner.attrs, inner.inputs, inner.outputs)
    axes = batch_axes(spec)
    # The same workspace the graph plans for this kernel (passes/row_plan.py): the op's own, then scratch rows.
    scratch, total = row_scratch(own, [*inner.inputs, *inner.outputs], axes)
    status = op.status is not None
    gemm = _gemm_producer(spec)
    count = len(inner.inputs) + len(inner.outputs) + (total > 0) + status
    parts = [f"const int64_t ob_n = (int64_t)(intptr_t)args[{count}];"]
    if gemm is not None:
        parts.append(_gemm_statement(*gemm, len(inner.inputs)))
    row_fn = ""
    if gemm is None or spec.op not in _PLAIN:
        row_fn = codegen.kernel_function(f"{symbol}_row", inner.inputs, inner.outputs, body, opt, own > 0, status)
        row_fn = row_fn[:row_fn.index("\nOB_EXPORT ")] + "\n"
        parts.append(_row_loop(symbol, inner, axes, own > 0, scratch, status, kernels.needs_blas(spec.op)))
    attr = f'OB_OPT("{opt}") ' if opt else ""
    return (row_fn + f"OB_EXPORT {attr}void {symbol}(void *const *args) {{\n  "
            + "\n".join(parts).replace("\n", "\n  ") + "\n}\n")


__all__ = ["emit", "function", "is_runtime", "tag"]
