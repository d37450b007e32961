"""The plan of a convolution kernel, decided when its attributes are normalized: the algorithm (``algo``, an
attribute of the descriptor, so it is in every kernel's key and visible in its ``.info``) and the size of the
workspace the kernel takes (``OpDef.workspace``, planned in the graph's arena by passes/memplan.py).

Conv2D itself (``choose(..., forward=True)``): ``tiled``, a register-tiled direct kernel over stride-phase
planes (the workspace; none for 1x1 convolutions read in place, thread-local for depthwise ones), for every
shape but depthwise ones: stride-1 depthwise convolutions on large maps keep ``depthwise``, the others with
one output channel per group run ``dwvec`` (vectorised over channels, thread-local buffers, no workspace).
The backward ops, and any caller forcing an algorithm: ``gemm``: 1x1, stride 1, unpadded (the image already
is the column matrix); ``depthwise``: one input channel per group and few outputs per group; ``direct``: a
per-(image, group) GEMM too small for the BLAS call and the im2col copy to pay; ``im2col``: everything else,
an im2col of a block of output rows into the workspace, then one GEMM per block. The kernels themselves are
the target's (targets/cpu/kernels/conv_kernels.py, conv_tiled.py, conv_dwvec.py); this module is plain
arithmetic on shapes, shared by the forward and backward ops; the measurements behind the choice are in
docs/benchmarks.md ("Convolutions: the tiled kernel", "Depthwise convolutions vectorised over channels").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ALGOS = ("gemm", "depthwise", "direct", "im2col", "tiled", "dwvec", "dot")
# How a float16/bfloat16 convolution computes (the descriptor's ``half_conv`` attribute): float32 copies of the
# inputs, the float32 kernel, one rounding per result on store.
HALF_CONV = "f32_scratch"
WORKSPACE_ALIGN = 64  # bytes: each region of a workspace starts on a cache line
TILED_VECTOR_BYTES = 64  # the ``tiled`` kernel's vector: one AVX-512 register (two AVX2 ones)

# im2col works on blocks of output rows: ~256 KB of column matrix (stays in L2 for the gemm that reads it),
# but at least 512 gemm columns (narrower gemms lose more to BLAS overhead than the cache saves); measured in
# docs/benchmarks.md, "Measurements behind the code".
COL_BLOCK_BYTES = 256 * 1024
MIN_GEMM_N = 512
# One input channel per group and fewer outputs per group than this: the depthwise kernel.
DEPTHWISE_MAX_OUT = 4
# A stride-1 depthwise convolution with at least this many output pixels per plane: the direct kernel.
DEPTHWISE_DIRECT_MIN_PIXELS = 2048
# The most bytes of one channel block's buffers (padded input, weights, output: a 64-byte vector per pixel or
# tap) for which a depthwise convolution runs ``dwvec``: half the 1 MB L2 of the machine it was measured on.
DWVEC_MAX_BYTES = 512 * 1024
# ... and at least this many channels (fewer leave most of each vector's lanes idle: a plain single-channel
# convolution is a "depthwise" one of one group).
DWVEC_MIN_CHANNELS = 8
# A convolution runs ``dot`` (vectorised along the weight's rows) on output maps of at most this many pixels: on
# 3x3 maps (16-lane pixel vectors 44% idle) it measured 0.2-0.9x ``tiled``'s time for 1x1 convolutions and
# 0.55-0.9x for 3x3 ones; 1x1 on 6x6 maps (25% idle) 1.1-1.5x.
DOT_MAX_PIXELS = 9
# A per-(image, group) GEMM with fewer multiply-adds than this runs as direct loops (docs/benchmarks.md).
DIRECT_MAX_MACS = 1 << 14


class ConvShape:
    """The shapes of one convolution (forward view: x (N, C, H, W), w (O, Cg, KH, KW), y (N, O, OH, OW))."""

    def __init__(self, attrs: dict, x_shape: Sequence[int], w_shape: Sequence[int], y_shape: Sequence[int],
                 dtype: str):
        self.n, self.c, self.h, self.w = x_shape
        self.o, self.cg, self.kh, self.kw = w_shape
        self.oh, self.ow = y_shape[2], y_shape[3]
        self.g = attrs["group"]
        self.og = self.o // self.g
        self.pt, _, self.pl, _ = attrs["pad"]
        (self.sh, self.sw), (self.dh, self.dw) = attrs["stride"], attrs["dilation"]
        self.kdim = self.cg * self.kh * self.kw
        self.dtype = dtype

    def pad_dims(self) -> tuple[int, int]:
        """(rows, cols) of a zero-bordered input plane: every tap of every output pixel, ``r*sh + ki*dh`` and
        ``q*sw + kj*dw``, lands inside it, and so does every input pixel (at ``pt + i``, ``pl + j``)."""
        ph = (self.oh - 1) * self.sh + (self.kh - 1) * self.dh + 1
        pw = (self.ow - 1) * self.sw + (self.kw - 1) * self.dw + 1
        return max(ph, self.h + self.pt), max(pw, self.w + self.pl)

    def block_rows(self) -> int:
        """Output rows per im2col block (see COL_BLOCK_BYTES / MIN_GEMM_N)."""
        rows = COL_BLOCK_BYTES // max(1, self.kdim * self.ow * np.dtype(self.dtype).itemsize)
        return max(1, min(self.oh, max(rows, -(-MIN_GEMM_N // self.ow))))

    def itemsize(self) -> int:
        return int(np.dtype(self.dtype).itemsize)

    def tiled_qw(self) -> int:
        """Columns of a ``tiled`` kernel's phase plane: the output width plus the widest tap's column offset."""
        return self.ow + (self.kw - 1) * self.dw // self.sw


def choose(x_shape: Sequence[int], w_shape: Sequence[int], out_hw: Sequence[int], attrs: dict,
           forward: bool = False) -> str:
    """The algorithm for a convolution of these shapes and normalized ``attrs`` (``kernel_size``, ``pad``,
    ``stride``, ``group``); a valid ``attrs["algo"]`` given by the caller wins (tests force every path).
    ``forward``: for Conv2D itself, which has the ``tiled`` kernel (the backward ops have not: they choose
    among the others)."""
    c, o = x_shape[1], w_shape[0]
    g = attrs["group"]
    cg, og = c // g, o // g
    kh, kw = attrs["kernel_size"]
    one_by_one = kh == kw == 1 and list(attrs["stride"]) == [1, 1] and not any(attrs["pad"])
    forced = attrs.get("algo")
    pure_depthwise = cg == 1 and og == 1
    if (forced in ALGOS and (forced != "gemm" or one_by_one) and (forced not in ("tiled", "dwvec", "dot") or forward)
            and (forced != "dwvec" or pure_depthwise) and (forced != "dot" or dot_applies(x_shape, attrs))):
        return forced
    depthwise = cg == 1 and og < DEPTHWISE_MAX_OUT
    if forward:
        # The tiled kernel measured faster than every other algorithm on every shape tried (1x1 included)
        # except depthwise ones: on large maps at stride 1 the direct loops' whole-row vectors need no
        # pixel-domain copy-out (docs/benchmarks.md, "Convolutions: the tiled kernel"), and elsewhere the
        # channel vectors of ``dwvec`` avoid the per-plane costs ("Depthwise convolutions vectorised over
        # channels").
        large = out_hw[0] * out_hw[1] >= DEPTHWISE_DIRECT_MIN_PIXELS
        if depthwise and large and list(attrs["stride"]) == [1, 1]:
            return "depthwise"
        if dot_applies(x_shape, attrs) and dot_pays(out_hw):
            return "dot"
        return "dwvec" if pure_depthwise and use_dwvec(x_shape, out_hw, attrs) else "tiled"
    if one_by_one:
        return "gemm"
    if depthwise:
        return "depthwise"
    if og * cg * kh * kw * out_hw[0] * out_hw[1] < DIRECT_MAX_MACS:
        return "direct"
    return "im2col"


def tiled_in_place(g: ConvShape) -> bool:
    """Whether a ``tiled`` kernel reads the input planes in place: 1x1, stride 1, unpadded (a plane then is
    the input plane itself, with no border and no phases), on planes of whole vectors (a partial last vector
    would read past the plane: such planes are copied into zero-padded ones like any other), or whose partial
    last vector is computed apart (``tiled_dot_tail``)."""
    return (g.kh == g.kw == 1 and g.sh == g.sw == 1 and g.pt == g.pl == 0 and g.oh == g.h and g.ow == g.w
            and (g.h * g.w % (TILED_VECTOR_BYTES // g.itemsize()) == 0 or tiled_dot_tail(g) > 0))


def tiled_dot_tail(g: ConvShape) -> int:
    """The pixels past the last whole vector of a 1x1, stride-1, unpadded, ungrouped ``tiled`` convolution
    with whole vectors of input channels (``dot_applies``), on a plane of at least one whole vector: the
    kernel reads the whole vectors in place and computes these the ``dot`` way (targets/cpu/kernels/
    conv_dot.py), instead of copying every plane into a zero-padded one whose last vector is partly idle
    (on 6x6 maps a quarter of the lanes). 0 where that does not apply."""
    lanes = TILED_VECTOR_BYTES // g.itemsize()
    hw = g.h * g.w
    one = (g.kh == g.kw == 1 and g.sh == g.sw == 1 and g.pt == g.pl == 0 and g.oh == g.h and g.ow == g.w
           and g.g == 1 and g.c % 16 == 0)
    return hw % lanes if one and hw > lanes else 0


def tiled_per_thread(g: ConvShape) -> bool:
    """Whether a ``tiled`` kernel is depthwise-like (one input channel and few outputs per group): threads
    then split the groups and each keeps its phase planes in thread-local memory, not the workspace."""
    return g.cg == 1 and g.og < DEPTHWISE_MAX_OUT and not tiled_in_place(g)


def tiled_plane(g: ConvShape) -> tuple[int, int, int, int]:
    """(rows, columns, elements, pixel vectors) of one phase plane of a ``tiled`` kernel
    (targets/cpu/kernels/conv_tiled.py): rows and columns hold every tap of every output pixel, the elements
    (a whole number of vectors) also the over-reach of the last, partly used vectors; the pixel domain is
    ``OH * columns`` pixels, ``pixel vectors`` vectors of TILED_VECTOR_BYTES."""
    lanes = TILED_VECTOR_BYTES // g.itemsize()
    qw = g.tiled_qw()
    oi, oj = (g.kh - 1) * g.dh // g.sh, (g.kw - 1) * g.dw // g.sw
    nvec = -(-g.oh * qw // lanes)
    elements = -(-(nvec * lanes + oi * qw + oj) // lanes) * lanes
    return g.oh + oi, qw, elements, nvec


def aligned(n: int) -> int:
    return -(-n // WORKSPACE_ALIGN) * WORKSPACE_ALIGN


def col_bytes(algo: str, g: ConvShape) -> int:
    """Bytes of the column block of an ``im2col`` kernel, forward or backward, of the phase planes of a
    ``tiled`` one or of the transposed image of a ``dot`` one (0 for the other algorithms)."""
    if algo == "dot":  # the image's patches transposed, P x (C * KH * KW)
        return g.kdim * g.oh * g.ow * g.itemsize()
    if algo == "tiled":
        if tiled_in_place(g):  # the transposed block of a dot tail, if any
            return g.c * tiled_dot_tail(g) * g.itemsize()
        return 0 if tiled_per_thread(g) else g.cg * g.sh * g.sw * tiled_plane(g)[2] * g.itemsize()
    return g.kdim * g.block_rows() * g.ow * g.itemsize() if algo == "im2col" else 0


def workspace_bytes(algo: str, g: ConvShape, half_sizes: Sequence[int] | None) -> int:
    """A convolution kernel's workspace: the column block, then (half types) the float32 copies of both
    operands and the float32 result (``half_sizes``: their element counts), each 64-byte aligned."""
    total = aligned(col_bytes(algo, g))
    if half_sizes is not None:
        total += sum(aligned(4 * max(int(n), 1)) for n in half_sizes)
    return total


def nothing_to_compute(x_shape: Sequence[int], out_size: int, attrs: dict) -> bool:
    """Whether a convolution has nothing to compute: an empty output, or empty sums (its output is zeros)."""
    kh, kw = attrs["kernel_size"]
    return out_size == 0 or x_shape[1] // attrs["group"] == 0 or x_shape[1] * kh * kw == 0


def conv_workspace(attrs: dict, shapes: Sequence[Sequence[int]], dtype: str, sizes: Sequence[int]) -> int:
    """Workspace bytes of a convolution kernel (forward or backward: 2 inputs, 1 output) whose forward geometry
    is ``shapes`` = (x, w, y) shapes; half types (computed in float32) add float32 copies of ``sizes`` = the
    elements of in0, in1, out0."""
    half = dtype in ("float16", "bfloat16")
    g = ConvShape(attrs, shapes[0], shapes[1], shapes[2], "float32" if half else dtype)
    return workspace_bytes(attrs["algo"], g, sizes if half else None)



def use_dwvec(x_shape: Sequence[int], out_hw: Sequence[int], attrs: dict) -> bool:
    """Whether a depthwise convolution (one input and one output channel per group) that is not left to the
    direct loops runs ``dwvec`` (vectorised over channels, targets/cpu/kernels/conv_dwvec.py) rather than
    ``tiled``: whenever one block's channel-innermost buffers (the padded input, the output) stay within
    DWVEC_MAX_BYTES. It measured faster than ``tiled`` on every such shape tried, 3x3 to 7x7 kernels, stride 1
    and 2, 3x3 to 48x48 maps (docs/benchmarks.md, "Depthwise convolutions vectorised over channels")."""
    kh, kw = attrs["kernel_size"]
    (sh, sw), (dh, dw) = attrs["stride"], attrs["dilation"]
    pt, _, pl, _ = attrs["pad"]
    ph = max((out_hw[0] - 1) * sh + (kh - 1) * dh + 1, x_shape[2] + pt)
    pw = max((out_hw[1] - 1) * sw + (kw - 1) * dw + 1, x_shape[3] + pl)
    fits = (ph * pw + out_hw[0] * out_hw[1] + kh * kw) * TILED_VECTOR_BYTES <= DWVEC_MAX_BYTES
    return fits and x_shape[1] >= DWVEC_MIN_CHANNELS


def dot_applies(x_shape: Sequence[int], attrs: dict) -> bool:
    """Whether the ``dot`` kernel can run a convolution: one group and a multiple of 16 input channels (its
    sums run along whole vectors of the weight's rows, ``C * KH * KW`` long, for float32 and float64 alike);
    any kernel, stride, padding and dilation."""
    return attrs["group"] == 1 and x_shape[1] % 16 == 0


def dot_pays(out_hw: Sequence[int]) -> bool:
    """Whether ``dot`` beats ``tiled``'s pixel vectors on a map of ``out_hw`` (DOT_MAX_PIXELS;
    docs/benchmarks.md, "1x1 convolutions on the smallest maps")."""
    return 0 < out_hw[0] * out_hw[1] <= DOT_MAX_PIXELS
