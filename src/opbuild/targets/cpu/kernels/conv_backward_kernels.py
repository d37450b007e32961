"""C kernels of Conv2DBackpropInput and Conv2DBackpropFilter (NCHW), by the ``algo`` of their descriptor.

``gemm`` (1x1, stride 1, unpadded) and ``im2col`` go through BLAS: the input gradient is
``dcol = W_g^T @ dy_g`` per block of output rows, then col2im (the column block added back into the image),
the filter gradient ``dW_g += dy_g @ im2col(x)^T``; ``gemm`` skips the column matrix.

``direct`` (depthwise convolutions, and shapes too small for a BLAS call to pay) runs vectorised loops that
write every result once, the transposes of the forward's direct kernel (conv_kernels.py):

* input gradient, one input plane at a time (OpenMP over the N*C planes), one input row at a time: each input
  row gathers the dy rows that reach it (every output channel of the group, every kernel row that lands on it),
  each kernel column a bounds-free vector loop over the whole row (``_input_direct``), accumulated in a local
  row stored once, instead of each dy element scattering into the input with per-element bounds tests.
* filter gradient, one output channel at a time (OpenMP over the channels: each owns its filter): the group's
  input planes are copied into the forward's zero-bordered buffer, and for every dy row and tap a lane-wise
  ``acc[tap][q] += dy[r][q] * padded[r*sh + ki*dh][q*sw + kj*dw]``, bounds-free; each tap's lanes are summed
  once at the end (lane-parallel partial sums, as the reductions do).
"""

from __future__ import annotations

from ..codegen import gemm_symbols, parallel_for
from .conv_kernels import Geometry


def backprop_input(algo: str, g: Geometry) -> str:
    """Body of Conv2DBackpropInput (in0 = dy, in1 = w, out0 = dx) for ``algo``."""
    if algo == "direct":
        return _input_direct(g)
    fn, one, zero = gemm_symbols(g.dtype)
    ohw = g.oh * g.ow
    if algo == "gemm":
        return (f"for (int64_t b = 0; b < {g.n}; b++)\nfor (int64_t gi = 0; gi < {g.g}; gi++)\n"
                f"  {fn}(ObRowMajor, ObTrans, ObNoTrans, {g.cg}, {ohw}, {g.og}, {one}, in1 + gi * {g.og * g.cg}, "
                f"{g.cg}, in0 + (b * {g.o} + gi * {g.og}) * {ohw}, {ohw}, {zero}, "
                f"out0 + (b * {g.c} + gi * {g.cg}) * {ohw}, {ohw});")
    rows = g.block_rows()
    block = f"""
{g.t} *restrict img = out0 + (b * {g.c} + gi * {g.cg}) * {g.h * g.w};
{fn}(ObRowMajor, ObTrans, ObNoTrans, {g.kdim}, (int)(nr * {g.ow}), {g.og}, {one}, in1 + gi * {g.og * g.kdim},
     {g.kdim}, in0 + (b * {g.o} + gi * {g.og}) * {ohw} + r0 * {g.ow}, {ohw}, {zero}, col, (int)(nr * {g.ow}));
{g.col2im().strip()}"""
    return (f"{g.workspace(rows)}\nmemset(out0, 0, sizeof(*out0) * {g.n * g.c * g.h * g.w});\n"
            f"{g.row_blocks(rows, block)}")


def backprop_filter(algo: str, g: Geometry) -> str:
    """Body of Conv2DBackpropFilter (in0 = dy, in1 = x, out0 = dw) for ``algo``."""
    if algo == "direct":
        return _filter_direct(g)
    fn, one, _ = gemm_symbols(g.dtype)
    ohw = g.oh * g.ow
    head = f"memset(out0, 0, sizeof(*out0) * {g.o * g.kdim});"
    if algo == "gemm":
        return (f"{head}\nfor (int64_t b = 0; b < {g.n}; b++)\nfor (int64_t gi = 0; gi < {g.g}; gi++)\n"
                f"  {fn}(ObRowMajor, ObNoTrans, ObTrans, {g.og}, {g.cg}, {ohw}, {one}, "
                f"in0 + (b * {g.o} + gi * {g.og}) * {ohw}, {ohw}, in1 + (b * {g.c} + gi * {g.cg}) * {ohw}, {ohw}, "
                f"{one}, out0 + gi * {g.og * g.cg}, {g.cg});")
    rows = g.block_rows()
    block = f"""
const {g.t} *restrict img = in1 + (b * {g.c} + gi * {g.cg}) * {g.h * g.w};
{g.im2col().strip()}
{fn}(ObRowMajor, ObNoTrans, ObTrans, {g.og}, {g.kdim}, (int)(nr * {g.ow}), {one},
     in0 + (b * {g.o} + gi * {g.og}) * {ohw} + r0 * {g.ow}, {ohw}, col, (int)(nr * {g.ow}), {one},
     out0 + gi * {g.og * g.kdim}, {g.kdim});"""
    return f"{g.workspace(rows)}\n{head}\n{g.row_blocks(rows, block)}"


def _input_direct(g: Geometry) -> str:
    """dx row by row (see the module docstring). ``y`` is the padded row index of input row ``y - pt``; the
    kernel rows reaching it are the ``ki`` with ``y - ki*dh = r*sh`` for an output row ``r`` in [0, OH). Each
    dy row reaching it is first placed in ``dyp``, a zero-bordered (and, for a column stride, zero-inserted)
    row, so that every kernel column is the same bounds-free loop over the input row:
    ``acc[j] += w[kj] * dyp[pl + j + (KW-1-kj)*dw]``. (Adding ``w * dy[q]`` at ``q*sw + kj*dw`` instead,
    vectorised, reads back the previous column's just-stored vectors at a shifted address: a store-forwarding
    stall per vector, measured 3x slower.)"""
    span = (g.kw - 1) * g.dw
    length = max(g.pl + g.w, (g.ow - 1) * g.sw + 1) + span
    if g.sw == 1:
        fill = f"memcpy(dyp + {span}, s, sizeof(*s) * {g.ow});"
    else:  # the zeros between the strided positions are never written
        fill = f"for (int64_t q = 0; q < {g.ow}; q++) dyp[{span} + q * {g.sw}] = s[q];"
    work = g.n * g.o * g.oh * g.ow * g.kdim
    return f"""
{parallel_for(work)}for (int64_t p = 0; p < {g.n * g.c}; p++) {{
  const int64_t b = p / {g.c}, c = p % {g.c}, gi = c / {g.cg}, ci = c % {g.cg};
  {g.t} *restrict dst = out0 + p * {g.h * g.w};
  {g.t} dyp[{length}] = {{0}};
  for (int64_t y = {g.pt}; y < {g.pt + g.h}; y++) {{
    {g.t} acc[{g.w}] = {{0}};
    for (int64_t ki = 0; ki < {g.kh}; ki++) {{
      const int64_t t = y - ki * {g.dh};
      if (t < 0 || t % {g.sh} != 0 || t / {g.sh} >= {g.oh}) continue;
      const int64_t r = t / {g.sh};
      for (int64_t oo = 0; oo < {g.og}; oo++) {{
        const int64_t oc = gi * {g.og} + oo;
        const {g.t} *restrict s = in0 + ((b * {g.o} + oc) * {g.oh} + r) * {g.ow};
        const {g.t} *restrict f = in1 + ((oc * {g.cg} + ci) * {g.kh} + ki) * {g.kw};
        {fill}
        for (int64_t kj = 0; kj < {g.kw}; kj++) {{
          const {g.t} fv = f[kj];
          const {g.t} *restrict src = dyp + {g.pl} + ({g.kw - 1} - kj) * {g.dw};
          for (int64_t j = 0; j < {g.w}; j++) acc[j] += fv * src[j];
        }}
      }}
    }}
    memcpy(dst + (y - {g.pt}) * {g.w}, acc, sizeof(acc));
  }}
}}"""


def _filter_direct(g: Geometry) -> str:
    """dW one output channel at a time (see the module docstring); ``acc`` holds KDIM lanes of OW partial
    sums, a per-thread buffer like the padded planes (its size is the filter's times OW, too large for the
    stack of a worker thread at big widths)."""
    ph, pw = g.pad_dims()
    work = g.n * g.o * g.oh * g.ow * g.kdim
    return f"""
{parallel_for(work)}for (int64_t oc = 0; oc < {g.o}; oc++) {{
  static __thread {g.t} ob_acc[{g.kdim * g.ow}] __attribute__((aligned(64)));
  {g.t} *restrict acc = ob_acc;
  const int64_t gi = oc / {g.og};
  memset(acc, 0, sizeof(ob_acc));
  for (int64_t b = 0; b < {g.n}; b++) {{
    {g.pad_planes("in1", "b", "gi")}
    const {g.t} *restrict dy = in0 + (b * {g.o} + oc) * {g.oh * g.ow};
    for (int64_t r = 0; r < {g.oh}; r++) {{
      const {g.t} *restrict gr = dy + r * {g.ow};
      for (int64_t ci = 0; ci < {g.cg}; ci++)
      for (int64_t ki = 0; ki < {g.kh}; ki++)
      for (int64_t kj = 0; kj < {g.kw}; kj++) {{
        const {g.t} *restrict s = pad + (ci * {ph} + r * {g.sh} + ki * {g.dh}) * {pw} + kj * {g.dw};
        {g.t} *restrict a = acc + ((ci * {g.kh} + ki) * {g.kw} + kj) * {g.ow};
        for (int64_t q = 0; q < {g.ow}; q++) a[q] += gr[q] * s[q * {g.sw}];
      }}
    }}
  }}
  for (int64_t k = 0; k < {g.kdim}; k++) {{
    {g.t} sum = 0;
    for (int64_t q = 0; q < {g.ow}; q++) sum += acc[k * {g.ow} + q];
    out0[oc * {g.kdim} + k] = sum;
  }}
}}"""
