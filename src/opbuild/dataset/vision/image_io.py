"""Image file functions of ``mindspore.dataset.vision``: ``read_file``, ``read_image`` (with ``ImageReadMode``),
``write_file``, ``write_jpeg``, ``write_png``, ``get_image_size`` and ``get_image_num_channels``.

Decoding and encoding use Pillow (the ``vision`` extra). ``read_image`` gives MindSpore's channel layout and
its grey conversions: PNG files are turned grey with libpng's fixed-point weights (truncated), JPEG files
decode their luma plane directly (as libjpeg does for a grey output), BMP/TIFF files use OpenCV's rounded
fixed-point weights."""

from __future__ import annotations

import enum
import io
import os
from typing import Any

import numpy as np

from .extras import encode_jpeg, encode_png


class ImageReadMode(enum.IntEnum):
    """How ``read_image`` returns the pixels: as stored, as one grey channel, or as three RGB channels."""

    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Pillow formats read through the generic path (MindSpore hands them to OpenCV); others are refused as
# MindSpore's build refuses them (WebP, GIF, ...).
_OTHER_FORMATS = ("BMP", "TIFF", "PPM", "JPEG2000")


def _pillow(who: str) -> Any:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(f"{who} needs Pillow: pip install opbuild[vision] (or pillow)") from None
    return Image


def _filename(who: str, filename: Any) -> str:
    if not isinstance(filename, str):
        raise TypeError(f"{who}: filename must be a str, got {type(filename).__name__}")
    return filename


def _existing_file(who: str, filename: Any) -> str:
    path = _filename(who, filename)
    if not os.path.isfile(path):
        raise RuntimeError(f"{who}: invalid file path {path!r}: it does not exist or is not a regular file")
    return path


def read_file(filename: str) -> np.ndarray:
    """The bytes of a file as a 1-D uint8 array."""
    path = _existing_file("read_file", filename)
    with open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8).copy()


def _luma_png(rgb: np.ndarray) -> np.ndarray:
    # libpng's rgb_to_gray with the 0.299/0.587 weights in 1/32768 units, the blue weight taking the rest;
    # the sum is truncated (not rounded).
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((9797 * r + 19234 * g + 3737 * b) >> 15).astype(np.uint8)


def _luma_opencv(rgb: np.ndarray) -> np.ndarray:
    # OpenCV's imread(IMREAD_GRAYSCALE): 0.299/0.587/0.114 in 1/16384 units, rounded.
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return ((4899 * r + 9617 * g + 1868 * b + 8192) >> 14).astype(np.uint8)


def _to_mode(gray: np.ndarray | None, rgb: np.ndarray | None, mode: ImageReadMode, luma: Any) -> np.ndarray:
    """(H, W, 1) or (H, W, 3) pixels of a grey or colour image read with ``mode`` (UNCHANGED handled by
    the caller)."""
    if mode == ImageReadMode.GRAYSCALE:
        return (gray if gray is not None else luma(rgb))[..., None]
    return rgb if rgb is not None else np.repeat(gray[..., None], 3, axis=2)


def _read_png(img: Any, raw: bytes, mode: ImageReadMode) -> np.ndarray:
    depth, colour = raw[24], raw[25]  # IHDR: bit depth and colour type
    if depth == 16 and colour in (2, 6):
        raise RuntimeError("read_image: 16-bit colour PNG files are not supported (Pillow reads them as 8 bits); "
                           "convert the file to 8 bits per channel")
    if img.mode in ("I;16", "I;16B", "I"):
        # 16-bit grey: UNCHANGED keeps 16 bits, the other modes keep the high byte (libpng strips to 8 bits).
        wide = np.asarray(img, np.uint16) if img.mode != "I" else np.asarray(img).astype(np.uint16)
        if mode == ImageReadMode.UNCHANGED:
            return wide[..., None]
        return _to_mode((wide >> 8).astype(np.uint8), None, mode, _luma_png)
    gray = rgb = None
    if img.mode in ("1", "L", "LA"):
        gray = np.asarray(img.convert("L"), np.uint8)
    else:
        rgb = np.asarray(img.convert("RGB"), np.uint8)  # palette expanded, alpha dropped
    if mode == ImageReadMode.UNCHANGED:
        # MindSpore keeps one channel only for plain grey PNGs; grey + alpha becomes three grey channels.
        if img.mode == "LA":
            mode = ImageReadMode.COLOR
        elif gray is not None:
            return gray[..., None]
        else:
            return rgb
    return _to_mode(gray, rgb, mode, _luma_png)


def _read_jpeg(img: Any, mode: ImageReadMode) -> np.ndarray:
    if mode == ImageReadMode.GRAYSCALE:
        img.draft("L", img.size)  # decode the luma plane as libjpeg's grey output does
        return np.asarray(img.convert("L"), np.uint8)[..., None]
    if mode == ImageReadMode.UNCHANGED and img.mode == "L":
        return np.asarray(img, np.uint8)[..., None]
    return np.asarray(img.convert("RGB"), np.uint8)


def _read_other(img: Any, mode: ImageReadMode) -> np.ndarray:
    grey_file = img.mode in ("1", "L", "LA", "I;16", "I")
    if grey_file:
        gray = np.asarray(img.convert("L"), np.uint8)
        return gray[..., None] if mode != ImageReadMode.COLOR else np.repeat(gray[..., None], 3, axis=2)
    rgb = np.asarray(img.convert("RGB"), np.uint8)
    return _to_mode(None, rgb, ImageReadMode.COLOR if mode == ImageReadMode.UNCHANGED else mode, _luma_opencv)


def read_image(filename: str, mode: ImageReadMode = ImageReadMode.UNCHANGED) -> np.ndarray:
    """Decode a JPEG, PNG, BMP or TIFF file into (H, W, C) pixels: ``UNCHANGED`` keeps grey files at one
    channel (16-bit grey PNGs as uint16) and drops alpha, ``GRAYSCALE`` gives (H, W, 1) uint8, ``COLOR``
    (H, W, 3) uint8 RGB."""
    if not isinstance(mode, ImageReadMode):
        raise TypeError(f"read_image: mode must be a vision.ImageReadMode, got {type(mode).__name__}")
    path = _existing_file("read_image", filename)
    Image = _pillow("read_image")
    with open(path, "rb") as f:
        raw = f.read()
    try:
        img = Image.open(io.BytesIO(raw))
        if raw[:3] != b"\xff\xd8\xff":  # a JPEG stays lazy so that draft() can pick its luma plane
            img.load()
    except Exception as e:  # Pillow raises several types for bytes that are not an image
        raise RuntimeError(f"read_image: failed to decode {path!r}: not a supported image ({e})") from None
    if raw.startswith(_PNG_MAGIC):
        return _read_png(img, raw, mode)
    if raw[:3] == b"\xff\xd8\xff":
        return _read_jpeg(img, mode)
    if img.format not in _OTHER_FORMATS:
        raise RuntimeError(f"read_image: {path!r} is a {img.format} file; read_image supports JPEG, PNG, BMP and "
                           "TIFF (decode other formats with vision.Decode)")
    return _read_other(img, mode)


def write_file(filename: str, data: Any) -> None:
    """Write a 1-D uint8 array to a file as raw bytes (replacing the file)."""
    path = _filename("write_file", filename)
    if not isinstance(data, np.ndarray):
        raise TypeError(f"write_file: data must be a numpy.ndarray, got {type(data).__name__}")
    if data.dtype != np.uint8 or data.ndim != 1:
        raise RuntimeError(f"write_file: data must be a 1-D uint8 array, got {data.dtype} of shape {data.shape}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise RuntimeError(f"write_file: the folder {parent!r} of {path!r} does not exist")
    with open(path, "wb") as f:
        f.write(data.tobytes())


def _image_to_write(who: str, image: Any) -> np.ndarray:
    if not isinstance(image, np.ndarray):
        raise TypeError(f"{who}: image must be a numpy.ndarray, got {type(image).__name__}")
    if image.dtype != np.uint8:
        raise RuntimeError(f"{who}: image must be uint8, got {image.dtype}")
    if not (image.ndim == 2 or (image.ndim == 3 and image.shape[2] in (1, 3))):
        raise RuntimeError(f"{who}: image must be (H, W), (H, W, 1) or (H, W, 3), got shape {image.shape}")
    if image.size == 0:
        raise RuntimeError(f"{who}: image is empty (shape {image.shape})")
    return image


def _int_arg(who: str, name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{who}: {name} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise RuntimeError(f"{who}: {name} must be in [{low}, {high}], got {value}")
    return int(value)


def write_jpeg(filename: str, image: Any, quality: int = 75) -> None:
    """Encode a uint8 (H, W), (H, W, 1) or RGB (H, W, 3) image as JPEG (``quality`` 1..100) into a file."""
    path = _filename("write_jpeg", filename)
    arr = _image_to_write("write_jpeg", image)
    q = _int_arg("write_jpeg", "quality", quality, 1, 100)
    write_file(path, encode_jpeg(arr, q))


def write_png(filename: str, image: Any, compression_level: int = 6) -> None:
    """Encode a uint8 (H, W), (H, W, 1) or RGB (H, W, 3) image as PNG (``compression_level`` 0..9) into a
    file."""
    path = _filename("write_png", filename)
    arr = _image_to_write("write_png", image)
    level = _int_arg("write_png", "compression_level", compression_level, 0, 9)
    write_file(path, encode_png(arr, level))


def _shape_of(who: str, image: Any) -> tuple[int, ...]:
    if isinstance(image, np.ndarray):
        if image.ndim < 2:
            raise RuntimeError(f"{who}: the image must have at least 2 dimensions (H, W), got shape {image.shape}")
        return image.shape
    if type(image).__module__.startswith("PIL."):
        w, h = image.size
        return (h, w, len(image.getbands()))
    raise TypeError(f"{who}: image must be a numpy.ndarray or a PIL image, got {type(image).__name__}")


def get_image_size(image: Any) -> list[int]:
    """``[height, width]`` of an (H, W), (..., H, W, C) array or a PIL image."""
    shape = _shape_of("get_image_size", image)
    return [int(shape[0]), int(shape[1])] if len(shape) == 2 else [int(shape[-3]), int(shape[-2])]


def get_image_num_channels(image: Any) -> int:
    """The channel count: 1 for an (H, W) array, the last dimension otherwise; a PIL image's band count."""
    shape = _shape_of("get_image_num_channels", image)
    return 1 if len(shape) == 2 else int(shape[-1])


__all__ = ["ImageReadMode", "read_file", "read_image", "write_file", "write_jpeg", "write_png", "get_image_size",
           "get_image_num_channels"]
