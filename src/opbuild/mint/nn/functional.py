"""``mindspore.mint.nn.functional``: the activations, losses and layer functions of MindSpore 2.10's torch-style
namespace that opbuild has, with ``mint``'s parameter names and defaults, each over the ``ops`` function
(convolutions, pooling, padding and sampling in ``functional_layers.py``, losses and the in-place ``relu_``,
``threshold_``, ... in ``functional_losses.py``). The
``inplace`` flags are accepted and return a new tensor (opbuild's activations write fresh outputs; the values
are the same). A name of MindSpore's ``mint.nn.functional`` missing here raises AttributeError naming it."""

from __future__ import annotations

from typing import Any

from ... import ops as _ops
from ...core.tensor import Tensor, as_tensor
from ..torch_style import clamp, flatten
from . import functional_layers, functional_losses
from .functional_layers import *  # noqa: F403 - conv1d/2d/3d, pools, pad, interpolate, fold, batch_norm, ...
from .functional_losses import *  # noqa: F403 - binary_cross_entropy, nll_loss, kl_div, relu_, threshold, ...

# Same signature as the ops function of the same name.
SAME_AS_OPS = ("sigmoid", "tanh", "hardsigmoid", "hardswish", "layer_norm", "group_norm", "softshrink",
               "hardshrink", "prelu", "mse_loss", "l1_loss", "softplus", "cross_entropy")


def relu(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    """``relu(input, inplace=False)``: max(input, 0)."""
    return _ops.relu(input)


def relu6(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    """``relu6(input, inplace=False)``: min(max(input, 0), 6)."""
    return _ops.relu6(input)


def silu(input: Any, inplace: bool = False) -> Tensor:  # noqa: A002
    """``silu(input, inplace=False)``: input * sigmoid(input)."""
    return _ops.silu(input)


def gelu(input: Any, approximate: str = "none") -> Tensor:  # noqa: A002
    """``gelu(input, approximate='none')``: the exact erf form, or the tanh form with ``'tanh'``."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"mint.nn.functional.gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return _ops.gelu(input, approximate)


def _dim(input: Any, dim: int | None) -> int:  # noqa: A002
    return -1 if dim is None else dim


def softmax(input: Any, dim: int | None = None, dtype: Any = None) -> Tensor:  # noqa: A002
    """``softmax(input, dim=None, dtype=None)``: exp(x) / sum(exp(x)) along ``dim`` (None: the last axis),
    cast first to ``dtype``."""
    x = as_tensor(input) if dtype is None else _ops.cast(input, dtype)
    return _ops.softmax(x, _dim(x, dim))


def log_softmax(input: Any, dim: int | None = None, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """``log_softmax(input, dim=None, *, dtype=None)``: log of :func:`softmax` along ``dim`` (None: the last
    axis)."""
    x = as_tensor(input) if dtype is None else _ops.cast(input, dtype)
    return _ops.log_softmax(x, _dim(x, dim))


def leaky_relu(input: Any, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    """``leaky_relu(input, negative_slope=0.01)``: input, times ``negative_slope`` where negative."""
    return _ops.leaky_relu(input, negative_slope)


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """``elu(input, alpha=1.0, inplace=False)``: input where positive, alpha * (exp(input) - 1) elsewhere."""
    return _ops.elu(input, alpha)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0,  # noqa: A002
             inplace: bool = False) -> Tensor:
    """``hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False)``: input clamped to [min_val, max_val]."""
    return _ops.hardtanh(input, min_val, max_val)


def mish(input: Any) -> Tensor:  # noqa: A002
    """``mish(input)``: input * tanh(softplus(input))."""
    return _ops.mish(input)


def selu(input: Any) -> Tensor:  # noqa: A002
    """``selu(input)``: the scaled ELU."""
    return _ops.selu(input)


def logsigmoid(input: Any) -> Tensor:  # noqa: A002
    """``logsigmoid(input)``: log(sigmoid(input))."""
    return _ops.logsigmoid(input)


def glu(input: Any, dim: int = -1) -> Tensor:  # noqa: A002
    """``glu(input, dim=-1)``: the first half of ``dim`` times the sigmoid of the second."""
    return _ops.glu(input, dim)


def linear(input: Any, weight: Any, bias: Any = None) -> Tensor:  # noqa: A002
    """``linear(input, weight, bias=None)``: input @ weight^T + bias."""
    return _ops.dense(input, weight, bias)


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """``dropout(input, p=0.5, training=True, inplace=False)``: elements zeroed with probability ``p`` and the
    rest scaled by 1 / (1 - p) in training; the input unchanged otherwise."""
    return _ops.dropout(input, p, training)


def normalize(input: Any, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:  # noqa: A002
    """``normalize(input, p=2.0, dim=1, eps=1e-12)``: input divided by max(its p-norm along ``dim``, eps)."""
    x = as_tensor(input)
    norm = _ops.pow(_ops.sum(_ops.pow(_ops.abs(x), p), dim, True), 1.0 / p)
    return _ops.div(x, _ops.clamp(norm, eps, None))


def one_hot(tensor: Any, num_classes: int = -1) -> Tensor:
    """``one_hot(tensor, num_classes=-1)``: int64 one-hot rows of the int64 class indices (-1: the largest
    index + 1)."""
    t = as_tensor(tensor)
    if num_classes == -1:
        num_classes = int(t.asnumpy().max()) + 1
    return _ops.cast(_ops.one_hot(t, num_classes, 1, 0), "int64")


globals().update({_n: getattr(_ops, _n) for _n in SAME_AS_OPS})

__all__ = [*SAME_AS_OPS, "relu", "relu6", "silu", "gelu", "softmax", "log_softmax", "leaky_relu", "elu", "hardtanh",
           "mish", "selu", "logsigmoid", "glu", "linear", "dropout", "normalize", "one_hot", "clamp", "flatten",
           *functional_layers.__all__, *functional_losses.__all__]
