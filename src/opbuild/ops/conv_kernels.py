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
    im2col of a block of output rows into the kernel's workspace (below), then one GEMM per
    block (the column block stays in cache for the GEMM that reads it).

The column block is the kernel's *workspace*: the op declares its size (``OpDef.workspace``:
:func:`workspace_bytes`) and the kernel takes its address as one more pointer after the outputs (kernel ABI
2, targets/cpu/codegen.py). In a graph the executor hands it a region of the arena live during that node
only (passes/memplan.py), so every convolution of a network shares the memory the other intermediates leave
free at its step, instead of each kernel keeping its own buffer for the life of the process; PyNative
allocates it per call. It is used by the calling thread only (the GEMMs' threads read it through BLAS).
The zero-bordered planes of the ``direct``/``depthwise`` kernels stay function-scope ``static __thread``
arrays, one per OpenMP thread: the arena would need one per thread, and the number of threads is OpenMP's
run-time decision (OMP_NUM_THREADS lists, ``omp_set_num_threads``, thread limits), not something a plan made
at trace time can size safely; they are small (the planes of one group).

The backward kernels (``ops/conv_backward_kernels.py``) reuse this module's pieces: :class:`Geometry`,
its zero-bordered plane copy (:meth:`Geometry.pad_planes`), its im2col/col2im and the row-block loop
(:meth:`Geometry.row_blocks`).

Half types (float16/bfloat16) run the float32 kernel of the same algorithm on float32 copies of the inputs and
round each result once on store (:func:`half_wrap`); the descriptor records the strategy
(``half_conv: "f32_scratch"``), so a native half kernel later is a new cache entry, never a changed one.

Epilogues (bias, activation, ...) go where a block of the output is final: ``_forward_direct`` at the row's
``memcpy`` (``acc`` holds one output row of channel ``oc``), ``_forward_im2col`` after each block's GEMM (``og``
channels x ``nr * OW`` pixels), ``_forward_gemm`` after each (image, group) GEMM; for half types, before
:func:`half_wrap` rounds (the float32 ``out0`` is the scratch buffer there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..targets.cpu.codegen import ctype, gemm_symbols, is_half, load, parallel_for, store

ALGOS = ("gemm", "depthwise", "direct", "im2col")
# How a float16/bfloat16 convolution computes (the descriptor's ``half_conv`` attribute): float32 copies of the
# inputs, the float32 kernel, one rounding per result on store.
HALF_CONV = "f32_scratch"
WORKSPACE_ALIGN = 64  # bytes: each region of a workspace starts on a cache line

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

    def pad_dims(self) -> tuple[int, int]:
        """(rows, cols) of a zero-bordered input plane: every tap of every output pixel, ``r*sh + ki*dh`` and
        ``q*sw + kj*dw``, lands inside it, and so does every input pixel (at ``pt + i``, ``pl + j``)."""
        ph = (self.oh - 1) * self.sh + (self.kh - 1) * self.dh + 1
        pw = (self.ow - 1) * self.sw + (self.kw - 1) * self.dw + 1
        return max(ph, self.h + self.pt), max(pw, self.w + self.pl)

    def pad_planes(self, src: str, b: str, gi: str) -> str:
        """C declaring ``pad``: this thread's zero-bordered copy of the ``Cg`` input planes of image ``b``,
        group ``gi`` of the NCHW tensor ``src``. The buffer is a function-scope ``static __thread`` array: its
        borders are zero from the thread's first use on, since only the interior is ever written."""
        ph, pw = self.pad_dims()
        return f"""static __thread {self.t} ob_pad[{self.cg * ph * pw}] __attribute__((aligned(64)));
{self.t} *restrict pad = ob_pad;
for (int64_t ci = 0; ci < {self.cg}; ci++)
  for (int64_t i = 0; i < {self.h}; i++)
    memcpy(pad + (ci * {ph} + i + {self.pt}) * {pw} + {self.pl},
           {src} + (({b} * {self.c} + {gi} * {self.cg} + ci) * {self.h} + i) * {self.w}, sizeof(*pad) * {self.w});"""

    def row_blocks(self, rows: int, body: str) -> str:
        """C running ``body`` for every (image ``b``, group ``gi``, block of ``nr`` output rows from ``r0``)."""
        return f"""for (int64_t b = 0; b < {self.n}; b++)
for (int64_t gi = 0; gi < {self.g}; gi++)
for (int64_t r0 = 0; r0 < {self.oh}; r0 += {rows}) {{
  const int64_t nr = {self.oh} - r0 < {rows} ? {self.oh} - r0 : {rows};
  {body.strip()}
}}"""

    def block_rows(self) -> int:
        """Output rows per im2col block (see COL_BLOCK_BYTES / MIN_GEMM_N)."""
        rows = COL_BLOCK_BYTES // max(1, self.kdim * self.ow * np.dtype(self.dtype).itemsize)
        return max(1, min(self.oh, max(rows, -(-MIN_GEMM_N // self.ow))))

    def workspace(self, rows: int) -> str:
        """C declaring ``col``: the column block (KDIM x rows*OW) at the start of the kernel's workspace
        (``ob_ws``: the kernel function's workspace parameter, sized by :func:`workspace_bytes`)."""
        assert rows == self.block_rows()  # the size workspace_bytes planned
        return f"{self.t} *restrict col = ({self.t} *)ob_ws;"

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
    per-thread buffer (:meth:`Geometry.pad_planes`), then ``acc[q] += w * padded[row][q*sw + kj*dw]`` for every
    tap over the whole output row, a bounds-free loop of constant length that gcc vectorises and unrolls."""
    ph, pw = g.pad_dims()
    work = g.n * g.o * g.oh * g.ow * g.kdim
    return f"""
{parallel_for(work)}for (int64_t p = 0; p < {g.n * g.o}; p++) {{
  const int64_t b = p / {g.o}, oc = p % {g.o}, gi = oc / {g.og};
  {g.pad_planes("in0", "b", "gi")}
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
    block = f"""
const {g.t} *restrict img = in0 + (b * {g.c} + gi * {g.cg}) * {g.h * g.w};
{g.im2col().strip()}
{fn}(ObRowMajor, ObNoTrans, ObNoTrans, {g.og}, (int)(nr * {g.ow}), {g.kdim}, {one}, in1 + gi * {g.og * g.kdim},
     {g.kdim}, col, (int)(nr * {g.ow}), {zero}, out0 + (b * {g.o} + gi * {g.og}) * {g.oh * g.ow} + r0 * {g.ow},
     {g.oh * g.ow});"""
    return f"{g.workspace(rows)}\n{g.row_blocks(rows, block)}"


# ---- half types -----------------------------------------------------------------------------------

def _aligned(n: int) -> int:
    return -(-n // WORKSPACE_ALIGN) * WORKSPACE_ALIGN


def col_bytes(algo: str, g: Geometry) -> int:
    """Bytes of the column block of an ``im2col`` kernel, forward or backward (0 for the other algorithms)."""
    return g.kdim * g.block_rows() * g.ow * np.dtype(g.dtype).itemsize if algo == "im2col" else 0


def workspace_bytes(algo: str, g: Geometry, half_sizes: Sequence[int] | None) -> int:
    """A convolution kernel's workspace: the column block, then (half types) the float32 copies of both
    operands and the float32 result (``half_sizes``: their element counts), each 64-byte aligned."""
    total = _aligned(col_bytes(algo, g))
    if half_sizes is not None:
        total += sum(_aligned(4 * max(int(n), 1)) for n in half_sizes)
    return total




def kernel(attrs: dict, shapes: Sequence[Sequence[int]], dtype: str, sizes: Sequence[int],
           emit: Callable[[str, Geometry], str] | None) -> tuple[int, str]:
    """(workspace bytes, C body) of a convolution kernel (forward or backward: 2 inputs, 1 output) whose
    forward geometry is ``shapes`` = (x, w, y) shapes: ``emit(algo, geometry)`` writes the float kernel, which
    half types run in float32 (:func:`half_wrap`; ``sizes`` = the elements of in0, in1, out0). ``emit`` None
    gives the size alone (OpDef.workspace), from the same code the body's layout comes from. The body reads
    its workspace through ``ob_ws``, the kernel function's parameter (codegen.kernel_function), wherever the
    ABI puts the pointer (after the outputs: an epilogue input shifts it)."""
    half = is_half(dtype)
    g = Geometry(attrs, shapes[0], shapes[1], shapes[2], "float32" if half else dtype)
    algo = attrs["algo"]
    nbytes = workspace_bytes(algo, g, sizes if half else None)
    if emit is None:
        return nbytes, ""
    body = emit(algo, g)
    if half:
        body = half_wrap(dtype, sizes, body, g, algo)
    return nbytes, body  # ``ob_ws``: the kernel function's workspace parameter (codegen.kernel_function)


def half_wrap(dtype: str, sizes: Sequence[int], body: str, g: Geometry, algo: str) -> str:
    """For float16/bfloat16: convert ``in0``/``in1`` (``sizes[0]``/``sizes[1]`` elements) into float32
    scratch buffers, run the float32 kernel ``body`` (it reads ``in0``/``in1`` and writes ``out0``, all three
    shadowed here by float32 buffers) and round the ``sizes[2]`` results once into the real output. The
    scratch buffers follow the column block in the workspace (:func:`workspace_bytes`)."""
    na, nb, nc = (int(v) for v in sizes)
    a = _aligned(col_bytes(algo, g))
    b = a + _aligned(4 * max(na, 1))
    c = b + _aligned(4 * max(nb, 1))
    return f"""{{
float *restrict ob_a = (float *)(ob_ws + {a}), *restrict ob_b = (float *)(ob_ws + {b});
float *restrict ob_c = (float *)(ob_ws + {c});
{parallel_for(na)}for (int64_t i = 0; i < {na}; i++) ob_a[i] = {load(dtype, 'in0[i]')};
{parallel_for(nb)}for (int64_t i = 0; i < {nb}; i++) ob_b[i] = {load(dtype, 'in1[i]')};
{ctype(dtype)} *restrict ob_out = out0;
{{
const float *restrict in0 = ob_a, *restrict in1 = ob_b;
float *restrict out0 = ob_c;
{body.strip()}
}}
{parallel_for(nc)}for (int64_t i = 0; i < {nc}; i++) ob_out[i] = {store(dtype, 'ob_c[i]')};
}}"""


# ---- pooling windows ------------------------------------------------------------------------------

def pool_windows(x_shape: Sequence[int], out_hw: Sequence[int], attrs: dict, planes: str, body: str) -> str:
    """C looping over every pooling window of every (image, channel) plane ``p`` of an NCHW input
    ``x_shape``: ``planes`` declares the plane's pointers (from ``p``), ``body`` runs per window with its output
    position (``r``, ``q``), its unclipped start (``h0``, ``w0``) and its rows [hs, h1) and columns [ws, w1)
    clipped to the input. MaxPool, AvgPool and both their gradients share it (ops/conv.py, ops/conv_grad.py)."""
    n, c, h, w = x_shape
    oh, ow = out_hw
    (kh, kw), (sh, sw), (pt, _, pl, _) = attrs["kernel_size"], attrs["strides"], attrs["pad"]
    return f"""
for (int64_t p = 0; p < {n * c}; p++) {{
  {planes.strip()}
  for (int64_t r = 0; r < {oh}; r++) {{
    const int64_t h0 = r * {sh} - {pt};
    const int64_t hs = h0 > 0 ? h0 : 0, h1 = h0 + {kh} < {h} ? h0 + {kh} : {h};
    for (int64_t q = 0; q < {ow}; q++) {{
      const int64_t w0 = q * {sw} - {pl};
      const int64_t ws = w0 > 0 ? w0 : 0, w1 = w0 + {kw} < {w} ? w0 + {kw} : {w};
      {body.strip()}
    }}
  }}
}}"""


def avg_divisor(x_shape: Sequence[int], attrs: dict) -> str:
    """C expression: AvgPool's divisor inside :func:`pool_windows` (PyTorch's rule with
    ``count_include_pad``: the window clipped to the padded input; else the real pixels only)."""
    h, w = x_shape[2:]
    (kh, kw), (_, pb, _, pr) = attrs["kernel_size"], attrs["pad"]
    if attrs["count_include_pad"]:
        return (f"((h0 + {kh} < {h + pb} ? h0 + {kh} : {h + pb}) - h0) * "
                f"((w0 + {kw} < {w + pr} ? w0 + {kw} : {w + pr}) - w0)")
    return "(h1 - hs) * (w1 - ws)"
