"""A generated register-tiled GEMM for float products: ``c[M, N] = op(a)[M, K] @ op(b)[K, N]``, row-major,
float32/float64, at every size from a few thousand multiply-adds on.

Why not the BLAS: NumPy's OpenBLAS runs at 63-68 GMAC/s of one core here at every size (it does not use this
CPU's AVX-512), and below the size where a product goes to threads (``codegen.BLAS_PARALLEL_MIN_MACS``) its
call and its packing of both operands cost as much as the arithmetic; onnxruntime's MLAS is about twice as
fast. This kernel measures 105-131 GMAC/s from a 32x128x128 product to a 1024^3 one (docs/benchmarks.md,
"GEMMs: a generated kernel"). The shapes are static, so it is generated for them: no packing of ``a``, no
dispatch, every loop bound a constant. From BLAS_PARALLEL_MIN_MACS on, each column block's row tiles are split
over OpenMP's threads.

The micro-kernel keeps ``MR`` rows x ``NV`` vectors of ``c`` in registers (64-byte GCC vectors, as the tiled
convolution's: one AVX-512 register, two AVX2 ones) and, for every ``k``, loads ``NV`` vectors of ``b``'s row
``k`` (unit stride) and broadcasts ``MR`` elements of ``a``'s column ``k``: ``MR * NV`` multiply-adds per
``MR + NV`` loads. Column blocks of ``NV`` vectors go outermost, so the ``K x NV`` panel of ``b`` a block reads
stays in L1 while every row tile of ``a`` passes over it. The columns past the last whole vector (``N % lanes``)
take a plain loop. Sums run in ``k`` order, one multiply-add per step (gcc contracts them into FMAs), as a
BLAS's inner product does; results differ from OpenBLAS's only by that rounding order.
"""

from __future__ import annotations

from ....ops.gemm_plan import ITEMSIZE, PANEL_VECTORS, VECTOR_BYTES, heap_panel, panel_elems, pays
from ..codegen import BLAS_PARALLEL_MIN_MACS, ctype

# Accumulator budgets in 64-byte vectors (rows x vectors): AVX-512 has 32 zmm registers (the accumulators,
# NV loaded b vectors, one broadcast); AVX2's 16 ymm registers hold 8 such vectors.
_TILES_AVX512 = ((6, 4), (8, 3), (12, 2), (16, 1))
_TILES_AVX2 = ((3, 2), (6, 1))
# The panel of a transposed b holds one column block of the widest tile (ops/gemm_plan.py sizes it).
assert max(nv for _, nv in (*_TILES_AVX512, *_TILES_AVX2)) == PANEL_VECTORS


def _tile_for(nvec: int, tiles: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """(MR, NV): the widest tile whose vectors divide the columns' vectors best (fewest partial blocks)."""
    best = None
    for mr, nv in tiles:
        nv = min(nv, nvec)
        blocks = -(-nvec // nv)
        waste = blocks * nv - nvec
        key = (waste, blocks)
        if best is None or key < best[0]:
            best = (key, mr, nv)
    assert best is not None
    return best[1], best[2]


def _micro(t: str, mr: int, nv: int, lanes: int, a_at: str, b_row: str) -> str:
    """C of one ``mr`` x ``nv``-vector tile at rows ``m0``, columns ``n0`` (``b_row``: C of the address of row
    ``kk`` of the block's columns)."""
    acc = [[f"c{r}_{v}" for v in range(nv)] for r in range(mr)]
    decl = "\n".join(f"ob_gv {', '.join(f'{x} = ob_gz' for x in row)};" for row in acc)
    loads = " ".join(f"const ob_gv b{v} = *(const ob_gvu *)(bp + {v * lanes});" for v in range(nv))
    fmas = []
    for r in range(mr):
        fmas.append(f"{{ const ob_gv ar = ob_gz + {a_at.format(r=r)}; "
                    + " ".join(f"{acc[r][v]} += ar * b{v};" for v in range(nv)) + " }")
    stores = "\n".join(f"*(ob_gvu *)(ob_c + (m0 + {r}) * ob_ldc + n0 + {v * lanes}) = {acc[r][v]};"
                       for r in range(mr) for v in range(nv))
    return f"""{{
{decl}
for (int64_t kk = 0; kk < ob_k; kk++) {{
  const {t} *restrict bp = {b_row};
  {loads}
  {chr(10).join(fmas)}
}}
{stores}
}}"""


def _blocks(t: str, m: int, n: int, lanes: int, tiles: tuple[tuple[int, int], ...], a_at: str, tb: bool,
            par: bool) -> str:
    """C of every whole-vector column block for one register budget (``tb``: each block's columns of the
    transposed ``b`` first copied into the panel; ``par``: the main row tiles split over OpenMP's threads)."""
    nvec = n // lanes
    mr, nv = _tile_for(nvec, tiles)
    code = []
    for vecs, count in ((nv, nvec // nv), (nvec % nv, 1)):
        if not vecs or not count:
            continue
        start = 0 if vecs == nv else (nvec // nv) * nv * lanes
        rows = []
        for rr, cnt in ((mr, m // mr), (m % mr, 1)):
            if rr and cnt:
                lo = 0 if rr == mr else (m // mr) * mr
                hi = lo + rr * cnt
                b_row = f"ob_panel + kk * {vecs * lanes}" if tb else "ob_b + kk * ob_ldb + n0"
                pragma = "#pragma omp parallel for schedule(static)" if par and rr == mr else "#pragma GCC unroll 1"
                rows.append(f"{pragma}\nfor (int64_t m0 = {lo}; m0 < {hi}; m0 += {rr}) "
                            f"{_micro(t, rr, vecs, lanes, a_at, b_row)}")
        step = vecs * lanes
        if tb:  # read b's rows (the block's columns) at unit stride, write the panel row by row
            rows.insert(0, f"for (int64_t j = 0; j < {step}; j++) for (int64_t kk = 0; kk < ob_k; kk++) "
                           f"ob_panel[kk * {step} + j] = ob_b[(n0 + j) * ob_ldb + kk];")
        # Loops over tiles stay loops: gcc would otherwise copy the micro-kernel once per tile of these
        # constant trip counts (complete unrolling), for compile time and code size and no speed.
        code.append(f"#pragma GCC unroll 1\nfor (int64_t n0 = {start}; n0 < {start + count * step}; n0 += {step}) {{\n"
                    + "\n".join(rows) + "\n}")
    return "\n".join(code)


def gemm_tiled(dtype: str, m: int, n: int, k: int, ta: bool, tb: bool, a_cols: int, b_cols: int, a: str,
               b: str, c: str) -> str:
    """C statements computing ``c = op(a) @ op(b)`` (``a_cols``/``b_cols`` the stored matrices' row lengths)
    with the generated kernel; :func:`pays` says when to."""
    t = ctype(dtype)
    lanes = VECTOR_BYTES // ITEMSIZE[dtype]
    # From the size where the BLAS went to its threads, each column block's row tiles are split over OpenMP's
    # (docs/threads.md: smaller products stay on the calling thread).
    par = m * n * k >= BLAS_PARALLEL_MIN_MACS
    # a's element (row m0 + r, column kk): stored M x K, or K x M when transposed.
    a_at = "ob_a[kk * ob_lda + m0 + {r}]" if ta else "ob_a[(m0 + {r}) * ob_lda + kk]"
    main = (n // lanes) * lanes
    tail = ""
    if main < n:  # the columns past the last whole vector: a plain i-k-j loop (unit stride in b and c)
        a_scalar = "ob_a[kk * ob_lda + i]" if ta else "ob_a[i * ob_lda + kk]"
        b_scalar = f"ob_b[({main} + j) * ob_ldb + kk]" if tb else f"ob_b[kk * ob_ldb + {main} + j]"
        tail = f"""for (int64_t i = 0; i < {m}; i++) {{
  {t} ob_row[{n - main}] = {{0}};
  for (int64_t kk = 0; kk < ob_k; kk++) {{
    const {t} av = {a_scalar};
    for (int64_t j = 0; j < {n - main}; j++) ob_row[j] += av * {b_scalar};
  }}
  for (int64_t j = 0; j < {n - main}; j++) ob_c[i * ob_ldc + {main} + j] = ob_row[j];
}}"""
    # The panel lives on the stack for the call while it is small (no memory held between calls), else it is
    # the first part of the kernel's planned workspace (ops/gemm_plan.py ``product``): nothing to allocate, so
    # nothing that can fail mid-kernel.
    panel = ""
    if tb and not heap_panel(dtype, m, n, k, tb):
        panel = f"{t} ob_panel[{panel_elems(dtype, k)}] __attribute__((aligned(64)));"
    elif tb:
        panel = f"{t} *restrict ob_panel = ({t} *)(ob_ws + 0);  /* the first part of the layout */"
    return f"""{{
typedef {t} ob_gv __attribute__((vector_size({VECTOR_BYTES})));
typedef {t} ob_gvu __attribute__((vector_size({VECTOR_BYTES}), aligned(sizeof({t}))));
const ob_gv ob_gz = {{0}};
const {t} *restrict ob_a = {a};
const {t} *restrict ob_b = {b};
{t} *restrict ob_c = {c};
const int64_t ob_k = {k}, ob_lda = {a_cols}, ob_ldb = {b_cols}, ob_ldc = {n};
(void)ob_gz;
{panel}
#if defined(__AVX512F__)
{_blocks(t, m, n, lanes, _TILES_AVX512, a_at, tb, par)}
#else
{_blocks(t, m, n, lanes, _TILES_AVX2, a_at, tb, par)}
#endif
{tail}
}}"""


__all__ = ["gemm_tiled", "pays"]
