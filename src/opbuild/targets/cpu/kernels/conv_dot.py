"""The ``dot`` Conv2D kernel: convolutions with the smallest output maps as dot products along the weight's rows.

Why: the ``tiled`` kernel vectorises a 1x1 convolution over each plane's pixels, one 64-byte vector (16
floats) per step. On the 3x3 maps of a small CNN's last stage a plane of 9 pixels takes one vector, so 44% of
its multiply-adds work on lanes past the plane (on a 1x1 map, 94%). Here every vector runs along the input
channels instead, which the layers there have by the hundred, so no lane is idle: ``out[o][p] = sum_c w[o][c]
* x[c][p]`` with ``w``'s rows read in place (contiguous, in order: streams the hardware prefetchers follow)
and the image's ``C x P`` block transposed once per call into the workspace (``xt[p][c]``, ``P * C``
elements: small next to the ``O * P * C`` products). On 6x6 maps (25% idle) the pixel vectors stay faster:
each step here loads ``OCB + PB`` full vectors where a ``tiled`` step broadcasts its weights; there only the
partial last vector of each plane is computed here (:func:`dot_tail`).

A register tile holds up to ``L`` accumulators (``L`` = the vector's lanes), ``OCB`` output channels x ``PB``
pixels (``TILE_AVX512``, ``TILE_AVX2``), each a vector of partial sums over the channels ``c = l (mod L)``.
At the end of the channels the tile's vectors (zeros for the missing ones) are reduced together by a tree of
two-input shuffles and adds into one vector holding the ``L`` sums (4 levels for floats: 30 shuffles and 15
adds for 16 results, where reducing each vector alone takes about 8 operations per result), whose lanes are
stored into the output. The sums are therefore formed in a different
order from the other algorithms (lane-strided partial sums, then the tree): results agree with them to
rounding, not bit for bit.

Any kernel size, stride, padding and dilation: the workspace then holds each output pixel's patch (its ``C *
KH * KW`` inputs in the weight's order, zeros where padded), an im2col transposed, and the dot products run
along the weight's whole rows (a 3x3 512->512 convolution on a 3x3 map: 4608-long rows, the 9.4 MB weight
streamed once, in order). Chosen (ops/conv_plan.py ``dot_applies``, ``dot_pays``) for ungrouped convolutions
with a multiple of 16 input channels on output maps of at most 9 pixels, where pixel vectors idle most lanes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....ops.conv_plan import TILED_VECTOR_BYTES
from ..codegen import BLAS_PARALLEL_MIN_MACS
from .conv_epilogue import per_lane

if TYPE_CHECKING:  # conv_kernels.forward dispatches here
    from .conv_kernels import Geometry


# Weight blocks up to this size are prefetched whole ahead of their tiles (_prefetch_next_rows here,
# conv_tiled.py's _prefetch_next_block).
PREFETCH_MAX_BYTES = 32 * 1024
# How far ahead the dot kernel's prefetches run, in bytes of weight rows (a fraction of L1's 32-48 KB).
PREFETCH_AHEAD_BYTES = 16 * 1024

# (OCB, PB) by lanes: OCB * PB accumulators, one reduction tree's sources. AVX-512: 16 of its 32 zmm registers,
# beside the OCB weight and PB image vectors loaded per step; on 3x3 maps 4x4 measured best of 8x2, 5x3, 4x3,
# 3x3, 2x3 (docs/benchmarks.md). AVX2 splits each 64-byte vector into two of its 16 ymm registers: 2x2.
TILE_AVX512 = {16: (4, 4), 8: (4, 2)}
TILE_AVX2 = {16: (2, 2), 8: (2, 2)}

def _parallel(macs: int) -> str:
    """The pragma splitting the next loop over OpenMP's threads for a convolution of ``macs`` multiply-adds:
    from the size where the GEMMs it replaces went to the BLAS's threads (docs/threads.md: a smaller kernel
    stays on the calling thread, so a busy machine never stalls it waiting for a second core)."""
    return "#pragma omp parallel for schedule(static)\n" if macs >= BLAS_PARALLEL_MIN_MACS else ""


def _tree(lanes: int) -> list[tuple[list[int], list[int]]]:
    """The shuffle masks of each level of the reduction tree: at block size ``B`` (lanes/2 down to 1) a pair
    of vectors ``(x, y)`` whose lanes hold blocks of ``2B`` partial sums of consecutive sources becomes
    ``shuffle(x, y, lo) + shuffle(x, y, hi)``: the first and the second ``B`` lanes of every block of ``x``
    then of ``y`` (mask index ``lanes + i`` is lane ``i`` of ``y``). After the last level lane ``k`` holds the
    full sum of source ``k``."""
    levels = []
    b = lanes // 2
    while b >= 1:
        lo = [k * 2 * b + j for k in range(lanes // (2 * b)) for j in range(b)]
        lo = lo + [lanes + i for i in lo]
        levels.append((lo, [i + b for i in lo]))
        b //= 2
    return levels


def _reduce(sources: list[str], lanes: int) -> str:
    """C reducing the ``lanes`` vectors ``sources`` (missing ones are zero) into ``ob_r``: lane k = the sum of
    the lanes of source k."""
    names = sources + ["ob_zero"] * (lanes - len(sources))
    code = []
    for level in range(len(_tree(lanes))):
        mlo, mhi = f"ob_m{level}lo", f"ob_m{level}hi"
        nxt = []
        for i in range(0, len(names), 2):
            v = f"r{level}_{i // 2}"
            code.append(f"const ob_vec {v} = __builtin_shuffle({names[i]}, {names[i + 1]}, {mlo}) + "
                        f"__builtin_shuffle({names[i]}, {names[i + 1]}, {mhi});")
            nxt.append(v)
        names = nxt
    code.append(f"const ob_vec ob_r = {names[0]};")
    return "\n".join(code)


def _masks(lanes: int) -> str:
    out = []
    for level, (lo, hi) in enumerate(_tree(lanes)):
        out.append(f"const ob_mask ob_m{level}lo = {{{', '.join(map(str, lo))}}};")
        out.append(f"const ob_mask ob_m{level}hi = {{{', '.join(map(str, hi))}}};")
    return "\n".join(out)


def _micro(g: Geometry, no: int, np_: int, lanes: int, first: int) -> str:
    """C of one tile: ``no`` output channels from ``o0`` x ``np_`` pixels from ``first + p0`` of image ``b``
    (``xt`` row ``p0`` holds pixel ``first + p0``)."""
    accs = [[f"a{o}_{p}" for p in range(np_)] for o in range(no)]
    decl = "ob_vec " + ", ".join(f"{a} = ob_zero" for row in accs for a in row) + ";"
    wl = " ".join(f"const ob_vec w{o} = *(const ob_vecu *)(wr + {o * g.kdim} + c);" for o in range(no))
    xl = " ".join(f"const ob_vec x{p} = *(const ob_vec *)(xr + {p * g.kdim} + c);" for p in range(np_))
    fmas = " ".join(f"{accs[o][p]} += w{o} * x{p};" for o in range(no) for p in range(np_))
    flat = [a for row in accs for a in row]
    ohw = g.oh * g.ow
    # A fused per-channel epilogue (conv_epilogue.py) runs on the reduced lanes, vectorised, before the stores.
    lanes_of = "ob_t[{k}]" if g.epi else "ob_r[{k}]"
    epi = (f"{g.t} ob_t[{lanes}] __attribute__((aligned(64)));\n*(ob_vec *)ob_t = ob_r;\n"
           + per_lane(g, "ob_t", "o0", [k // np_ for k in range(len(flat))]) if g.epi else "")
    stores = epi + "\n" + " ".join(
        f"out0[(b * {g.o} + o0 + {k // np_}) * {ohw} + {first} + p0 + {k % np_}] = {lanes_of.format(k=k)};"
        for k in range(len(flat)))
    return f"""{{
{decl}
const {g.t} *restrict wr = in1 + o0 * {g.kdim};
const {g.t} *restrict xr = xt + p0 * {g.kdim};
for (int64_t c = 0; c < {g.kdim}; c += {lanes}) {{
  {wl}
  {xl}
  {fmas}
}}
{_reduce(flat, lanes)}
{stores}
}}"""


def _tiles(g: Geometry, ocb: int, pb: int, lanes: int, first: int = 0, p: int | None = None,
           prefetch: bool = True) -> str:
    """C running every (output channel block, pixel block) tile of image ``b`` over its ``p`` pixels from
    ``first`` (all of them by default), the partial blocks at the ends with their own tiles. ``prefetch``: the
    next block's weight rows ahead of it (not for a ``tiled`` kernel's tail, whose pass over the whole weight
    has just brought it into cache: there the prefetches only cost, 25 -> 33 us on a 256->256 1x1 on 6x6)."""
    p = g.oh * g.ow if p is None else p
    n_o, n_p = -(-g.o // ocb), -(-p // pb)
    branches = []
    for no in sorted({ocb, g.o % ocb} - {0}, reverse=True):
        for np_ in sorted({pb, p % pb} - {0}, reverse=True):
            branches.append(f"if (no == {no} && np == {np_}) {_micro(g, no, np_, lanes, first)}")
    return f"""{_parallel(g.o * p * g.kdim)}for (int64_t item = 0; item < {n_o * n_p}; item++) {{
  const int64_t o0 = item / {n_p} * {ocb}, p0 = item % {n_p} * {pb};
  const int64_t no = {g.o} - o0 < {ocb} ? {g.o} - o0 : {ocb};
  const int64_t np = {p} - p0 < {pb} ? {p} - p0 : {pb};
  {_prefetch_next_rows(g, ocb) if prefetch else ""}
  {" else ".join(branches)}
}}"""


def _prefetch_next_rows(g: Geometry, ocb: int) -> str:
    """C prefetching the next output channel block's weight rows (one contiguous run) when an item starts a
    block. In a network the weight comes from L3 (mobilenet_v1's 1 MB 512->512 1x1 on 3x3: 45 us in the
    graph, 26 us alone): ``OCB`` interleaved row streams of a few KB each, too short for the hardware
    prefetchers to get ahead of. Longer blocks are left to the hardware, as the tiled kernel does."""
    nbytes = ocb * g.kdim * g.itemsize()
    if nbytes > PREFETCH_MAX_BYTES:
        return ""
    # ``ahead`` blocks in flight (about PREFETCH_AHEAD_BYTES): one block's tiles end before its successor's
    # rows arrive from L3 when the blocks are small. The first item starts the blocks before that one.
    # Every prefetch stays inside the weight (prefetches never fault, but need not touch other memory).
    ahead = max(1, min(4, PREFETCH_AHEAD_BYTES // nbytes))
    row = g.kdim * g.itemsize()
    lead = min((ahead - 1) * nbytes, max(0, g.o - ocb) * row)
    first = "" if lead == 0 else f"""if (item == 0)
    for (int64_t ob_pf = 0; ob_pf < {lead}; ob_pf += 64)
      __builtin_prefetch((const char *)(in1 + {ocb * g.kdim}) + ob_pf);
  """
    return f"""{first}if (p0 == 0 && o0 + {ahead * ocb} < {g.o}) {{
    const int64_t ob_pn = ({g.o} - o0 - {ahead * ocb}) * {row}, ob_pb = ob_pn < {nbytes} ? ob_pn : {nbytes};
    for (int64_t ob_pf = 0; ob_pf < ob_pb; ob_pf += 64)
      __builtin_prefetch((const char *)(in1 + (o0 + {ahead * ocb}) * {g.kdim}) + ob_pf);
  }}"""


def forward_dot(g: Geometry) -> str:
    """The body of a ``dot`` Conv2D kernel (in0 = x, in1 = w, out0 = y): one group, ``C`` a multiple of 16, any
    kernel, stride, padding and dilation. The workspace holds the image's patches, transposed: row ``p`` =
    output pixel ``p``'s ``C * KH * KW`` inputs in the weight's (channel, kernel row, kernel column) order,
    zeros where padded (for a 1x1 unpadded convolution, the image transposed)."""
    lanes = TILED_VECTOR_BYTES // g.itemsize()
    assert g.g == 1 and g.kdim % lanes == 0
    p = g.oh * g.ow
    if g.kh == g.kw == 1 and g.sh == g.sw == 1 and g.pt == g.pl == 0 and (g.h, g.w) == (g.oh, g.ow):
        fill = f"""const {g.t} *restrict src = in0 + b * {g.c * p};
  for (int64_t c = 0; c < {g.c}; c++)
    for (int64_t q = 0; q < {p}; q++) xt[q * {g.c} + c] = src[c * {p} + q];"""
    else:
        fill = f"""const {g.t} *restrict src = in0 + b * {g.c * g.h * g.w};
  for (int64_t q = 0; q < {p}; q++) {{
    const int64_t r = q / {g.ow}, s = q % {g.ow};
    {g.t} *restrict d = xt + q * {g.kdim};
    for (int64_t c = 0; c < {g.c}; c++)
    for (int64_t ki = 0; ki < {g.kh}; ki++)
    for (int64_t kj = 0; kj < {g.kw}; kj++) {{
      const int64_t i = r * {g.sh} - {g.pt} + ki * {g.dh}, j = s * {g.sw} - {g.pl} + kj * {g.dw};
      const int inside = i >= 0 && i < {g.h} && j >= 0 && j < {g.w};
      d[(c * {g.kh} + ki) * {g.kw} + kj] = inside ? src[(c * {g.h} + i) * {g.w} + j] : 0;
    }}
  }}"""
    itype = "int32_t" if g.itemsize() == 4 else "int64_t"
    return f"""typedef {g.t} ob_vec __attribute__((vector_size({TILED_VECTOR_BYTES})));
typedef {g.t} ob_vecu __attribute__((vector_size({TILED_VECTOR_BYTES}), aligned(sizeof({g.t}))));
typedef {itype} ob_mask __attribute__((vector_size({TILED_VECTOR_BYTES})));
const ob_vec ob_zero = {{0}};
{_masks(lanes)}
(void)ob_zero;
{g.t} *restrict xt = ({g.t} *)ob_ws;
for (int64_t b = 0; b < {g.n}; b++) {{
  {fill}
#if defined(__AVX512F__)
  {_tiles(g, *TILE_AVX512[lanes], lanes)}
#else
  {_tiles(g, *TILE_AVX2[lanes], lanes)}
#endif
}}"""


def dot_tail(g: Geometry, first: int, count: int) -> str:
    """C computing pixels ``[first, first + count)`` of image ``b`` of a 1x1 convolution (one group, whole
    vectors of channels) the ``dot`` way: the ``tiled`` kernel's in-place path runs its whole pixel vectors
    and leaves the last, partial one here (ops/conv_plan.py ``tiled_dot_tail``). ``ob_ws`` holds the tail's
    ``count x C`` transposed block; the masks and vector types are declared by :func:`dot_prologue`."""
    lanes = TILED_VECTOR_BYTES // g.itemsize()
    p = g.oh * g.ow
    return f"""{{
{g.t} *restrict xt = ({g.t} *)ob_ws;
const {g.t} *restrict src = in0 + b * {g.c * p} + {first};
for (int64_t c = 0; c < {g.c}; c++)
  for (int64_t q = 0; q < {count}; q++) xt[q * {g.c} + c] = src[c * {p} + q];
#if defined(__AVX512F__)
{_tiles(g, *TILE_AVX512[lanes], lanes, first, count, prefetch=False)}
#else
{_tiles(g, *TILE_AVX2[lanes], lanes, first, count, prefetch=False)}
#endif
}}"""


def dot_prologue(g: Geometry) -> str:
    """C declaring the mask type and the reduction tree's masks (after ``ob_vec`` and ``ob_zero``)."""
    lanes = TILED_VECTOR_BYTES // g.itemsize()
    itype = "int32_t" if g.itemsize() == 4 else "int64_t"
    return f"typedef {itype} ob_mask __attribute__((vector_size({TILED_VECTOR_BYTES})));\n{_masks(lanes)}"
