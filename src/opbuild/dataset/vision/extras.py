"""``RandomLighting``, ``MixUp`` and the image encoders ``encode_jpeg``/``encode_png`` of
``mindspore.dataset.vision``."""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from ._common import image, like, rng

# AlexNet's PCA of ImageNet RGB pixels (eigenvalues and eigenvectors), which RandomLighting perturbs along.
_EIGVAL = np.array([0.2175, 0.0188, 0.0045])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


class RandomLighting:
    """``RandomLighting(alpha=0.05)``: AlexNet-style PCA lighting noise: add ``eigvec @ (a * eigval)`` (in
    pixel units, ``a ~ N(0, alpha)`` per component) to every pixel of an RGB image."""

    def __init__(self, alpha: float = 0.05) -> None:
        if alpha < 0:
            raise ValueError(f"RandomLighting: alpha must be non-negative, got {alpha!r}")
        self.alpha = float(alpha)

    def __call__(self, img: Any) -> np.ndarray:
        arr = image("RandomLighting", img, (3,))
        shift = _EIGVEC @ (rng().normal(0.0, self.alpha, 3) * _EIGVAL) * 255.0
        return like(arr.astype(np.float64) + shift, arr.dtype)


class MixUp:
    """``MixUp(batch_size, alpha, is_single=True)``: mix images and one-hot labels with per-sample weights
    ``lam ~ Beta(alpha, alpha)`` (``batch_size`` of them), as float64. ``is_single``: mix a batch (N, H, W, C)
    with itself shifted by one sample; otherwise mix the input with the previous call's result (the first
    call keeps the input: weight 1), broadcasting a single image to ``batch_size`` samples."""

    def __init__(self, batch_size: int, alpha: float, is_single: bool = True) -> None:
        if batch_size <= 0 or alpha <= 0:
            raise ValueError(f"MixUp: batch_size and alpha must be positive, got {batch_size!r}, {alpha!r}")
        self.batch_size, self.alpha, self.is_single = int(batch_size), float(alpha), bool(is_single)
        self._previous: tuple[np.ndarray, np.ndarray] | None = None

    def __call__(self, images: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
        imgs, lab = np.asarray(images, np.float64), np.asarray(labels, np.float64)
        lam = rng().beta(self.alpha, self.alpha, self.batch_size)
        if self.is_single:
            # MindSpore's index: each of the first batch_size samples mixes with the next one (cyclically);
            # the weights broadcast over the batch.
            if imgs.ndim != 4 or lab.shape[0] != imgs.shape[0]:
                raise ValueError(f"MixUp: expected a batch of images (N, H, W, C) and N labels, got {imgs.shape} "
                                 f"and {lab.shape}; batch the dataset first")
            shift = list(range(1, self.batch_size)) + [0]
            if max(shift) >= imgs.shape[0]:
                raise ValueError(f"MixUp: batch_size {self.batch_size} exceeds the batch of {imgs.shape[0]} images")
            li = lam.reshape((-1,) + (1,) * (imgs.ndim - 1))
            ll = lam.reshape((-1,) + (1,) * (lab.ndim - 1))
            return imgs * li + imgs[shift] * (1 - li), lab * ll + lab[shift] * (1 - ll)
        if self._previous is None:
            lam = np.ones(self.batch_size)
            prev_img, prev_lab = np.zeros(1), np.zeros(1)
        else:
            prev_img, prev_lab = self._previous
        li = lam.reshape((-1,) + (1,) * min(imgs.ndim, 3))
        ll = lam.reshape(-1, 1)
        out = (imgs * li + prev_img * (1 - li), lab * ll + prev_lab * (1 - ll))
        self._previous = out
        return out


def _encode(who: str, img: Any, fmt: str, **options: Any) -> np.ndarray:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"{who} needs Pillow: pip install opbuild[vision] (or pillow)") from None
    arr = np.asarray(img)
    if arr.dtype != np.uint8 or not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] in (1, 3))):
        raise TypeError(f"{who}: the image must be uint8 (H, W), (H, W, 1) or (H, W, 3), got {arr.dtype} "
                        f"{arr.shape}")
    buf = io.BytesIO()
    Image.fromarray(arr[..., 0] if arr.ndim == 3 and arr.shape[2] == 1 else arr).save(buf, format=fmt, **options)
    return np.frombuffer(buf.getvalue(), np.uint8).copy()


def encode_jpeg(image: Any, quality: int = 75) -> np.ndarray:
    """The JPEG bytes (1-D uint8) of an RGB or grey uint8 image (``quality`` 1..100)."""
    if not 1 <= quality <= 100:
        raise ValueError(f"encode_jpeg: quality must be in [1, 100], got {quality!r}")
    return _encode("encode_jpeg", image, "JPEG", quality=int(quality))


def encode_png(image: Any, compression_level: int = 6) -> np.ndarray:
    """The PNG bytes (1-D uint8) of an RGB or grey uint8 image (``compression_level`` 0..9)."""
    if not 0 <= compression_level <= 9:
        raise ValueError(f"encode_png: compression_level must be in [0, 9], got {compression_level!r}")
    return _encode("encode_png", image, "PNG", compress_level=int(compression_level))


__all__ = ["RandomLighting", "MixUp", "encode_jpeg", "encode_png"]
