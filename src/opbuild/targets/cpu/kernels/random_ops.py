"""CPU kernels of the random family (ops/random_ops.py): Dropout's SplitMix64 stream (the constants are the op's,
read from its module so that editing them rekeys the kernel) and DropoutGrad. The half types compute
``x * scale`` in float from the half-rounded ``1 / keep_prob`` and round once, as NumPy's float16 (and
ml_dtypes' bfloat16) product does in the references."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops import random_ops as R
from ..codegen import c_literal, load, store
from .registry import register


def _dropout_emit(k: KernelSpec) -> str:
    x = k.inputs[0]
    kp = k.attrs["keep_prob"]
    if x.size == 0:
        return "/* empty */"
    scale = c_literal(1.0 / kp, x.dtype)
    one, zero = store(x.dtype, "1.0f"), store(x.dtype, "0.0f")
    # x * (mask * scale), as the reference's x * mask * scale: a dropped -x or NaN gives -0 or NaN, like it
    y = store(x.dtype, f"{load(x.dtype, 'in0[i]')} * (keep ? {load(x.dtype, scale)} : 0.0f)")
    return "\n".join([
        f"const uint64_t key = (uint64_t)in1[0] * {R.GOLDEN:#x}ull ^ (uint64_t)in1[1] * {R.M1:#x}ull;",
        f"for (int64_t i = 0; i < {x.size}; i++) {{",
        f"uint64_t z = key + (uint64_t)(i + 1) * {R.GOLDEN:#x}ull;",
        f"z = (z ^ (z >> 30)) * {R.M1:#x}ull;",
        f"z = (z ^ (z >> 27)) * {R.M2:#x}ull;",
        "z ^= z >> 31;",
        f"const int keep = (double)(z >> 11) * 0x1.0p-53 < {kp!r};",
        f"out1[i] = keep ? {one} : {zero};",
        f"out0[i] = {y};",
        "}"])


def _dropout_grad_emit(k: KernelSpec) -> str:
    dy = k.inputs[0]
    dt = dy.dtype
    scale = load(dt, c_literal(1.0 / k.attrs["keep_prob"], dt))
    value = store(dt, f"{load(dt, 'in0[i]')} * {load(dt, 'in1[i]')} * {scale}")
    return f"for (int64_t i = 0; i < {dy.size}; i++) out0[i] = {value};"


register("Dropout", _dropout_emit)
register("DropoutGrad", _dropout_grad_emit)
