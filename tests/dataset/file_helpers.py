"""Helpers shared by the file-dataset programs (framework-free): writing tiny files and summarizing rows."""

from __future__ import annotations

import os
import struct

import numpy as np


def _rows(dataset) -> list:
    out = []
    for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        cells = []
        for v in row:
            a = np.asarray(v)
            kind = "str" if a.dtype.kind in "US" else a.dtype.name
            vals = [f"bytes:{x.hex()}" if isinstance(x, bytes) else x for x in a.ravel().tolist()]
            cells.append([kind, list(a.shape), vals])
        out.append(cells)
    return out


def _image_summary(dataset) -> list:
    """Rows of (image, label) as the image's dtype, shape, a corner, a weighted checksum, and the label (big
    images would bloat the fixture)."""
    out = []
    for image, label in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        img = np.asarray(image)
        weights = np.arange(img.size, dtype=np.int64).reshape(img.shape) % 251
        out.append([img.dtype.name, list(img.shape), img[:2, :3].tolist(), int((img * weights).sum()),
                    np.asarray(label).dtype.name, int(label)])
    return out


def _write(path: str, data: bytes | str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def _jpeg(rng: np.random.Generator, n: int) -> bytes:
    """Bytes that start like a JPEG (MindSpore's manifest reader skips files that do not)."""
    return b"\xff\xd8\xff" + rng.integers(0, 256, n, dtype=np.uint8).tobytes()


def _idx(path: str, arr: np.ndarray) -> None:
    _write(path, bytes((0, 0, 8, arr.ndim)) + struct.pack(f">{arr.ndim}i", *arr.shape) + arr.tobytes())


def _wav(path: str, frames: int, rate: int, rng: np.random.Generator) -> None:
    import wave

    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(path, "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(rng.integers(-30000, 30000, frames).astype("<i2").tobytes())
