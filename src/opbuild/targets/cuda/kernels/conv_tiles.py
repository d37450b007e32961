"""Conv2D and FusedConv2D as an implicit GEMM on the tiled product of ``gemm_tiles.py`` (NCHW, every stride,
padding, dilation and group count the ops accept).

Per group ``gi`` (the product's batch index): ``C[oc, pix] = sum_p W[gi * og + oc, p] * X[p, pix]`` with
``oc`` the group's output channel (``og`` rows), ``pix = (n, r, q)`` the output pixel (``N * OH * OW``
columns) and ``p = (ci, ki, kj)`` the tap (``CG * KH * KW`` terms, the weight's contiguous axis). The X
operand is never materialised: a block stages the tap x pixel slice it needs straight from the image
(consecutive threads take consecutive pixels, so a stride-1 row reads consecutive addresses); a tap that
falls in the padding is flagged and skipped, not added as zero.

The value is the per-element kernel's (``conv.forward_value``) bit for bit: the same accumulator type,
the same taps in the same order ``ci, ki, kj``, the padding's taps skipped. Used where a tile pays: at least
``TILED_MIN`` output channels per group and as many output pixels; depthwise and narrow grouped
convolutions keep the per-element kernel (a 64-row tile of one channel would be 63/64 idle). The launch is
one block per tile. Conv2DBackpropInput is the same kind of product (``input_grad_body``: the input
channels times the input pixels over the output channels' taps). Conv2DBackpropFilter stays the gather form
(a block per filter element): as a GEMM its ``N * OH * OW`` terms are the long axis and its output has only
``O x CG*KH*KW`` elements, so without a split of the sum (which needs atomics or a workspace the ABI has
not) it would run on a handful of blocks. How fast any of it runs is unmeasured (no GPU has run it; docs/cuda.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....core.ir import KernelSpec
from .. import half
from . import gemm_tiles
from .registry import default_blocks

if TYPE_CHECKING:
    from .conv import Geometry

#: The smallest output-channel count per group and output-pixel count the tiled kernel is used for.
TILED_MIN = 16


def is_tiled(g: Geometry) -> bool:
    """Whether a convolution of geometry ``g`` runs as the implicit GEMM (module docstring)."""
    return g.og >= TILED_MIN and g.n * g.oh * g.ow >= TILED_MIN


def _groups(g: Geometry) -> int:
    return g.o // g.og if g.og else 0


def body(g: Geometry, dtype: str, epilogue: str) -> str:
    """The kernel body of the convolution ``g`` of ``dtype`` (in0 = x, in1 = w) running ``epilogue`` once per
    output element with ``o`` (its flat index) and ``y0`` (its value, of the element's compute type) in
    scope."""
    t = half.compute_ctype(dtype)
    taps = g.cg * g.kh * g.kw
    pixels = g.oh * g.ow
    b_pre = (f"const int64_t n_ = cj_ / {pixels}LL, r_ = (cj_ / {g.ow}LL) % {g.oh}LL, q_ = cj_ % {g.ow}LL;\n"
             f"          const int64_t ci_ = kk_ / {g.kh * g.kw}LL, ki_ = (kk_ / {g.kw}LL) % {g.kh}LL, "
             f"kj_ = kk_ % {g.kw}LL;\n"
             f"          const int64_t ih_ = r_ * {g.sh}LL - {g.pt}LL + ki_ * {g.dh}LL, "
             f"iw_ = q_ * {g.sw}LL - {g.pl}LL + kj_ * {g.dw}LL;")
    x_at = half.load(dtype, f"in0[((n_ * {g.c}LL + bq * {g.cg}LL + ci_) * {g.h}LL + ih_) * {g.w}LL + iw_]")
    w_at = half.load(dtype, f"in1[(bq * {g.og}LL + ri_) * {taps}LL + kk_]")
    out_index = f"((j / {pixels}LL) * {g.o}LL + bq * {g.og}LL + i) * {pixels}LL + j % {pixels}LL"
    return gemm_tiles.tiled(
        batch=_groups(g), m=g.og, n=g.n * pixels, kk=taps, load_t=(t, t), acc_t=t, tile_pre="",
        a_fast="k", a_at=w_at, b_fast="col", b_pre=b_pre, b_at=x_at,
        b_valid=f"ih_ >= 0 && ih_ < {g.h}LL && iw_ >= 0 && iw_ < {g.w}LL", out_index=out_index,
        epilogue=f"const int64_t o = q; const {t} y0 = ({t})acc; {epilogue}")


def input_grad_tiled(g: Geometry) -> bool:
    """Whether Conv2DBackpropInput of geometry ``g`` runs as the implicit GEMM (``input_grad_body``)."""
    return g.cg >= TILED_MIN and g.n * g.h * g.w >= TILED_MIN


def input_grad_body(g: Geometry, dtype: str) -> str:
    """Conv2DBackpropInput (in0 = dy, in1 = w, out0 = dx) as an implicit GEMM, per group ``bq``:
    ``dx[ci, pix] = sum_p W'[ci, p] * DY[p, pix]`` over the input channels ``ci`` (``cg`` rows), the input
    pixels ``pix = (n, ih, iw)`` and the terms ``p = (oo, ki, kj)`` (``og * KH * KW``: the group's output
    channel and the tap, in the gather form's order); a term whose output pixel does not exist (outside the
    output, or between strides) is skipped as the gather form skips it, so the value is its bit for bit."""
    t = half.compute_ctype(dtype)
    khkw, hw = g.kh * g.kw, g.h * g.w
    b_pre = (f"const int64_t n_ = cj_ / {hw}LL, ih_ = (cj_ / {g.w}LL) % {g.h}LL, iw_ = cj_ % {g.w}LL;\n"
             f"          const int64_t oo_ = kk_ / {khkw}LL, ki_ = (kk_ / {g.kw}LL) % {g.kh}LL, "
             f"kj_ = kk_ % {g.kw}LL;\n"
             f"          const int64_t tr_ = ih_ + {g.pt}LL - ki_ * {g.dh}LL, tq_ = iw_ + {g.pl}LL - kj_ * {g.dw}LL;")
    valid = (f"tr_ >= 0 && tr_ % {g.sh}LL == 0 && tr_ / {g.sh}LL < {g.oh}LL && "
             f"tq_ >= 0 && tq_ % {g.sw}LL == 0 && tq_ / {g.sw}LL < {g.ow}LL")
    dy_at = half.load(dtype, f"in0[((n_ * {g.o}LL + bq * {g.og}LL + oo_) * {g.oh}LL + tr_ / {g.sh}LL) * {g.ow}LL "
                             f"+ tq_ / {g.sw}LL]")
    w_at = half.load(dtype, f"in1[((bq * {g.og}LL + kk_ / {khkw}LL) * {g.cg}LL + ri_) * {khkw}LL + kk_ % {khkw}LL]")
    out_index = f"((j / {hw}LL) * {g.c}LL + bq * {g.cg}LL + i) * {hw}LL + j % {hw}LL"
    store = half.store(dtype, "acc", t) if half.is_half(dtype) else f"({t})acc"
    return gemm_tiles.tiled(
        batch=_groups(g), m=g.cg, n=g.n * hw, kk=g.og * khkw, load_t=(t, t), acc_t=t, tile_pre="",
        a_fast="k", a_at=w_at, b_fast="col", b_pre=b_pre, b_at=dy_at, b_valid=valid, out_index=out_index,
        epilogue=f"out0[q] = {store};")


def input_grad_blocks(g: Geometry, spec: KernelSpec) -> int:
    """Conv2DBackpropInput's launch size: a block per tile when tiled, else a thread per element of dx."""
    if not input_grad_tiled(g):
        return default_blocks(spec)
    return gemm_tiles.tiles(_groups(g), g.cg, g.n * g.h * g.w)


def blocks(g: Geometry, spec: KernelSpec) -> int:
    """The launch size of a convolution kernel of geometry ``g``: one block per tile when tiled, else one
    thread per element of ``spec``'s output (``kernels/launch_sizes.py`` declares it)."""
    if not is_tiled(g):
        return default_blocks(spec)
    return gemm_tiles.tiles(_groups(g), g.og, g.n * g.oh * g.ow)


__all__ = ["TILED_MIN", "blocks", "body", "input_grad_blocks", "input_grad_body", "input_grad_tiled", "is_tiled"]
