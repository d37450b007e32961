"""Matrix products and bias: MatMul, BatchMatMul (NumPy-style batch broadcasting) and BiasAdd.

Float kernels call the BLAS's cblas gemm (``OB_BLAS_SGEMM``/``DGEMM``, declared in targets/cpu/codegen.py,
named and linked by its compilers/blas.py when the OpDef has ``needs_blas=True``); integer kernels use a plain C
loop (correct, not fast) with unsigned accumulation, so overflow wraps as it does in NumPy instead of being
undefined behaviour in C.

Batches are walked with :func:`targets.cpu.codegen.broadcast_loop` over the output's batch dims, so each GEMM's operand
offsets are affine expressions with constant strides (broadcast batch dims have stride 0). When ``b`` has no
real batch dims and ``a`` is not transposed, all batches fold into one GEMM with ``M * batch`` rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.dtypes import FLOATS, HALFS, NUMERIC
from ..core.errors import ShapeError
from ..core.ir import KernelSpec, TensorType
from ..core.tensor import as_tensor
from ..targets.cpu.blocked import broadcast_map, convert_in, convert_out
from ..targets.cpu.codegen import broadcast_loop, compute_ctype, ctype, gemm_symbols, is_half, load, store
from .primitive import Primitive, apply, defop
from .registry import same_dtype

_UNSIGNED = {"int32": "uint32_t", "int64": "uint64_t"}
# float16/bfloat16 products: inputs converted to float32, float32 BLAS gemm, the result rounded once on store.
# The strategy is the ``half_gemm`` attribute of the descriptor (normalize), so a later native float16/bfloat16
# kernel (AVX512-FP16/BF16) is a different cache entry rather than a silent change of an existing one.
_GEMM_DTYPES = NUMERIC + HALFS
HALF_GEMM = "f32_blas"


def _bool_attr(op: str, attrs: dict, name: str, ins: Sequence[TensorType]) -> bool:
    value = attrs.get(name, False)
    if not isinstance(value, (bool, np.bool_)):
        raise ShapeError(op, f"{name} must be a bool, got {value!r}", list(ins))
    return bool(value)


def _transpose_normalize(op: str):
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        out = {"transpose_a": _bool_attr(op, attrs, "transpose_a", ins),
               "transpose_b": _bool_attr(op, attrs, "transpose_b", ins)}
        if ins and ins[0].dtype in HALFS:
            out["half_gemm"] = HALF_GEMM
        return out

    return normalize


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


def _gemm_call(g: _Gemm, dtype: str, a: str, b: str, c: str, m: int | None = None) -> str:
    """A cblas gemm statement computing ``c = op(a) @ op(b)`` (``m`` overrides the row count)."""
    m = g.m if m is None else m
    fn, one, zero = gemm_symbols(dtype)
    ta = "ObTrans" if g.ta else "ObNoTrans"
    tb = "ObTrans" if g.tb else "ObNoTrans"
    # Leading dimensions must be >= 1 even for empty matrices (cblas rejects 0 and prints an error).
    return (f"{fn}(ObRowMajor, {ta}, {tb}, {m}, {g.n}, {g.k}, {one}, {a}, {max(g.a_cols, 1)}, {b}, "
            f"{max(g.b_cols, 1)}, {zero}, {c}, {max(g.n, 1)});")


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


def _half_wrap(dtype: str, sizes: tuple[int, int, int], body: str) -> str:
    """For a half ``dtype``: convert in0/in1 (``sizes[0]``/``sizes[1]`` elements) into float32 scratch
    buffers, run the float32 ``body`` on them (it reads ``in0``/``in1`` and writes ``out0``, shadowed here by
    the scratch buffers) and round the ``sizes[2]`` float32 results once into the output."""
    na, nb, nc = sizes
    return "\n".join([
        "{",
        f"float *ob_a = (float *)malloc(sizeof(float) * {max(na, 1)}), *ob_b = (float *)malloc(sizeof(float) * "
        f"{max(nb, 1)}), *ob_c = (float *)malloc(sizeof(float) * {max(nc, 1)});",
        "if (!ob_a || !ob_b || !ob_c) abort();  /* out of memory: no way to report it through the ABI */",
        convert_in(dtype, "ob_a", "in0", na),  # float16: a block conversion (targets/cpu/blocked.py)
        convert_in(dtype, "ob_b", "in1", nb),
        f"{ctype(dtype)} *restrict ob_out = out0;",
        "{",
        "const float *restrict in0 = ob_a, *restrict in1 = ob_b; float *restrict out0 = ob_c;",
        body,
        "}",
        convert_out(dtype, "ob_out", "ob_c", nc),
        "free(ob_a); free(ob_b); free(ob_c);",
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


# ---- MatMul ---------------------------------------------------------------------------------------

def _matmul_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    a, b = ins
    dt = same_dtype("MatMul", ins, _GEMM_DTYPES)
    if a.rank != 2 or b.rank != 2:
        raise ShapeError("MatMul", "both inputs must be 2-D (use BatchMatMul for batches)", list(ins))
    g = _checked_dims("MatMul", attrs, a.shape, b.shape, ins)
    return [TensorType((g[0], g[2]), dt)]


def _checked_dims(op: str, attrs: dict, a_mat: Sequence[int], b_mat: Sequence[int],
                  ins: Sequence[TensorType]) -> tuple[int, int, int]:
    """(M, K, N) of the product; ShapeError when the contracted dims differ."""
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    m, k = (a_mat[1], a_mat[0]) if ta else (a_mat[0], a_mat[1])
    kb, n = (b_mat[1], b_mat[0]) if tb else (b_mat[0], b_mat[1])
    if k != kb:
        raise ShapeError(op, f"inner dimensions do not match: a contributes K={k} "
                             f"(transpose_a={ta}), b contributes K={kb} (transpose_b={tb})", list(ins))
    return m, k, n


def _matmul_emit(k: KernelSpec) -> str:
    a, b = k.inputs
    g = _Gemm.of(a.shape, b.shape, k.attrs["transpose_a"], k.attrs["transpose_b"])
    if is_half(a.dtype):
        if g.m * g.n == 0:
            return ""
        return _half_wrap(a.dtype, (a.size, b.size, g.m * g.n), _product(g, "float32", "in0", "in1", "out0"))
    return _product(g, a.dtype, "in0", "in1", "out0")


def _half_in_float32(ref):
    """The reference of a half-type product: NumPy's float32 result rounded once, as the kernels compute it."""
    def wrapped(attrs: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if a.dtype.name in HALFS:
            return ref(attrs, a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
        return ref(attrs, a, b)

    return wrapped


@_half_in_float32
def _matmul_ref(attrs: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a.T if attrs["transpose_a"] else a
    b = b.T if attrs["transpose_b"] else b
    return np.matmul(a, b)


@defop(infer=_matmul_infer, emit=_matmul_emit, reference=_matmul_ref, normalize=_transpose_normalize("MatMul"),
       n_inputs=2, needs_blas=True)
class MatMul(Primitive):
    """``MatMul(transpose_a=False, transpose_b=False)(a, b)``: the product of two 2-D tensors, optionally
    transposing either first. float32/float64 use OpenBLAS gemm; int32/int64 a plain loop."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False):
        super().__init__(transpose_a=transpose_a, transpose_b=transpose_b)


# ---- BatchMatMul ----------------------------------------------------------------------------------

def _as_matrices(op: str, attrs: dict, ins: Sequence[TensorType]) -> tuple[tuple, tuple, tuple, tuple]:
    """Batch shapes and matrix shapes of a and b; a 1-D a is a row (1, K) and a 1-D b a column (K, 1), as
    in NumPy's matmul (transposing a vector is rejected: it is ambiguous)."""
    a, b = ins
    if a.rank == 0 or b.rank == 0:
        raise ShapeError(op, "inputs must have rank >= 1 (use Mul for scalars)", list(ins))
    for name, t in (("a", a), ("b", b)):
        if t.rank == 1 and attrs[f"transpose_{name}"]:
            raise ShapeError(op, f"transpose_{name} needs {name} of rank >= 2, got a 1-D vector", list(ins))
    a_mat = (1, a.shape[0]) if a.rank == 1 else tuple(a.shape[-2:])
    b_mat = (b.shape[0], 1) if b.rank == 1 else tuple(b.shape[-2:])
    return tuple(a.shape[:-2]), tuple(b.shape[:-2]), a_mat, b_mat


def _batch_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("BatchMatMul", ins, _GEMM_DTYPES)
    a_batch, b_batch, a_mat, b_mat = _as_matrices("BatchMatMul", attrs, ins)
    m, _, n = _checked_dims("BatchMatMul", attrs, a_mat, b_mat, ins)
    try:
        batch = tuple(int(d) for d in np.broadcast_shapes(a_batch, b_batch))
    except ValueError:
        raise ShapeError("BatchMatMul", f"batch dimensions {list(a_batch)} and {list(b_batch)} cannot be "
                                        f"broadcast together", list(ins)) from None
    mat = ((m,) if ins[0].rank > 1 else ()) + ((n,) if ins[1].rank > 1 else ())
    return [TensorType(batch + mat, dt)]


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
        return _half_wrap(dt, (k.inputs[0].size, k.inputs[1].size, k.outputs[0].size), body)
    return _batch_body(g, dt, a_batch, b_batch, a_mat, b_mat, batch, n_batch)


def _batch_body(g: _Gemm, dt: str, a_batch, b_batch, a_mat, b_mat, batch, n_batch: int) -> str:
    if int(np.prod(b_batch, dtype=np.int64)) == 1 and not g.ta and dt in FLOATS and g.m * g.n * g.k > 0:
        # b is shared by every batch and a's batches are stacked rows: one tall GEMM does them all.
        return _gemm_call(g, dt, "in0", "in1", "out0", m=g.m * n_batch)
    a_size, b_size, c_size = a_mat[0] * a_mat[1], b_mat[0] * b_mat[1], g.m * g.n
    stmt = _product(g, dt, f"(in0 + p0 * {a_size})", f"(in1 + p1 * {b_size})", f"(out0 + o * {c_size})")
    return broadcast_loop(batch, [a_batch, b_batch], stmt) if stmt else ""


@_half_in_float32
def _batch_ref(attrs: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.swapaxes(a, -1, -2) if attrs["transpose_a"] else a
    b = np.swapaxes(b, -1, -2) if attrs["transpose_b"] else b
    return np.matmul(a, b)


@defop(infer=_batch_infer, emit=_batch_emit, reference=_batch_ref, normalize=_transpose_normalize("BatchMatMul"),
       n_inputs=2, needs_blas=True)
class BatchMatMul(Primitive):
    """``BatchMatMul(transpose_a=False, transpose_b=False)(a, b)``: batched matrix product over the last two
    dims with NumPy broadcasting of the leading (batch) dims; 1-D operands follow ``np.matmul``. This is
    what ``Tensor.__matmul__`` (``a @ b``) uses."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False):
        super().__init__(transpose_a=transpose_a, transpose_b=transpose_b)


# ---- BiasAdd --------------------------------------------------------------------------------------

_BIAS_FORMATS = ("NCHW", "NHWC", "NCDHW", "NC")


def _bias_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    fmt = attrs.get("data_format", "NCHW")
    if fmt not in _BIAS_FORMATS:
        raise ShapeError("BiasAdd", f"data_format must be one of {', '.join(_BIAS_FORMATS)}, got {fmt!r}",
                         list(ins))
    # Only "channels last" changes the kernel; NC, NCHW and NCDHW all mean axis 1.
    return {"data_format": "NHWC" if fmt == "NHWC" else "NCHW"}


def _bias_axis(attrs: dict, x: TensorType) -> int:
    return x.rank - 1 if attrs["data_format"] == "NHWC" else 1


def _bias_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x, bias = ins
    dt = same_dtype("BiasAdd", ins, _GEMM_DTYPES)
    if x.rank < 2:
        raise ShapeError("BiasAdd", "x must have rank >= 2 (batch, channels, ...)", list(ins))
    axis = _bias_axis(attrs, x)
    if bias.rank != 1 or bias.shape[0] != x.shape[axis]:
        raise ShapeError("BiasAdd", f"bias must be 1-D with {x.shape[axis]} elements (the channel dim, axis "
                                    f"{axis} for {attrs['data_format']})", list(ins))
    return [TensorType(x.shape, dt)]


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


@_half_in_float32
def _bias_ref(attrs: dict, x: np.ndarray, bias: np.ndarray) -> np.ndarray:
    axis = _bias_axis(attrs, TensorType(x.shape, x.dtype.name))
    shape = [1] * x.ndim
    shape[axis] = bias.shape[0]
    return x + bias.reshape(shape)


@defop(infer=_bias_infer, emit=_bias_emit, reference=_bias_ref, normalize=_bias_normalize, n_inputs=2)
class BiasAdd(Primitive):
    """``BiasAdd(data_format="NCHW")(x, bias)``: add a 1-D ``bias`` along the channel axis of ``x`` (axis 1,
    or the last axis for ``"NHWC"``); ``x`` has rank >= 2."""

    def __init__(self, data_format: str = "NCHW"):
        super().__init__(data_format=data_format)

    def __call__(self, x, bias):
        x = as_tensor(x)
        return apply(self.op_name, self.attrs, [x, as_tensor(bias, x)])


PRIMITIVES = {"MatMul": MatMul, "BatchMatMul": BatchMatMul, "BiasAdd": BiasAdd}


# ---- BiasAddGrad and the gradient rules -------------------------------------------------------------------

def _bias_grad_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("BiasAddGrad", ins, _GEMM_DTYPES)
    if ins[0].rank < 2:
        raise ShapeError("BiasAddGrad", "dout must have rank >= 2 (batch, channels, ...)", list(ins))
    return [TensorType((ins[0].shape[_bias_axis(attrs, ins[0])],), dt)]


def _bias_grad_emit(k: KernelSpec) -> str:
    # The sum of dout over every axis but the channel axis, accumulated in double per channel.
    x = k.inputs[0]
    axis = _bias_axis(k.attrs, x)
    c = x.shape[axis]
    outer = int(np.prod(x.shape[:axis], dtype=np.int64))
    inner = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    t = ctype(x.dtype)
    acc = "double" if x.dtype in FLOATS or is_half(x.dtype) else t
    return (f"for (int64_t ch = 0; ch < {c}; ch++) {{\n"
            f"  {acc} s = 0;\n"
            f"  for (int64_t i = 0; i < {outer}; i++) {{\n"
            f"    const {t} *restrict row = in0 + (i * {c} + ch) * {inner};\n"
            f"    for (int64_t j = 0; j < {inner}; j++) s += {load(x.dtype, 'row[j]')};\n"
            f"  }}\n"
            f"  out0[ch] = {store(x.dtype, 's', acc)};\n"
            f"}}")


def _bias_grad_ref(attrs: dict, dy: np.ndarray) -> np.ndarray:
    axis = _bias_axis(attrs, TensorType(dy.shape, dy.dtype.name))
    if dy.dtype.name in HALFS:  # accumulated wide, rounded once
        return dy.astype(np.float64).sum(axis=tuple(d for d in range(dy.ndim) if d != axis)).astype(dy.dtype)
    return dy.sum(axis=tuple(d for d in range(dy.ndim) if d != axis))


@defop(infer=_bias_grad_infer, emit=_bias_grad_emit, reference=_bias_grad_ref, normalize=_bias_normalize,
       n_inputs=1, scenario="backward")
class BiasAddGrad(Primitive):
    """Internal backward op (as MindSpore's ``BiasAddGrad(data_format)``): the bias cotangent of a BiasAdd,
    ``dout`` summed over every axis but the channel axis."""


from . import gradlib as G  # noqa: E402
from .registry import grad_rule  # noqa: E402


def _product_grads(op: str, attrs: dict, a, b, dy):
    """Cotangents of ``op(a, b)`` (MatMul / BatchMatMul) with its transposes: each is one more product of
    the same op with the transposes chosen so no Transpose node is needed."""
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]

    def mm(x, y, tx, ty):
        return apply(op, {"transpose_a": tx, "transpose_b": ty}, [x, y])

    da = mm(dy, b, False, not tb) if not ta else mm(b, dy, tb, True)
    db = mm(a, dy, not ta, False) if not tb else mm(dy, a, True, ta)
    return da, db


@grad_rule("MatMul")
def _matmul_grad(attrs, ins, outs, douts):
    return list(_product_grads("MatMul", attrs, ins[0], ins[1], douts[0]))


@grad_rule("BatchMatMul")
def _batch_matmul_grad(attrs, ins, outs, douts):
    a, b = ins
    if a.ndim < 2 or b.ndim < 2:
        raise NotImplementedError("the gradient of BatchMatMul needs operands of rank >= 2")
    da, db = _product_grads("BatchMatMul", attrs, a, b, douts[0])
    # Broadcast batch dims are summed back to each operand's own batch shape.
    return [G.unbroadcast(da, a.shape), G.unbroadcast(db, b.shape)]


@grad_rule("BiasAdd")
def _bias_add_grad(attrs, ins, outs, douts):
    return [douts[0], apply("BiasAddGrad", {"data_format": attrs["data_format"]}, [douts[0]])]
