"""Matrix products and bias: MatMul, BatchMatMul (NumPy-style batch broadcasting) and BiasAdd.

Integer products wrap on overflow as NumPy's do; float16/bfloat16 products are computed in float32 and
rounded once (the ``half_gemm`` attribute names that strategy). The CPU's kernels (BLAS gemm for floats) are in
targets/cpu/kernels/matmul.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.dtypes import HALFS, NUMERIC
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import as_tensor
from .gemm_plan import as_matrices as _as_matrices
from .gemm_plan import batch_matmul_layout, matmul_layout
from .primitive import Primitive, apply, defop
from .registry import same_dtype
from .scratch_plan import workspace_of

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


@defop(infer=_matmul_infer, reference=_matmul_ref, normalize=_transpose_normalize("MatMul"),
       n_inputs=2, workspace=workspace_of(matmul_layout))
class MatMul(Primitive):
    """``MatMul(transpose_a=False, transpose_b=False)(a, b)``: the product of two 2-D tensors, optionally
    transposing either first. float32/float64 use OpenBLAS gemm; int32/int64 a plain loop."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False):
        super().__init__(transpose_a=transpose_a, transpose_b=transpose_b)


# ---- BatchMatMul ----------------------------------------------------------------------------------

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


@_half_in_float32
def _batch_ref(attrs: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.swapaxes(a, -1, -2) if attrs["transpose_a"] else a
    b = np.swapaxes(b, -1, -2) if attrs["transpose_b"] else b
    return np.matmul(a, b)


@defop(infer=_batch_infer, reference=_batch_ref, normalize=_transpose_normalize("BatchMatMul"),
       n_inputs=2, workspace=workspace_of(batch_matmul_layout))
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


@_half_in_float32
def _bias_ref(attrs: dict, x: np.ndarray, bias: np.ndarray) -> np.ndarray:
    axis = _bias_axis(attrs, TensorType(x.shape, x.dtype.name))
    shape = [1] * x.ndim
    shape[axis] = bias.shape[0]
    return x + bias.reshape(shape)


@defop(infer=_bias_infer, reference=_bias_ref, normalize=_bias_normalize, n_inputs=2)
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


def _bias_grad_ref(attrs: dict, dy: np.ndarray) -> np.ndarray:
    axis = _bias_axis(attrs, TensorType(dy.shape, dy.dtype.name))
    if dy.dtype.name in HALFS:  # accumulated wide, rounded once
        return dy.astype(np.float64).sum(axis=tuple(d for d in range(dy.ndim) if d != axis)).astype(dy.dtype)
    return dy.sum(axis=tuple(d for d in range(dy.ndim) if d != axis))


@defop(infer=_bias_grad_infer, reference=_bias_grad_ref, normalize=_bias_normalize,
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
