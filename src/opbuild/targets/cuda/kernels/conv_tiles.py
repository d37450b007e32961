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
one block per tile. How fast it runs is unmeasured (no GPU has run it; docs/cuda.md).
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


def blocks(g: Geometry, spec: KernelSpec) -> int:
    """The launch size of a convolution kernel of geometry ``g``: one block per tile when tiled, else one
    thread per element of ``spec``'s output (``kernels/launch_sizes.py`` declares it)."""
    if not is_tiled(g):
        return default_blocks(spec)
    return gemm_tiles.tiles(_groups(g), g.og, g.n * g.oh * g.ow)


__all__ = ["TILED_MIN", "blocks", "body", "is_tiled"]
