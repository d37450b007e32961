"""The safetensors file format (Hugging Face's), read and written here without the ``safetensors`` package:
an 8-byte little-endian header length, a JSON header ``{name: {"dtype", "shape", "data_offsets"}}`` (with an
optional ``__metadata__`` of strings) padded with spaces to a multiple of 8, then the tensors' little-endian
bytes. Tensors are laid out by descending element size, then name, as the reference writer does (so every
tensor is aligned); MindSpore marks its files with ``{"format": "ms"}`` metadata.
"""

from __future__ import annotations

import json
import math
import os
import struct

import ml_dtypes
import numpy as np

from ..core.errors import OpbuildError
from .atomic_file import write_atomically

_CODES = {"F16": np.float16, "BF16": ml_dtypes.bfloat16, "F32": np.float32, "F64": np.float64,
          "I8": np.int8, "I16": np.int16, "I32": np.int32, "I64": np.int64,
          "U8": np.uint8, "U16": np.uint16, "U32": np.uint32, "U64": np.uint64, "BOOL": np.bool_}
_CODE_OF = {np.dtype(v): k for k, v in _CODES.items()}
_MAX_HEADER = 100 * 1024 * 1024  # the reference reader's limit: a larger length means a corrupt file


class SafetensorsError(OpbuildError, ValueError):
    """A safetensors file that cannot be read, or a value that cannot be written to one."""


def save_file(tensors: dict[str, np.ndarray], path: str | os.PathLike,
              metadata: dict[str, str] | None = None) -> None:
    """Write ``{name: array}`` to ``path`` as safetensors (replacing the file)."""
    arrays = {}
    for name, value in tensors.items():
        arr = np.ascontiguousarray(value)
        if arr.dtype not in _CODE_OF:
            raise SafetensorsError(f"safetensors: {name!r} has dtype {arr.dtype}, which the format cannot hold "
                                   f"(supported: {', '.join(sorted(str(np.dtype(t)) for t in _CODES.values()))})")
        arrays[name] = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
    order = sorted(arrays, key=lambda n: (-arrays[n].dtype.itemsize, n))
    header: dict[str, object] = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    offset = 0
    for name in order:
        arr = arrays[name]
        header[name] = {"dtype": _CODE_OF[np.dtype(arr.dtype.newbyteorder("="))], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    chunks = [struct.pack("<Q", len(text)), text]
    chunks += [memoryview(arrays[name].reshape(-1).view(np.uint8)) for name in order]  # the bytes in place
    write_atomically(os.path.abspath(os.fspath(path)), chunks, "safetensors", private=False)


def load_file(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The tensors of a safetensors file, in the header's order, and its metadata."""
    if not os.path.isfile(path):  # a folder, or a pipe or device whose read might never end
        raise SafetensorsError(f"safetensors: {path} does not exist or is not a regular file")
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise SafetensorsError(f"safetensors: {path} is too short to be a safetensors file")
    (n,) = struct.unpack("<Q", blob[:8])
    if n > _MAX_HEADER or 8 + n > len(blob):
        raise SafetensorsError(f"safetensors: {path} has a header length of {n} bytes, past its end; "
                               "the file is truncated or not safetensors")
    try:
        header = json.loads(blob[8:8 + n], object_pairs_hook=lambda pairs: _unique(path, pairs))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SafetensorsError(f"safetensors: {path} has an unreadable JSON header ({e})") from None
    if not isinstance(header, dict):
        raise SafetensorsError(f"safetensors: {path} has a JSON header that is a {type(header).__name__}, not an "
                               "object of tensors; the file is not safetensors")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise SafetensorsError(f"safetensors: {path} has a __metadata__ that is not an object of strings; "
                               "the file is damaged or not safetensors")
    data = memoryview(blob)[8 + n:]
    spans = {name: _span(path, name, info) for name, info in header.items()}
    # As the reference reader: the tensors' bytes follow one another with no gap or overlap and end the file,
    # so no two names can share bytes and no byte is left unread.
    end = 0
    for name in sorted(spans, key=lambda k: spans[k][2]):
        begin, stop = spans[name][2]
        if begin != end:
            raise SafetensorsError(f"safetensors: {name!r} in {path} starts at byte {begin} of the data, but the "
                                   f"tensor before it ends at {end} (overlapping or gapped data_offsets); the "
                                   "file is damaged or not safetensors")
        end = stop
    if end != len(data):
        raise SafetensorsError(f"safetensors: {path} holds {len(data)} data bytes but its tensors cover {end} "
                               "(truncated, or bytes appended); the file is damaged")
    out = {}
    for name, (dt, shape, (begin, stop)) in spans.items():
        arr = np.frombuffer(data[begin:stop], dtype=dt).reshape(shape)
        out[name] = arr.astype(dt.newbyteorder("="))  # a native-order copy, independent of the file's bytes
    return out, metadata


def _unique(path: str | os.PathLike, pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object's pairs as a dict, refusing a repeated key (json keeps the last one silently)."""
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise SafetensorsError(f"safetensors: {path} names {key!r} twice in its header; which tensor is meant "
                                   "is ambiguous, so the file is refused (rewrite it with unique names)")
        out[key] = value
    return out


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _span(path: str | os.PathLike, name: str, info: object) -> tuple[np.dtype, tuple[int, ...], tuple[int, int]]:
    """One header entry checked: its dtype, shape and data_offsets, or a SafetensorsError saying what is wrong."""
    if not isinstance(info, dict):
        raise SafetensorsError(f"safetensors: {name!r} in {path} is a {type(info).__name__} in the header, not an "
                               "object with dtype, shape and data_offsets; the file is damaged")
    code, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if code not in _CODES:
        raise SafetensorsError(f"safetensors: {name!r} in {path} has dtype {code!r}, which opbuild does not "
                               f"read (supported: {', '.join(_CODES)})")
    if not isinstance(shape, list) or not all(_is_int(d) for d in shape):
        raise SafetensorsError(f"safetensors: {name!r} in {path} has shape {shape!r}; a shape is a list of "
                               "non-negative ints (the file is damaged)")
    if not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_int(o) for o in offsets):
        raise SafetensorsError(f"safetensors: {name!r} in {path} has data_offsets {offsets!r}; they are two "
                               "non-negative ints [begin, end] (the file is damaged)")
    dt = np.dtype(_CODES[code]).newbyteorder("<")
    begin, end = offsets
    # Python ints: a shape whose product overflows int64 cannot wrap round to the byte count.
    if end < begin or end - begin != math.prod(shape) * dt.itemsize:
        raise SafetensorsError(f"safetensors: {name!r} in {path} has data_offsets {offsets} that do not fit its "
                               f"shape {shape} and dtype {code}; the file is damaged")
    return dt, tuple(shape), (begin, end)


__all__ = ["save_file", "load_file", "SafetensorsError"]
