"""CPU kernel of Conv2D (ops/convolution.py): the convolution's body comes from conv_kernels.py by its ``algo``.
The pooling ops of the same family are in pooling.py."""

from __future__ import annotations

from collections.abc import Sequence

from ....core.ir import KernelSpec, TensorType
from ....ops.conv_plan import nothing_to_compute
from . import conv_kernels as K
from .registry import register


def _conv_trivial(ins: Sequence[TensorType], out: TensorType, attrs: dict) -> str | None:
    """The body of a convolution with nothing to compute (empty output, or empty sums: zeros), else None."""
    if not nothing_to_compute(ins[0].shape, out.size, attrs):
        return None
    return f"memset(out0, 0, sizeof(out0[0]) * {out.size});" if out.size else ""


def _conv_kernel(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType], emit,
                 epi: bool = False) -> tuple[int, str]:
    x, w = ins
    trivial = _conv_trivial(ins, outs[0], attrs)
    if trivial is not None:
        assert not epi  # conv_epilogue.channel_macro leaves these to the epilogue pass
        return 0, trivial
    return K.kernel(attrs, (x.shape, w.shape, outs[0].shape), x.dtype, (x.size, w.size, outs[0].size), emit, epi)


def _conv_emit(k: KernelSpec) -> str:
    return _conv_kernel(k.attrs, k.inputs, k.outputs, K.forward)[1]


def conv_emit_epilogue(k: KernelSpec) -> str:
    """The forward kernel of ``k`` applying the FusedConv2D epilogue macro at its stores (conv_epilogue.py)."""
    return _conv_kernel(k.attrs, k.inputs, k.outputs, K.forward, epi=True)[1]


register("Conv2D", _conv_emit, blas=True)
