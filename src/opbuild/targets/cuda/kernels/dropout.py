"""GPU kernels of Dropout and DropoutGrad (ops/random_ops.py).

Dropout's mask is a pure function of ``state = [seed, counter]`` and the element's index: splitmix64 of a key
mixed from the three, its top 53 bits scaled to [0, 1) and compared with ``keep_prob``. One thread per element
computes the CPU's numbers bit for bit (targets/cpu/kernels/random_ops.py; the constants are read from the op's
module, so editing them rekeys both targets), so the GPU drops the same elements as the CPU for the same seed
and counter, whatever the launch.
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops import random_ops as R
from .. import half
from ..codegen import grid_loop
from . import optimizers
from .optimizers import literal
from .registry import register


def _scale(kp: float, dtype: str) -> str:
    """``1 / keep_prob`` in the compute type, rounded to ``dtype`` first for the half types (the CPU's value)."""
    if half.is_half(dtype):
        return half.load(dtype, half.literal(1.0 / kp, dtype))
    return literal(1.0 / kp, dtype)


def _dropout(k: KernelSpec) -> str:
    x = k.inputs[0]
    if x.size == 0:
        return "  /* empty */"
    dt, kp = x.dtype, k.attrs["keep_prob"]
    ct = half.compute_ctype(dt)
    key = f"const uint64_t key = (uint64_t)in1[0] * {R.GOLDEN:#x}ULL ^ (uint64_t)in1[1] * {R.M1:#x}ULL;"
    # y = x * (mask * scale), as the CPU kernel and the reference: a dropped -x or NaN gives -0 or NaN
    y = half.store(dt, f"{half.load(dt, 'in0[i]')} * (keep ? {_scale(kp, dt)} : ({ct})0)", ct)
    stmt = (f"uint64_t z = key + (uint64_t)(i + 1) * {R.GOLDEN:#x}ULL; z = (z ^ (z >> 30)) * {R.M1:#x}ULL; "
            f"z = (z ^ (z >> 27)) * {R.M2:#x}ULL; z ^= z >> 31; "
            f"const bool keep = (double)(z >> 11) * 0x1.0p-53 < {kp!r}; "
            f"out1[i] = keep ? {half.store(dt, '1.0f')} : {half.store(dt, '0.0f')}; "
            f"out0[i] = {y};")
    return f"  {key}\n" + grid_loop(x.size, "i", stmt)


def _dropout_grad(k: KernelSpec) -> str:
    dt = k.inputs[0].dtype
    ct = half.compute_ctype(dt)
    value = f"{half.load(dt, 'in0[i]')} * {half.load(dt, 'in1[i]')} * {_scale(k.attrs['keep_prob'], dt)}"
    return grid_loop(k.inputs[0].size, "i", f"out0[i] = {half.store(dt, value, ct)};")


register("Dropout", _dropout, deps=(optimizers,))  # its literal()
register("DropoutGrad", _dropout_grad, deps=(optimizers,))
half.allow("Dropout", "DropoutGrad")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("Dropout", "DropoutGrad")

__all__ = ["OPS"]
