"""The ``tiled`` Conv2D kernel (NCHW in and out): register-tiled direct convolution over a padded pixel domain.

Why not im2col + GEMM: at the small maps of CNN inference (6x6 to 48x48) the column copy and the BLAS call's
packing of both operands cost as much as the arithmetic, and its GEMM has one short dimension; onnxruntime's
direct kernels run the same convolutions 2-3x faster (docs/benchmarks.md, "Convolutions: the tiled kernel").

The layout trick ("padded domain"): the group's input planes are copied once per call into zero-bordered
*phase planes* (one per (row phase, column phase) of the stride: ``plane[a][b][i][j] = xpad[i*sh + a][j*sw +
b]``), each ``QW`` columns wide with ``QW = OW + ((KW - 1) * DW) // SW``. An output pixel ``(r, q)`` is the
domain index ``p = r * QW + q``, and every tap ``(ki, kj)`` reads its phase plane at ``p`` plus a constant
``((ki * DH) // SH) * QW + (kj * DW) // SW``: a unit-stride vector load for any stride and dilation. The
``QW - OW`` columns of each domain row past the output are computed and dropped; in exchange the domain is one
flat run of ``OH * QW`` pixels, so vectors stay full on 6x6 maps as on 48x48 ones.

The micro-kernel holds ``OCB`` output channels x ``PV`` vectors of pixels in registers (a 64-byte GCC vector:
one AVX-512 register, two AVX2 ones) and, for every input channel and tap, loads ``PV`` input vectors, broadcasts
``OCB`` weights (read in place from the OIHW weight: no per-call repacking) and issues ``OCB * PV``
multiply-adds. Finished tiles go through a small local buffer into the output rows they cover. Work items
(channel block x pixel tile) are split over OpenMP threads when the convolution is large.

The phase planes live in the kernel's workspace (``ob_ws``; ops/conv_plan.py ``tiled_plane``), sized at plan
time. Sums run in the order (input channel, kernel row, kernel column), the order of the ``direct`` kernel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....ops.conv_plan import TILED_VECTOR_BYTES, tiled_dot_tail, tiled_in_place, tiled_per_thread, tiled_plane
from .conv_dot import PREFETCH_MAX_BYTES, _parallel, dot_prologue, dot_tail
from .conv_epilogue import span

if TYPE_CHECKING:  # conv_kernels.forward dispatches here
    from .conv_kernels import Geometry

# Register budgets in 64-byte vectors: the most output channels per tile, by pixel vectors per tile. AVX-512
# has 32 zmm registers (24 accumulators, the loaded input vectors, broadcasts); AVX2's 16 ymm hold 8 such
# vectors. Wider tiles (5 or 6 pixel vectors) measured up to 2x slower: gcc then spills accumulators.
_BUDGET_AVX512 = {1: 24, 2: 12, 3: 8, 4: 6}
_BUDGET_AVX2 = {1: 4, 2: 2}
# A depthwise tile has one to three channels: up to 8 pixel vectors, enough independent accumulators to
# cover the multiply-add latency, and no spills.
_BUDGET_DW_AVX512 = {pv: 24 // pv for pv in range(1, 9)}
_BUDGET_DW_AVX2 = {1: 4, 2: 2, 3: 1}
# Pixel tiles per chunk of work items: a chunk's input (every input channel's planes under its pixels) is
# kept near L2_CHUNK_BYTES, so the channel blocks that sweep it find it in cache.
L2_CHUNK_BYTES = 256 * 1024


def _cycles(no: int, nv: int) -> float:
    """Estimated cycles of one (input channel, tap) step of a ``no`` x ``nv`` tile: two FMA pipes, a 4-cycle
    FMA latency per accumulator chain, two loads (``nv`` inputs + ``no`` broadcasts) per cycle, and a loop
    step's overhead."""
    return max(no * nv / 2, 4.0, (no + nv) / 2) + 0.5


def _tile(og: int, nvec: int, budget: dict[int, int]) -> tuple[int, int]:
    """(OCB, PV): the register tile that minimises the estimated cycles of the whole (``og`` channels x
    ``nvec`` pixel vectors) domain, its partial tiles at the channel and pixel ends included."""
    best: tuple[float, int, int] | None = None
    for pv in range(1, min(max(budget), max(nvec, 1)) + 1):
        for ocb in range(1, min(og, budget[pv]) + 1):
            cost = 0.0
            for no, n_no in ((ocb, og // ocb), (og % ocb, 1)):
                for nv, n_nv in ((pv, nvec // pv), (nvec % pv, 1)):
                    if no and nv:
                        cost += n_no * n_nv * _cycles(no, nv)
            if best is None or cost < best[0] - 1e-9:
                best = (cost, ocb, pv)
    assert best is not None
    return best[1], best[2]


def _micro(g: Geometry, no: int, nv: int, lanes: int, direct: bool) -> str:
    """C of one tile: ``no`` output channels from ``o0`` x ``nv`` vectors from domain pixel ``p0``, accumulated
    in registers, then stored into ``tmp`` (``no`` rows of ``nv * lanes``), or straight into the output planes
    where the domain is the output (``direct``: no dropped columns, whole vectors only)."""
    kk = g.kh * g.kw
    acc = [[f"a{o}_{v}" for v in range(nv)] for o in range(no)]
    decl = "\n".join(f"ob_vec {', '.join(f'{a} = ob_zero' for a in row)};" for row in acc)
    loads = " ".join(f"const ob_vec x{v} = *(const ob_vecu *)(s + {v * lanes});" for v in range(nv))
    fmas = []
    for o in range(no):
        # The weight broadcast as ``w - 0`` (exact for every w, so gcc folds it into a broadcast load that
        # feeds the multiply-adds); ``0 + w`` is not exact for w = -0, which kept a scalar add and a register
        # broadcast (a shuffle) per weight in the loop, and one register more.
        fmas.append(f"{{ const ob_vec bw = wt[{o * g.kdim}] - ob_zero;")
        fmas.append(" ".join(f"{acc[o][v]} += bw * x{v};" for v in range(nv)) + " }")
    dst = f"out0 + (b * {g.o} + gi * {g.og} + o0 + {{o}}) * {g.oh * g.ow} + p0 + {{v}}" if direct else \
        f"tmp + {{o}} * {nv * lanes} + {{v}}"
    stores = "\n".join(f"*(ob_vecu *)({dst.format(o=o, v=v * lanes)}) = {acc[o][v]};"
                       for o in range(no) for v in range(nv))
    # A fused per-channel epilogue (conv_epilogue.py) on each channel's row just stored, still in L1.
    stores += "".join("\n" + span(g, dst.format(o=o, v=0), nv * lanes, f"gi * {g.og} + o0 + {o}")
                      for o in range(no))
    return f"""{{
{decl}
for (int64_t ci = 0; ci < {g.cg}; ci++) {{
  const {g.t} *restrict pc = planes + ci * ob_plane_ci + p0;
  const {g.t} *restrict wc = wb + ci * {kk};
  for (int64_t t = 0; t < {kk}; t++) {{
    const {g.t} *restrict s = pc + ob_toff[t];
    const {g.t} *restrict wt = wc + t;
    {loads}
    {chr(10).join(fmas)}
  }}
}}
{stores}
}}"""


def _dispatch(g: Geometry, nvec: int, budget: dict[int, int], lanes: int, direct: bool,
              parallel: bool = True) -> str:
    """C computing every work item (an output channel block x a pixel tile) for one register budget. Items
    go chunk by chunk (a run of pixel tiles whose input stays in L2), channel block by block within a chunk.
    ``parallel``: split the items over OpenMP's threads (when the convolution is large enough)."""
    ocb, pv = _tile(g.og, nvec, budget)
    n_tiles, n_blocks = -(-nvec // pv), -(-g.og // ocb)
    chunk = max(1, L2_CHUNK_BYTES // max(1, g.cg * g.sh * g.sw * pv * lanes * g.itemsize()))
    oc_tail, pv_tail = g.og % ocb, nvec % pv
    branches = []
    for no in ([ocb] + ([oc_tail] if oc_tail else [])):
        for nv in ([pv] + ([pv_tail] if pv_tail else [])):
            branches.append(f"if (no == {no} && nv == {nv}) {_micro(g, no, nv, lanes, direct)}")
    return f"""
{_parallel(g.og * g.oh * g.ow * g.kdim) if parallel else ""}\
for (int64_t item = 0; item < {n_blocks * n_tiles}; item++) {{
  const int64_t c0 = item / {n_blocks * chunk} * {chunk}, rest = item - c0 * {n_blocks};
  const int64_t tc = {n_tiles} - c0 < {chunk} ? {n_tiles} - c0 : {chunk};
  const int64_t o0 = rest / tc * {ocb}, p0 = (c0 + rest % tc) * {pv * lanes};
  const int64_t no = {g.og} - o0 < {ocb} ? {g.og} - o0 : {ocb};
  const int64_t nv = {nvec} - p0 / {lanes} < {pv} ? {nvec} - p0 / {lanes} : {pv};
  const {g.t} *restrict wb = in1 + (gi * {g.og} + o0) * {g.kdim};
  {_prefetch_next_block(g, ocb)}
  {"" if direct else f"{g.t} tmp[{ocb * pv * lanes}] __attribute__((aligned(64)));"}
  {" else ".join(branches)}
  {"" if direct else _scatter(g)}
}}"""


def _prefetch_next_block(g: Geometry, ocb: int) -> str:
    """C prefetching the next channel block's weights (``ocb`` OIHW rows: one contiguous run) when this item
    starts a block. A tile reads its weights as ``ocb`` short broadcast streams, one element per step, which
    the hardware prefetchers follow poorly: a 96->576 1x1 convolution on a 6x6 map took 4x its in-cache time
    with its weights out of cache, twice what OpenBLAS's sequential packing lost. Large blocks (long rows) are
    left to the hardware."""
    nbytes = ocb * g.kdim * g.itemsize()
    if nbytes > PREFETCH_MAX_BYTES:
        return ""
    return f"""if (rest % tc == 0 && o0 + {ocb} < {g.og})
    for (int64_t ob_pf = 0; ob_pf < {nbytes}; ob_pf += 64)
      __builtin_prefetch((const char *)(wb + {ocb * g.kdim}) + ob_pf);"""


def _scatter(g: Geometry) -> str:
    """C copying the tile in ``tmp`` (domain pixels [p0, p0 + nv * lanes) of ``no`` channels) into the output
    rows it covers (the domain columns past OW dropped)."""
    qw = g.tiled_qw()
    return f"""const int64_t pe = p0 + nv * (int64_t)(sizeof(ob_vec) / sizeof({g.t}));
for (int64_t r = p0 / {qw}; r < {g.oh} && r * {qw} < pe; r++) {{
  const int64_t qa = r * {qw} < p0 ? p0 - r * {qw} : 0;
  const int64_t qb = pe - r * {qw} < {g.ow} ? pe - r * {qw} : {g.ow};
  if (qa >= qb) continue;
  for (int64_t o = 0; o < no; o++)
    memcpy(out0 + ((b * {g.o} + gi * {g.og} + o0 + o) * {g.oh} + r) * {g.ow} + qa,
           tmp + o * nv * (int64_t)(sizeof(ob_vec) / sizeof({g.t})) + r * {qw} + qa - p0,
           sizeof({g.t}) * (size_t)(qb - qa));
}}"""


def _fill_planes(g: Geometry) -> str:
    """C filling ``planes`` (the workspace) with the phase planes of image ``b``, group ``gi``: every element
    written once (zeros where padded, and past the rows the taps reach), each column phase's copy a loop of
    constant bounds (a memcpy at stride 1)."""
    qh, qw, stride = tiled_plane(g)[:3]
    phases = []
    for bb in range(g.sw):
        jlo = max(0, -(-(g.pl - bb) // g.sw))
        jhi = min(qw, max(0, -(-(g.w + g.pl - bb) // g.sw)))
        jlo = min(jlo, jhi)
        if g.sw == 1:
            copy = f"memcpy(d + {jlo}, srow + {jlo}, sizeof(*d) * {jhi - jlo});" if jhi > jlo else ""
        else:
            copy = f"for (int64_t j = {jlo}; j < {jhi}; j++) d[j] = srow[j * {g.sw}];"
        zero = "".join(f"memset(d + {lo}, 0, sizeof(*d) * {hi - lo});" for lo, hi in ((0, jlo), (jhi, qw)) if hi > lo)
        phases.append(f"""{{
    {g.t} *restrict d = dst + {bb} * {stride} + i * {qw};
    if (y < 0 || y >= {g.h}) {{ memset(d, 0, sizeof(*d) * {qw}); }}
    else {{ const {g.t} *restrict srow = src + y * {g.w} - {g.pl} + {bb}; {zero} {copy} }}
  }}""")
    return f"""for (int64_t ci = 0; ci < {g.cg}; ci++)
for (int64_t a = 0; a < {g.sh}; a++) {{
  {g.t} *restrict dst = planes + ci * ob_plane_ci + a * {g.sw * stride};
  const {g.t} *restrict src = in0 + (b * {g.c} + gi * {g.cg} + ci) * {g.h * g.w};
  for (int64_t i = 0; i < {qh}; i++) {{
    const int64_t y = i * {g.sh} + a - {g.pt};
    {chr(10).join(phases)}
  }}
  for (int64_t bb = 0; bb < {g.sw}; bb++)
    memset(dst + bb * {stride} + {qh * qw}, 0, sizeof(*dst) * {stride - qh * qw});
}}"""


def forward_tiled(g: Geometry) -> str:
    """The body of a ``tiled`` Conv2D kernel (in0 = x, in1 = w, out0 = y; any stride, dilation, padding and
    group count). A 1x1 stride-1 unpadded convolution on planes of whole vectors (``tiled_in_place``) reads
    the input planes in place and writes its vectors straight into the output; one whose last vector is
    partial leaves those pixels to a ``dot`` tail (``tiled_dot_tail``)."""
    lanes = TILED_VECTOR_BYTES // g.itemsize()
    tail = tiled_dot_tail(g)
    if tiled_in_place(g):
        hw = g.h * g.w
        stride, nvec, offsets = hw, hw // lanes, "0"
        fill = f"const {g.t} *restrict planes = in0 + (b * {g.c} + gi * {g.cg}) * {hw};"
    else:
        _, qw, stride, nvec = tiled_plane(g)
        offsets = ", ".join(str(((ki * g.dh) % g.sh * g.sw + (kj * g.dw) % g.sw) * stride
                                + (ki * g.dh) // g.sh * qw + (kj * g.dw) // g.sw)
                            for ki in range(g.kh) for kj in range(g.kw))
        fill = f"{g.t} *restrict planes = ({g.t} *)ob_ws;\n{_fill_planes(g)}"
    direct = tiled_in_place(g)
    if tiled_per_thread(g):
        return _depthwise(g, nvec, stride, offsets, lanes)
    work = (f"""#if defined(__AVX512F__)
  {_dispatch(g, nvec, _BUDGET_AVX512, lanes, direct)}
#else
  {_dispatch(g, nvec, _BUDGET_AVX2, lanes, direct)}
#endif""" if nvec else "")
    if tail:  # the partial last vector of each plane, the dot way (conv_dot.py)
        work += "\n" + dot_tail(g, nvec * lanes, tail)
    return f"""{_prologue(g, stride, offsets)}
{dot_prologue(g) if tail else ""}
for (int64_t b = 0; b < {g.n}; b++)
for (int64_t gi = 0; gi < {g.g}; gi++) {{
  {fill}
{work}
}}"""


def _prologue(g: Geometry, stride: int, offsets: str) -> str:
    return f"""typedef {g.t} ob_vec __attribute__((vector_size({TILED_VECTOR_BYTES})));
typedef {g.t} ob_vecu __attribute__((vector_size({TILED_VECTOR_BYTES}), aligned(sizeof({g.t}))));
const ob_vec ob_zero = {{0}};
static const int64_t ob_toff[{g.kh * g.kw}] = {{{offsets}}};
const int64_t ob_plane_ci = {g.sh * g.sw * stride};
(void)ob_zero; (void)ob_toff;"""


def _depthwise(g: Geometry, nvec: int, stride: int, offsets: str, lanes: int) -> str:
    """A depthwise-like kernel (one input channel per group, ``tiled_per_thread``): OpenMP over the (image,
    group) pairs, each thread filling its own phase planes (a function-scope ``static __thread`` array, as
    the ``direct`` kernel's padded planes: the number of threads is OpenMP's run-time decision) and running
    the group's tiles itself."""
    return f"""{_prologue(g, stride, offsets)}
{_parallel(g.n * g.o * g.oh * g.ow * g.kdim)}for (int64_t bg = 0; bg < {g.n * g.g}; bg++) {{
  const int64_t b = bg / {g.g}, gi = bg % {g.g};
  static __thread {g.t} ob_planes[{g.cg * g.sh * g.sw * stride}] __attribute__((aligned(64)));
  {g.t} *restrict planes = ob_planes;
  {_fill_planes(g)}
#if defined(__AVX512F__)
  {_dispatch(g, nvec, _BUDGET_DW_AVX512, lanes, False, parallel=False)}
#else
  {_dispatch(g, nvec, _BUDGET_DW_AVX2, lanes, False, parallel=False)}
#endif
}}"""
