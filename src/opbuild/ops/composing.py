"""What the compositions of this package share: how they apply a primitive.

A composition (resizing, log-sum-exp, norms, instance normalisation, ...) is written once as a function of an
``op`` callable ``(op name, attrs, *values) -> value``: the functional API passes :func:`apply_values`
(record into a trace or run eagerly), the ONNX importer its ``prim`` (which also folds constant inputs with
the primitive's NumPy reference). Values are Tensors or NumPy arrays (constants).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from .primitive import apply

Apply = Callable[..., Any]


def apply_values(op: str, attrs: dict, *values: Any) -> Any:
    """Apply primitive ``op`` to ``values`` (NumPy constants become captured Tensors)."""
    return apply(op, attrs, [v if isinstance(v, Tensor) else Tensor(np.asarray(v)) for v in values])


__all__ = ["Apply", "apply_values"]
