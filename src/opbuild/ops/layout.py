"""Layout operators: Reshape, Transpose, ExpandDims, Squeeze and Flatten.

Call arguments become canonical attributes in ``normalize`` (ops/shape_args.py). Every op but Transpose keeps
the input's bytes and only changes the shape (a view); the CPU's kernels are in targets/cpu/kernels/layout.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ANY_C
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .primitive import Primitive, apply, defop
from .registry import allow_complex, norm_axis, same_dtype
from .shape_args import attr_shape_infer, static_int, static_ints

# ---- Reshape ------------------------------------------------------------------------------------------

def _reshape_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    shape = static_ints("Reshape", "shape", attrs.get("shape"), ins, allow_scalar=True)
    holes = [i for i, d in enumerate(shape) if d == -1]
    if len(holes) > 1 or any(d < -1 for d in shape):
        raise ShapeError("Reshape", f"shape {tuple(shape)} may hold one -1 and otherwise non-negative sizes",
                         [x])
    if holes:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or x.size % known:
            raise ShapeError("Reshape", f"cannot infer the -1 of shape {tuple(shape)} for {x.size} elements",
                             [x])
        shape[holes[0]] = x.size // known
    if math.prod(shape) != x.size:
        raise ShapeError("Reshape", f"cannot reshape {x.size} elements into shape {tuple(shape)}", [x])
    return {"shape": shape}


@defop(infer=attr_shape_infer("Reshape"), view=True, normalize=_reshape_normalize, n_inputs=1,
       reference=lambda attrs, x: x.reshape(attrs["shape"]))
class Reshape(Primitive):
    """``Reshape()(x, shape)``: the same elements in a new shape; one ``-1`` in ``shape`` is inferred."""

    def __call__(self, x: Any, shape: Sequence[int]) -> Tensor:
        return apply("Reshape", {"shape": shape}, [x])


# ---- Transpose ----------------------------------------------------------------------------------------

def _transpose_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    rank = ins[0].rank
    perm = static_ints("Transpose", "perm", attrs.get("perm"), ins)
    canon = [p + rank if p < 0 else p for p in perm]
    if sorted(canon) != list(range(rank)):
        raise ShapeError("Transpose", f"perm {tuple(perm)} is not a permutation of the {rank} axes",
                         list(ins))
    return {"perm": canon}


def _transpose_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Transpose", ins, ANY_C)
    return [TensorType(tuple(ins[0].shape[p] for p in attrs["perm"]), dt)]


@defop(infer=_transpose_infer, normalize=_transpose_normalize, n_inputs=1,
       reference=lambda attrs, x: np.transpose(x, attrs["perm"]))
class Transpose(Primitive):
    """``Transpose()(x, perm)``: output axis ``i`` is input axis ``perm[i]`` (as ``np.transpose``)."""

    def __call__(self, x: Any, perm: Sequence[int]) -> Tensor:
        return apply("Transpose", {"perm": perm}, [x])


# ---- ExpandDims ---------------------------------------------------------------------------------------

def _expand_dims_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    rank = ins[0].rank
    axis = static_int("ExpandDims", "axis", attrs.get("axis"), ins)
    if not -rank - 1 <= axis <= rank:
        raise ShapeError("ExpandDims", f"axis {axis} is out of range [{-rank - 1}, {rank}] for rank {rank}",
                         list(ins))
    return {"axis": axis + rank + 1 if axis < 0 else axis}


def _expand_dims_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    shape = list(ins[0].shape)
    shape.insert(attrs["axis"], 1)
    return [TensorType(tuple(shape), same_dtype("ExpandDims", ins, ANY_C))]


@defop(infer=_expand_dims_infer, view=True, normalize=_expand_dims_normalize, n_inputs=1,
       reference=lambda attrs, x: np.expand_dims(x, attrs["axis"]))
class ExpandDims(Primitive):
    """``ExpandDims()(x, axis)``: insert a size-1 axis at ``axis`` (in ``[-rank-1, rank]``)."""

    def __call__(self, x: Any, axis: int) -> Tensor:
        return apply("ExpandDims", {"axis": axis}, [x])


# ---- Squeeze ------------------------------------------------------------------------------------------

def _squeeze_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    axis = static_ints("Squeeze", "axis", attrs.get("axis", ()), ins, allow_scalar=True)
    if not axis:  # () squeezes every size-1 dim
        return {"axis": [d for d, n in enumerate(x.shape) if n == 1]}
    canon = [norm_axis("Squeeze", a, x.rank, ins) for a in axis]
    if x.rank == 0 or len(set(canon)) != len(canon):
        raise ShapeError("Squeeze", f"axis {tuple(axis)} must name distinct axes of a rank-{x.rank} input",
                         [x])
    # MindSpore 2.10 leaves a named axis whose size is not 1 in place (recorded), as PyTorch does.
    return {"axis": sorted(a for a in canon if x.shape[a] == 1)}


def _squeeze_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    drop = set(attrs["axis"])
    shape = tuple(n for d, n in enumerate(ins[0].shape) if d not in drop)
    return [TensorType(shape, same_dtype("Squeeze", ins, ANY_C))]


@defop(infer=_squeeze_infer, view=True, normalize=_squeeze_normalize, n_inputs=1,
       reference=lambda attrs, x: np.squeeze(x, tuple(attrs["axis"])))
class Squeeze(Primitive):
    """``Squeeze(axis=())(x)``: remove the given axes of size 1 (an int or a tuple; a named axis of another
    size stays, as MindSpore's); ``()`` removes every size-1 axis."""

    def __init__(self, axis: int | Sequence[int] = ()):
        super().__init__(axis=axis)


# ---- Flatten ------------------------------------------------------------------------------------------

def _flatten_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x = ins[0]
    if x.rank == 0:
        raise ShapeError("Flatten", "input must have rank >= 1 (shape (N, ...))", [x])
    return [TensorType((x.shape[0], math.prod(x.shape[1:])), same_dtype("Flatten", ins, ANY_C))]


@defop(infer=_flatten_infer, view=True, n_inputs=1,
       reference=lambda attrs, x: x.reshape(x.shape[0], math.prod(x.shape[1:])))
class Flatten(Primitive):
    """``Flatten()(x)``: shape ``(N, ...)`` -> ``(N, prod(...))``."""


PRIMITIVES: dict[str, type[Primitive]] = {
    cls.__name__: cls for cls in (Reshape, Transpose, ExpandDims, Squeeze, Flatten)}


# ---- gradient rules: a layout op's cotangent is the output cotangent laid back out -----------------------

from . import gradlib as G  # noqa: E402
from .registry import grad_rule  # noqa: E402


@grad_rule("Reshape", "ExpandDims", "Squeeze", "Flatten")
def _reshape_grad(attrs, ins, outs, douts):
    return [G.reshape(douts[0], ins[0].shape)]


@grad_rule("Transpose")
def _transpose_grad(attrs, ins, outs, douts):
    return [G.transpose(douts[0], G.inverse_perm(attrs["perm"]))]

# Pure data movement: complex elements move like any other (docs/fft.md).
allow_complex("Reshape", "Transpose", "ExpandDims", "Squeeze", "Flatten")
