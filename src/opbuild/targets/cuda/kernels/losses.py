"""GPU kernels of the loss family (ops/losses.py): SoftmaxCrossEntropyWithLogits (dense labels; the loss and
its backprop), SparseSoftmaxCrossEntropyWithLogits (the mean loss over the batch) and its gradient
SparseSoftmaxCrossEntropyWithLogitsGrad. They compute what the CPU's kernels compute
(targets/cpu/kernels/losses.py): the row maximum in the element type (NaN-propagating), the sum of
``exp(x - max)`` and the loss accumulated in double, ``log_softmax = (x - max) - log(sum)``, a label outside
``[0, C)`` giving its row a NaN loss and gradient.

Row kernels (the dense loss, the sparse gradient) take one row per block at a time (a block-stride loop over
rows, as ``reduction.py``): each thread reduces a strided part of the row, a tree in shared memory combines
them, then the threads write their columns. The sparse loss is one scalar: block 0 alone computes it, each
thread a strided set of whole rows, a tree combining the threads' sums; thread 0 writes the mean.
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ..codegen import ctype, grid_loop
from . import reduction
from .reduction import NAN_MAX, block_reduce
from .registry import register

_LOOP = "    for (int64_t j = threadIdx.x; j < C_; j += OB_BLOCK) "


def _row_stats(t: str) -> str:
    """Block-wide ``mx`` (row maximum of ``xr``) and ``ls`` (log of the sum of ``exp(x - mx)``, in double)."""
    return (f"    {t} m_ = xr[0];\n{_LOOP}{{ const {t} a = m_, b = xr[j]; m_ = {NAN_MAX}; }}\n"
            + block_reduce(t, NAN_MAX, "m_", "mx")
            + f"    double s_ = 0;\n{_LOOP}s_ += exp((double)(xr[j] - mx));\n"
            + block_reduce("double", "(a + b)", "s_", "ssum")
            + "    const double ls = log(ssum);\n")


def _rows(n: int, body: str) -> str:
    return f"  for (int64_t r = blockIdx.x; r < {n}LL; r += gridDim.x) {{\n{body}  }}"


def _sce(k: KernelSpec) -> str:
    n, c = k.inputs[0].shape
    t = ctype(k.inputs[0].dtype)
    if n * c == 0:
        return grid_loop(n, "r", "out0[r] = 0;")
    body = (f"    const {t} *xr = in0 + r * C_, *lr = in1 + r * C_;\n" + _row_stats(t)
            + "    double l_ = 0;\n"
            + f"{_LOOP}{{ const double lp = (double)(xr[j] - mx) - ls; l_ -= (double)lr[j] * lp; "
            f"out1[r * C_ + j] = ({t})(exp(lp) - (double)lr[j]); }}\n"
            + block_reduce("double", "(a + b)", "l_", "loss")
            + f"    if (threadIdx.x == 0) out0[r] = ({t})loss;\n")
    return f"#define C_ {c}LL\n{_rows(n, body)}\n#undef C_"


def _sparse_grad(k: KernelSpec) -> str:
    n, c = k.inputs[0].shape
    t = ctype(k.inputs[0].dtype)
    if n * c == 0:
        return "  /* empty */"
    body = (f"    const {t} *xr = in0 + r * C_;\n    const int64_t lab = (int64_t)in1[r];\n"
            "    const bool bad = lab < 0 || lab >= C_;\n" + _row_stats(t)
            + f"{_LOOP}out0[r * C_ + j] = bad ? ({t})(0.0 / 0.0) : "
            f"({t})((exp((double)(xr[j] - mx) - ls) - (double)(j == lab)) / {n}.0);\n")
    return f"#define C_ {c}LL\n{_rows(n, body)}\n#undef C_"


def _sparse_loss(k: KernelSpec) -> str:
    n, c = k.inputs[0].shape
    t = ctype(k.inputs[0].dtype)
    if n * c == 0:
        return f"  if (blockIdx.x == 0 && threadIdx.x == 0) out0[0] = ({t})(0.0 / 0.0);  /* mean of no samples */"
    row = (f"      const {t} *xr = in0 + r * {c}LL; const int64_t lab = (int64_t)in1[r];\n"
           f"      {t} mx = xr[0];\n"
           f"      for (int64_t j = 1; j < {c}LL; j++) if (xr[j] > mx || xr[j] != xr[j]) mx = xr[j];\n"
           f"      double s = 0; for (int64_t j = 0; j < {c}LL; j++) s += exp((double)(xr[j] - mx));\n"
           f"      p_ += (lab < 0 || lab >= {c}LL) ? (0.0 / 0.0) : log(s) - (double)(xr[lab] - mx);\n")
    return ("  if (blockIdx.x == 0) {\n    double p_ = 0;\n"
            f"    for (int64_t r = threadIdx.x; r < {n}LL; r += OB_BLOCK) {{\n{row}    }}\n"
            + block_reduce("double", "(a + b)", "p_", "total")
            + f"    if (threadIdx.x == 0) out0[0] = ({t})(total / {n}.0);\n  }}")


register("SoftmaxCrossEntropyWithLogits", _sce, deps=(reduction,))
register("SparseSoftmaxCrossEntropyWithLogitsGrad", _sparse_grad, deps=(reduction,))
register("SparseSoftmaxCrossEntropyWithLogits", _sparse_loss, deps=(reduction,))

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                        "SparseSoftmaxCrossEntropyWithLogitsGrad")

__all__ = ["OPS"]
