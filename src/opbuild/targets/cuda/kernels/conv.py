"""GPU kernels of the convolutions (NCHW, ops/convolution.py and ops/conv_grad.py): Conv2D, its two backward
ops Conv2DBackpropInput and Conv2DBackpropFilter, and FusedConv2D (ops/fused_gemm.py: the convolution with the
elementwise epilogue the graph-mode epilogue pass fuses into it). Every stride, padding, dilation and group
count (depthwise included) the ops accept.

All three are gather forms, each result written once by the thread (or block) that owns it, no atomics:

* Conv2D and Conv2DBackpropInput: one thread per output element (a grid-stride loop), summing its window
  (the input gradient gathers the dy elements whose windows cover its pixel: the output row ``r`` with
  ``r * stride + k * dilation - pad`` equal to its row, for each kernel row ``k``);
* Conv2DBackpropFilter: one block per filter element (a block-stride loop over them), its threads summing
  strided parts of the ``N * OH * OW`` products, combined by the shared-memory tree of reduction.py.

Sums accumulate in the element type (float for float32, double for float64), as the CPU's kernels do; their
order differs from the CPU's BLAS and tiled loops, so results agree within the tolerance of sums. float16 and
bfloat16 compute as the CPU's ``half_conv: "f32_scratch"`` kernels: each element loads into float, the sums
accumulate in float and each result rounds once on store (half.py).

FusedConv2D evaluates its epilogue in the same thread, on the convolution's value rounded to its dtype as the
unfused kernel stores it: the members with the expressions of their own GPU kernels (``fused.member_statements``,
each rounded to its dtype, as FusedMatMul), the epilogue inputs read
with their views under broadcasting, and a per-channel ``pre`` recipe recomputed per element (a few
operations on values of the channel) instead of staged in a per-call array the GPU ABI has no room for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ....core.ir import KernelSpec, TensorType
from ....ops.fused_gemm import _parts
from .. import half
from ..codegen import Unsupported, broadcast_offsets, ctype, grid_loop
from . import conv_tiles
from .fused import member_statements
from .reduction import block_reduce
from .registry import register


@dataclass(frozen=True)
class Geometry:
    """The forward convolution of an op: x (N, C, H, W), w (O, CG, KH, KW), y (N, O, OH, OW), its attributes."""

    n: int
    c: int
    h: int
    w: int
    o: int
    cg: int
    kh: int
    kw: int
    oh: int
    ow: int
    pt: int
    pl: int
    sh: int
    sw: int
    dh: int
    dw: int
    og: int

    @classmethod
    def of(cls, attrs: dict, x: Sequence[int], w: Sequence[int], y: Sequence[int]) -> Geometry:
        g = int(attrs.get("group", 1))
        (sh, sw), (dh, dw) = attrs["stride"], attrs["dilation"]
        return cls(x[0], x[1], x[2], x[3], w[0], w[1], w[2], w[3], y[2], y[3], attrs["pad"][0], attrs["pad"][2],
                   sh, sw, dh, dw, w[0] // g if g else 0)


def _acc(dtype: str) -> str:
    """The accumulator type of a sum of ``dtype`` products: the element type, float for the half types (the
    CPU kernels' rule)."""
    return half.compute_ctype(dtype)


def _ld(dtype: str, ref: str) -> str:
    return half.load(dtype, ref)


def forward_value(g: Geometry, dtype: str) -> str:
    """Statements computing ``y0`` (in the compute type, half.py), the convolution of output element ``o``
    (in0 = x, in1 = w)."""
    t, acc = ctype(dtype), _acc(dtype)
    return (f"const int64_t q = o % {g.ow}LL, r = (o / {g.ow}LL) % {g.oh}LL, oc = (o / {g.ow * g.oh}LL) % {g.o}LL, "
            f"n = o / {g.ow * g.oh * g.o}LL;\n"
            f"    const {t} *xb = in0 + (n * {g.c}LL + (oc / {g.og}LL) * {g.cg}LL) * {g.h * g.w}LL;\n"
            f"    const {t} *wb = in1 + oc * {g.cg * g.kh * g.kw}LL;\n"
            f"    {acc} acc = 0;\n"
            f"    for (int64_t ci = 0; ci < {g.cg}LL; ci++) for (int64_t ki = 0; ki < {g.kh}LL; ki++) {{\n"
            f"      const int64_t ih = r * {g.sh}LL - {g.pt}LL + ki * {g.dh}LL;\n"
            f"      if (ih < 0 || ih >= {g.h}LL) continue;\n"
            f"      for (int64_t kj = 0; kj < {g.kw}LL; kj++) {{\n"
            f"        const int64_t iw = q * {g.sw}LL - {g.pl}LL + kj * {g.dw}LL;\n"
            f"        if (iw >= 0 && iw < {g.w}LL) acc += "
            f"{_ld(dtype, f'xb[(ci * {g.h}LL + ih) * {g.w}LL + iw]')} * "
            f"{_ld(dtype, f'wb[(ci * {g.kh}LL + ki) * {g.kw}LL + kj]')};\n"
            f"      }}\n"
            f"    }}\n"
            f"    const {acc} y0 = ({acc})acc;")


def _emit_conv(k: KernelSpec) -> str:
    x, w = k.inputs
    out = k.outputs[0]
    if out.size == 0:
        return ""
    g = Geometry.of(k.attrs, x.shape, w.shape, out.shape)
    store = half.store(out.dtype, "y0", _acc(out.dtype))
    if conv_tiles.is_tiled(g):  # the implicit GEMM: the same values, a block per tile (conv_tiles.py)
        return conv_tiles.body(g, x.dtype, f"out0[o] = {store};")
    return grid_loop(out.size, "o", forward_value(g, x.dtype) + f"\n    out0[o] = {store};")


def _emit_backprop_input(k: KernelSpec) -> str:
    """dx (in0 = dy, in1 = w): each input pixel gathers the (output pixel, tap) pairs whose window covers it."""
    dy, w = k.inputs
    out = k.outputs[0]
    if out.size == 0:
        return ""
    g = Geometry.of(k.attrs, out.shape, w.shape, dy.shape)
    if conv_tiles.input_grad_tiled(g):  # the implicit GEMM: the same values, a block per tile (conv_tiles.py)
        return conv_tiles.input_grad_body(g, out.dtype)
    t, acc = ctype(out.dtype), _acc(out.dtype)
    stmt = (f"const int64_t iw = o % {g.w}LL, ih = (o / {g.w}LL) % {g.h}LL, c = (o / {g.w * g.h}LL) % {g.c}LL, "
            f"n = o / {g.w * g.h * g.c}LL;\n"
            f"    const int64_t gi = c / {g.cg}LL, ci = c % {g.cg}LL;\n"
            f"    {acc} acc = 0;\n"
            f"    for (int64_t oo = 0; oo < {g.og}LL; oo++) {{\n"
            f"      const int64_t oc = gi * {g.og}LL + oo;\n"
            f"      const {t} *db = in0 + (n * {g.o}LL + oc) * {g.oh * g.ow}LL;\n"
            f"      const {t} *wb = in1 + (oc * {g.cg}LL + ci) * {g.kh * g.kw}LL;\n"
            f"      for (int64_t ki = 0; ki < {g.kh}LL; ki++) {{\n"
            f"        const int64_t tr = ih + {g.pt}LL - ki * {g.dh}LL;\n"
            f"        if (tr < 0 || tr % {g.sh}LL != 0 || tr / {g.sh}LL >= {g.oh}LL) continue;\n"
            f"        const int64_t r = tr / {g.sh}LL;\n"
            f"        for (int64_t kj = 0; kj < {g.kw}LL; kj++) {{\n"
            f"          const int64_t tq = iw + {g.pl}LL - kj * {g.dw}LL;\n"
            f"          if (tq < 0 || tq % {g.sw}LL != 0 || tq / {g.sw}LL >= {g.ow}LL) continue;\n"
            f"          acc += {_ld(out.dtype, f'db[r * {g.ow}LL + tq / {g.sw}LL]')} * "
            f"{_ld(out.dtype, f'wb[ki * {g.kw}LL + kj]')};\n"
            f"        }}\n"
            f"      }}\n"
            f"    }}\n"
            f"    out0[o] = {half.store(out.dtype, 'acc', acc)};")
    return grid_loop(out.size, "o", stmt)


def _emit_backprop_filter(k: KernelSpec) -> str:
    """dw (in0 = dy, in1 = x): one block per filter element, its threads summing strided parts of the
    ``N * OH * OW`` products, then the shared-memory tree."""
    dy, x = k.inputs
    out = k.outputs[0]
    if out.size == 0:
        return ""
    g = Geometry.of(k.attrs, x.shape, out.shape, dy.shape)
    acc = _acc(out.dtype)
    terms = g.n * g.oh * g.ow
    body = (f"    const int64_t kj = row % {g.kw}LL, ki = (row / {g.kw}LL) % {g.kh}LL, "
            f"ci = (row / {g.kw * g.kh}LL) % {g.cg}LL, oc = row / {g.kw * g.kh * g.cg}LL;\n"
            f"    const int64_t c = (oc / {g.og}LL) * {g.cg}LL + ci;\n"
            f"    {acc} p_ = 0;\n"
            f"    for (int64_t j = threadIdx.x; j < {terms}LL; j += OB_BLOCK) {{\n"
            f"      const int64_t q = j % {g.ow}LL, r = (j / {g.ow}LL) % {g.oh}LL, n = j / {g.ow * g.oh}LL;\n"
            f"      const int64_t ih = r * {g.sh}LL - {g.pt}LL + ki * {g.dh}LL, "
            f"iw = q * {g.sw}LL - {g.pl}LL + kj * {g.dw}LL;\n"
            f"      if (ih >= 0 && ih < {g.h}LL && iw >= 0 && iw < {g.w}LL)\n"
            f"        p_ += {_ld(out.dtype, f'in0[((n * {g.o}LL + oc) * {g.oh}LL + r) * {g.ow}LL + q]')} * "
            f"{_ld(out.dtype, f'in1[((n * {g.c}LL + c) * {g.h}LL + ih) * {g.w}LL + iw]')};\n"
            f"    }}\n"
            + block_reduce(acc, "(a + b)", "p_", "total")
            + f"    if (threadIdx.x == 0) out0[row] = {half.store(out.dtype, 'total', acc)};\n")
    return f"  for (int64_t row = blockIdx.x; row < {out.size}LL; row += gridDim.x) {{\n{body}  }}"


# ---- FusedConv2D ------------------------------------------------------------------------------------

def _offset(out_shape: Sequence[int], shape: Sequence[int], var: str) -> str:
    return broadcast_offsets(out_shape, [shape], var)[0]


def _emit_fused_conv(k: KernelSpec) -> str:
    try:
        return _fused_conv_body(k)
    except Unsupported as e:  # a member the GPU cannot compute: say which fused kernel needed it
        raise Unsupported(f"{k.op} epilogue: {e}") from None


def _fused_conv_body(k: KernelSpec) -> str:
    """The convolution's value rounded to its dtype as the unfused kernel stores it (``e0``), the viewed
    epilogue inputs, the per-channel ``pre`` recipes per element (rounded as the CPU's per-thread arrays store
    them) and the members with their own GPU expressions (``fused.member_statements``), as FusedMatMul."""
    parts = _parts(k.op, k.attrs, k.inputs)
    prod = parts.producer
    out = prod.outputs[0]
    if out.size == 0:
        return ""
    x, w = prod.inputs
    g = Geometry.of(prod.attrs, x.shape, w.shape, out.shape)
    ct = half.compute_ctype
    e0 = half.round_trip(out.dtype, "y0", _acc(out.dtype))
    stmts = [forward_value(g, x.dtype), f"const {ct(out.dtype)} e0 = {e0};"]
    views: list[TensorType] = parts.views
    offsets = broadcast_offsets(out.shape, [v.shape for v in views], "o")
    stmts += [f"const {ct(v.dtype)} e{i + 1} = {half.load(v.dtype, f'in{i + 2}[{off}]')};"
              for i, (v, off) in enumerate(zip(views, offsets, strict=True))]
    operands = [f"e{i}" for i in range(len(views) + 1)]
    for j, ((idx, typed, res), recipe) in enumerate(zip(parts.pre, k.attrs.get("pre", []), strict=True)):
        at = _offset(out.shape, res.shape, "o")
        inner = broadcast_offsets(res.shape, [views[i].shape for i in idx], f"pq{j}")
        loads = [f"const {ct(views[i].dtype)} x{m} = {half.load(views[i].dtype, f'in{i + 2}[{off}]')};"
                 for m, (i, off) in enumerate(zip(idx, inner, strict=True))]
        body = member_statements(typed, recipe["members"], [f"x{m}" for m in range(len(idx))])
        value = half.round_trip(res.dtype, f"t{len(typed) - 1}", ct(res.dtype))
        stmts.append(f"{ct(res.dtype)} r{j}; {{ const int64_t pq{j} = {at}; {' '.join(loads)} {' '.join(body)} "
                     f"r{j} = {value}; }}")
        operands.append(f"r{j}")
    stmts += member_statements(parts.members, k.attrs["members"], operands)
    stmts.append(f"out0[o] = {half.store(out.dtype, f't{len(parts.members) - 1}', ct(out.dtype))};")
    if conv_tiles.is_tiled(g):  # the epilogue after the implicit GEMM's value (stmts[0] is forward_value's)
        return conv_tiles.body(g, x.dtype, "\n    ".join(stmts[1:]))
    return grid_loop(out.size, "o", "\n    ".join(stmts))


register("Conv2D", _emit_conv)
register("Conv2DBackpropInput", _emit_backprop_input)
register("Conv2DBackpropFilter", _emit_backprop_filter)
register("FusedConv2D", _emit_fused_conv)
half.allow("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "FusedConv2D")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "FusedConv2D")

__all__ = ["OPS", "Geometry", "forward_value"]
