"""ONNX quantisation operators as compositions of opbuild primitives: QuantizeLinear, DequantizeLinear
(per tensor, per axis and blocked), MatMulInteger, QLinearMatMul and QLinearConv.

Each follows ONNX's reference implementation (onnx.reference) step by step, in the same precisions, so the
integer results are exact and equal to it:

* QuantizeLinear: ``x / scale`` in x's float type, rounded half to even (``Round``), then, for an integer
  output, ``+ zero_point`` and a clamp to the output type's range in float32 (float64 for a float64 x), and
  a Cast of the (integral, in-range) result; for an 8-bit float output a (saturating) Cast of ``x / scale``
  (ONNX requires a zero zero point there); for float4 ``x / scale + zero_point`` cast (which saturates).
* DequantizeLinear: ``(float32(x) - float32(zero_point)) * scale`` in float32 (float64 for int32 x, whose
  values float32 cannot hold), then the output type (the scale's, or ``output_dtype``).
* MatMulInteger: ``(int32(a) - a_zero_point) @ (int32(b) - b_zero_point)``, an int32 BatchMatMul.
* QLinearMatMul / QLinearConv: the int32 product (QLinearConv's convolution runs in float64 on the
  zero-point-shifted integers: each product is below 2^16 and any sum of fewer than 2^37 of them is exact in
  float64, so it equals the int32 convolution), times ``a_scale * b_scale / y_scale`` (computed in the scales'
  float32, applied in float64 as NumPy promotes int32 by float32), plus the output zero point, rounded half
  to even and clamped to the output type.
"""

from __future__ import annotations

import numpy as np

from ...core.dtypes import BY_NAME, LOWP_FLOATS
from ...core.errors import ShapeError
from .core import CONVERTERS, Ctx, Value, cast, const, converter, dtype, prim, reshape, shape
from .elementwise import FLOAT8, onnx_dtype, saturating_cast

_INT_RANGES = {"uint8": (0, 255), "int8": (-128, 127), "uint16": (0, 65535), "int16": (-32768, 32767),
               "uint4": (0, 15), "int4": (-8, 7), "uint2": (0, 3), "int2": (-2, 1)}
_Q_VERSIONS = (10, 13, 19, 21, 23, 24, 25, 28)


def _broadcastable(ctx: Ctx, v: Value, x_shape: tuple[int, ...], axis: int, block: int) -> Value:
    """A scale or zero point shaped to broadcast against x: a scalar as it is, a 1-D per-axis vector along
    ``axis``, a blocked one repeated ``block`` times along ``axis`` (and cut to x's length)."""
    if len(shape(v)) == 0:
        return v
    if int(np.prod(shape(v))) == 1:
        return reshape(v, [])
    rank = len(x_shape)
    a = ctx.axis(axis, rank)
    if not block:
        if len(shape(v)) != 1 or shape(v)[0] != x_shape[a]:
            raise _shape_error(ctx, f"a per-axis scale/zero point must be 1-D of length {x_shape[a]} (axis {a} of "
                                    f"x {list(x_shape)}), got shape {list(shape(v))}")
        return reshape(v, [x_shape[a] if i == a else 1 for i in range(rank)])
    want = [-(-x_shape[i] // block) if i == a else x_shape[i] for i in range(rank)]
    if list(shape(v)) != want:
        raise _shape_error(ctx, f"a blocked scale/zero point (block_size={block}, axis {a}) must have shape {want} "
                                f"for x {list(x_shape)}, got {list(shape(v))}")
    idx = (np.arange(x_shape[a]) // block).astype(np.int64)
    return prim("Gather", {"axis": a}, v, idx)


def _shape_error(ctx: Ctx, msg: str) -> Exception:
    return ShapeError(f"{ctx.op_type} (ONNX node {ctx.name!r})", msg)


def _check_q(ctx: Ctx) -> list[str]:
    out = ctx.attr("output_dtype", 0)
    if out and onnx_dtype(out) is None:
        return [f"attribute output_dtype={out}: a dtype which opbuild does not support"]
    if ctx.attr("precision", 0) and onnx_dtype(ctx.attr("precision")) is None:
        return [f"attribute precision={ctx.attr('precision')}: a dtype which opbuild does not support"]
    return []


@converter("QuantizeLinear", _Q_VERSIONS, attrs=("axis", "saturate", "block_size", "output_dtype", "precision"),
           check=_check_q)
def _quantize(ctx: Ctx, x: Value, scale: Value, zp: Value = None) -> Value:
    out = dtype(zp) if zp is not None else onnx_dtype(ctx.attr("output_dtype", 0) or 2)
    if out not in _INT_RANGES and out not in LOWP_FLOATS:
        raise _shape_error(ctx, f"output type {out} is not a quantised type (supported: "
                                f"{', '.join([*_INT_RANGES, *LOWP_FLOATS])})")
    axis, block = ctx.attr("axis", 1), ctx.attr("block_size", 0)
    work = onnx_dtype(ctx.attr("precision")) if ctx.attr("precision", 0) else dtype(x)
    xs = prim("RealDiv", {}, cast(x, work), cast(_broadcastable(ctx, scale, shape(x), axis, block), work))
    if out in FLOAT8:
        return saturating_cast(xs, out, bool(ctx.attr("saturate", 1)))
    wide = "float64" if work == "float64" else "float32"
    zpf = None if zp is None else _broadcastable(ctx, cast(zp, wide), shape(x), axis, block)
    if out in LOWP_FLOATS:  # float4: x / scale + zero_point, then the (saturating) cast
        return cast(xs if zpf is None else prim("Add", {}, cast(xs, wide), zpf), out)
    q = cast(prim("Round", {}, xs), wide)  # integral and exact in the wider type
    if zpf is not None:
        q = prim("Add", {}, q, zpf)
    lo, hi = _INT_RANGES[out]
    q = prim("ClipByValue", {}, q, const(lo, wide), const(hi, wide))
    return cast(q, out)


@converter("DequantizeLinear", _Q_VERSIONS, attrs=("axis", "block_size", "output_dtype"), check=_check_q)
def _dequantize(ctx: Ctx, x: Value, scale: Value, zp: Value = None) -> Value:
    axis, block = ctx.attr("axis", 1), ctx.attr("block_size", 0)
    out = onnx_dtype(ctx.attr("output_dtype")) if ctx.attr("output_dtype", 0) else dtype(scale)
    work = "float64" if BY_NAME[dtype(x)].bits > 16 else "float32"
    dx = cast(x, work)
    if zp is not None and dtype(x) not in LOWP_FLOATS:  # float8 zero points are 0 by definition
        dx = prim("Sub", {}, dx, _broadcastable(ctx, cast(zp, work), shape(x), axis, block))
    y = prim("Mul", {}, dx, cast(_broadcastable(ctx, scale, shape(x), axis, block), work))
    return cast(y, out)


def _shifted(v: Value, zp: Value | None, zp_shape: list[int] | None, dt: str) -> Value:
    """``dt(v) - dt(zp)``, the zero point reshaped to ``zp_shape`` (per row or channel) when given."""
    v = cast(v, dt)
    if zp is None:
        return v
    z = cast(zp, dt)
    if zp_shape is not None and len(shape(z)) == 1 and shape(z)[0] > 1:
        z = reshape(z, zp_shape)
    return prim("Sub", {}, v, z)


def _row_shape(a: Value) -> list[int]:
    return [shape(a)[-2], 1] if len(shape(a)) >= 2 else [1]


@converter("MatMulInteger", (10,))
def _matmul_integer(ctx: Ctx, a: Value, b: Value, a_zp: Value = None, b_zp: Value = None) -> Value:
    # a's zero point may be per row (shape [M]), b's per column (shape [N], broadcasting as it is).
    return prim("BatchMatMul", {}, _shifted(a, a_zp, _row_shape(a), "int32"), _shifted(b, b_zp, None, "int32"))


def _requantize(acc: Value, multiplier: Value, y_zp: Value | None, out: str) -> Value:
    """float64(acc) * multiplier (+ y_zp), rounded half to even and clamped to ``out``'s range, as ``out``."""
    r = prim("Mul", {}, cast(acc, "float64"), cast(multiplier, "float64"))
    if y_zp is not None:
        r = prim("Add", {}, r, cast(y_zp, "float64"))
    lo, hi = _INT_RANGES[out]
    r = prim("ClipByValue", {}, prim("Round", {}, r), const(lo, "float64"), const(hi, "float64"))
    return cast(r, out)


def _multiplier(a_scale: Value, b_scale: Value, y_scale: Value) -> Value:
    # a_scale * b_scale / y_scale in the scales' type (float32), as the reference computes it
    return prim("RealDiv", {}, prim("Mul", {}, a_scale, b_scale), y_scale)


@converter("QLinearMatMul", (10, 21))
def _qlinear_matmul(ctx: Ctx, a: Value, a_scale: Value, a_zp: Value, b: Value, b_scale: Value, b_zp: Value,
                    y_scale: Value, y_zp: Value = None) -> Value:
    acc = prim("BatchMatMul", {}, _shifted(a, a_zp, _row_shape(a), "int32"), _shifted(b, b_zp, None, "int32"))
    if len(shape(a_scale)) == 1 and shape(a_scale)[0] > 1:  # per row of a (M); b's per column (N) broadcasts
        a_scale = reshape(a_scale, _row_shape(a))
    m = _multiplier(a_scale, b_scale, y_scale)
    return _requantize(acc, m, y_zp, dtype(y_zp) if y_zp is not None else dtype(a))


def _check_qconv(ctx: Ctx) -> list[str]:
    check = CONVERTERS["Conv"].check
    return check(ctx) if check is not None else []


@converter("QLinearConv", (10,), attrs=("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"),
           check=_check_qconv)
def _qlinear_conv(ctx: Ctx, x: Value, x_scale: Value, x_zp: Value, w: Value, w_scale: Value, w_zp: Value,
                  y_scale: Value, y_zp: Value = None, bias: Value = None) -> Value:
    rank = len(shape(w))
    channel = [shape(w)[0]] + [1] * (rank - 1)
    xf = _shifted(x, x_zp, None, "float64")
    wf = _shifted(w, w_zp, channel, "float64")
    acc = CONVERTERS["Conv"].fn(ctx, xf, wf, None if bias is None else cast(bias, "float64"))
    m = _multiplier(x_scale, w_scale, y_scale)
    if len(shape(m)) == 1 and shape(m)[0] > 1:  # per output channel
        m = reshape(m, [1, shape(m)[0]] + [1] * (rank - 2))
    return _requantize(acc, m, y_zp, dtype(y_zp) if y_zp is not None else dtype(x))
