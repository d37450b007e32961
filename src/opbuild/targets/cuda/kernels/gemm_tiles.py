"""The shared-memory tiled GEMM of the GPU target: MatMul, BatchMatMul and the fused GEMMs' products
(``matmul.py``), and the implicit-GEMM convolutions (``conv_tiles.py``: Conv2D, FusedConv2D,
Conv2DBackpropInput), whose operands are expressions over the image rather than stored matrices.

A block computes a ``TILE_M x TILE_N`` tile of one output matrix: its 256 threads are a 16 x 16 grid, each
thread a ``4 x 4`` register block (rows ``ty + 16 r``, columns ``tx + 16 c``: consecutive threads take
consecutive columns, so the shared reads of ``B`` and the stores of ``C`` coalesce and the reads of ``A``
broadcast). The reduction axis is walked in ``TILE_K`` steps: the block stages the ``A`` and ``B`` slices of
the step in ``__shared__`` (each thread loading elements in the order contiguous in global memory for the
operand's transpose), ``__syncthreads``, every thread adds the step's products to its 16 accumulators,
``__syncthreads`` (the next step overwrites the slices). Each staged element serves 64 products (16 threads,
4 register rows or columns each) for one read from global memory.

What it computes is the per-element kernel's value exactly: each output element is one accumulator of the
output's compute type, starting at zero, adding ``a[i, p] * b[p, j]`` for ``p = 0, 1, ..., K - 1`` in that
order (the last step adds only its ``K mod TILE_K`` real terms: no zero padding enters a sum, so ``-0.0``,
infinities and NaN behave as in the per-element loop; a convolution's terms that do not exist, in its
padding or between its strides, are flagged when staged and skipped as its gather loop skips them); the
half types load into float and round once on store. Rows and columns past the matrix's edge are staged as
zeros and never stored.

Correct for any launch: the tiles are a block-stride loop over ``batch x tiles``, and a block of fewer than
256 threads runs the tile's register blocks in passes of ``blockDim.x`` (one pass at the ABI's 256), every
barrier reached by every thread of the block (the loops' bounds are the same for the whole block).
"""

from __future__ import annotations

TILE_M = 64
TILE_N = 64
TILE_K = 16
#: Each thread's register block (``REG x REG`` outputs); ``(TILE_M / REG) * (TILE_N / REG)`` = 256 threads.
REG = 4
_TY = TILE_M // REG  # thread rows of a tile
_TX = TILE_N // REG  # thread columns of a tile
THREADS = _TY * _TX


def tiles(batch: int, m: int, n: int) -> int:
    """The number of output tiles (the blocks a tiled product can keep busy)."""
    return batch * (-(-m // TILE_M)) * (-(-n // TILE_N))


def tiled_body(*, batch: int, m: int, n: int, kk: int, ta: bool, tb: bool, a_off: str, b_off: str,
               a_mat: int, b_mat: int, load_t: tuple[str, str], loads: tuple[str, str], acc_t: str,
               epilogue: str) -> str:
    """The kernel body of a batched ``m x kk`` by ``kk x n`` matrix product (MatMul's layouts).

    ``a_off``/``b_off``: C expressions of the batch index ``bq`` giving the batch offsets (in matrices) of
    ``in0``/``in1``; ``a_mat``/``b_mat``: their matrices' element counts; ``load_t``: the C types the staged
    elements are held in; ``loads``: C expressions of the element at ``in0[ix_]`` / ``in1[ix_]`` converted to
    those types (``ix_`` the flat index); ``acc_t``: the accumulator's type; ``epilogue``: statements run
    once per output element with ``q`` (its flat index) and ``acc`` (its unrounded dot product) in scope."""
    la, lb = loads
    a_ix = f"ab + kk_ * {m}LL + ri_" if ta else f"ab + ri_ * {kk}LL + kk_"
    b_ix = f"bb + cj_ * {kk}LL + kk_" if tb else f"bb + kk_ * {n}LL + cj_"
    return tiled(batch=batch, m=m, n=n, kk=kk, load_t=load_t, acc_t=acc_t,
                 tile_pre=f"const int64_t ab = ({a_off}) * {a_mat}LL, bb = ({b_off}) * {b_mat}LL;",
                 a_fast="row" if ta else "k", a_at=la.replace("ix_", f"({a_ix})"),
                 b_fast="k" if tb else "col", b_pre="",
                 b_at=lb.replace("ix_", f"({b_ix})"), b_valid=None,
                 out_index=f"bq * {m * n}LL + i * {n}LL + j", epilogue=epilogue)


def tiled(*, batch: int, m: int, n: int, kk: int, load_t: tuple[str, str], acc_t: str, tile_pre: str,
          a_fast: str, a_at: str, b_fast: str, b_pre: str, b_at: str, b_valid: str | None, out_index: str,
          epilogue: str) -> str:
    """The tiled product ``C[bq][i, j] = sum_p A[bq][i, p] * B[bq][p, j]`` over ``batch x m x n`` outputs and
    ``kk`` terms, its operands given as C expressions (the module docstring describes the kernel).

    ``tile_pre``: statements run once per tile with ``bq`` (the batch index) in scope; ``a_at``: A's element
    at row ``ri_``, term ``kk_`` (read only inside the matrix); ``a_fast``: which of ``"row"``/``"k"`` is
    A's contiguous axis (the staging walks it fastest); ``b_pre``/``b_at``: statements, then B's element at
    term ``kk_``, column ``cj_``; ``b_fast``: ``"k"`` or ``"col"``; ``b_valid``: None, or a condition (after
    ``b_pre``) under which term ``kk_`` of column ``cj_`` exists (a convolution's padding: a term that does not
    is skipped, not added as zero, as the per-element loop skips it); ``out_index``: the flat output index
    ``q`` of ``(bq, i, j)``; ``epilogue``: statements per output element with ``q`` and ``acc`` in scope."""
    n_tm, n_tn = -(-m // TILE_M), -(-n // TILE_N)
    total = batch * n_tm * n_tn
    at, bt = load_t
    if a_fast == "row":
        a_idx = f"const int64_t ii_ = e_ % {TILE_M}, pp_ = e_ / {TILE_M};"
    else:
        a_idx = f"const int64_t pp_ = e_ % {TILE_K}, ii_ = e_ / {TILE_K};"
    if b_fast == "k":
        b_idx = f"const int64_t pp_ = e_ % {TILE_K}, jj_ = e_ / {TILE_K};"
    else:
        b_idx = f"const int64_t jj_ = e_ % {TILE_N}, pp_ = e_ / {TILE_N};"
    flags = b_valid is not None
    b_ok = f" && ({b_valid})" if flags else ""
    shared_flags = f"\n  __shared__ unsigned char bv_[{TILE_K}][{TILE_N + 1}];" if flags else ""
    stage_flag = f"\n          bv_[pp_][jj_] = (cj_ < {n}LL && pp_ < kn_{b_ok}) ? 1 : 0;" if flags else ""
    read_flags = (f"bool v_[{REG}];\n#pragma unroll\n"
                  f"            for (int c_ = 0; c_ < {REG}; c_++) v_[c_] = bv_[p_][tx_ + {_TX} * c_] != 0;\n"
                  if flags else "")
    fma = "if (v_[c_]) cacc_[r_][c_] += a_[r_] * b_[c_];" if flags else "cacc_[r_][c_] += a_[r_] * b_[c_];"
    return f"""  __shared__ {at} as_[{TILE_K}][{TILE_M + 1}];
  __shared__ {bt} bs_[{TILE_K}][{TILE_N + 1}];{shared_flags}
  for (int64_t tile_ = blockIdx.x; tile_ < {total}LL; tile_ += gridDim.x) {{
    const int64_t tn_ = tile_ % {n_tn}LL, tm_ = (tile_ / {n_tn}LL) % {n_tm}LL, bq = tile_ / {n_tm * n_tn}LL;
    const int64_t i0_ = tm_ * {TILE_M}LL, j0_ = tn_ * {TILE_N}LL;
    {tile_pre}
    for (int64_t g_ = 0; g_ < {THREADS}; g_ += blockDim.x) {{
      const int64_t u_ = g_ + threadIdx.x;
      const int64_t ty_ = u_ / {_TX}, tx_ = u_ % {_TX};
      {acc_t} cacc_[{REG}][{REG}];
#pragma unroll
      for (int r_ = 0; r_ < {REG}; r_++) for (int c_ = 0; c_ < {REG}; c_++) cacc_[r_][c_] = ({acc_t})0;
      for (int64_t k0_ = 0; k0_ < {kk}LL; k0_ += {TILE_K}) {{
        const int64_t kn_ = {kk}LL - k0_ < {TILE_K} ? {kk}LL - k0_ : {TILE_K};
        for (int64_t e_ = threadIdx.x; e_ < {TILE_M * TILE_K}; e_ += blockDim.x) {{
          {a_idx}
          const int64_t ri_ = i0_ + ii_, kk_ = k0_ + pp_;
          as_[pp_][ii_] = (ri_ < {m}LL && pp_ < kn_) ? ({at})({a_at}) : ({at})0;
        }}
        for (int64_t e_ = threadIdx.x; e_ < {TILE_N * TILE_K}; e_ += blockDim.x) {{
          {b_idx}
          const int64_t cj_ = j0_ + jj_, kk_ = k0_ + pp_;
          {b_pre}
          bs_[pp_][jj_] = (cj_ < {n}LL && pp_ < kn_{b_ok}) ? ({bt})({b_at}) : ({bt})0;{stage_flag}
        }}
        __syncthreads();
        if (u_ < {THREADS}) {{
          for (int64_t p_ = 0; p_ < kn_; p_++) {{
            {at} a_[{REG}]; {bt} b_[{REG}];
            {read_flags}#pragma unroll
            for (int r_ = 0; r_ < {REG}; r_++) a_[r_] = as_[p_][ty_ + {_TY} * r_];
#pragma unroll
            for (int c_ = 0; c_ < {REG}; c_++) b_[c_] = bs_[p_][tx_ + {_TX} * c_];
#pragma unroll
            for (int r_ = 0; r_ < {REG}; r_++) for (int c_ = 0; c_ < {REG}; c_++) {fma}
          }}
        }}
        __syncthreads();
      }}
      if (u_ < {THREADS}) {{
        for (int r_ = 0; r_ < {REG}; r_++) for (int c_ = 0; c_ < {REG}; c_++) {{
          const int64_t i = i0_ + ty_ + {_TY} * r_, j = j0_ + tx_ + {_TX} * c_;
          if (i < {m}LL && j < {n}LL) {{
            const int64_t q = {out_index};
            const {acc_t} acc = cacc_[r_][c_];
            {epilogue}
          }}
        }}
      }}
    }}
  }}"""


__all__ = ["REG", "THREADS", "TILE_K", "TILE_M", "TILE_N", "tiled", "tiled_body", "tiles"]
