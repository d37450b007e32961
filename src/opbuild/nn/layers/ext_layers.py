"""MindSpore's ``*Ext`` layers of ``mindspore.nn`` (in MindSpore the very classes of ``mint.nn``:
``AvgPool1dExt/2dExt/3dExt``, ``MaxPool2dExt``, ``DropoutExt``, ``EmbeddingExt``, ``L1LossExt``,
``LogSoftmaxExt``), with their torch-style signatures and defaults (stride None: the kernel size).

MindSpore 2.10 runs most of them only on Ascend (its CPU has no kernel: tests/fixtures/mindspore/nn_surface.json
records the refusal); their results are those of the torch functions of the same names, which
tests/compat/test_nn_surface.py compares them with."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import ops
from ...core.dtypes import float32
from ...core.init_values import init_array
from ...core.initializer import Normal
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ..loss import LossBase
from ._checks import int_tuple


class _AvgPoolExt(Cell):
    _N = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        name, n = type(self).__name__, self._N
        self.kernel_size = int_tuple(name, "kernel_size", kernel_size, n, 1)
        self.stride = self.kernel_size if stride is None else int_tuple(name, "stride", stride, n, 1)
        self.padding = int_tuple(name, "padding", padding, n)
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)
        if divisor_override is not None and (not isinstance(divisor_override, int) or divisor_override <= 0):
            raise ValueError(f"{name}: divisor_override must be None or a positive int, got {divisor_override!r}")
        self.divisor_override = divisor_override


class AvgPool1dExt(_AvgPoolExt):
    """``AvgPool1dExt(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)``:
    average pooling of (N, C, L) or (C, L)."""

    _N = 1

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002 - MindSpore's argument name
        return ops.avg_pool1d(input, self.kernel_size[0], self.stride[0], self.padding[0], self.ceil_mode,
                              self.count_include_pad)


class AvgPool2dExt(_AvgPoolExt):
    """``AvgPool2dExt(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)``: average pooling of (N, C, H, W) or (C, H, W)."""

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return ops.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)


class AvgPool3dExt(_AvgPoolExt):
    """``AvgPool3dExt(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)``: average pooling of (N, C, D, H, W) or (C, D, H, W)."""

    _N = 3

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        pads = tuple(v for v in self.padding for _ in (0, 1))
        return ops.avg_pool3d(input, self.kernel_size, self.stride, pads, self.ceil_mode, self.count_include_pad,
                              self.divisor_override or 0)


class MaxPool2dExt(Cell):
    """``MaxPool2dExt(kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``: max pooling of (N, C, H, W) or (C, H, W); with ``return_indices`` also the int64 flat
    index of each maximum in its (H, W) plane."""

    def __init__(self, kernel_size: Any = 1, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = int_tuple("MaxPool2dExt", "kernel_size", kernel_size, 2, 1)
        self.stride = self.kernel_size if stride is None else int_tuple("MaxPool2dExt", "stride", stride, 2, 1)
        self.padding = int_tuple("MaxPool2dExt", "padding", padding, 2)
        self.dilation = int_tuple("MaxPool2dExt", "dilation", dilation, 2, 1)
        self.return_indices, self.ceil_mode = bool(return_indices), bool(ceil_mode)

    def construct(self, input: Tensor) -> Any:  # noqa: A002
        return ops.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.return_indices, self.ceil_mode)


class DropoutExt(Cell):
    """``DropoutExt(p=0.5, inplace=False)``: while training, each element is zeroed with probability ``p`` and
    the others scaled by ``1 / (1 - p)``; the identity in evaluation (and for ``p`` 0)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0.0 <= p <= 1.0:
            raise ValueError(f"DropoutExt: p must be a float in [0, 1], got {p!r}")
        self.p, self.inplace = float(p), bool(inplace)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        if not self.training or self.p == 0.0:
            return input
        if self.p == 1.0:
            return input * 0.0
        return ops.dropout(input, self.p, True)


class EmbeddingExt(Cell):
    """``EmbeddingExt(num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None)``: ``weight``
    (num_embeddings, embedding_dim), drawn from N(0, 1) unless ``_weight`` gives it, the ``padding_idx`` row
    zeros, frozen when ``_freeze``; ``construct(input)`` looks the int ids up (rows renormalised to
    ``max_norm`` when given). ``sparse`` gradients are dense here."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Any = None, _freeze: bool = False, dtype: Any = None) -> None:
        super().__init__()
        for arg, v in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"EmbeddingExt: {arg} must be a positive int, got {v!r}")
        if padding_idx is not None:
            if not isinstance(padding_idx, int) or not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"EmbeddingExt: padding_idx must be an int in [-{num_embeddings}, "
                                 f"{num_embeddings}), got {padding_idx!r}")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type = max_norm, float(norm_type)
        self.scale_grad_by_freq, self.sparse = bool(scale_grad_by_freq), bool(sparse)
        dt = float32 if dtype is None else dtype
        if _weight is None:
            data = np.array(init_array(Normal(sigma=1.0), (num_embeddings, embedding_dim), dt))
            if padding_idx is not None:
                data[padding_idx] = 0
        else:
            data = np.array(_weight.asnumpy() if isinstance(_weight, Tensor) else _weight)
            if data.shape != (num_embeddings, embedding_dim):
                raise ValueError(f"EmbeddingExt: _weight must have shape ({num_embeddings}, {embedding_dim}), "
                                 f"got {data.shape}")
        self.weight = Parameter(Tensor(data), name="weight", requires_grad=not _freeze)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return ops.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq)


class L1LossExt(LossBase):
    """``L1LossExt(reduction='mean')``: ``|input - target|`` reduced by 'mean', 'sum' or 'none'."""

    def __init__(self, reduction: str = "mean") -> None:
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"L1LossExt: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        super().__init__(reduction)

    def construct(self, logits: Tensor, labels: Tensor) -> Tensor:
        return ops.l1_loss(logits, labels, self.reduction)


class LogSoftmaxExt(Cell):
    """``LogSoftmaxExt(dim=None)``: log-softmax along ``dim`` (None: axis 0 for inputs of rank 0, 1 or 3,
    else axis 1, torch's legacy rule)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
            raise TypeError(f"LogSoftmaxExt: dim must be an int or None, got {type(dim).__name__}")
        self.dim = dim

    def construct(self, x: Tensor) -> Tensor:
        dim = self.dim if self.dim is not None else (0 if x.ndim in (0, 1, 3) else 1)
        return ops.log_softmax(x, dim)


__all__ = ["AvgPool1dExt", "AvgPool2dExt", "AvgPool3dExt", "MaxPool2dExt", "DropoutExt", "EmbeddingExt",
           "L1LossExt", "LogSoftmaxExt"]
