"""The ``dwvec`` Conv2D kernel: depthwise convolutions (one input and one output channel per group) vectorised
over channels instead of pixels.

Why: the ``tiled`` kernel (conv_tiled.py) vectorises over each plane's pixels, one group at a time. On the
small maps of a CNN's late stages (3x3 to 12x12 outputs, MobileNet's and EfficientNet's 3x3 and 5x5 depthwise
layers, ConvNeXt's 7x7) a plane is one to a few vectors, so each group pays the per-group costs (its phase
planes filled row by row, its tiles scattered back, partial vectors, dropped domain columns) for a handful of
multiply-adds. onnxruntime's MLAS runs these in its channel-blocked layout, one vector of channels per pixel.

How: for each block of ``L`` channels (one 64-byte vector: 16 floats, 8 doubles), the block's planes are
copied into a per-thread zero-bordered buffer with the channel innermost (``xs[i][j][l]``), the block's
weights likewise (``ws[tap][l]``), then every output pixel is a sum over taps of whole-vector multiply-adds,
``acc += ws[tap] * xs[r*sh + ki*dh][q*sw + kj*dw]``, accumulated in registers for ``QB`` pixels of an output
row at a time (any stride and dilation: a tap of a strided pixel is still one aligned vector), stored into a
per-thread buffer ``ys[pixel][l]`` and copied back into the block's NCHW output planes. The transposing copies
cost two scalar moves per input and output element, which is why this kernel is chosen only where the pixel
vectors lose more (ops/conv_plan.py ``use_dwvec``; measurements in docs/benchmarks.md).

Sums run over taps in (kernel row, kernel column) order from zero, the order of the other kernels. The
buffers are function-scope ``static __thread`` arrays (as the ``direct`` kernel's padded planes): their
borders stay zero since only the interior is ever written; the lanes of a partial last block past the last
channel hold stale finite values whose results are never stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....ops.conv_plan import TILED_VECTOR_BYTES
from .conv_dot import _parallel
from .conv_epilogue import linear

if TYPE_CHECKING:  # conv_kernels.forward dispatches here
    from .conv_kernels import Geometry

# Output pixels per register tile: AVX-512 holds 8 accumulators of one zmm each beside the weight and the
# loaded inputs; AVX2 splits each 64-byte vector into two ymm registers, so 4 keep it within 16 registers.
QB_AVX512 = 8
QB_AVX2 = 4


def _row_tile(g: Geometry, nq: int, pw: int) -> str:
    """C of ``nq`` output pixels from column ``q0`` of output row ``r``: accumulated over every tap, stored
    into ``ys`` (``pw``: the padded input row's length in vectors)."""
    accs = [f"a{k}" for k in range(nq)]
    decl = f"ob_vec {', '.join(f'{a} = ob_zero' for a in accs)};"
    fmas = " ".join(f"{a} += wv * s[{k * g.sw}];" for k, a in enumerate(accs))
    stores = " ".join(f"yr[q0 + {k}] = {a};" for k, a in enumerate(accs))
    return f"""{{
{decl}
for (int64_t ki = 0; ki < {g.kh}; ki++) {{
  const ob_vec *restrict xr = xs + (r * {g.sh} + ki * {g.dh}) * {pw} + q0 * {g.sw};
  for (int64_t kj = 0; kj < {g.kw}; kj++) {{
    const ob_vec wv = ws[ki * {g.kw} + kj];
    const ob_vec *restrict s = xr + kj * {g.dw};
    {fmas}
  }}
}}
{stores}
}}"""


def _rows(g: Geometry, qb: int, pw: int) -> str:
    """C computing every output row of the block, ``qb`` pixels at a time, then the row's last partial tile."""
    full, tail = divmod(g.ow, qb)
    code = [f"for (int64_t r = 0; r < {g.oh}; r++) {{", f"ob_vec *restrict yr = ys + r * {g.ow};"]
    if full:
        code.append(f"for (int64_t q0 = 0; q0 < {full * qb}; q0 += {qb}) {_row_tile(g, qb, pw)}")
    if tail:
        code.append(f"{{ const int64_t q0 = {full * qb}; {_row_tile(g, tail, pw)} }}")
    code.append("}")
    return "\n".join(code)


def _epilogue(g: Geometry, lanes: int, ohw: int) -> str:
    """C applying a fused per-channel epilogue (conv_epilogue.py) to the block's results in ``ys``, a vector of
    channels per pixel (L1-resident, whole vectors), before they are copied out; nothing without one. A partial
    block's lanes past the last channel are left alone (their per-channel inputs do not exist)."""
    if not g.epi:
        return ""
    return f"""if (nl == {lanes})
    for (int64_t p = 0; p < {ohw}; p++) {linear(g, f"({g.t} *)(ys + p)", lanes, "c0")}
  else
    for (int64_t p = 0; p < {ohw}; p++) {linear(g, f"({g.t} *)(ys + p)", "nl", "c0")}"""


def forward_dwvec(g: Geometry) -> str:
    """The body of a ``dwvec`` Conv2D kernel (in0 = x, in1 = w, out0 = y; ``g.cg == g.og == 1``)."""
    assert g.cg == 1 and g.og == 1
    lanes = TILED_VECTOR_BYTES // g.itemsize()
    ph, pw = g.pad_dims()
    kk, hw, ohw = g.kh * g.kw, g.h * g.w, g.oh * g.ow
    nblk = -(-g.c // lanes)
    return f"""typedef {g.t} ob_vec __attribute__((vector_size({TILED_VECTOR_BYTES})));
const ob_vec ob_zero = {{0}};
(void)ob_zero;
{_parallel(g.n * g.o * ohw * kk)}for (int64_t bc = 0; bc < {g.n * nblk}; bc++) {{
  const int64_t b = bc / {nblk}, c0 = bc % {nblk} * {lanes};
  const int64_t nl = {g.c} - c0 < {lanes} ? {g.c} - c0 : {lanes};
  static __thread ob_vec ob_xs[{ph * pw}], ob_ws[{kk}], ob_ys[{ohw}];
  ob_vec *restrict xs = ob_xs, *restrict ws = ob_ws, *restrict ys = ob_ys;
  {g.t} *restrict xe = ({g.t} *)xs, *restrict we = ({g.t} *)ws;
  const {g.t} *restrict ye = (const {g.t} *)ys;
  const {g.t} *restrict src = in0 + (b * {g.c} + c0) * {hw};
  if (nl == {lanes}) {{
    for (int64_t i = 0; i < {g.h}; i++)
      for (int64_t j = 0; j < {g.w}; j++) {{
        {g.t} *restrict d = xe + ((i + {g.pt}) * {pw} + j + {g.pl}) * {lanes};
        for (int64_t l = 0; l < {lanes}; l++) d[l] = src[l * {hw} + i * {g.w} + j];
      }}
    for (int64_t t = 0; t < {kk}; t++)
      for (int64_t l = 0; l < {lanes}; l++) we[t * {lanes} + l] = in1[(c0 + l) * {kk} + t];
  }} else
  for (int64_t l = 0; l < nl; l++) {{
    for (int64_t i = 0; i < {g.h}; i++)
      for (int64_t j = 0; j < {g.w}; j++)
        xe[((i + {g.pt}) * {pw} + j + {g.pl}) * {lanes} + l] = src[l * {hw} + i * {g.w} + j];
    for (int64_t t = 0; t < {kk}; t++) we[t * {lanes} + l] = in1[(c0 + l) * {kk} + t];
  }}
#if defined(__AVX512F__)
  {_rows(g, QB_AVX512, pw)}
#else
  {_rows(g, QB_AVX2, pw)}
#endif
  {_epilogue(g, lanes, ohw)}
  {g.t} *restrict dst = out0 + (b * {g.c} + c0) * {ohw};
  if (nl == {lanes})
    for (int64_t p = 0; p < {ohw}; p++)
      for (int64_t l = 0; l < {lanes}; l++) dst[l * {ohw} + p] = ye[p * {lanes} + l];
  else
  for (int64_t l = 0; l < nl; l++)
    for (int64_t p = 0; p < {ohw}; p++) dst[l * {ohw} + p] = ye[p * {lanes} + l];
}}"""
