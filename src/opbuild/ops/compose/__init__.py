"""Compositions written once: operators expressed as graphs of other operators (the tanh form of GeLU, the
decompositions of Softmax, LogSoftmax and LayerNorm), shared by every place that builds them.

A composition is a function of a *builder* and its operands. The builder decides what an application is:

* :data:`TENSORS` applies primitives to Tensors (``ops/primitive.py`` ``apply``): the functional API and the
  ``nn`` layers, in PyNative and inside a trace alike;
* the ONNX importer's builder adds nodes to the graph it imports (frontends/onnx_ops/elementwise.py);
* the reduction-fusion pass's builder appends members to a ``FusedRowReduce`` recipe (passes/reduce_fusion.py),
  so a fused Softmax or LayerNorm computes exactly the decomposition written here.

So the math of each composition exists once; an operator that also has a hand-written kernel (Softmax,
LayerNorm: faster as one kernel of their own) is checked against its decomposition (tests/ops/test_compose.py).

Besides operands from the builder, a composition may pass NumPy arrays as operands: constant tables (resizing
taps, Gather indices, masks) and scalars of an explicit dtype. The Tensor and ONNX builders take them (the
ONNX builder folds what is all-constant); the fusion pass's builder serves only compositions without them.

The modules: ``activations`` (tanh GeLU), ``normalization`` (Softmax, LogSoftmax, LayerNorm), ``reductions``
(log-sum-exp, p-norms, sum of squares, instance normalisation), ``einsum`` (Einstein summation as pairwise
BatchMatMuls), ``resize`` (separable resizing by constant tap tables, and MindSpore's resizing primitive
classes), ``primitives`` (MindSpore primitive classes that apply a composition: AddN, ScatterNd, Einsum,
LpNorm, Addcdiv, Addcmul).
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply

H = TypeVar("H")


class Builder(Protocol[H]):
    """What a composition needs: apply an operator to operands, and make a scalar constant for an operand."""

    def op(self, name: str, attrs: dict, *args: H) -> H:
        """The result of operator ``name`` with ``attrs`` applied to ``args`` (one output)."""

    def const(self, value: float, like: H) -> H:
        """A scalar ``value`` as an operand next to ``like`` (of its dtype)."""


class TensorBuilder:
    """Applies primitives to Tensors (eager or traced, as ``apply`` decides); a constant is a Python scalar
    taking the other operand's dtype, as the functional API's weak typing does."""

    def op(self, name: str, attrs: dict, *args: Any) -> Tensor:
        # NumPy operands (constant tables) become captured Tensors of their own dtype in apply.
        return apply(name, attrs, list(args))

    def const(self, value: float, like: Tensor) -> Tensor:
        return as_tensor(value, like)


#: The builder of the functional API and the layers (stateless).
TENSORS = TensorBuilder()

from .activations import SQRT_2_OVER_PI, gelu_tanh  # noqa: E402
from .normalization import layer_norm, log_softmax, softmax  # noqa: E402

__all__ = ["SQRT_2_OVER_PI", "TENSORS", "Builder", "TensorBuilder", "gelu_tanh", "layer_norm", "log_softmax",
           "softmax"]
