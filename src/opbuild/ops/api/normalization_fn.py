"""Normalisation functions of ``mindspore.ops``: ``batch_norm`` (the BatchNorm primitive: moving statistics in
inference; batch statistics in training, the moving ones updated in place) and ``group_norm`` (a composition
of reductions), with MindSpore 2.10's arguments and defaults."""

from __future__ import annotations

import numbers

from ...core.tensor import Tensor, as_tensor
from ..normalization import BatchNorm
from . import array as A
from . import math as M


def _float_arg(fn: str, name: str, v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{fn}: {name} must be a float, got {v!r}")
    return float(v)


def batch_norm(input_x, running_mean, running_var, weight, bias, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-05) -> Tensor:
    """``ops.batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
    eps=1e-05)``: normalise axis 1 of an (N, C), (N, C, L) or (N, C, H, W) input. In inference the running
    statistics are used; in training the batch's, and ``running_mean``/``running_var`` (Parameters) become
    ``(1 - momentum) * running + momentum * batch`` in place."""
    x = as_tensor(input_x)
    if x.ndim not in (2, 3, 4):
        raise ValueError(f"batch_norm: input_x must be (N, C), (N, C, L) or (N, C, H, W), got shape {x.shape}")
    eps = _float_arg("batch_norm", "eps", eps)
    momentum = _float_arg("batch_norm", "momentum", momentum)
    if not 0.0 <= momentum <= 1.0:
        raise ValueError(f"batch_norm: momentum must be in [0, 1], got {momentum}")
    c = x.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if tuple(as_tensor(t).shape) != (c,):
            raise ValueError(f"batch_norm: {name} must have shape ({c},) (one per channel), got "
                             f"{as_tensor(t).shape}")
    shape = x.shape
    x4 = x if x.ndim == 4 else A.reshape(x, (shape[0], c, shape[2] if x.ndim == 3 else 1, 1))
    prim = BatchNorm(is_training=bool(training), epsilon=eps, momentum=momentum)
    y = prim(x4, weight, bias, running_mean, running_var)[0]
    return y if x.ndim == 4 else A.reshape(y, shape)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-05) -> Tensor:  # noqa: A002
    """``ops.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)``: each sample's channels
    (axis 1) split into ``num_groups`` groups, each normalised (biased variance), then ``weight``/``bias``
    (C,) scale and shift every channel."""
    x = as_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"group_norm: the input must be (N, C, ...), got shape {x.shape}")
    n, c = x.shape[:2]
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups < 1 or c % num_groups:
        raise ValueError(f"group_norm: num_groups must be a positive int dividing the {c} channels, got "
                         f"{num_groups!r}")
    eps = _float_arg("group_norm", "eps", eps)
    g = A.reshape(x, (n, num_groups, -1))
    centred = M.sub(g, M.mean(g, 2, True))
    y = A.reshape(M.mul(centred, M.rsqrt(M.add(M.mean(M.mul(centred, centred), 2, True), eps))), x.shape)
    cshape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        y = M.mul(y, A.reshape(M._cast(as_tensor(weight), x.dtype), cshape))
    if bias is not None:
        y = M.add(y, A.reshape(M._cast(as_tensor(bias), x.dtype), cshape))
    return y


__all__ = ["batch_norm", "group_norm"]
