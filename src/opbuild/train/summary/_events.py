"""Summary values as MindInsight ``Event`` messages, and the framed file they are written to.

A summary file is a sequence of records, each ``<u64 length><u32 masked CRC32C of the length bytes><payload>
<u32 masked CRC32C of the payload>`` (little-endian; the framing of TFRecord files), whose payloads are
serialized ``Event`` messages: first one holding the version string ``MindSpore.Event:1``, then one per
``SummaryRecord.record`` step that had values. The value encodings follow what MindSpore 2.10 writes (recorded
in tests/fixtures/mindspore/summary_events.json): scalars as 32-bit floats, tensors as their dims, dtype and
values in ``float_data``, histograms as up to 90 equal-width buckets over the finite values, images (N, C, H, W)
as one PNG of the N images tiled 8 to a row.
"""

from __future__ import annotations

import io
import logging
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from ...core.crc32c import masked_crc32c
from ._proto import DATA_TYPES, messages

log = logging.getLogger("opbuild.summary")

VERSION = "MindSpore.Event:1"
_IMAGE_COLUMNS, _MAX_BINS, _PER_BIN = 8, 90, 10


def frame(payload: bytes) -> bytes:
    """One record of a summary file around ``payload``."""
    head = struct.pack("<Q", len(payload))
    return head + struct.pack("<I", masked_crc32c(head)) + payload + struct.pack("<I", masked_crc32c(payload))


def read_events(path: str) -> Iterator[Any]:
    """The ``Event`` messages of a summary file, checking each record's CRCs (a damaged file raises
    ValueError naming the offset)."""
    Event = messages()["Event"]
    with open(path, "rb") as f:
        raw = f.read()
    pos = 0
    while pos < len(raw):
        if pos + 12 > len(raw):
            raise ValueError(f"{path}: the record at byte {pos} is cut short (a file still being written?)")
        head = raw[pos:pos + 8]
        (size,) = struct.unpack("<Q", head)
        if struct.unpack("<I", raw[pos + 8:pos + 12])[0] != masked_crc32c(head):
            raise ValueError(f"{path}: the length CRC of the record at byte {pos} does not match")
        body = raw[pos + 12:pos + 12 + size]
        tail = raw[pos + 12 + size:pos + 16 + size]
        if len(tail) != 4 or struct.unpack("<I", tail)[0] != masked_crc32c(body):
            raise ValueError(f"{path}: the payload CRC of the record at byte {pos} does not match")
        event = Event()
        try:
            event.ParseFromString(body)
        except DecodeError as e:  # framed and checksummed, yet no Event: written by something else
            raise ValueError(f"{path}: the record at byte {pos} is not a summary Event ({e}); the file was not "
                             "written by a SummaryRecord") from None
        yield event
        pos += 16 + size


def version_event(wall_time: float) -> Any:
    event = messages()["Event"](wall_time=wall_time)
    event.version = VERSION
    return event


# ---- values ---------------------------------------------------------------------------------------------------

def fill_tensor(proto: Any, value: np.ndarray) -> None:
    """``proto`` (a TensorProto) holding ``value``: its dims, dtype and values as 32-bit floats."""
    code = DATA_TYPES.get(value.dtype.name)
    if code is None:
        raise TypeError(f"summary: a tensor of dtype {value.dtype.name} cannot be written; the summary format "
                        f"holds {', '.join(DATA_TYPES)} (cast the value first)")
    proto.data_type = code
    proto.float_data.extend(value.reshape(-1).tolist())
    proto.dims.extend(value.shape)


def _bins(valid: int) -> int:
    """About 10 values a bucket, 2 or 3 buckets for up to 10 values, at most 90."""
    if valid == 0:
        return 1
    if valid <= 5:
        return 2
    if valid <= 10:
        return 3
    return min(valid // _PER_BIN + 1, _MAX_BINS)


def fill_histogram(hist: Any, value: np.ndarray) -> None:
    """``hist`` (Summary.Histogram) of ``value``: counts of NaN and infinities, and equal-width buckets over
    the finite values between their min and max (widened by 0.5 each side when all are equal)."""
    hist.count = value.size
    floating = np.issubdtype(value.dtype, np.floating)
    finite = np.isfinite(value) if floating else np.ones(value.shape, bool)
    # Set even when zero (proto2 writes a set field), as MindSpore does.
    hist.nan_count = int(np.count_nonzero(np.isnan(value))) if floating else 0
    hist.pos_inf_count = int(np.count_nonzero(np.isposinf(value))) if floating else 0
    hist.neg_inf_count = int(np.count_nonzero(np.isneginf(value))) if floating else 0
    valid = int(np.count_nonzero(finite))
    if not valid:
        log.warning("summary: a histogram value of shape %s holds no finite value", value.shape)
        return
    kept = value[finite]
    hist.min, hist.max = kept.min(), kept.max()
    hist.sum = kept.sum(dtype=np.float64)
    low, high = hist.min, hist.max
    if not low < high:
        low, high = low - 0.5, high + 0.5
    # The edges in the value's own dtype, as the bucket widths are differences of them.
    edges = np.linspace(low, high, _bins(valid) + 1, dtype=value.dtype)
    counts, edges = np.histogram(value, bins=edges)
    for count, left, right in zip(counts, edges, edges[1:]):
        hist.buckets.add(left=left, width=right - left, count=count)


def _canvas(images: np.ndarray) -> np.ndarray:
    """(N, C, H, W) images tiled 8 to a row on a zero float64 canvas (one channel repeated to three),
    returned (H', W', 3)."""
    if images.shape[1] == 1:
        images = np.repeat(images, 3, axis=1)
    n, _, h, w = images.shape
    cols = min(n, _IMAGE_COLUMNS)
    rows = -(-n // cols)
    canvas = np.zeros((3, h * rows, w * cols))
    for i in range(n):
        y, x = divmod(i, cols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas.transpose(1, 2, 0)


def _png(pixels: np.ndarray) -> bytes:
    """PNG bytes of (H, W, 3) uint8 pixels: Pillow's encoder when installed (MindSpore's, so the same bytes),
    otherwise a plain one (the same pixels, other bytes)."""
    try:
        from PIL import Image
    except ImportError:
        Image = None
    if Image is not None:
        out = io.BytesIO()
        Image.fromarray(pixels).save(out, format="PNG")
        return out.getvalue()
    h, w, _ = pixels.shape

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + pixels[r].tobytes() for r in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def fill_image(image: Any, value: np.ndarray, tag: str) -> bool:
    """``image`` (Summary.Image) of (N, C, H, W) ``value`` with C 1 or 3; False (and a logged error) when
    ``value`` is no such image. Values in [0, 1] are scaled by 255, others mapped linearly from their
    range onto [0, 255)."""
    if value.ndim != 4 or value.shape[1] not in (1, 3) or 0 in value.shape:
        log.error("summary: the image %r must be (N, C, H, W) with C 1 or 3 and no empty axis, got shape %s; "
                  "it is not written", tag, value.shape)
        return False
    canvas = _canvas(value)
    high, low = np.max(canvas), np.min(canvas)
    scale, shift = 1.0, 0.0
    if high <= 1 and low >= 0:
        scale = 255.0
    else:
        if high != low:
            scale = 255 / (high - low + 1)
        shift = low
    # In float32, as MindSpore computes it, so that the rounding down to uint8 matches.
    pixels = ((canvas.astype(np.float32) - np.float32(shift)) * np.float32(scale)).astype(np.uint8)
    image.height, image.width = pixels.shape[0], pixels.shape[1]
    image.colorspace = 3
    image.encoded_image = _png(pixels)
    return True


def summary_event(values: list[tuple[str, str, Any]], step: int, wall_time: float) -> Any:
    """The Event of one step: ``values`` are (plugin, tag, value) with value a NumPy array, or the serialized
    LossLandscape for the ``landscape`` plugin. Values that cannot be shown (an empty scalar, a non-image)
    are left out with a logged error."""
    event = messages()["Event"](wall_time=wall_time, step=int(step))
    summary = event.summary
    for plugin, tag, value in values:
        entry = summary.value.add(tag=tag)
        if plugin == "scalar":
            if value.size == 0:
                log.error("summary: the scalar %r is empty; it is not written", tag)
                del summary.value[-1]
            else:
                entry.scalar_value = value.reshape(-1)[0].item()
        elif plugin == "tensor":
            fill_tensor(entry.tensor, value)
        elif plugin == "histogram":
            fill_histogram(entry.histogram, value)
        elif plugin == "image":
            if not fill_image(entry.image, value, tag):
                del summary.value[-1]
        else:  # landscape
            entry.loss_landscape.ParseFromString(value)
    return event
