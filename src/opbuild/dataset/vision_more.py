"""More ``mindspore.dataset.vision`` transforms (re-exported by vision.py): ``RandomCrop``, ``RandomErasing``,
``RgbToHsv``/``HsvToRgb``, ``LinearTransformation``, ``ToNumpy``, ``ToType``, the augmentation pickers
``UniformAugment``/``RandomSelectSubpolicy``, ``RandomLighting`` and ``encode_jpeg``/``encode_png`` (Pillow)."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .vision_geometry import Border, image, pad, rng


class RandomCrop:
    """``RandomCrop(size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT)``: a
    region of ``size`` at a random place, after optional padding."""

    def __init__(self, size: int | Sequence[int], padding: int | Sequence[int] | None = None,
                 pad_if_needed: bool = False, fill_value=0, padding_mode: Border = Border.CONSTANT) -> None:
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        if padding is None:
            padding = (0, 0, 0, 0)
        elif isinstance(padding, int):
            padding = (padding,) * 4
        elif len(padding) == 2:
            padding = (padding[0], padding[1], padding[0], padding[1])
        self.padding = tuple(int(p) for p in padding)  # left, top, right, bottom
        self.pad_if_needed, self.fill, self.mode, self._rng = bool(pad_if_needed), fill_value, \
            Border(padding_mode), rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomCrop", img)
        left, top, right, bottom = self.padding
        arr = pad(arr, top, bottom, left, right, self.fill, self.mode)
        h, w = self.size
        if self.pad_if_needed and (arr.shape[0] < h or arr.shape[1] < w):
            dh, dw = max(h - arr.shape[0], 0), max(w - arr.shape[1], 0)
            arr = pad(arr, dh, dh, dw, dw, self.fill, self.mode)
        if arr.shape[0] < h or arr.shape[1] < w:
            raise ValueError(f"RandomCrop: size {self.size} exceeds the (padded) image {arr.shape[:2]}")
        top = int(self._rng.integers(0, arr.shape[0] - h + 1))
        left = int(self._rng.integers(0, arr.shape[1] - w + 1))
        return np.ascontiguousarray(arr[top:top + h, left:left + w])


class RandomErasing:
    """``RandomErasing(prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
    max_attempts=10)``: erase a random rectangle of a (C, H, W) image with probability ``prob``."""

    def __init__(self, prob: float = 0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace: bool = False,
                 max_attempts: int = 10) -> None:
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomErasing: prob must be in [0, 1], got {prob!r}")
        self.prob, self.scale, self.ratio, self.value = float(prob), tuple(scale), tuple(ratio), value
        self.attempts, self._rng = int(max_attempts), rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.array(img, copy=True)
        if arr.ndim != 3:
            raise TypeError(f"RandomErasing: the input must be a (C, H, W) image, got {arr.shape}")
        if self._rng.random() >= self.prob:
            return arr
        c, h, w = arr.shape
        for _ in range(self.attempts):
            area = h * w * self._rng.uniform(*self.scale)
            aspect = math.exp(self._rng.uniform(math.log(self.ratio[0]), math.log(self.ratio[1])))
            eh, ew = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if 0 < eh < h and 0 < ew < w:
                top, left = int(self._rng.integers(0, h - eh + 1)), int(self._rng.integers(0, w - ew + 1))
                if self.value == "random":
                    arr[:, top:top + eh, left:left + ew] = self._rng.standard_normal((c, eh, ew))
                else:
                    vals = np.broadcast_to(np.asarray(self.value, np.float64), (c,))
                    arr[:, top:top + eh, left:left + ew] = vals[:, None, None]
                return arr
        return arr


def _hsv(arr: np.ndarray, to_hsv: bool, is_hwc: bool) -> np.ndarray:
    x = arr.astype(np.float64)
    if not is_hwc:
        x = np.moveaxis(x, -3, -1)
    a, b, c = x[..., 0], x[..., 1], x[..., 2]
    if to_hsv:
        mx, mn = np.max(x, -1), np.min(x, -1)
        d = mx - mn
        safe = np.where(d == 0, 1, d)
        h = np.where(mx == a, (b - c) / safe % 6, np.where(mx == b, (c - a) / safe + 2, (a - b) / safe + 4))
        out = np.stack([np.where(d == 0, 0, h / 6.0), np.where(mx == 0, 0, d / np.where(mx == 0, 1, mx)), mx], -1)
    else:
        i = np.floor(a * 6.0)
        f = a * 6.0 - i
        p, q, t = c * (1 - b), c * (1 - b * f), c * (1 - b * (1 - f))
        i = i.astype(int) % 6
        table = [(c, t, p), (q, c, p), (p, c, t), (p, q, c), (t, p, c), (c, p, q)]
        out = np.stack([np.choose(i, [row[k] for row in table]) for k in range(3)], -1)
    if not is_hwc:
        out = np.moveaxis(out, -1, -3)
    return out.astype(np.float64)  # MindSpore returns float64 whatever the input's float type


class RgbToHsv:
    """``RgbToHsv(is_hwc=False)``: RGB values in [0, 1] to HSV (hue in [0, 1))."""

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def __call__(self, img: Any) -> np.ndarray:
        return _hsv(np.asarray(img), True, self.is_hwc)


class HsvToRgb:
    """``HsvToRgb(is_hwc=False)``: the inverse of RgbToHsv."""

    def __init__(self, is_hwc: bool = False) -> None:
        self.is_hwc = bool(is_hwc)

    def __call__(self, img: Any) -> np.ndarray:
        return _hsv(np.asarray(img), False, self.is_hwc)


class LinearTransformation:
    """``LinearTransformation(transformation_matrix, mean_vector)``: ``(flat(img) - mean) @ matrix``, reshaped
    back to the image's shape."""

    def __init__(self, transformation_matrix: Any, mean_vector: Any) -> None:
        self.matrix, self.mean = np.asarray(transformation_matrix), np.asarray(mean_vector)
        if self.matrix.ndim != 2 or self.matrix.shape[0] != self.matrix.shape[1] \
                or self.mean.shape != (self.matrix.shape[0],):
            raise ValueError("LinearTransformation: the matrix must be square (D, D) and the mean of length D")

    def __call__(self, img: Any) -> np.ndarray:
        arr = np.asarray(img)
        flat = arr.reshape(1, -1)
        if flat.shape[1] != self.matrix.shape[0]:
            raise ValueError(f"LinearTransformation: the image has {flat.shape[1]} values, the matrix is "
                             f"{self.matrix.shape}")
        # NumPy's promotion of the image with the matrix and mean, as MindSpore's result dtype.
        return ((flat - self.mean) @ self.matrix).reshape(arr.shape)


class ToNumpy:
    """``ToNumpy()``: the image as a NumPy array."""

    def __call__(self, img: Any) -> np.ndarray:
        return np.asarray(img)


class ToType:
    """``ToType(data_type)``: the array cast to ``data_type`` (a NumPy or MindSpore dtype)."""

    def __init__(self, data_type: Any) -> None:
        self.dtype = np.dtype(getattr(data_type, "np_dtype", data_type))

    def __call__(self, img: Any) -> np.ndarray:
        return np.asarray(img).astype(self.dtype)


class UniformAugment:
    """``UniformAugment(transforms, num_ops=2)``: ``num_ops`` of ``transforms``, chosen at random without
    repetition, applied in turn."""

    def __init__(self, transforms: Sequence[Any], num_ops: int = 2) -> None:
        if not 0 < num_ops <= len(transforms):
            raise ValueError(f"UniformAugment: num_ops must be in [1, {len(transforms)}], got {num_ops}")
        self.transforms, self.num_ops, self._rng = list(transforms), int(num_ops), rng()

    def __call__(self, img: Any) -> np.ndarray:
        for i in self._rng.choice(len(self.transforms), self.num_ops, replace=False):
            img = self.transforms[int(i)](img)
        return img


class RandomSelectSubpolicy:
    """``RandomSelectSubpolicy(policy)``: one sub-policy (a list of ``(transform, prob)``) chosen at random,
    each of its transforms applied with its probability."""

    def __init__(self, policy: Sequence[Sequence[tuple[Any, float]]]) -> None:
        if not policy or not all(policy):
            raise ValueError("RandomSelectSubpolicy: policy must be a non-empty list of non-empty sub-policies")
        self.policy, self._rng = [list(p) for p in policy], rng()

    def __call__(self, img: Any) -> np.ndarray:
        for transform, prob in self.policy[int(self._rng.integers(len(self.policy)))]:
            if self._rng.random() < prob:
                img = transform(img)
        return img


class RandomLighting:
    """``RandomLighting(alpha=0.05)``: AlexNet's PCA lighting noise: add ``eigvec @ (a * eigval)`` to each pixel,
    ``a`` drawn from N(0, alpha^2) per component."""

    EIGVAL = np.array([55.46, 4.794, 1.148])
    EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])

    def __init__(self, alpha: float = 0.05) -> None:
        if alpha < 0:
            raise ValueError(f"RandomLighting: alpha must be >= 0, got {alpha!r}")
        self.alpha, self._rng = float(alpha), rng()

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomLighting", img)
        if arr.ndim != 3 or arr.shape[2] != 3:
            raise TypeError(f"RandomLighting: the input must be an RGB image (H, W, 3), got {arr.shape}")
        rgb = self.EIGVEC @ (self._rng.normal(0, self.alpha, 3) * self.EIGVAL)
        out = arr.astype(np.float64) + rgb
        return np.clip(np.rint(out), 0, 255).astype(np.uint8) if arr.dtype == np.uint8 else out.astype(arr.dtype)


def _encode(image_arr: Any, fmt: str, **params: Any) -> np.ndarray:
    from .vision_pil import _as_pil  # function level: Pillow is imported on use only

    pil = _as_pil(f"encode_{fmt.lower()}", np.asarray(image_arr.asnumpy() if hasattr(image_arr, "asnumpy")
                                                      else image_arr))
    import io

    buf = io.BytesIO()
    pil.save(buf, format=fmt, **params)
    return np.frombuffer(buf.getvalue(), np.uint8).copy()


def encode_jpeg(image: Any, quality: int = 75) -> np.ndarray:
    """The JPEG file bytes (1-D uint8) of an (H, W[, 3]) uint8 image."""
    if not 1 <= quality <= 100:
        raise ValueError(f"encode_jpeg: quality must be in [1, 100], got {quality}")
    return _encode(image, "JPEG", quality=quality)


def encode_png(image: Any, compression_level: int = 6) -> np.ndarray:
    """The PNG file bytes (1-D uint8) of an (H, W[, 3]) uint8 image."""
    if not 0 <= compression_level <= 9:
        raise ValueError(f"encode_png: compression_level must be in [0, 9], got {compression_level}")
    return _encode(image, "PNG", compress_level=compression_level)


class ImageBatchFormat(enum.IntEnum):
    """The layout of an image batch (``CutMixBatch``)."""

    NHWC = 0
    NCHW = 1


def _batch(who: str, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    imgs, labs = np.asarray(images), np.asarray(labels)
    if imgs.ndim != 4 or labs.ndim < 2 or labs.shape[0] != imgs.shape[0]:
        raise TypeError(f"{who}: expected a batch of images (N, H, W, C) and one-hot labels (N, ..., classes), "
                        f"got {imgs.shape} and {labs.shape}")
    # Size-1 axes between the batch and the classes are dropped, as MindSpore does.
    labs = np.squeeze(labs, axis=tuple(i for i in range(1, labs.ndim - 1) if labs.shape[i] == 1))
    return imgs, labs.astype(np.float32)


class MixUpBatch:
    """``MixUpBatch(alpha=1.0)``: each image and its one-hot label blended with another of the batch by a
    weight drawn from Beta(alpha, alpha); labels become float32."""

    def __init__(self, alpha: float = 1.0) -> None:
        if alpha <= 0:
            raise ValueError(f"MixUpBatch: alpha must be positive, got {alpha!r}")
        self.alpha, self._rng = float(alpha), rng()

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        imgs, labs = _batch("MixUpBatch", images, labels)
        lam = self._rng.beta(self.alpha, self.alpha)
        perm = self._rng.permutation(imgs.shape[0])
        mixed = lam * imgs.astype(np.float64) + (1 - lam) * imgs[perm].astype(np.float64)
        out = np.clip(np.rint(mixed), 0, 255).astype(imgs.dtype) if imgs.dtype == np.uint8 else \
            mixed.astype(imgs.dtype)
        return out, (lam * labs + (1 - lam) * labs[perm]).astype(np.float32)


class CutMixBatch:
    """``CutMixBatch(image_batch_format, alpha=1.0, prob=1.0)``: with probability ``prob`` per image, paste a
    box of another image of the batch (area fraction 1 - lambda, lambda ~ Beta(alpha, alpha)) and mix the
    labels by the pasted area."""

    def __init__(self, image_batch_format: ImageBatchFormat, alpha: float = 1.0, prob: float = 1.0) -> None:
        if alpha <= 0 or not 0 <= prob <= 1:
            raise ValueError(f"CutMixBatch: alpha must be positive and prob in [0, 1], got {alpha!r}, {prob!r}")
        self.nchw = ImageBatchFormat(image_batch_format) == ImageBatchFormat.NCHW
        self.alpha, self.prob, self._rng = float(alpha), float(prob), rng()

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        imgs, labs = _batch("CutMixBatch", images, labels)
        out, mixed = imgs.copy(), labs.copy()
        view = np.moveaxis(out, 1, -1) if self.nchw else out
        src = np.moveaxis(imgs, 1, -1) if self.nchw else imgs
        n, h, w = view.shape[:3]
        for i in range(n):
            if self._rng.random() >= self.prob:
                continue
            j = int(self._rng.integers(n))
            lam = self._rng.beta(self.alpha, self.alpha)
            ch, cw = int(h * math.sqrt(1 - lam)), int(w * math.sqrt(1 - lam))
            y, x = int(self._rng.integers(0, h - ch + 1)), int(self._rng.integers(0, w - cw + 1))
            view[i, y:y + ch, x:x + cw] = src[j, y:y + ch, x:x + cw]
            frac = ch * cw / float(h * w)
            mixed[i] = (1 - frac) * labs[i] + frac * labs[j]
        return out, mixed.astype(np.float32)


__all__ = ["ImageBatchFormat", "MixUpBatch", "CutMixBatch", "UniformAugment", "RandomSelectSubpolicy",
           "RandomLighting", "encode_jpeg", "encode_png", "RandomCrop",
           "RandomErasing", "RgbToHsv", "HsvToRgb", "LinearTransformation", "ToNumpy", "ToType"]
