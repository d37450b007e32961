"""A FusedConv2D's per-channel epilogue run where the convolution kernel stores its results.

Why: a FusedConv2D (ops/fused_gemm.py) runs its producer's kernel into the output, then one more pass over the
output for the epilogue (fused_gemm.py ``epilogue_loop``). On a small CNN that pass was 15% of the kernels'
time (mobilenet_v1, one thread: 60 of 396 us, docs/benchmarks.md): the output is read and written again from
L2, and on planes whose size is not a multiple of the vector (6x6, 3x3 maps) the per-plane loop runs its last
elements one by one with branches (the NaN-propagating clip). The ``tiled``, ``dot`` and ``dwvec`` kernels
instead apply the epilogue as they store: on the tile just written (still in L1, whole vectors), on the dot
tile's reduced lanes, on the ``dwvec`` block's channel vectors as they are copied out.

Only per-channel epilogues (every epilogue input a scalar or a ``(C, 1, 1)``-like view, no ``pre`` recipes:
bias, ReLU, ReLU6/Clip, a folded BatchNorm's scale and shift) of float32/float64 convolutions take this path;
the others keep the pass. The epilogue is the same member statements (``fused.member_statements``) applied to
the same stored value, so results are bit for bit those of the pass.

The kernels see only ``Geometry.epi`` (a bool) and call :func:`span`, :func:`linear` or :func:`per_lane`;
the C macro ``OB_EPI(v, c)`` (the epilogue of value ``v`` of output channel ``c``) is defined around the body
by fused_gemm.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ....ops.conv_plan import nothing_to_compute
from ..codegen import compute_ctype, ctype, store
from .fused import member_statements

if TYPE_CHECKING:
    from ....ops.fused_gemm import _Parts
    from .conv_kernels import Geometry

MACRO = "OB_EPI"
# The producer algorithms that apply the macro at their stores (conv_tiled.py, conv_dot.py, conv_dwvec.py).
STORE_ALGOS = frozenset({"tiled", "dot", "dwvec"})


def _channel_index(shape: Sequence[int], out_shape: Sequence[int]) -> str | None:
    """The C index of an epilogue input of view ``shape`` at output channel ``ob_ec`` of an NCHW output:
    ``0`` for a single element, ``ob_ec`` for a per-channel vector, None for any other broadcast."""
    if len(shape) > len(out_shape):
        return None
    full = (1,) * (len(out_shape) - len(shape)) + tuple(shape)
    if any(d != 1 for d in full[2:]) or (full[0] != 1 and out_shape[0] != 1):
        return None
    return "ob_ec" if full[1] != 1 else "0"


def channel_macro(parts: _Parts, members: Sequence[dict]) -> str | None:
    """The ``#define`` of ``OB_EPI`` for a FusedConv2D whose producer applies it at its stores, or None where
    the epilogue stays a pass of its own (another algorithm, a half type, ``pre`` recipes, an input that is
    not per-channel, nothing to compute)."""
    producer = parts.producer
    out = producer.outputs[0]
    x, w = producer.inputs
    if (producer.attrs.get("algo") not in STORE_ALGOS or out.dtype not in ("float32", "float64") or parts.pre
            or len(out.shape) != 4 or out.size == 0 or nothing_to_compute(x.shape, out.size, producer.attrs)):
        return None
    elements = ["ob_ev"]
    for k, view in enumerate(parts.views):
        index = _channel_index(view.shape, out.shape)
        if index is None:
            return None
        elements.append(f"in{k + 2}[{index}]")
    stmts = " ".join(member_statements(parts.members, members, [out, *parts.views], elements))
    if "//" in stmts or "#" in stmts:  # a comment or directive cannot sit in a one-line macro
        return None
    stmts = stmts.replace("\n", " ")
    result = store(out.dtype, f"t{len(parts.members) - 1}", compute_ctype(out.dtype))
    t = ctype(out.dtype)
    return (f"#define {MACRO}(ob_ev_, ob_ec_) ({{ const {t} ob_ev = (ob_ev_); const int64_t ob_ec = (ob_ec_); "
            f"(void)ob_ec; {stmts} ({t})({result}); }})")


def span(g: Geometry, ptr: str, count: int | str, channel: str) -> str:
    """C applying the epilogue in place to ``count`` stored elements from ``ptr``, all of output channel
    ``channel`` (nothing where the kernel runs without one)."""
    if not g.epi:
        return ""
    return (f"{{ {g.t} *restrict ob_ep = {ptr}; const int64_t ob_epc = {channel};\n#pragma omp simd\n"
            f"for (int64_t ob_el = 0; ob_el < {count}; ob_el++) ob_ep[ob_el] = {MACRO}(ob_ep[ob_el], ob_epc); }}")


def linear(g: Geometry, ptr: str, count: int | str, base: str) -> str:
    """C applying the epilogue in place to ``count`` elements from ``ptr``, element ``k`` of output channel
    ``base + k`` (a vector of channels), or nothing where the kernel runs without one."""
    if not g.epi:
        return ""
    return (f"{{ {g.t} *restrict ob_ep = {ptr};\n#pragma omp simd\n"
            f"for (int64_t ob_el = 0; ob_el < {count}; ob_el++) "
            f"ob_ep[ob_el] = {MACRO}(ob_ep[ob_el], {base} + ob_el); }}")


def per_lane(g: Geometry, ptr: str, base: str, offsets: Sequence[int]) -> str:
    """C applying the epilogue in place to the ``len(offsets)`` elements from ``ptr``, element ``k`` of output
    channel ``base + offsets[k]`` (a constant table, so the loop still vectorises: the per-channel inputs are
    gathered), or nothing where the kernel runs without one."""
    if not g.epi:
        return ""
    table = ", ".join(map(str, offsets))
    return (f"{{ static const int64_t ob_lc[{len(offsets)}] = {{{table}}}; {g.t} *restrict ob_ep = {ptr};\n"
            f"#pragma omp simd\nfor (int64_t ob_el = 0; ob_el < {len(offsets)}; ob_el++) "
            f"ob_ep[ob_el] = {MACRO}(ob_ep[ob_el], {base} + ob_lc[ob_el]); }}")
