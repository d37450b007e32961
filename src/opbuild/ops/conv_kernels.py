"""C kernels of Conv2D and its backward ops (NCHW), chosen by shape at build time.

The choice is an attribute (``algo``) of the normalized descriptor, so it is part of every kernel's key and
visible in its ``.info``:

``gemm``
    1x1, stride 1, unpadded: the image (Cg x H*W) already is the column matrix, one GEMM per (image, group):
    ``out = W_g (Og x Cg) @ X (Cg x H*W)``. No im2col, no workspace.
``depthwise`` / ``direct``
    Direct loops, one output row at a time accumulated in a local row (so the output is written once, not
    once per tap), vectorised over the output width (bounds-free, unit stride when the stride is 1).
    ``depthwise`` is the one-input-channel-per-group case (MobileNet), whose per-group GEMMs (K = KH*KW)
    are too small for BLAS; ``direct`` is any convolution whose per-(image, group) GEMM is so small that the
    BLAS call and the im2col copy cost more than the arithmetic.
``im2col``
    im2col of a block of output rows into a per-thread workspace sized at build time, then one GEMM per
    block (the column block stays in cache for the GEMM that reads it).

The workspace is a function-scope ``static __thread`` array: sized at build time, allocated by the C
runtime per thread on the kernel's first use in that thread (dynamic TLS of a dlopen'ed object) and freed
when the thread exits, so no call ``malloc``s and two threads calling the same kernel never share it. The
ABI stays ``void k(void *const *args)``.

The backward ops use the same shapes of code: ``Conv2DBackpropInput`` is ``dcol = W_g^T @ dy`` then col2im
(a scatter-add of the column block into the input gradient); ``Conv2DBackpropFilter`` is
``dW_g += dy @ col^T`` over im2col blocks; 1x1 stride-1 cases skip the column matrix; ``direct`` keeps the
scatter loops for tiny shapes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..targets.cpu.codegen import ctype, gemm_symbols, parallel_for

ALGOS = ("gemm", "depthwise", "direct", "im2col")

# im2col works on blocks of output rows: ~256 KB of column matrix (stays in L2 for the gemm that reads it),
# but at least 512 gemm columns (narrower gemms lose more to BLAS overhead than the cache saves); measured in
# docs/benchmarks.md, "Measurements behind the code".
COL_BLOCK_BYTES = 256 * 1024
MIN_GEMM_N = 512
# One input channel per group and fewer outputs per group than this: the depthwise kernel.
DEPTHWISE_MAX_OUT = 4
# A per-(image, group) GEMM with fewer multiply-adds than this runs as direct loops (docs/benchmarks.md).
DIRECT_MAX_MACS = 1 << 14


def choose(x_shape: Sequence[int], w_shape: Sequence[int], out_hw: Sequence[int], attrs: dict) -> str:
    """The algorithm for a convolution of these shapes and normalized ``attrs`` (``kernel_size``, ``pad``,
    ``stride``, ``group``); a valid ``attrs["algo"]`` given by the caller wins (tests force every path)."""
    c, o = x_shape[1], w_shape[0]
    g = attrs["group"]
    cg, og = c // g, o // g
    kh, kw = attrs["kernel_size"]
    one_by_one = kh == kw == 1 and list(attrs["stride"]) == [1, 1] and not any(attrs["pad"])
    forced = attrs.get("algo")
    if forced in ALGOS and (forced != "gemm" or one_by_one):
        return forced
    if one_by_one:
        return "gemm"
    if cg == 1 and og < DEPTHWISE_MAX_OUT:
        return "depthwise"
    if og * cg * kh * kw * out_hw[0] * out_hw[1] < DIRECT_MAX_MACS:
        return "direct"
    return "im2col"


def col_range(w: int, ow: int, pl: int, sw: int, dw: int) -> str:
    """C declaring ``lo``/``hi``: the output columns q whose input column q*sw - pl + kj*dw lies in [0, W),
    in closed form (for the ``kj`` in scope), so loops over [lo, hi) need no bounds test."""
    return (f"int64_t lo = {pl} - kj * {dw}; lo = lo > 0 ? (lo + {sw} - 1) / {sw} : 0;\n"
            f"int64_t hi = {w} + {pl} - kj * {dw}; hi = hi > 0 ? (hi + {sw} - 1) / {sw} : 0;\n"
            f"if (hi > {ow}) hi = {ow};\n"
            f"if (lo > hi) lo = hi;")


class Geometry:
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
        self.t = ctype(dtype)
        self.dtype = dtype

    def block_rows(self) -> int:
        """Output rows per im2col block (see COL_BLOCK_BYTES / MIN_GEMM_N)."""
        rows = COL_BLOCK_BYTES // max(1, self.kdim * self.ow * np.dtype(self.dtype).itemsize)
        return max(1, min(self.oh, max(rows, -(-MIN_GEMM_N // self.ow))))

    def workspace(self, rows: int) -> str:
        """C declaring ``col``: this thread's column block (KDIM x rows*OW), sized at build time."""
        return (f"static __thread {self.t} ob_col[{self.kdim * rows * self.ow}] __attribute__((aligned(64)));\n"
                f"{self.t} *restrict col = ob_col;")

    def im2col(self) -> str:
        """C filling ``col`` (Cg*KH*KW x nr*OW) with the patches of output rows [r0, r0 + nr) of ``img``
        (Cg x H x W), zeros where padded; each row segment one bounds-free copy (memcpy at stride 1)."""
        if self.sw == 1:
            copy = f"memcpy(d + lo, s + (lo - {self.pl} + kj * {self.dw}), sizeof(*d) * (size_t)(hi - lo));"
        else:
            copy = f"for (int64_t q = lo; q < hi; q++) d[q] = s[q * {self.sw} - {self.pl} + kj * {self.dw}];"
        return self._col_loops(f"""
    if (ih < 0 || ih >= {self.h}) {{ memset(d, 0, sizeof(*d) * {self.ow}); continue; }}
    const {self.t} *s = img + (ch * {self.h} + ih) * {self.w};
    if (lo > 0) memset(d, 0, sizeof(*d) * (size_t)lo);
    {copy}
    if (hi < {self.ow}) memset(d + hi, 0, sizeof(*d) * (size_t)({self.ow} - hi));""")

    def col2im(self) -> str:
        """C adding the column block ``col`` (rows [r0, r0 + nr)) into the image gradient ``img`` (Cg x H x
        W): the transpose of :meth:`im2col` (padding positions are dropped)."""
        return self._col_loops(f"""
    if (ih < 0 || ih >= {self.h}) continue;
    {self.t} *s = img + (ch * {self.h} + ih) * {self.w} - {self.pl} + kj * {self.dw};
    for (int64_t q = lo; q < hi; q++) s[q * {self.sw}] += d[q];""")

    def _col_loops(self, body: str) -> str:
        return f"""
for (int64_t ch = 0; ch < {self.cg}; ch++)
for (int64_t ki = 0; ki < {self.kh}; ki++)
for (int64_t kj = 0; kj < {self.kw}; kj++) {{
  {col_range(self.w, self.ow, self.pl, self.sw, self.dw)}
  for (int64_t r = r0; r < r0 + nr; r++) {{
    {self.t} *d = col + ((ch * {self.kh} + ki) * {self.kw} + kj) * nr * {self.ow} + (r - r0) * {self.ow};
    const int64_t ih = r * {self.sh} - {self.pt} + ki * {self.dh};{body}
  }}
}}"""


# ---- forward --------------------------------------------------------------------------------------

def forward(algo: str, geo: Geometry) -> str:
    """The body of a Conv2D kernel (in0 = x, in1 = w, out0 = y) for ``algo``."""
    if algo == "gemm":
        return _forward_gemm(geo)
    if algo in ("depthwise", "direct"):
        return _forward_direct(geo)
    return _forward_im2col(geo)


def _forward_gemm(g: Geometry) -> str:
    fn, one, zero = gemm_symbols(g.dtype)
    hw = g.h * g.w
    return (f"for (int64_t b = 0; b < {g.n}; b++)\nfor (int64_t gi = 0; gi < {g.g}; gi++)\n"
            f"  {fn}(ObRowMajor, ObNoTrans, ObNoTrans, {g.og}, {hw}, {g.cg}, {one}, in1 + gi * {g.og * g.cg}, "
            f"{g.cg}, in0 + (b * {g.c} + gi * {g.cg}) * {hw}, {hw}, {zero}, "
            f"out0 + (b * {g.o} + gi * {g.og}) * {hw}, {hw});")


def _forward_direct(g: Geometry) -> str:
    """Each (image, output channel) plane row by row: its group's input planes are copied into a zero-bordered
    per-thread buffer (the borders are zero from the thread's first use on: only the interior is ever
    written), then ``acc[q] += w * padded[row][q*sw + kj*dw]`` for every tap over the whole output row, a
    bounds-free loop of constant length that gcc vectorises and unrolls."""
    ph, pw = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1
    ph, pw = max(ph, g.h + g.pt), max(pw, g.w + g.pl)  # room for every input pixel, used or not
    work = g.n * g.o * g.oh * g.ow * g.kdim
    return f"""
{parallel_for(work)}for (int64_t p = 0; p < {g.n * g.o}; p++) {{
  static __thread {g.t} ob_pad[{g.cg * ph * pw}] __attribute__((aligned(64)));
  const int64_t b = p / {g.o}, oc = p % {g.o}, gi = oc / {g.og};
  {g.t} *restrict pad = ob_pad;
  for (int64_t ci = 0; ci < {g.cg}; ci++)
    for (int64_t i = 0; i < {g.h}; i++)
      memcpy(pad + (ci * {ph} + i + {g.pt}) * {pw} + {g.pl},
             in0 + ((b * {g.c} + gi * {g.cg} + ci) * {g.h} + i) * {g.w}, sizeof(*pad) * {g.w});
  {g.t} *restrict dst = out0 + p * {g.oh * g.ow};
  const {g.t} *restrict f = in1 + oc * {g.kdim};
  for (int64_t r = 0; r < {g.oh}; r++) {{
    {g.t} acc[{g.ow}] = {{0}};
    for (int64_t ci = 0; ci < {g.cg}; ci++)
    for (int64_t ki = 0; ki < {g.kh}; ki++)
    for (int64_t kj = 0; kj < {g.kw}; kj++) {{
      const {g.t} fv = f[(ci * {g.kh} + ki) * {g.kw} + kj];
      const {g.t} *restrict s = pad + (ci * {ph} + r * {g.sh} + ki * {g.dh}) * {pw} + kj * {g.dw};
      for (int64_t q = 0; q < {g.ow}; q++) acc[q] += fv * s[q * {g.sw}];
    }}
    memcpy(dst + r * {g.ow}, acc, sizeof(acc));
  }}
}}"""


def _forward_im2col(g: Geometry) -> str:
    fn, one, zero = gemm_symbols(g.dtype)
    rows = g.block_rows()
    return f"""
{g.workspace(rows)}
for (int64_t b = 0; b < {g.n}; b++)
for (int64_t gi = 0; gi < {g.g}; gi++) {{
  const {g.t} *restrict img = in0 + (b * {g.c} + gi * {g.cg}) * {g.h * g.w};
  for (int64_t r0 = 0; r0 < {g.oh}; r0 += {rows}) {{
    const int64_t nr = {g.oh} - r0 < {rows} ? {g.oh} - r0 : {rows};
    {g.im2col().strip()}
    {fn}(ObRowMajor, ObNoTrans, ObNoTrans, {g.og}, (int)(nr * {g.ow}), {g.kdim}, {one}, in1 + gi * {g.og * g.kdim},
         {g.kdim}, col, (int)(nr * {g.ow}), {zero}, out0 + (b * {g.o} + gi * {g.og}) * {g.oh * g.ow} + r0 * {g.ow},
         {g.oh * g.ow});
  }}
}}"""


# ---- backward -------------------------------------------------------------------------------------

def backprop_input(algo: str, g: Geometry) -> str:
    """Body of Conv2DBackpropInput (in0 = dy, in1 = w, out0 = dx) by GEMM: ``dcol = W_g^T @ dy_g`` per row
    block, then col2im; for ``gemm`` (1x1 stride 1) ``dx_g = W_g^T @ dy_g`` directly."""
    fn, one, zero = gemm_symbols(g.dtype)
    ohw = g.oh * g.ow
    if algo == "gemm":
        return (f"for (int64_t b = 0; b < {g.n}; b++)\nfor (int64_t gi = 0; gi < {g.g}; gi++)\n"
                f"  {fn}(ObRowMajor, ObTrans, ObNoTrans, {g.cg}, {ohw}, {g.og}, {one}, in1 + gi * {g.og * g.cg}, "
                f"{g.cg}, in0 + (b * {g.o} + gi * {g.og}) * {ohw}, {ohw}, {zero}, "
                f"out0 + (b * {g.c} + gi * {g.cg}) * {ohw}, {ohw});")
    rows = g.block_rows()
    return f"""
{g.workspace(rows)}
memset(out0, 0, sizeof(*out0) * {g.n * g.c * g.h * g.w});
for (int64_t b = 0; b < {g.n}; b++)
for (int64_t gi = 0; gi < {g.g}; gi++) {{
  {g.t} *restrict img = out0 + (b * {g.c} + gi * {g.cg}) * {g.h * g.w};
  for (int64_t r0 = 0; r0 < {g.oh}; r0 += {rows}) {{
    const int64_t nr = {g.oh} - r0 < {rows} ? {g.oh} - r0 : {rows};
    {fn}(ObRowMajor, ObTrans, ObNoTrans, {g.kdim}, (int)(nr * {g.ow}), {g.og}, {one}, in1 + gi * {g.og * g.kdim},
         {g.kdim}, in0 + (b * {g.o} + gi * {g.og}) * {ohw} + r0 * {g.ow}, {ohw}, {zero}, col, (int)(nr * {g.ow}));
    {g.col2im().strip()}
  }}
}}"""


def backprop_filter(algo: str, g: Geometry) -> str:
    """Body of Conv2DBackpropFilter (in0 = dy, in1 = x, out0 = dw) by GEMM: ``dW_g += dy_g @ col^T`` over
    the im2col blocks of every image; for ``gemm`` (1x1 stride 1) ``dW_g += dy_g @ X_g^T``."""
    fn, one, _ = gemm_symbols(g.dtype)
    ohw = g.oh * g.ow
    head = f"memset(out0, 0, sizeof(*out0) * {g.o * g.kdim});"
    if algo == "gemm":
        return (f"{head}\nfor (int64_t b = 0; b < {g.n}; b++)\nfor (int64_t gi = 0; gi < {g.g}; gi++)\n"
                f"  {fn}(ObRowMajor, ObNoTrans, ObTrans, {g.og}, {g.cg}, {ohw}, {one}, "
                f"in0 + (b * {g.o} + gi * {g.og}) * {ohw}, {ohw}, in1 + (b * {g.c} + gi * {g.cg}) * {ohw}, {ohw}, "
                f"{one}, out0 + gi * {g.og * g.cg}, {g.cg});")
    rows = g.block_rows()
    return f"""
{g.workspace(rows)}
{head}
for (int64_t b = 0; b < {g.n}; b++)
for (int64_t gi = 0; gi < {g.g}; gi++) {{
  const {g.t} *restrict img = in1 + (b * {g.c} + gi * {g.cg}) * {g.h * g.w};
  for (int64_t r0 = 0; r0 < {g.oh}; r0 += {rows}) {{
    const int64_t nr = {g.oh} - r0 < {rows} ? {g.oh} - r0 : {rows};
    {g.im2col().strip()}
    {fn}(ObRowMajor, ObNoTrans, ObTrans, {g.og}, {g.kdim}, (int)(nr * {g.ow}), {one},
         in0 + (b * {g.o} + gi * {g.og}) * {ohw} + r0 * {g.ow}, {ohw}, col, (int)(nr * {g.ow}), {one},
         out0 + gi * {g.og * g.kdim}, {g.kdim});
  }}
}}"""
