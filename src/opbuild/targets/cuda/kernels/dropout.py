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
from ..codegen import ctype, grid_loop
from . import optimizers
from .optimizers import literal
from .registry import register


def _dropout(k: KernelSpec) -> str:
    x = k.inputs[0]
    if x.size == 0:
        return "  /* empty */"
    t, kp = ctype(x.dtype), k.attrs["keep_prob"]
    scale = literal(1.0 / kp, x.dtype)
    key = f"const uint64_t key = (uint64_t)in1[0] * {R.GOLDEN:#x}ULL ^ (uint64_t)in1[1] * {R.M1:#x}ULL;"
    stmt = (f"uint64_t z = key + (uint64_t)(i + 1) * {R.GOLDEN:#x}ULL; z = (z ^ (z >> 30)) * {R.M1:#x}ULL; "
            f"z = (z ^ (z >> 27)) * {R.M2:#x}ULL; z ^= z >> 31; "
            f"const bool keep = (double)(z >> 11) * 0x1.0p-53 < {kp!r}; "
            f"out1[i] = keep ? ({t})1 : ({t})0; out0[i] = keep ? in0[i] * {scale} : ({t})0;")
    return f"  {key}\n" + grid_loop(x.size, "i", stmt)


def _dropout_grad(k: KernelSpec) -> str:
    dy = k.inputs[0]
    return grid_loop(dy.size, "i", f"out0[i] = in0[i] * in1[i] * {literal(1.0 / k.attrs['keep_prob'], dy.dtype)};")


register("Dropout", _dropout, deps=(optimizers,))  # its literal()
register("DropoutGrad", _dropout_grad, deps=(optimizers,))

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("Dropout", "DropoutGrad")

__all__ = ["OPS"]
