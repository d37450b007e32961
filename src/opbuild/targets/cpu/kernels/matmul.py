"""CPU kernels of the matrix family (ops/matmul.py): MatMul, BatchMatMul, BiasAdd and BiasAddGrad.

Float kernels call the BLAS's cblas gemm (``OB_BLAS_SGEMM``/``DGEMM``, declared in codegen.py, named and linked
by compilers/blas.py for the emitters registered with ``blas=True``), or its gemv (``OB_BLAS_SGEMV``/``DGEMV``)
for a product with one row or one column (a batch-1 classifier head); integer kernels use a plain C loop
(correct, not fast) with unsigned accumulation, so overflow wraps as it does in NumPy instead of being
undefined behaviour in C. float16/bfloat16 products convert their inputs to float32 (in the kernel's planned
workspace: ops/gemm_plan.py ``product``), call the float32 gemm and round the result once on store.

Batches are walked with :func:`broadcast_loop` over the output's batch dims, so each GEMM's operand offsets
are affine expressions with constant strides (broadcast batch dims have stride 0). When ``b`` has no real
batch dims and ``a`` is not transposed, all batches fold into one GEMM with ``M * batch`` rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....core.dtypes import FLOATS
from ....core.ir import KernelSpec, TensorType
from ....ops.gemm_plan import product
from ....ops.matmul import _as_matrices, _bias_axis
from ..blocked import broadcast_map, convert_in, convert_out
from ..codegen import (
    blas_serial,
    broadcast_loop,
    compute_ctype,
    ctype,
    gemm_symbols,
    gemv_symbols,
    is_half,
    load,
    store,
)
from . import gemm_tiled
from .registry import register
from .scratch import carve

_UNSIGNED = {"int32": "uint32_t", "int64": "uint64_t"}


@dataclass(frozen=True)
class _Gemm:
    """One (batched) product ``out[M, N] = op(a)[M, K] @ op(b)[K, N]`` on row-major stored matrices.

    ``a_rows x a_cols`` and ``b_rows x b_cols`` are the stored (untransposed) matrix shapes, so the leading
    dimensions are ``a_cols`` and ``b_cols``.
    """

    m: int
    n: int
    k: int
    ta: bool
    tb: bool
    a_cols: int
    b_cols: int

    @staticmethod
    def of(a_mat: tuple[int, int], b_mat: tuple[int, int], ta: bool, tb: bool) -> _Gemm:
        m, k = (a_mat[1], a_mat[0]) if ta else a_mat
        kb, n = (b_mat[1], b_mat[0]) if tb else b_mat
        assert k == kb
        return _Gemm(m, n, k, ta, tb, a_mat[1], b_mat[1])


def _gemv_call(g: _Gemm, dtype: str, a: str, b: str, c: str, m: int) -> str | None:
    """A cblas gemv statement computing ``c = op(a) @ op(b)`` when the product has one row or one column
    (the vector operand and ``c`` are then contiguous whatever the transposes), else None. GEMM with one
    row or column still packs its matrix operand into panels: gemv streams it once."""
    fn, one, zero = gemv_symbols(dtype)
    if m == 1:  # c[N] = op(b)^T-as-stored @ a[K]: row-major b is K x N (or N x K when transposed)
        rows, cols = (g.n, g.k) if g.tb else (g.k, g.n)
        trans = "ObNoTrans" if g.tb else "ObTrans"
        return (f"{fn}(ObRowMajor, {trans}, {rows}, {cols}, {one}, {b}, {max(g.b_cols, 1)}, {a}, 1, {zero}, "
                f"{c}, 1);")
    if g.n == 1:  # c[M] = op(a) @ b[K]: row-major a is M x K (or K x M when transposed)
        rows, cols = (g.k, m) if g.ta else (m, g.k)
        trans = "ObTrans" if g.ta else "ObNoTrans"
        return (f"{fn}(ObRowMajor, {trans}, {rows}, {cols}, {one}, {a}, {max(g.a_cols, 1)}, {b}, 1, {zero}, "
                f"{c}, 1);")
    return None


def _gemm_call(g: _Gemm, dtype: str, a: str, b: str, c: str, m: int | None = None) -> str:
    """A cblas gemm statement computing ``c = op(a) @ op(b)`` (``m`` overrides the row count); a product
    with one row or one column calls gemv instead (:func:`_gemv_call`)."""
    m = g.m if m is None else m
    gemv = _gemv_call(g, dtype, a, b, c, m)
    if gemv is not None:
        return blas_serial(gemv, m * g.n * g.k)
    if gemm_tiled.pays(dtype, m, g.n, g.k, g.tb):
        return gemm_tiled.gemm_tiled(dtype, m, g.n, g.k, g.ta, g.tb, g.a_cols, g.b_cols, a, b, c)
    fn, one, zero = gemm_symbols(dtype)
    ta = "ObTrans" if g.ta else "ObNoTrans"
    tb = "ObTrans" if g.tb else "ObNoTrans"
    # Leading dimensions must be >= 1 even for empty matrices (cblas rejects 0 and prints an error).
    return blas_serial(f"{fn}(ObRowMajor, {ta}, {tb}, {m}, {g.n}, {g.k}, {one}, {a}, {max(g.a_cols, 1)}, {b}, "
                       f"{max(g.b_cols, 1)}, {zero}, {c}, {max(g.n, 1)});", m * g.n * g.k)


def _int_matmul(g: _Gemm, dtype: str, a: str, b: str, c: str) -> str:
    """A plain loop computing ``c = op(a) @ op(b)`` for integers (i-k-j order, so the inner loop is
    unit-stride in ``c`` and, untransposed, in ``b``). Accumulates unsigned: wrap-around, not UB."""
    u = _UNSIGNED[dtype]
    a_at = f"{a}[kk * {g.a_cols} + i]" if g.ta else f"{a}[i * {g.a_cols} + kk]"
    b_at = f"{b}[j * {g.b_cols} + kk]" if g.tb else f"{b}[kk * {g.b_cols} + j]"
    return (
        f"{{ {u} *restrict acc = ({u} *){c};\n"
        f"  for (int64_t i = 0; i < {g.m * g.n}; i++) acc[i] = 0;\n"
        f"  for (int64_t i = 0; i < {g.m}; i++)\n"
        f"    for (int64_t kk = 0; kk < {g.k}; kk++) {{\n"
        f"      const {u} av = ({u}){a_at};\n"
        f"      for (int64_t j = 0; j < {g.n}; j++) acc[i * {g.n} + j] += av * ({u}){b_at};\n"
        f"    }}\n}}"
    )


def _half_wrap(k: KernelSpec, body: str) -> str:
    """For a half dtype: convert in0/in1 into float32 scratch buffers (the kernel's planned workspace:
    ops/gemm_plan.py ``product``), run the float32 ``body`` on them (it reads ``in0``/``in1`` and
    writes ``out0``, shadowed here by the scratch buffers) and round the float32 results once into the
    output."""
    dtype = k.inputs[0].dtype
    na, nb, nc = k.inputs[0].size, k.inputs[1].size, k.outputs[0].size
    return "\n".join([
        "{",
        carve(product(k.attrs, k.inputs, k.outputs, k.op), skip=("ob_panel",)),  # the GEMM declares its panel
        convert_in(dtype, "ob_a", "in0", na),  # float16: a block conversion (targets/cpu/blocked.py)
        convert_in(dtype, "ob_b", "in1", nb),
        f"{ctype(dtype)} *restrict ob_out = out0;",
        "{",
        "const float *restrict in0 = ob_a, *restrict in1 = ob_b; float *restrict out0 = ob_c;",
        body,
        "}",
        convert_out(dtype, "ob_out", "ob_c", nc),
        "}",
    ])


def _product(g: _Gemm, dtype: str, a: str, b: str, c: str) -> str:
    if g.m * g.n == 0:
        return ""  # empty output: nothing to write
    if g.k == 0:  # sum over an empty axis: zeros (not a gemm call with k = 0, which some BLAS skip)
        return f"memset({c}, 0, sizeof({ctype(dtype)}) * {g.m * g.n});"
    if dtype in FLOATS:
        return _gemm_call(g, dtype, a, b, c)
    return _int_matmul(g, dtype, a, b, c)


def _matmul_emit(k: KernelSpec) -> str:
    a, b = k.inputs
    g = _Gemm.of(a.shape, b.shape, k.attrs["transpose_a"], k.attrs["transpose_b"])
    if is_half(a.dtype):
        if g.m * g.n == 0:
            return ""
        return _half_wrap(k, _product(g, "float32", "in0", "in1", "out0"))
    return _product(g, a.dtype, "in0", "in1", "out0")


def _batch_emit(k: KernelSpec) -> str:
    a_batch, b_batch, a_mat, b_mat = _as_matrices(k.op, k.attrs, k.inputs)
    g = _Gemm.of(a_mat, b_mat, k.attrs["transpose_a"], k.attrs["transpose_b"])
    dt = k.inputs[0].dtype
    batch = np.broadcast_shapes(a_batch, b_batch)
    n_batch = int(np.prod(batch, dtype=np.int64))
    if n_batch == 0:
        return ""
    if is_half(dt):
        body = _batch_body(g, "float32", a_batch, b_batch, a_mat, b_mat, batch, n_batch)
        if not body:
            return ""
        return _half_wrap(k, body)
    return _batch_body(g, dt, a_batch, b_batch, a_mat, b_mat, batch, n_batch)


def _tall(g: _Gemm, dt: str, b_batch) -> bool:
    """Whether a batched product runs as one tall GEMM (``b`` shared by every batch, ``a`` untransposed)."""
    return int(np.prod(b_batch, dtype=np.int64)) == 1 and not g.ta and dt in FLOATS and g.m * g.n * g.k > 0


def batch_one(types) -> list[TensorType]:
    """The types with a run-time batch dim (``-k``: k rows per batch row, runtime_batch.py) at batch 1 (``k``),
    the shapes the body of such a kernel is generated for."""
    return [TensorType(tuple(abs(d) for d in t.shape), t.dtype) for t in types]


def tiled_class(k: KernelSpec) -> str | None:
    """``compute`` for a MatMul/BatchMatMul whose product takes the generated GEMM (gemm_tiled.py: it needs
    -O3's scheduling), else None (the default rule: glue around a BLAS call)."""
    return product_class(k.op, k.attrs, k.inputs[:2])


def product_class(op: str, attrs: dict, inputs) -> str | None:
    """:func:`tiled_class` of a MatMul/BatchMatMul ``op`` with normalized ``attrs`` on ``inputs`` (a, b): also
    a fused kernel's producer, read from the fused descriptor as it stands (this runs for every kernel
    request, warm ones included, so it builds no spec)."""
    a, b = batch_one(inputs)
    if is_half(a.dtype) or a.dtype not in FLOATS:
        return None
    if op == "MatMul":
        g = _Gemm.of(a.shape, b.shape, attrs["transpose_a"], attrs["transpose_b"])
        m = g.m
    else:
        a_batch, b_batch, a_mat, b_mat = _as_matrices(op, attrs, [a, b])
        g = _Gemm.of(a_mat, b_mat, attrs["transpose_a"], attrs["transpose_b"])
        batch = np.broadcast_shapes(a_batch, b_batch)
        m = g.m * int(np.prod(batch, dtype=np.int64)) if _tall(g, a.dtype, b_batch) else g.m
    return "compute" if gemm_tiled.pays(a.dtype, m, g.n, g.k, g.tb) else None


def _batch_body(g: _Gemm, dt: str, a_batch, b_batch, a_mat, b_mat, batch, n_batch: int) -> str:
    if _tall(g, dt, b_batch):
        # b is shared by every batch and a's batches are stacked rows: one tall GEMM does them all.
        return _gemm_call(g, dt, "in0", "in1", "out0", m=g.m * n_batch)
    a_size, b_size, c_size = a_mat[0] * a_mat[1], b_mat[0] * b_mat[1], g.m * g.n
    stmt = _product(g, dt, f"(in0 + p0 * {a_size})", f"(in1 + p1 * {b_size})", f"(out0 + o * {c_size})")
    return broadcast_loop(batch, [a_batch, b_batch], stmt) if stmt else ""


def _bias_emit(k: KernelSpec) -> str:
    x = k.inputs[0]
    axis = _bias_axis(k.attrs, x)
    c = x.shape[axis]
    outer = int(np.prod(x.shape[:axis], dtype=np.int64))
    inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    if outer * c * inner == 0:
        return ""
    t, dt = compute_ctype(x.dtype), x.dtype  # half types: added in float, rounded once on store
    bias_shape = (c,) + (1,) * (x.rank - axis - 1)  # the bias as NumPy broadcasts it against x
    blocked = broadcast_map(x.shape, [x.shape, bias_shape], [dt, dt], dt, lambda e: ("", f"{e[0]} + {e[1]}", t))
    if blocked:  # float16: rows converted by blocks (targets/cpu/blocked.py)
        return blocked
    y = store(dt, load(dt, "in0[base + j]") + " + bv", t)
    return (f"for (int64_t i = 0; i < {outer}; i++)\n"
            f"  for (int64_t ch = 0; ch < {c}; ch++) {{\n"
            f"    const {t} bv = {load(dt, 'in1[ch]')};\n"
            f"    const int64_t base = (i * {c} + ch) * {inner};\n"
            f"    for (int64_t j = 0; j < {inner}; j++) out0[base + j] = {y};\n"
            f"  }}")


# Channels summed at a time when the channel axis is the last one (Dense's (N, C)): a block of double
# accumulators small enough for the stack, walked with unit-stride loads of each row.
BIAS_GRAD_BLOCK = 512
# Independent double partial sums per channel when each channel's elements are contiguous runs (NCHW).
BIAS_GRAD_LANES = 32


def _bias_grad_emit(k: KernelSpec) -> str:
    # The sum of dout over every axis but the channel axis, accumulated in double per channel. A running
    # double sum is one dependent add per element (no vector code without reassociation), so both forms keep
    # independent partial sums that gcc maps onto vector registers: lanes along a channel's contiguous run,
    # or one accumulator per channel of a block when the channel axis is innermost.
    x = k.inputs[0]
    axis = _bias_axis(k.attrs, x)
    c = x.shape[axis]
    outer = int(np.prod(x.shape[:axis], dtype=np.int64))
    inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    t = ctype(x.dtype)
    acc = "double" if x.dtype in FLOATS or is_half(x.dtype) else t
    elem = load(x.dtype, "row[j]")
    if inner == 1:
        blk = min(BIAS_GRAD_BLOCK, max(c, 1))
        return (f"for (int64_t c0 = 0; c0 < {c}; c0 += {blk}) {{\n"
                f"  const int64_t cn = {c} - c0 < {blk} ? {c} - c0 : {blk};\n"
                f"  {acc} s[{blk}];\n"
                f"  for (int64_t j = 0; j < cn; j++) s[j] = 0;\n"
                f"  for (int64_t i = 0; i < {outer}; i++) {{\n"
                f"    const {t} *restrict row = in0 + i * {c} + c0;\n"
                f"    for (int64_t j = 0; j < cn; j++) s[j] += {elem};\n"
                f"  }}\n"
                f"  for (int64_t j = 0; j < cn; j++) out0[c0 + j] = {store(x.dtype, 's[j]', acc)};\n"
                f"}}")
    lanes = BIAS_GRAD_LANES
    main = inner - inner % lanes
    return (f"for (int64_t ch = 0; ch < {c}; ch++) {{\n"
            f"  {acc} part[{lanes}] = {{0}};\n"
            f"  {acc} s = 0;\n"
            f"  for (int64_t i = 0; i < {outer}; i++) {{\n"
            f"    const {t} *restrict row = in0 + (i * {c} + ch) * {inner};\n"
            f"    for (int64_t j0 = 0; j0 < {main}; j0 += {lanes})\n"
            f"      for (int64_t l = 0; l < {lanes}; l++) {{ const int64_t j = j0 + l; part[l] += {elem}; }}\n"
            f"    for (int64_t j = {main}; j < {inner}; j++) s += {elem};\n"
            f"  }}\n"
            f"  for (int64_t l = 0; l < {lanes}; l++) s += part[l];\n"
            f"  out0[ch] = {store(x.dtype, 's', acc)};\n"
            f"}}")


register("MatMul", _matmul_emit, blas=True, klass=tiled_class)
register("BatchMatMul", _batch_emit, blas=True, klass=tiled_class)
register("BiasAdd", _bias_emit)
register("BiasAddGrad", _bias_grad_emit)
