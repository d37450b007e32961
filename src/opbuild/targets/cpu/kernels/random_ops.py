"""CPU kernels of the random family (ops/random_ops.py): Dropout's SplitMix64 stream (the constants are the op's,
read from its module so that editing them rekeys the kernel) and DropoutGrad."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops import random_ops as R
from ..codegen import c_literal, ctype
from .registry import register


def _dropout_emit(k: KernelSpec) -> str:
    x = k.inputs[0]
    ct = ctype(x.dtype)
    kp = k.attrs["keep_prob"]
    if x.size == 0:
        return "/* empty */"
    scale = c_literal(1.0 / kp, x.dtype)
    return "\n".join([
        f"const uint64_t key = (uint64_t)in1[0] * {R.GOLDEN:#x}ull ^ (uint64_t)in1[1] * {R.M1:#x}ull;",
        f"for (int64_t i = 0; i < {x.size}; i++) {{",
        f"uint64_t z = key + (uint64_t)(i + 1) * {R.GOLDEN:#x}ull;",
        f"z = (z ^ (z >> 30)) * {R.M1:#x}ull;",
        f"z = (z ^ (z >> 27)) * {R.M2:#x}ull;",
        "z ^= z >> 31;",
        f"const int keep = (double)(z >> 11) * 0x1.0p-53 < {kp!r};",
        f"out1[i] = keep ? ({ct})1 : ({ct})0;",
        f"out0[i] = keep ? in0[i] * {scale} : ({ct})0;",
        "}"])


def _dropout_grad_emit(k: KernelSpec) -> str:
    dy = k.inputs[0]
    scale = c_literal(1.0 / k.attrs["keep_prob"], dy.dtype)
    return f"for (int64_t i = 0; i < {dy.size}; i++) out0[i] = in0[i] * in1[i] * {scale};"


register("Dropout", _dropout_emit)
register("DropoutGrad", _dropout_grad_emit)
