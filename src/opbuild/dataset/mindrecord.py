"""``MindDataset``: rows of MindSpore's MindRecord files (written by ``mindspore.mindrecord.FileWriter``),
read without MindSpore.

A MindRecord shard file is a header (a little-endian uint64 length, then JSON: the schema, the blob fields,
``header_size``, ``page_size`` and the list of pages) padded to ``header_size``, then pages of ``page_size``
bytes. Raw pages hold each row's scalar fields as a length-prefixed MessagePack map; blob pages hold each
row's array and bytes fields, each prefixed by its big-endian uint64 length (a single blob field has no
prefix). int32/int64 arrays are stored compressed: the element count (big-endian uint32), two bits per
element giving its width (int8, int16, int32, int64), then each element little-endian in that width. The
``.db`` index files are not needed."""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import Row, _column_list
from .sources import _RandomAccessSource

_SCALARS = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}


def _msgpack(buf: bytes, pos: int = 0) -> tuple[Any, int]:
    """One MessagePack value of ``buf`` at ``pos`` and the position after it (the subset MindRecord writes)."""
    b = buf[pos]
    pos += 1
    if b <= 0x7F:
        return b, pos
    if b >= 0xE0:
        return b - 0x100, pos
    if 0x80 <= b <= 0x8F or b in (0xDE, 0xDF):
        n, pos = (b & 0x0F, pos) if b <= 0x8F else _length(buf, pos, 2 if b == 0xDE else 4)
        out = {}
        for _ in range(n):
            key, pos = _msgpack(buf, pos)
            out[key], pos = _msgpack(buf, pos)
        return out, pos
    if 0x90 <= b <= 0x9F or b in (0xDC, 0xDD):
        n, pos = (b & 0x0F, pos) if b <= 0x9F else _length(buf, pos, 2 if b == 0xDC else 4)
        items = []
        for _ in range(n):
            item, pos = _msgpack(buf, pos)
            items.append(item)
        return items, pos
    if 0xA0 <= b <= 0xBF or b in (0xD9, 0xDA, 0xDB):
        n, pos = (b & 0x1F, pos) if b <= 0xBF else _length(buf, pos, {0xD9: 1, 0xDA: 2, 0xDB: 4}[b])
        return buf[pos:pos + n].decode("utf-8"), pos + n
    if b in (0xC4, 0xC5, 0xC6):
        n, pos = _length(buf, pos, {0xC4: 1, 0xC5: 2, 0xC6: 4}[b])
        return bytes(buf[pos:pos + n]), pos + n
    fixed = {0xC0: (0, None), 0xC2: (0, False), 0xC3: (0, True), 0xCA: (4, ">f"), 0xCB: (8, ">d"),
             0xCC: (1, ">B"), 0xCD: (2, ">H"), 0xCE: (4, ">I"), 0xCF: (8, ">Q"), 0xD0: (1, ">b"), 0xD1: (2, ">h"),
             0xD2: (4, ">i"), 0xD3: (8, ">q")}
    if b not in fixed:
        raise ValueError(f"MindDataset: unsupported MessagePack type byte 0x{b:02x} in a raw page (corrupt file?)")
    size, fmt = fixed[b]
    if not isinstance(fmt, str):
        return fmt, pos
    return struct.unpack(fmt, buf[pos:pos + size])[0], pos + size


def _length(buf: bytes, pos: int, size: int) -> tuple[int, int]:
    return int.from_bytes(buf[pos:pos + size], "big"), pos + size


def _decompress_ints(data: bytes, dtype: Any) -> np.ndarray:
    count = int.from_bytes(data[:4], "big")
    nbitmap = (2 * count + 7) // 8
    bitmap = data[4:4 + nbitmap]
    out = np.empty(count, np.int64)
    pos = 4 + nbitmap
    for i in range(count):
        width = 1 << ((bitmap[i // 4] >> (6 - 2 * (i % 4))) & 3)
        out[i] = int.from_bytes(data[pos:pos + width], "little", signed=True)
        pos += width
    return out.astype(dtype)


def _records(raw: bytes, start: int, used: int) -> list[bytes]:
    """The length-prefixed records of one page (``used`` bytes from ``start``)."""
    out, pos, end = [], start, start + used
    while pos < end:
        (n,) = struct.unpack_from("<Q", raw, pos)
        out.append(raw[pos + 8:pos + 8 + n])
        pos += 8 + n
    return out


def read_shard(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header JSON and the rows (field name -> value as stored) of one MindRecord shard file."""
    with open(path, "rb") as f:
        raw = f.read()
    try:
        (n,) = struct.unpack_from("<Q", raw, 0)
        header = json.loads(raw[8:8 + n].decode("utf-8"))
        schema = header["schema"][0]
        blob_fields = list(schema.get("blob_fields", []))
    except (struct.error, UnicodeDecodeError, ValueError, KeyError, IndexError):
        raise ValueError(f"MindDataset: {path} is not a MindRecord file (no header); give the .mindrecord files "
                         "FileWriter wrote") from None
    base, psize = header["header_size"], header["page_size"]
    raws, blobs = [], []
    for page in sorted(header.get("page", []), key=lambda p: p["page_id"]):
        records = _records(raw, base + page["page_id"] * psize, page["page_size"])
        (blobs if page["page_type"] == "BLOB_DATA" else raws).extend(records)
    if blob_fields and len(blobs) != len(raws):
        raise ValueError(f"MindDataset: {path} has {len(raws)} raw records but {len(blobs)} blob records (corrupt)")
    rows = []
    for k, rec in enumerate(raws):
        row, _ = _msgpack(rec)
        if blob_fields:
            blob = blobs[k]
            if len(blob_fields) == 1:
                row[blob_fields[0]] = blob
            else:
                pos = 0
                for name in blob_fields:
                    (m,) = struct.unpack_from(">Q", blob, pos)
                    row[name] = blob[pos + 8:pos + 8 + m]
                    pos += 8 + m
        rows.append(row)
    return header, rows


def _value(name: str, spec: dict[str, Any], value: Any) -> np.ndarray:
    kind, shape = spec["type"], spec.get("shape")
    if kind == "string":
        return np.array(value)
    if kind == "bytes":
        return np.array([value])
    dtype = _SCALARS[kind]
    if shape is None:
        return np.asarray(value, dtype)
    arr = _decompress_ints(value, dtype) if kind in ("int32", "int64") else np.frombuffer(value, dtype).copy()
    return arr.reshape(shape)


class MindDataset(_RandomAccessSource):
    """``MindDataset(dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None, num_shards=None,
    shard_id=None, sampler=None, padded_sample=None, num_padded=None, num_samples=None, cache=None)``: the rows
    of MindRecord files. ``dataset_files`` is one file (every shard of its set is read, as the header lists
    them) or a list of shard files. Columns are the schema's fields in sorted order (``columns_list`` picks):
    ``string`` fields as strings, ``bytes`` as a 1-element bytes array, numbers as their type, arrays reshaped
    to the schema's shape. ``padded_sample`` (a dict of every column) is appended ``num_padded`` times, so
    that the rows divide among shards. ``shuffle`` is a bool (MindSpore's Shuffle modes shuffle globally)."""

    def __init__(self, dataset_files: str | Sequence[str], columns_list: Sequence[str] | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, sampler: Any = None, padded_sample: dict[str, Any] | None = None,
                 num_padded: int | None = None, num_samples: int | None = None, cache: Any = None) -> None:
        who = "MindDataset"
        flag = shuffle if shuffle is None or isinstance(shuffle, bool) else getattr(shuffle, "value", "") != "false"
        super().__init__(flag, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        files = self._files(who, dataset_files)
        schema: dict[str, Any] | None = None
        rows: list[dict[str, Any]] = []
        for path in files:
            header, shard_rows = read_shard(path)
            fields = header["schema"][0]["schema"]
            if schema is not None and fields != schema:
                raise ValueError(f"MindDataset: {path} has another schema than {files[0]}; give shards of one set")
            schema = fields
            rows += shard_rows
        assert schema is not None
        names = sorted(schema)
        wanted = _column_list("columns_list", columns_list)
        if wanted:
            missing = [c for c in wanted if c not in schema]
            if missing:
                raise ValueError(f"MindDataset: columns_list names {missing}, which are not fields {names}")
            names = wanted
        if (padded_sample is None) != (not num_padded):
            raise ValueError("MindDataset: padded_sample and num_padded go together (a sample and how many times)")
        if padded_sample is not None:
            absent = [n for n in names if n not in padded_sample]
            if absent:
                raise ValueError(f"MindDataset: padded_sample lacks columns {absent}")
        self._names = names
        self._schema = schema
        self._rows_raw = [(False, r) for r in rows] + [(True, dict(padded_sample or {}))] * int(num_padded or 0)

    @staticmethod
    def _files(who: str, dataset_files: Any) -> list[str]:
        if isinstance(dataset_files, (str, os.PathLike)):
            path = os.fspath(dataset_files)
            if not os.path.isfile(path):
                raise ValueError(f"{who}: {path} does not exist")
            header, _ = read_shard(path)
            folder = os.path.dirname(path)
            files = [os.path.join(folder, os.path.basename(a)) for a in header.get("shard_addresses", [])] or [path]
            missing = [f for f in files if not os.path.isfile(f)]
            if missing:
                raise ValueError(f"{who}: the shards {missing} of {path} are missing; give the files that exist as a "
                                 "list")
            return files
        if not isinstance(dataset_files, (list, tuple)) or not dataset_files:
            raise TypeError(f"{who}: dataset_files must be a file or a non-empty list of files, got {dataset_files!r}")
        for f in dataset_files:
            if not os.path.isfile(f):
                raise ValueError(f"{who}: {f} does not exist")
        return [os.fspath(f) for f in dataset_files]

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._rows_raw)

    def _row(self, index: int) -> Row:
        padded, raw = self._rows_raw[index]
        if padded:  # the user's sample, as given
            return tuple(np.array([raw[n]]) if isinstance(raw[n], bytes) else np.asarray(raw[n]) for n in self._names)
        return tuple(_value(n, self._schema[n], raw[n]) for n in self._names)


__all__ = ["MindDataset", "read_shard"]
