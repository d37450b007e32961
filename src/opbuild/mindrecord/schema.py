"""MindRecord schemas: field types, which fields go to blob pages, row validation against a schema, and the
conversions of one field value to and from its stored bytes (blob fields, with MindSpore's integer-array
compression)."""

from __future__ import annotations

import re
import struct
from typing import Any

import numpy as np

from .errors import MRMInvalidSchemaError, MRMValidateDataError

SCALAR_TYPES = ("int32", "int64", "float32", "float64", "string", "bytes")
ARRAY_TYPES = ("int32", "int64", "float32", "float64")
_NAME = re.compile(r"^[0-9a-zA-Z_]+$")
# The Python types MindSpore accepts for each schema type (by the value's type name).
_ACCEPTS = {"int": ("int32", "int64"), "float": ("float32", "float64"), "str": ("string",), "bytes": ("bytes",),
            "int32": ("int32",), "int64": ("int64",), "float32": ("float32",), "float64": ("float64",)}


def validate_schema(content: Any) -> dict[str, dict[str, Any]]:
    """The schema ``content`` checked (MindSpore's rules), as a dict sorted by field name."""
    if not isinstance(content, dict) or not content:
        raise MRMInvalidSchemaError("the schema must be a non-empty dict of field name -> {'type': ...[, "
                                    "'shape': [...]]}")
    out: dict[str, dict[str, Any]] = {}
    for name, spec in content.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise MRMInvalidSchemaError(f"field name {name!r} must be made of 0-9, a-z, A-Z and _")
        if not isinstance(spec, dict) or "type" not in spec or set(spec) - {"type", "shape"}:
            raise MRMInvalidSchemaError(f"field {name!r}: expected {{'type': ...}} or {{'type': ..., 'shape': "
                                        f"[...]}}, got {spec!r}")
        kind = spec["type"]
        if "shape" in spec:
            shape = spec["shape"]
            if kind not in ARRAY_TYPES:
                raise MRMInvalidSchemaError(f"field {name!r}: an array field's type must be one of "
                                            f"{list(ARRAY_TYPES)}, got {kind!r}")
            if not isinstance(shape, list) or not shape or not all(
                    isinstance(d, int) and (d > 0 or d == -1) for d in shape) or shape.count(-1) > 1:
                raise MRMInvalidSchemaError(f"field {name!r}: shape must be a list of positive ints with at most "
                                            f"one -1, got {shape!r}")
            out[name] = {"shape": list(shape), "type": kind}
        else:
            if kind not in SCALAR_TYPES:
                raise MRMInvalidSchemaError(f"field {name!r}: type must be one of {list(SCALAR_TYPES)}, got "
                                            f"{kind!r}")
            out[name] = {"type": kind}
    return dict(sorted(out.items()))


def blob_fields(schema: dict[str, dict[str, Any]]) -> list[str]:
    """Fields stored in blob pages: arrays and bytes, in name order."""
    return [n for n, s in sorted(schema.items()) if "shape" in s or s["type"] == "bytes"]


def compresses_integers(schema: dict[str, dict[str, Any]], version: str = "3.0") -> bool:
    """Whether integer arrays are stored compressed: MindRecord 3.0 files with an int32/int64 array field."""
    return _version(version) >= (3, 0) and any("shape" in s and s["type"] in ("int32", "int64")
                                               for s in schema.values())


def _version(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in str(text).split("."))
    except ValueError:
        return (0,)


def check_row(i: int, row: Any, schema: dict[str, dict[str, Any]]) -> None:
    """Raise MRMValidateDataError naming row ``i`` and the field when ``row`` does not fit ``schema``."""
    if not isinstance(row, dict):
        raise MRMValidateDataError(f"row {i}: each row must be a dict of field -> value, got "
                                   f"{type(row).__name__}")
    for name, spec in schema.items():
        if name not in row:
            raise MRMValidateDataError(f"row {i}: field {name!r} of the schema is missing")
        value = row[name]
        kind = spec["type"]
        if isinstance(value, np.ndarray):
            if "shape" not in spec:
                raise MRMValidateDataError(f"row {i}: field {name!r} is a {kind} scalar in the schema but the "
                                           "value is an ndarray")
            if str(value.dtype) != kind:
                raise MRMValidateDataError(f"row {i}: field {name!r} needs a {kind} array, got dtype "
                                           f"{value.dtype}")
            try:
                np.reshape(value, spec["shape"])
            except ValueError:
                raise MRMValidateDataError(f"row {i}: field {name!r} has shape {value.shape}, which does not "
                                           f"fit the schema's shape {spec['shape']}") from None
            continue
        if kind not in _ACCEPTS.get(type(value).__name__, ()) or "shape" in spec:
            raise MRMValidateDataError(f"row {i}: field {name!r} ({kind}{' array' if 'shape' in spec else ''}) "
                                       f"does not take a value of type {type(value).__name__}")


def raw_value(value: Any, kind: str) -> Any:
    """A raw-page value as MindSpore's JSON holds it."""
    if kind == "string":
        return value
    if kind in ("float32", "float64"):
        return float(value)
    return int(value)


def _field_bytes(value: Any, spec: dict[str, Any]) -> bytes:
    if spec["type"] == "bytes":
        return bytes(value)
    return np.ascontiguousarray(value, dtype=spec["type"]).tobytes()


def compress_ints(data: bytes, kind: str) -> bytes:
    """MindSpore's integer-array compression: the count (4 bytes, big-endian), a 2-bit width code per value
    (four per byte, first value in the high bits), then each value little-endian in 1, 2, 4 or 8 bytes."""
    values = np.frombuffer(data, np.dtype(kind).newbyteorder("<")).astype(np.int64)
    codes = np.full(len(values), 3, np.uint8)
    for code, dt in ((2, np.int32), (1, np.int16), (0, np.int8)):
        info = np.iinfo(dt)
        codes[(values >= info.min) & (values <= info.max)] = code
    bitmap = bytearray((len(values) + 3) // 4)
    body = bytearray()
    for i, (v, c) in enumerate(zip(values.tolist(), codes.tolist())):
        bitmap[i // 4] |= c << (2 * (3 - i % 4))
        body += int(v).to_bytes(1 << c, "little", signed=True)
    return struct.pack(">I", len(values)) + bytes(bitmap) + bytes(body)


def uncompress_ints(data: bytes, kind: str) -> bytes:
    """The inverse of :func:`compress_ints`: the little-endian ``kind`` values."""
    n = struct.unpack(">I", data[:4])[0]
    pos = 4 + (n + 3) // 4
    if pos + n > len(data):  # each value takes at least one byte: a larger count is damage, not 32 GB to allocate
        raise ValueError(f"a compressed integer array declares {n} values in {len(data)} bytes")
    out = np.empty(n, np.int64)
    for i in range(n):
        code = (data[4 + i // 4] >> (2 * (3 - i % 4))) & 3
        width = 1 << code
        out[i] = int.from_bytes(data[pos:pos + width], "little", signed=True)
        pos += width
    return out.astype(np.dtype(kind).newbyteorder("<")).tobytes()


def encode_blob(row: dict[str, Any], schema: dict[str, dict[str, Any]], compress: bool) -> tuple[bytes, int]:
    """The blob of one row and the bytes compression saved. One blob field is stored bare; several are each
    prefixed by their length (8 bytes, big-endian); a schema without blob fields stores 4 zero bytes."""
    names = blob_fields(schema)
    if not names:
        return b"\0\0\0\0", 0
    parts, saved = [], 0
    for name in names:
        data = _field_bytes(row[name], schema[name])
        if compress and "shape" in schema[name] and schema[name]["type"] in ("int32", "int64"):
            packed = compress_ints(data, schema[name]["type"])
            saved += len(data) - len(packed)
            data = packed
        parts.append(data)
    if len(parts) == 1:
        return parts[0], saved
    return b"".join(struct.pack(">Q", len(p)) + p for p in parts), saved


def decode_blob(blob: bytes, schema: dict[str, dict[str, Any]], compress: bool) -> dict[str, Any]:
    """Field name -> value (bytes or ndarray shaped by the schema) of one row's blob."""
    names = blob_fields(schema)
    pieces: list[bytes] = []
    if len(names) == 1:
        pieces = [blob]
    else:
        pos = 0
        for _ in names:
            if pos + 8 > len(blob):
                raise ValueError("a blob ends before all its fields (corrupt page)")
            n = struct.unpack(">Q", blob[pos:pos + 8])[0]
            pieces.append(blob[pos + 8:pos + 8 + n])
            pos += 8 + n
    out: dict[str, Any] = {}
    for name, data in zip(names, pieces):
        spec = schema[name]
        if spec["type"] == "bytes":
            out[name] = bytes(data)
            continue
        if compress and spec["type"] in ("int32", "int64"):
            data = uncompress_ints(data, spec["type"])
        out[name] = np.frombuffer(data, np.dtype(spec["type"]).newbyteorder("<")).astype(spec["type"]).reshape(
            spec["shape"])
    return out
