"""CPU kernels of the loss family (ops/losses.py): softmax cross-entropy, dense and sparse labels."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ..codegen import ctype
from .registry import register


def _row_stats(ct: str, c: int) -> list[str]:
    """C lines: for row ``xr`` of ``c`` logits, ``mx`` (its max) and ``ls`` (log of sum(exp(x - mx)))."""
    return [f"{ct} mx = xr[0];",
            f"for (int64_t j = 1; j < {c}; j++) if (xr[j] > mx || xr[j] != xr[j]) mx = xr[j];",
            "double s = 0;",
            f"for (int64_t j = 0; j < {c}; j++) s += exp((double)(xr[j] - mx));",
            "const double ls = log(s);"]


def _sce_emit(k: KernelSpec) -> str:
    n, c = k.inputs[0].shape
    ct = ctype(k.inputs[0].dtype)
    if n * c == 0:
        return f"for (int64_t r = 0; r < {n}; r++) out0[r] = 0;"
    return "\n".join([
        f"for (int64_t r = 0; r < {n}; r++) {{",
        f"const {ct} *restrict xr = in0 + r * {c}, *restrict lr = in1 + r * {c};",
        f"{ct} *restrict br = out1 + r * {c};",
        *_row_stats(ct, c),
        "double loss = 0;",
        f"for (int64_t j = 0; j < {c}; j++) {{",
        "const double lp = (double)(xr[j] - mx) - ls;",
        "loss -= (double)lr[j] * lp;",
        f"br[j] = ({ct})(exp(lp) - (double)lr[j]);",
        "}",
        f"out0[r] = ({ct})loss;",
        "}"])


def _sparse_emit(grad: bool):
    def emit(k: KernelSpec) -> str:
        n, c = k.inputs[0].shape
        ct = ctype(k.inputs[0].dtype)
        if n * c == 0:
            return "/* empty */" if grad else "out0[0] = NAN;  /* mean of no samples */"
        head = [f"for (int64_t r = 0; r < {n}; r++) {{",
                f"const {ct} *restrict xr = in0 + r * {c};",
                "const int64_t lab = (int64_t)in1[r];",
                *_row_stats(ct, c),
                f"const int bad = lab < 0 || lab >= {c};"]
        if grad:  # (softmax - onehot) / N
            return "\n".join([*head,
                              f"for (int64_t j = 0; j < {c}; j++) out0[r * {c} + j] = bad ? ({ct})NAN : "
                              f"({ct})((exp((double)(xr[j] - mx) - ls) - (j == lab)) / {n}.0);",
                              "}"])
        return "\n".join(["double total = 0;", *head,
                          "total += bad ? NAN : ls - (double)(xr[lab] - mx);", "}",
                          f"out0[0] = ({ct})(total / {n}.0);"])

    return emit


register("SoftmaxCrossEntropyWithLogits", _sce_emit)
register("SparseSoftmaxCrossEntropyWithLogitsGrad", _sparse_emit(True))
register("SparseSoftmaxCrossEntropyWithLogits", _sparse_emit(False))
