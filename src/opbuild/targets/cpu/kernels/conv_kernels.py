"""C kernels of Conv2D and its backward ops (NCHW), chosen by shape at build time.

The choice is an attribute (``algo``) of the normalized descriptor (ops/conv_plan.py ``choose``), so it is
part of every kernel's key and visible in its ``.info``:

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
``tiled``
    Conv2D's default (conv_tiled.py): register tiles of output channels x pixel vectors over zero-bordered
    stride-phase planes, no BLAS. The others remain for the backward ops and for callers that force them.
``dwvec``
    Conv2D's depthwise convolutions with one output channel per group on small and medium maps
    (conv_dwvec.py): vectors of 16 channels per pixel, over channel-innermost per-thread copies.
``dot``
    Conv2D's ungrouped convolutions with output maps of at most 9 pixels (conv_dot.py): dot products along
    the weight's rows over the transposed patches in the workspace.

The column block is the kernel's *workspace*: the op declares its size (``OpDef.workspace``:
ops/conv_plan.py ``workspace_bytes``) and the kernel takes its address as one more pointer after the outputs (kernel ABI
2, targets/cpu/codegen.py). In a graph the executor hands it a region of the arena live during that node
only (passes/memplan.py), so every convolution of a network shares the memory the other intermediates leave
free at its step, instead of each kernel keeping its own buffer for the life of the process; PyNative
allocates it per call. It is used by the calling thread only (the GEMMs' threads read it through BLAS).
The zero-bordered planes of the ``direct``/``depthwise`` kernels stay function-scope ``static __thread``
arrays, one per OpenMP thread: the arena would need one per thread, and the number of threads is OpenMP's
run-time decision (OMP_NUM_THREADS lists, ``omp_set_num_threads``, thread limits), not something a plan made
at trace time can size safely; they are small (the planes of one group).

The backward kernels (``conv_backward_kernels.py``) reuse this module's pieces: :class:`Geometry`,
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

from ....ops.conv_plan import ConvShape, aligned, col_bytes, workspace_bytes
from ..codegen import blas_serial, ctype, gemm_symbols, is_half, load, parallel_for, store
from .conv_dot import forward_dot
from .conv_dwvec import forward_dwvec
from .conv_tiled import forward_tiled


def col_range(w: int, ow: int, pl: int, sw: int, dw: int) -> str:
    """C declaring ``lo``/``hi``: the output columns q whose input column q*sw - pl + kj*dw lies in [0, W),
    in closed form (for the ``kj`` in scope), so loops over [lo, hi) need no bounds test."""
    return (f"int64_t lo = {pl} - kj * {dw}; lo = lo > 0 ? (lo + {sw} - 1) / {sw} : 0;\n"
            f"int64_t hi = {w} + {pl} - kj * {dw}; hi = hi > 0 ? (hi + {sw} - 1) / {sw} : 0;\n"
            f"if (hi > {ow}) hi = {ow};\n"
            f"if (lo > hi) lo = hi;")


class Geometry(ConvShape):
    """A convolution's shapes (:class:`ConvShape`) and the C pieces its kernels are built from; ``t`` is the
    element's C type; ``epi``: the kernel applies a FusedConv2D's per-channel epilogue at its stores
    (conv_epilogue.py; only the ``tiled``, ``dot`` and ``dwvec`` kernels do)."""

    def __init__(self, attrs: dict, x_shape: Sequence[int], w_shape: Sequence[int], y_shape: Sequence[int],
                 dtype: str, epi: bool = False):
        super().__init__(attrs, x_shape, w_shape, y_shape, dtype)
        self.t = ctype(dtype)
        self.epi = epi

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
    if algo == "tiled":
        return forward_tiled(geo)
    if algo == "dwvec":
        return forward_dwvec(geo)
    if algo == "dot":
        return forward_dot(geo)
    return _forward_im2col(geo)


def _forward_gemm(g: Geometry) -> str:
    fn, one, zero = gemm_symbols(g.dtype)
    hw = g.h * g.w
    call = (f"{fn}(ObRowMajor, ObNoTrans, ObNoTrans, {g.og}, {hw}, {g.cg}, {one}, in1 + gi * {g.og * g.cg}, "
            f"{g.cg}, in0 + (b * {g.c} + gi * {g.cg}) * {hw}, {hw}, {zero}, "
            f"out0 + (b * {g.o} + gi * {g.og}) * {hw}, {hw});")
    # A small product keeps to the calling thread (codegen.blas_serial, docs/threads.md).
    return (f"for (int64_t b = 0; b < {g.n}; b++)\nfor (int64_t gi = 0; gi < {g.g}; gi++)\n"
            f"  {blas_serial(call, g.og * hw * g.cg)}")


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
    call = (f"{fn}(ObRowMajor, ObNoTrans, ObNoTrans, {g.og}, (int)(nr * {g.ow}), {g.kdim}, {one}, "
            f"in1 + gi * {g.og * g.kdim}, {g.kdim}, col, (int)(nr * {g.ow}), {zero}, "
            f"out0 + (b * {g.o} + gi * {g.og}) * {g.oh * g.ow} + r0 * {g.ow}, {g.oh * g.ow});")
    block = f"""
const {g.t} *restrict img = in0 + (b * {g.c} + gi * {g.cg}) * {g.h * g.w};
{g.im2col().strip()}
{blas_serial(call, g.og * rows * g.ow * g.kdim)}"""
    return f"{g.workspace(rows)}\n{g.row_blocks(rows, block)}"


# ---- half types -----------------------------------------------------------------------------------


def kernel(attrs: dict, shapes: Sequence[Sequence[int]], dtype: str, sizes: Sequence[int],
           emit: Callable[[str, Geometry], str], epi: bool = False) -> tuple[int, str]:
    """(workspace bytes, C body) of a convolution kernel (forward or backward: 2 inputs, 1 output) whose
    forward geometry is ``shapes`` = (x, w, y) shapes: ``emit(algo, geometry)`` writes the float kernel, which
    half types run in float32 (:func:`half_wrap`; ``sizes`` = the elements of in0, in1, out0). The size is
    ops/conv_plan.py's (``OpDef.workspace``), which the body's layout follows. The body reads
    its workspace through ``ob_ws``, the kernel function's parameter (codegen.kernel_function), wherever the
    ABI puts the pointer (after the outputs: an epilogue input shifts it). ``epi``: apply a FusedConv2D's
    per-channel epilogue at the stores (conv_epilogue.py; float32/float64 ``tiled``, ``dot``, ``dwvec``)."""
    half = is_half(dtype)
    assert not (epi and (half or attrs["algo"] not in ("tiled", "dot", "dwvec")))
    g = Geometry(attrs, shapes[0], shapes[1], shapes[2], "float32" if half else dtype, epi)
    algo = attrs["algo"]
    nbytes = workspace_bytes(algo, g, sizes if half else None)
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
    a = aligned(col_bytes(algo, g))
    b = a + aligned(4 * max(na, 1))
    c = b + aligned(4 * max(nb, 1))
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
    clipped to the input: the MaxPoolGrad and AvgPoolGrad kernels (conv_grad.py; the forward pools vectorise
    over output columns instead, pooling.py)."""
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
