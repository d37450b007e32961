"""ONNX operators as opbuild primitives: one small converter per ``op_type``, registered in :data:`CONVERTERS`.

A converter receives a :class:`Ctx` (the node: attributes, opset, output names) and the node's inputs, and
returns the node's output value(s). A value is either a NumPy array, a *constant* known when the model is
traced, or a Tensor (a graph input, a Parameter, or the symbolic result of an op). Converters call
:func:`prim`, which applies an opbuild primitive to Tensors (a graph node) or, when every input is a constant,
evaluates the primitive's own NumPy reference at trace time (constant folding). So the same converter code
replays a node into the graph or folds it away: shape arithmetic (``Shape -> Gather -> Concat -> Reshape``),
``Range``, ``ConstantOfShape`` and integer initializers never reach the compiled graph, and every shape a
kernel sees is static.

ONNX operators opbuild has no single primitive for are compositions of existing primitives (HardSigmoid is
``ClipByValue(x * alpha + beta, 0, 1)``, integer Div truncates with FloorDiv and Mod, GatherND is a flat
Gather, Pad with a non-zero value selects between the zero-padded input and the value).

Each entry declares the ONNX schema versions (``since_version``) it implements, the attributes it
understands (anything else is reported at load time), how many outputs it produces, and an optional
load-time check of attribute values; see :mod:`opbuild.frontends.onnx` for how they are enforced.

Layout: ``core.py`` (values, :func:`prim`, :class:`Ctx`, the table) and one module per family of ONNX
operators (``elementwise.py``, ``shapes.py``, ``nn.py``); this package re-exports the core's public names.
"""

from __future__ import annotations

# Importing the family modules registers their converters.
from . import (  # noqa: F401
    conv_transpose,
    einsum,
    elementwise,
    generators,
    linalg,
    losses,
    math_ops,
    nn,
    norms,
    pool,
    quant,
    rearrange,
    resize,
    scan,
    shapes,
)
from .core import (
    CONVERTERS,
    Check,
    Converter,
    Ctx,
    StaticValueError,
    Value,
    cast,
    const,
    converter,
    dtype,
    is_const,
    prim,
    reshape,
    shape,
)
from .elementwise import ONNX_DTYPES, onnx_dtype

__all__ = ["CONVERTERS", "Check", "Converter", "Ctx", "ONNX_DTYPES", "StaticValueError", "Value", "cast", "const",
           "converter", "dtype", "is_const", "onnx_dtype", "prim", "reshape", "shape"]
