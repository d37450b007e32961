"""The parameter-free layers of ``mindspore.mint.nn`` with torch's constructors, each a Cell over one function
of ``mint.nn.functional``: pooling (``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d``, ``MaxUnpool2d``), padding (``ConstantPad``, ``ZeroPad``, ``ReflectionPad``,
``ReplicationPad``, 1-D to 3-D: an int pads every side), resampling (``Upsample``, ``UpsamplingNearest2d``,
``UpsamplingBilinear2d`` (align_corners=True, as torch's)), ``Fold``, ``Unfold``, ``PixelShuffle``,
``Threshold`` and the losses ``BCELoss``, ``BCEWithLogitsLoss``, ``KLDivLoss``, ``SmoothL1Loss``,
``SoftMarginLoss``, ``CosineEmbeddingLoss``."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from ... import nn as _nn
from ...core.tensor import Tensor
from . import functional_layers as FL
from . import functional_losses as FS


class _Fixed(_nn.Cell):
    """A Cell calling ``_fn(input, **kwargs)`` with the constructor's arguments."""

    _fn: Any = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        self._kwargs = kwargs
        for k, v in kwargs.items():
            setattr(self, k, v)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self)._fn(input, **self._kwargs)

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self._kwargs.items())


class AvgPool1d(_Fixed):
    """``AvgPool1d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)``."""

    _fn = staticmethod(FL.avg_pool1d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         count_include_pad=count_include_pad)


class AvgPool2d(_Fixed):
    """``AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)``."""

    _fn = staticmethod(FL.avg_pool2d)

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: Any = None) -> None:
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         count_include_pad=count_include_pad, divisor_override=divisor_override)


class AvgPool3d(AvgPool2d):
    """``AvgPool3d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)``."""

    _fn = staticmethod(FL.avg_pool3d)


class AdaptiveAvgPool1d(_Fixed):
    """``AdaptiveAvgPool1d(output_size)``."""

    _fn = staticmethod(FL.adaptive_avg_pool1d)

    def __init__(self, output_size: Any) -> None:
        super().__init__(output_size=output_size)


class AdaptiveAvgPool2d(AdaptiveAvgPool1d):
    """``AdaptiveAvgPool2d(output_size)``."""

    _fn = staticmethod(FL.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    """``AdaptiveAvgPool3d(output_size)``."""

    _fn = staticmethod(FL.adaptive_avg_pool3d)


class AdaptiveMaxPool1d(_Fixed):
    """``AdaptiveMaxPool1d(output_size, return_indices=False)``."""

    _fn = staticmethod(FL.adaptive_max_pool1d)

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size=output_size, return_indices=return_indices)


class AdaptiveMaxPool2d(AdaptiveMaxPool1d):
    """``AdaptiveMaxPool2d(output_size, return_indices=False)``."""

    _fn = staticmethod(FL.adaptive_max_pool2d)


class MaxUnpool2d(_nn.Cell):
    """``MaxUnpool2d(kernel_size, stride=None, padding=0)``; ``construct(input, indices, output_size=None)``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        return FL.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


def _pads(cls: str, padding: Any, n: int) -> tuple[int, ...]:
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        return (int(padding),) * (2 * n)
    if isinstance(padding, Sequence) and len(padding) == 2 * n and all(
            isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in padding):
        return tuple(int(p) for p in padding)
    raise ValueError(f"mint.nn.{cls}: padding must be an int or {2 * n} ints, got {padding!r}")


class _Pad(_nn.Cell):
    _n, _mode = 1, "constant"

    def __init__(self, padding: Any, value: float = 0.0) -> None:
        super().__init__()
        self.padding = _pads(type(self).__name__, padding, self._n)
        self.value = value

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return FL.pad(input, self.padding, self._mode, self.value if self._mode == "constant" else None)

    def extra_repr(self) -> str:
        return f"padding={self.padding}"


def _pad_class(name: str, n: int, mode: str, with_value: bool) -> type[_Pad]:
    def __init__(self: _Pad, padding: Any, value: float) -> None:
        _Pad.__init__(self, padding, value)

    def __init_nv__(self: _Pad, padding: Any) -> None:
        _Pad.__init__(self, padding)

    doc = (f"``{name}(padding{', value' if with_value else ''})``: {mode} padding of the last {n} axes (an int "
           f"pads every side; else {2 * n} ints, the last axis first).")
    return type(name, (_Pad,), {"_n": n, "_mode": mode, "__init__": __init__ if with_value else __init_nv__,
                                "__doc__": doc, "__module__": __name__})


ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant", True)
ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant", True)
ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant", True)
ZeroPad1d = _pad_class("ZeroPad1d", 1, "constant", False)
ZeroPad2d = _pad_class("ZeroPad2d", 2, "constant", False)
ZeroPad3d = _pad_class("ZeroPad3d", 3, "constant", False)
ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect", False)
ReflectionPad2d = _pad_class("ReflectionPad2d", 2, "reflect", False)
ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect", False)
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate", False)
ReplicationPad2d = _pad_class("ReplicationPad2d", 2, "replicate", False)
ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate", False)


class Upsample(_Fixed):
    """``Upsample(size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None)``: :func:`~opbuild.mint.nn.functional.interpolate` with these arguments."""

    _fn = staticmethod(FL.interpolate)

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: Any = None, recompute_scale_factor: Any = None) -> None:
        super().__init__(size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners,
                         recompute_scale_factor=recompute_scale_factor)


class UpsamplingNearest2d(Upsample):
    """``UpsamplingNearest2d(size=None, scale_factor=None)``: nearest-neighbour resizing of (N, C, H, W)."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, "nearest")


class UpsamplingBilinear2d(Upsample):
    """``UpsamplingBilinear2d(size=None, scale_factor=None)``: bilinear resizing of (N, C, H, W) with
    align_corners=True."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, "bilinear", True)


class Unfold(_Fixed):
    """``Unfold(kernel_size, dilation=1, padding=0, stride=1)``."""

    _fn = staticmethod(FL.unfold)

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__(kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)


class Fold(_Fixed):
    """``Fold(output_size, kernel_size, dilation=1, padding=0, stride=1)``."""

    _fn = staticmethod(FL.fold)

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__(output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=padding,
                         stride=stride)


class PixelShuffle(_Fixed):
    """``PixelShuffle(upscale_factor)``."""

    _fn = staticmethod(FL.pixel_shuffle)

    def __init__(self, upscale_factor: int) -> None:
        super().__init__(upscale_factor=upscale_factor)


class Threshold(_Fixed):
    """``Threshold(threshold, value, inplace=False)``: input where greater than ``threshold``, else ``value``."""

    _fn = staticmethod(FS.threshold)

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__(threshold=threshold, value=value, inplace=inplace)


# ---- losses -------------------------------------------------------------------------------------------------
class _Loss2(_nn.Cell):
    """A loss Cell: ``construct(input, target)`` calls ``_fn`` with the constructor's keyword arguments."""

    _fn: Any = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        FS._reduction(type(self).__name__, kwargs.get("reduction", "mean"),
                      ("mean", "sum", "none", "batchmean") if type(self).__name__ == "KLDivLoss" else
                      ("mean", "sum", "none"))
        self._kwargs = kwargs
        for k, v in kwargs.items():
            setattr(self, k, v)

    def construct(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return type(self)._fn(input, target, **self._kwargs)


class BCELoss(_Loss2):
    """``BCELoss(weight=None, reduction='mean')``."""

    _fn = staticmethod(FS.binary_cross_entropy)

    def __init__(self, weight: Any = None, reduction: str = "mean") -> None:
        super().__init__(weight=weight, reduction=reduction)


class BCEWithLogitsLoss(_Loss2):
    """``BCEWithLogitsLoss(weight=None, reduction='mean', pos_weight=None)``."""

    _fn = staticmethod(FS.binary_cross_entropy_with_logits)

    def __init__(self, weight: Any = None, reduction: str = "mean", pos_weight: Any = None) -> None:
        super().__init__(weight=weight, reduction=reduction, pos_weight=pos_weight)


class KLDivLoss(_Loss2):
    """``KLDivLoss(reduction='mean', log_target=False)``."""

    _fn = staticmethod(FS.kl_div)

    def __init__(self, reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(reduction=reduction, log_target=log_target)


class SmoothL1Loss(_Loss2):
    """``SmoothL1Loss(reduction='mean', beta=1.0)``."""

    _fn = staticmethod(FS.smooth_l1_loss)

    def __init__(self, reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(reduction=reduction, beta=beta)


class SoftMarginLoss(_Loss2):
    """``SoftMarginLoss(reduction='mean')``."""

    _fn = staticmethod(FS.soft_margin_loss)

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__(reduction=reduction)


class CosineEmbeddingLoss(_nn.Cell):
    """``CosineEmbeddingLoss(margin=0.0, reduction='mean')``; ``construct(input1, input2, target)``."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__()
        self.margin, self.reduction = margin, FS._reduction("CosineEmbeddingLoss", reduction)

    def construct(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return FS.cosine_embedding_loss(input1, input2, target, self.margin, self.reduction)


__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AvgPool1d", "AvgPool2d", "AvgPool3d", "BCELoss", "BCEWithLogitsLoss", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "CosineEmbeddingLoss", "Fold", "KLDivLoss", "MaxUnpool2d", "PixelShuffle",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "SmoothL1Loss", "SoftMarginLoss", "Threshold", "Unfold", "Upsample",
           "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]
