"""MindSpore's image-quality Cells ``nn.SSIM``, ``nn.MSSSIM`` and ``nn.PSNR``, with its signatures, checks and
results (tests/compat/test_nn_surface.py compares them with MindSpore 2.10's outputs).

SSIM filters each channel with a normalised ``filter_size``-square Gaussian window (sigma ``filter_sigma``)
through a 'valid' Conv2d whose frozen weight is that window (the ``conv.weight`` parameter MindSpore's has),
forms ``((2 mu1 mu2 + c1)(2 s12 + c2)) / ((mu1^2 + mu2^2 + c1)(s1^2 + s2^2 + c2))`` with
``c1 = (k1 max_val)^2``, ``c2 = (k2 max_val)^2``, and averages it over the image and the channels: one value per
image. MSSSIM does this at ``len(power_factors)`` scales (2x2 average pooling between them), multiplies the
contrast terms of the coarser-but-last scales and the last scale's SSIM, each clipped at 0 and raised to its power
factor. PSNR is ``10 log10(max_val^2 / mse)`` per image. Integer images are scaled to [0, 1] by their dtype's
maximum (and ``max_val`` with them), as MindSpore does."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import float16, float32, float64, uint8
from ..core.errors import ShapeError
from ..core.tensor import Tensor
from ..ops import functional as F
from .cell import Cell
from .layers import AvgPool2d, CellList, Conv2d, ReLU


def _window(size: int, sigma: float) -> np.ndarray:
    """The normalised Gaussian window as a (1, 1, size, size) float32 Conv2d weight."""
    r = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float32)
    sq = r[:, None] ** 2 + r[None, :] ** 2
    g = np.exp(-sq / np.float32(2 * sigma ** 2))
    return (g / g.sum()).astype(np.float32)[None, None]


def _frozen_conv(size: int, sigma: float) -> Conv2d:
    conv = Conv2d(1, 1, size, pad_mode="valid", weight_init=Tensor(_window(size, sigma)))
    conv.weight.requires_grad = False
    return conv


def _check_args(cls: str, max_val: Any, filter_size: Any = 1, filter_sigma: Any = 1.0, k1: Any = 0.01,
                k2: Any = 0.03) -> None:
    if not isinstance(max_val, (int, float)) or isinstance(max_val, bool):
        raise TypeError(f"{cls}: max_val must be an int or a float, got {type(max_val).__name__}")
    if max_val <= 0:
        raise ValueError(f"{cls}: max_val must be > 0, got {max_val}")
    if not isinstance(filter_size, int) or isinstance(filter_size, bool):
        raise TypeError(f"{cls}: filter_size must be an int, got {type(filter_size).__name__}")
    if filter_size < 1:
        raise ValueError(f"{cls}: filter_size must be >= 1, got {filter_size}")
    if not isinstance(filter_sigma, float):
        raise TypeError(f"{cls}: filter_sigma must be a float, got {type(filter_sigma).__name__}")
    if filter_sigma <= 0:
        raise ValueError(f"{cls}: filter_sigma must be > 0, got {filter_sigma}")
    for name, k in (("k1", k1), ("k2", k2)):
        if not isinstance(k, float):
            raise TypeError(f"{cls}: {name} must be a float, got {type(k).__name__}")


def _check_pair(cls: str, img1: Tensor, img2: Tensor, dtypes: Sequence[Any] | None, filter_size: int = 0) -> None:
    if img1.ndim != 4:
        raise ShapeError(cls, f"img1 must be 4-D (N, C, H, W), got {img1.ndim}-D", [img1._type])
    if img2.ndim != 4:
        raise ShapeError(cls, f"img2 must be 4-D (N, C, H, W), got {img2.ndim}-D", [img2._type])
    if dtypes is not None and img1.dtype not in dtypes:
        raise TypeError(f"{cls}: img1 must be one of {[str(d) for d in dtypes]}, got {img1.dtype}")
    if filter_size and (img1.shape[2] < filter_size or img1.shape[3] < filter_size):
        raise ValueError(f"{cls}: img1's height and width must be >= filter_size {filter_size}, "
                         f"got {tuple(img1.shape)}")
    if img1.dtype != img2.dtype:
        raise TypeError(f"{cls}: img1 and img2 must have the same dtype, got {img1.dtype} and {img2.dtype}")
    if tuple(img1.shape) != tuple(img2.shape):
        raise ValueError(f"{cls}: img1 and img2 must have the same shape, got {tuple(img1.shape)} and "
                         f"{tuple(img2.shape)}")


def _as_unit(img: Tensor, max_val: float) -> tuple[Tensor, float]:
    """float32 images and max_val, integer images scaled by their dtype's maximum (MindSpore's rule)."""
    kind = np.dtype(img.dtype.np_dtype)
    top = float(np.iinfo(kind).max) if np.issubdtype(kind, np.integer) else 1.0
    x = F.cast(img, "float32")
    if top > 1.0:
        return x * np.float32(1.0 / top), max_val / top
    return x, max_val


def _ssim_and_cs(c1: float, c2: float, img1: Tensor, img2: Tensor, conv: Conv2d) -> tuple[Tensor, Tensor]:
    """Mean SSIM and contrast-structure terms, each of shape (N, C), channel by channel through ``conv``."""
    ssims, css = [], []
    for a, b in zip(F.split(img1, 1, 1), F.split(img2, 1, 1)):
        mu1, mu2 = conv(a), conv(b)
        mu1_sq, mu2_sq, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
        s1 = conv(a * a) - mu1_sq
        s2 = conv(b * b) - mu2_sq
        s12 = conv(a * b) - mu12
        v1 = s12 * 2.0 + c2
        v2 = s1 + s2 + c2
        ssims.append(((mu12 * 2.0 + c1) * v1) / ((mu1_sq + mu2_sq + c1) * v2))
        css.append(v1 / v2)
    return F.mean(F.concat(ssims, 1), (2, 3)), F.mean(F.concat(css, 1), (2, 3))


class SSIM(Cell):
    """``SSIM(max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)``: ``construct(img1, img2)`` over
    float32/float16 (N, C, H, W) images at least ``filter_size`` high and wide gives the (N,) mean structural
    similarity (see the module docstring)."""

    def __init__(self, max_val: float = 1.0, filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01,
                 k2: float = 0.03) -> None:
        super().__init__()
        _check_args("SSIM", max_val, filter_size, filter_sigma, k1, k2)
        self.max_val, self.filter_size, self.filter_sigma, self.k1, self.k2 = (max_val, filter_size,
                                                                              filter_sigma, k1, k2)
        self.conv = _frozen_conv(filter_size, filter_sigma)

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        _check_pair("SSIM", img1, img2, (float32, float16), self.filter_size)
        a, max_val = _as_unit(img1, self.max_val)
        b, _ = _as_unit(img2, self.max_val)
        ssim, _ = _ssim_and_cs((self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2, a, b, self.conv)
        return F.mean(ssim, -1)


class MSSSIM(Cell):
    """``MSSSIM(max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), filter_size=11,
    filter_sigma=1.5, k1=0.01, k2=0.03)``: ``construct(img1, img2)`` over float64/float32/float16/uint8
    (N, C, H, W) images gives the (N,) multi-scale structural similarity, one scale per power factor (see the
    module docstring)."""

    def __init__(self, max_val: float = 1.0, power_factors: Sequence[float] = (0.0448, 0.2856, 0.3001, 0.2363,
                                                                               0.1333),
                 filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03) -> None:
        super().__init__()
        _check_args("MSSSIM", max_val, filter_size, filter_sigma, k1, k2)
        if not isinstance(power_factors, (tuple, list)):
            raise TypeError(f"MSSSIM: power_factors must be a tuple or list, got {type(power_factors).__name__}")
        self.max_val, self.filter_size, self.filter_sigma, self.k1, self.k2 = (max_val, filter_size,
                                                                              filter_sigma, k1, k2)
        self.level = len(power_factors)
        self.multi_convs_list = CellList([_frozen_conv(filter_size, filter_sigma) for _ in range(self.level)])
        self.weight_tensor = Tensor(np.asarray(power_factors, np.float32))
        self.avg_pool = AvgPool2d(kernel_size=2, stride=2, pad_mode="valid")
        self.relu = ReLU()

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        _check_pair("MSSSIM", img1, img2, (float64, float32, float16, uint8))
        a, max_val = _as_unit(img1, self.max_val)
        b, _ = _as_unit(img2, self.max_val)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        terms, sim = [], None
        for i in range(self.level):
            sim, cs = _ssim_and_cs(c1, c2, a, b, self.multi_convs_list[i])
            terms.append(self.relu(cs))
            a, b = self.avg_pool(a), self.avg_pool(b)
        stacked = F.stack([*terms[:-1], self.relu(sim)], -1)
        return F.mean(F.prod(F.pow(stacked, self.weight_tensor), -1), -1)


class PSNR(Cell):
    """``PSNR(max_val=1.0)``: ``construct(img1, img2)`` over (N, C, H, W) images gives the (N,) peak
    signal-to-noise ratio ``10 log10(max_val^2 / mean((img1 - img2)^2))`` in dB (inf for equal images)."""

    def __init__(self, max_val: float = 1.0) -> None:
        super().__init__()
        _check_args("PSNR", max_val)
        self.max_val = max_val

    def construct(self, img1: Tensor, img2: Tensor) -> Tensor:
        _check_pair("PSNR", img1, img2, None)
        a, max_val = _as_unit(img1, self.max_val)
        b, _ = _as_unit(img2, self.max_val)
        mse = F.mean(F.square(a - b), (-3, -2, -1))
        return F.log(np.float32(max_val) ** 2 / mse) * np.float32(10.0 / math.log(10.0))
