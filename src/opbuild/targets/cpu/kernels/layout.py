"""CPU kernels of the layout family (ops/layout.py): every op but Transpose keeps the input's bytes and only
changes the shape, so its kernel is one ``memcpy``; Transpose moves data with :func:`strided_copy`, which
blocks it into cache tiles."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ..codegen import strided_copy, strides
from .registry import register


def _copy_all(k: KernelSpec) -> str:
    """Body of an op whose output is its input's bytes in a new shape (Reshape, Squeeze, ...)."""
    n = k.outputs[0].size
    return f"memcpy(out0, in0, {n} * sizeof(*out0));" if n else "/* empty */"


def _transpose_emit(k: KernelSpec) -> str:
    x, out = k.inputs[0], k.outputs[0]
    st = strides(x.shape)
    return strided_copy(out.shape, "out0", strides(out.shape), "in0", [st[p] for p in k.attrs["perm"]])


register("Reshape", _copy_all, copy=True)
register("Transpose", _transpose_emit, copy=True)
register("ExpandDims", _copy_all, copy=True)
register("Squeeze", _copy_all, copy=True)
register("Flatten", _copy_all, copy=True)
