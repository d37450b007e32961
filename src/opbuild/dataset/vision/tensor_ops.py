"""Vision transforms on arrays and batches: ``ToTensor``, ``ToType``, ``ToNumpy``, ``NormalizePad``,
``LinearTransformation``, ``GaussianBlur``, erasing (``Erase``, ``CutOut``, ``RandomErasing``), batch mixing
(``MixUpBatch``, ``CutMixBatch``) and ``SlicePatches``. Random ones draw from the stream that
``ds.config.set_seed`` seeds."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.dtypes import dtype_of
from ._common import image, like, pad, probability, rng


def _np_dtype(who: str, dtype: Any) -> np.dtype:
    try:
        return dtype_of(dtype).np_dtype
    except (TypeError, ValueError, KeyError):
        try:
            return np.dtype(dtype)
        except TypeError:
            raise TypeError(f"{who}: {dtype!r} is not a dtype") from None


class ToTensor:
    """``ToTensor(output_type=np.float32)``: an (H, W, C) image -> (C, H, W) scaled by 1/255."""

    def __init__(self, output_type: Any = np.float32) -> None:
        self.dtype = _np_dtype("ToTensor", output_type)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("ToTensor", img)
        if arr.ndim == 2:
            arr = arr[..., None]
        return np.ascontiguousarray((arr.astype(np.float64) / 255.0).transpose(2, 0, 1)).astype(self.dtype)


class ToType:
    """``ToType(data_type)``: the array cast to ``data_type``."""

    def __init__(self, data_type: Any) -> None:
        self.dtype = _np_dtype("ToType", data_type)

    def __call__(self, img: Any) -> np.ndarray:
        return np.asarray(img).astype(self.dtype)


class ToNumpy:
    """``ToNumpy()``: the input as a NumPy array (images here are arrays already)."""

    def __call__(self, img: Any) -> np.ndarray:
        return np.asarray(img)


class NormalizePad:
    """``NormalizePad(mean, std, dtype="float32", is_hwc=True)``: ``Normalize`` then a fourth, zero
    channel."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], dtype: str = "float32",
                 is_hwc: bool = True) -> None:
        self.mean, self.std = np.asarray(mean, np.float64), np.asarray(std, np.float64)
        if self.mean.shape != (3,) or self.std.shape != (3,) or np.any(self.std <= 0):
            raise ValueError(f"NormalizePad: mean and std must be 3 values (std positive), got {mean} and {std}")
        if dtype not in ("float32", "float16"):
            raise ValueError(f"NormalizePad: dtype must be 'float32' or 'float16', got {dtype!r}")
        self.dtype, self.is_hwc = np.dtype(dtype), bool(is_hwc)

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.asarray(img, np.float64)
        hwc = arr if self.is_hwc else np.moveaxis(arr, 0, -1)
        if hwc.ndim != 3 or hwc.shape[2] != 3:
            raise TypeError(f"NormalizePad: the input must be a 3-channel image, got {arr.shape}")
        out = np.concatenate([(hwc - self.mean) / self.std, np.zeros(hwc.shape[:2] + (1,))], axis=-1)
        out = out if self.is_hwc else np.moveaxis(out, -1, 0)
        return np.ascontiguousarray(out).astype(self.dtype)


class LinearTransformation:
    """``LinearTransformation(transformation_matrix, mean_vector)``: ``(x.flatten() - mean) @ matrix``
    reshaped back (a (D, D) matrix, D = the image's element count)."""

    def __init__(self, transformation_matrix: Any, mean_vector: Any) -> None:
        self.matrix, self.mean = np.asarray(transformation_matrix), np.asarray(mean_vector)
        d = self.mean.size
        if self.matrix.shape != (d, d):
            raise ValueError(f"LinearTransformation: the matrix must be ({d}, {d}) for a mean of {d} values, got "
                             f"{self.matrix.shape}")

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.asarray(img)
        if arr.size != self.mean.size:
            raise ValueError(f"LinearTransformation: the image has {arr.size} elements, the mean vector "
                             f"{self.mean.size}")
        return ((arr.reshape(1, -1) - self.mean) @ self.matrix).reshape(arr.shape)


def _gaussian_kernel(size: int, sigma: float) -> np.ndarray:
    """Normalised Gaussian taps; without a sigma, OpenCV's rule ``0.3 * ((size - 1) / 2 - 1) + 0.8`` (MindSpore's
    results for sigma=None follow this rule, not OpenCV's fixed small-size tables)."""
    if sigma <= 0:
        sigma = 0.3 * ((size - 1) * 0.5 - 1) + 0.8
    x = np.arange(size) - (size - 1) / 2.0
    k = np.exp(-(x ** 2) / (2 * sigma * sigma))
    return k / k.sum()


class GaussianBlur:
    """``GaussianBlur(kernel_size, sigma=None)``: a separable Gaussian blur (odd kernel sizes; borders
    reflected as OpenCV's BORDER_REFLECT_101); MindSpore's result within one level, with or without
    ``sigma``."""

    def __init__(self, kernel_size: int | Sequence[int], sigma: float | Sequence[float] | None = None) -> None:
        ks = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if len(ks) != 2 or any(k <= 0 or k % 2 == 0 for k in ks):
            raise ValueError(f"GaussianBlur: kernel_size must be positive odd ints, got {kernel_size!r}")
        sg = (0.0, 0.0) if sigma is None else ((sigma, sigma) if isinstance(sigma, (int, float)) else tuple(sigma))
        self.kx, self.ky = _gaussian_kernel(ks[0], float(sg[0])), _gaussian_kernel(ks[1], float(sg[1]))

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("GaussianBlur", img)
        src = arr.astype(np.float64)
        rx, ry = len(self.kx) // 2, len(self.ky) // 2
        extra = [(0, 0)] * (arr.ndim - 2)
        padded = np.pad(src, [(ry, ry), (rx, rx)] + extra, mode="reflect")
        h, w = arr.shape[:2]
        rows = sum(self.kx[i] * padded[:, i:i + w] for i in range(len(self.kx)))
        out = sum(self.ky[i] * rows[i:i + h] for i in range(len(self.ky)))
        return like(out, arr.dtype)


def _fill(shape: tuple[int, ...], value: Any, dtype: np.dtype) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype), shape)


class Erase:
    """``Erase(top, left, height, width, value=0, inplace=False)``: set an (H, W, C) region to ``value``
    (an int or one value per channel)."""

    def __init__(self, top: int, left: int, height: int, width: int, value: Any = 0, inplace: bool = False) -> None:
        if min(top, left) < 0 or min(height, width) <= 0:
            raise ValueError(f"Erase: top/left must be >= 0 and height/width > 0, got {top, left, height, width}")
        self.region, self.value, self.inplace = (top, left, height, width), value, bool(inplace)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("Erase", img)
        out = arr if self.inplace and isinstance(img, np.ndarray) else arr.copy()
        t, left, h, w = self.region
        block = out[t:t + h, left:left + w]
        block[...] = _fill(block.shape[2:], self.value, out.dtype)
        return out


class CutOut:
    """``CutOut(length, num_patches=1, is_hwc=True)``: zero ``num_patches`` random ``length`` x ``length``
    squares (clipped at the border)."""

    def __init__(self, length: int, num_patches: int = 1, is_hwc: bool = True) -> None:
        if length <= 0 or num_patches <= 0:
            raise ValueError(f"CutOut: length and num_patches must be positive, got {length!r}, {num_patches!r}")
        self.length, self.num_patches, self.is_hwc = int(length), int(num_patches), bool(is_hwc)

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.array(img, copy=True)
        hw = arr if self.is_hwc else np.moveaxis(arr, 0, -1)
        h, w = hw.shape[:2]
        gen = rng()
        for _ in range(self.num_patches):
            cy, cx = int(gen.integers(0, h)), int(gen.integers(0, w))
            y0, x0 = max(cy - self.length // 2, 0), max(cx - self.length // 2, 0)
            hw[y0:min(y0 + self.length, h), x0:min(x0 + self.length, w)] = 0
        return arr


class RandomErasing:
    """``RandomErasing(prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
    max_attempts=10)``: with probability ``prob`` erase a random region of a (C, H, W) tensor with ``value``
    (a number, one per channel, or ``'random'`` for standard normal noise)."""

    def __init__(self, prob: float = 0.5, scale: Sequence[float] = (0.02, 0.33),
                 ratio: Sequence[float] = (0.3, 3.3), value: Any = 0, inplace: bool = False,
                 max_attempts: int = 10) -> None:
        self.prob = probability("RandomErasing", prob)
        self.scale, self.ratio = (float(scale[0]), float(scale[1])), (float(ratio[0]), float(ratio[1]))
        if isinstance(value, str) and value != "random":
            raise ValueError(f"RandomErasing: value must be a number, a sequence or 'random', got {value!r}")
        self.value, self.inplace, self.max_attempts = value, bool(inplace), int(max_attempts)

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.asarray(img)
        if arr.ndim != 3:
            raise TypeError(f"RandomErasing: the input must be a (C, H, W) tensor, got {arr.shape}")
        out = arr if self.inplace and isinstance(img, np.ndarray) else arr.copy()
        gen = rng()
        if gen.random() >= self.prob:
            return out
        c, h, w = arr.shape
        for _ in range(self.max_attempts):
            area = h * w * gen.uniform(*self.scale)
            aspect = math.exp(gen.uniform(math.log(self.ratio[0]), math.log(self.ratio[1])))
            eh, ew = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if eh < h and ew < w:
                top, left = int(gen.integers(0, h - eh + 1)), int(gen.integers(0, w - ew + 1))
                if isinstance(self.value, str):
                    patch = gen.standard_normal((c, eh, ew))
                else:
                    patch = np.broadcast_to(np.asarray(self.value, np.float64).reshape(-1, 1, 1), (c, eh, ew))
                out[:, top:top + eh, left:left + ew] = patch
                break
        return out


class ImageBatchFormat(enum.IntEnum):
    """Batch layouts of ``CutMixBatch``."""

    NHWC = 0
    NCHW = 1


def _batch_labels(who: str, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    imgs, lab = np.asarray(images), np.asarray(labels)
    if lab.ndim > 2:  # MindSpore drops the size-one label axes: (N, 3, 1, 10) mixes as (N, 3, 10)
        lab = lab.reshape(lab.shape[:1] + tuple(d for d in lab.shape[1:] if d != 1))
    if imgs.ndim != 4 or lab.ndim not in (2, 3) or lab.shape[0] != imgs.shape[0]:
        raise ValueError(f"{who}: expected a (N, H, W, C) or (N, C, H, W) batch and (N, num_classes) one-hot "
                         f"labels, got {imgs.shape} and {lab.shape}; batch the dataset and one-hot the labels")
    return imgs, lab


class MixUpBatch:
    """``MixUpBatch(alpha=1.0)``: mix each image (and its one-hot label) with another of the batch, weight
    ``lam ~ Beta(alpha, alpha)``; labels become float32."""

    def __init__(self, alpha: float = 1.0) -> None:
        if alpha <= 0:
            raise ValueError(f"MixUpBatch: alpha must be positive, got {alpha!r}")
        self.alpha = float(alpha)

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        imgs, lab = _batch_labels("MixUpBatch", images, labels)
        gen = rng()
        lam = gen.beta(self.alpha, self.alpha)
        perm = gen.permutation(imgs.shape[0])
        mixed = like(lam * imgs.astype(np.float64) + (1 - lam) * imgs[perm].astype(np.float64), imgs.dtype)
        return mixed, (lam * lab + (1 - lam) * lab[perm]).astype(np.float32)


class CutMixBatch:
    """``CutMixBatch(image_batch_format, alpha=1.0, prob=1.0)``: with probability ``prob`` per image, paste a
    random box from another image of the batch (area fraction ``1 - lam``, ``lam ~ Beta(alpha, alpha)``)
    and mix the one-hot labels by the pasted area; labels become float32."""

    def __init__(self, image_batch_format: ImageBatchFormat, alpha: float = 1.0, prob: float = 1.0) -> None:
        self.format = ImageBatchFormat(image_batch_format)
        if alpha <= 0:
            raise ValueError(f"CutMixBatch: alpha must be positive, got {alpha!r}")
        self.alpha, self.prob = float(alpha), probability("CutMixBatch", prob)

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        imgs, lab = _batch_labels("CutMixBatch", images, labels)
        nhwc = imgs if self.format == ImageBatchFormat.NHWC else np.moveaxis(imgs, 1, -1)
        out, out_lab = nhwc.copy(), lab.astype(np.float32)
        n, h, w = nhwc.shape[:3]
        gen = rng()
        perm = gen.permutation(n)
        for i in range(n):
            if gen.random() >= self.prob:
                continue
            lam = gen.beta(self.alpha, self.alpha)
            ch, cw = int(h * math.sqrt(1 - lam)), int(w * math.sqrt(1 - lam))
            y, x = int(gen.integers(0, h - ch + 1)), int(gen.integers(0, w - cw + 1))
            out[i, y:y + ch, x:x + cw] = nhwc[perm[i], y:y + ch, x:x + cw]
            frac = ch * cw / (h * w)
            out_lab[i] = (1 - frac) * lab[i] + frac * lab[perm[i]]
        return (out if self.format == ImageBatchFormat.NHWC else np.ascontiguousarray(np.moveaxis(out, -1, 1)),
                out_lab)


class SliceMode(enum.IntEnum):
    """How ``SlicePatches`` handles sizes that do not divide: pad, or drop the remainder."""

    PAD = 0
    DROP = 1


class SlicePatches:
    """``SlicePatches(num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0)``: the image cut
    into ``num_height`` x ``num_width`` patches (row by row), as a tuple."""

    def __init__(self, num_height: int = 1, num_width: int = 1, slice_mode: SliceMode = SliceMode.PAD,
                 fill_value: int = 0) -> None:
        if num_height <= 0 or num_width <= 0:
            raise ValueError(f"SlicePatches: num_height and num_width must be positive, got {num_height}, {num_width}")
        self.nh, self.nw, self.mode, self.fill = int(num_height), int(num_width), SliceMode(slice_mode), fill_value

    def __call__(self, img: Any) -> tuple[np.ndarray, ...]:
        arr = image("SlicePatches", img)
        h, w = arr.shape[:2]
        if self.mode == SliceMode.PAD:
            ph, pw = math.ceil(h / self.nh), math.ceil(w / self.nw)
            arr = pad(arr, 0, 0, pw * self.nw - w, ph * self.nh - h, self.fill)
        else:
            ph, pw = h // self.nh, w // self.nw
        return tuple(np.ascontiguousarray(arr[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                     for i in range(self.nh) for j in range(self.nw))


__all__ = ["ToTensor", "ToType", "ToNumpy", "NormalizePad", "LinearTransformation", "GaussianBlur", "Erase", "CutOut",
           "RandomErasing", "ImageBatchFormat", "MixUpBatch", "CutMixBatch", "SliceMode", "SlicePatches"]
