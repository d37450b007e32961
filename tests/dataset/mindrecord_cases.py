"""MindRecord files both frameworks write and read: the cases (schema, index, shards, rows per
``write_raw_data`` call) and helpers turning what a reader returns into JSON. Used by
scripts/record_mindrecord.py (real MindSpore) and tests/dataset/test_mindrecord.py (opbuild); imports
neither framework."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

import numpy as np

HEADER_SIZE = 1 << 14  # MindSpore's smallest header and page sizes keep the files small
PAGE_SIZE = 1 << 15


def _types_rows() -> list[list[dict[str, Any]]]:
    rows = []
    for i in range(5):
        rows.append({"id": i - 2, "big": (1 << 40) * (i + 1) - 7, "f": [0.5, 0.1, -2.25, 3e10, 1.0 / 3][i],
                     "d": [0.25, 0.1, -1e-300, 123456.789, 2.0][i], "s": ["", "abc", "héllo wörld", "x" * 40,
                                                                         "日本"][i],
                     "b": bytes(range(i * 3, i * 3 + 2 * i + 1)),
                     "arr": (np.arange(6, dtype=np.float32).reshape(2, 3) + i * 0.5),
                     "iv": np.array([i, -i * 1000, 300000 * i, -(1 << 35) * i][: i + 1], dtype=np.int64),
                     "pairs": np.arange(4 * (i + 1), dtype=np.int32).reshape(-1, 2) - 3,
                     "dv": np.array([i / 7.0, -i, 1e-5], dtype=np.float64)})
    return [rows[:3], rows[3:]]


def _sharded_rows() -> list[list[dict[str, Any]]]:
    rows = [{"label": i, "tokens": np.array([i, i + 1, 128 * i], dtype=np.int32)[: 1 + i % 3],
             "data": bytes([65 + i]) * (i + 1)} for i in range(6)]
    # Batches that divide by the shard count: MindSpore gives left-over rows to shards picked at random.
    return [rows[:4], rows[4:]]


def _raw_rows() -> list[list[dict[str, Any]]]:
    return [[{"n": v, "x": x, "name": f"row{k}"} for k, (v, x) in
             enumerate(zip([0, -1, 127, -(1 << 62)], [0.5, -2.9999999999, 2.5e-8, 1e-7]))]]


def _raw_pages_rows() -> list[list[dict[str, Any]]]:
    # Long scalar fields: groups are cut by the raw pages, and a continued group moves to a new raw page.
    first = [{"id": i, "txt": "t" * (1000 + i * 37), "img": bytes([i]) * (300 * (i % 7) + 1)} for i in range(70)]
    second = [{"id": i, "txt": "u" * 2000, "img": b"z" * (i * 100 + 1)} for i in range(70, 130)]
    return [first, second]


def _shift_rows() -> list[list[dict[str, Any]]]:
    # The second call continues a row group whose raw page is full: the group moves to a new raw page.
    first = [{"id": i, "txt": chr(97 + i) * 6000, "img": bytes([i]) * 10000} for i in range(5)]
    return [first, [{"id": 5, "txt": "f" * 6000, "img": b"\5" * 100}]]


def _pages_rows() -> list[list[dict[str, Any]]]:
    rows = [{"id": i, "tag": "t" * (i % 40), "img": bytes([i % 251]) * (900 + 13 * i)} for i in range(60)]
    return [rows[:45], rows[45:]]


# name -> (file name, shard_num, schema, desc, index fields or None, batches of rows)
CASES: dict[str, tuple[str, int, dict[str, Any], str | None, list[str] | None, Any]] = {
    "types": ("types.mindrecord", 1,
              {"id": {"type": "int32"}, "big": {"type": "int64"}, "f": {"type": "float32"},
               "d": {"type": "float64"}, "s": {"type": "string"}, "b": {"type": "bytes"},
               "arr": {"type": "float32", "shape": [2, 3]}, "iv": {"type": "int64", "shape": [-1]},
               "pairs": {"type": "int32", "shape": [-1, 2]}, "dv": {"type": "float64", "shape": [3]}},
              "all field types", ["id", "s"], _types_rows),
    "sharded": ("sharded.mindrecord", 2,
                {"label": {"type": "int32"}, "tokens": {"type": "int32", "shape": [-1]},
                 "data": {"type": "bytes"}}, None, None, _sharded_rows),
    "raw": ("raw.mindrecord", 1, {"n": {"type": "int64"}, "x": {"type": "float64"}, "name": {"type": "string"}},
            "scalars only", None, _raw_rows),
    "blobs": ("blobs.mindrecord", 1, {"b": {"type": "bytes"}, "v": {"type": "int64", "shape": [2]}}, None, None,
              lambda: [[{"b": b"ab" * k, "v": np.array([1 << 40, -k], np.int64)} for k in range(3)]]),
    "rawpages": ("rawpages.mindrecord", 1, {"id": {"type": "int64"}, "txt": {"type": "string"},
                                            "img": {"type": "bytes"}}, None, ["id"], _raw_pages_rows),
    "shift": ("shift.mindrecord", 1, {"id": {"type": "int64"}, "txt": {"type": "string"},
                                      "img": {"type": "bytes"}}, None, ["id"], _shift_rows),
    "pages": ("pages.mindrecord", 1, {"id": {"type": "int64"}, "tag": {"type": "string"},
                                      "img": {"type": "bytes"}}, None, ["id"], _pages_rows),
}


def write_case(file_writer: Any, folder: str, name: str) -> str:
    """Write case ``name`` into ``folder`` with ``file_writer`` (a FileWriter class); the first file's path."""
    file_name, shard_num, schema, desc, index, rows = CASES[name]
    path = os.path.join(folder, file_name)
    writer = file_writer(path, shard_num=shard_num, overwrite=True)
    writer.set_header_size(HEADER_SIZE)
    writer.set_page_size(PAGE_SIZE)
    writer.add_schema(schema, desc)
    if index is not None:
        writer.add_index(index)
    for batch in rows():
        writer.write_raw_data([dict(r) for r in batch])
    writer.commit()
    return path + ("0" if shard_num > 1 else "")


def file_names(name: str) -> list[str]:
    """The files (data and .db) case ``name`` writes."""
    file_name, shard_num = CASES[name][:2]
    shards = [file_name] if shard_num == 1 else [f"{file_name}{i}" for i in range(shard_num)]
    return [f for s in shards for f in (s, s + ".db")]


def encode(value: Any) -> dict[str, Any]:
    """A value a reader returned, as JSON: its type, dtype, shape and contents (bytes as hex)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "S":
            return {"kind": "ndarray", "dtype": "bytes", "shape": list(value.shape),
                    "data": [bytes(v).hex() for v in value.reshape(-1)]}
        if value.dtype.kind == "U":
            return {"kind": "ndarray", "dtype": "str", "shape": list(value.shape),
                    "data": [str(v) for v in value.reshape(-1)]}
        return {"kind": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape),
                "data": value.reshape(-1).tolist()}
    if isinstance(value, bytes):
        # Long values as a digest, so the fixture stays small.
        data = value.hex() if len(value) <= 64 else f"{len(value)} bytes, sha256 {hashlib.sha256(value).hexdigest()}"
        return {"kind": "bytes", "data": data}
    if isinstance(value, str) and len(value) > 64:
        return {"kind": "str", "data": f"{len(value)} chars, sha256 {hashlib.sha256(value.encode()).hexdigest()}"}
    return {"kind": type(value).__name__, "data": value}


def compact(rows: list[Any]) -> Any:
    """Rows as recorded: themselves, or a digest of their JSON when that is long (the fixture stays small)."""
    text = json.dumps(rows, sort_keys=True)
    return rows if len(text) <= 8000 else f"{len(rows)} rows, sha256 {hashlib.sha256(text.encode()).hexdigest()}"


def encode_row(row: dict[str, Any]) -> list[Any]:
    """A row as JSON, keeping the column order."""
    return [[k, encode(v)] for k, v in row.items()]


# What MindDataset is asked for: case, files (relative names, a str or a list), keyword arguments.
DATASET_READS: list[tuple[str, Any, dict[str, Any]]] = [
    ("types", "types.mindrecord", {"shuffle": False}),
    ("types", "types.mindrecord", {"shuffle": False, "columns_list": ["s", "id", "iv"]}),
    ("sharded", "sharded.mindrecord0", {"shuffle": False}),
    ("sharded", ["sharded.mindrecord1"], {"shuffle": False}),
    ("sharded", "sharded.mindrecord1", {"shuffle": False, "num_shards": 2, "shard_id": 1}),
    ("sharded", "sharded.mindrecord0", {"shuffle": False, "num_samples": 3}),
    ("sharded", "sharded.mindrecord0", {"shuffle": False, "num_shards": 4, "shard_id": 3, "num_padded": 2,
                                        "columns_list": ["label", "tokens", "data"],
                                        "padded_sample": {"label": -1, "tokens": np.array([9], np.int32),
                                                          "data": b"pad"}}),
    ("raw", "raw.mindrecord", {"shuffle": False}),
    ("blobs", "blobs.mindrecord", {"shuffle": False}),
    ("pages", "pages.mindrecord", {"shuffle": False, "columns_list": ["id", "tag"]}),
    ("rawpages", "rawpages.mindrecord", {"shuffle": False, "columns_list": ["id"], "num_samples": 100}),
]


def dataset_rows(dataset_cls: Any, folder: str, files: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Columns, size and rows (numpy) MindDataset gives for one entry of :data:`DATASET_READS`."""
    paths = os.path.join(folder, files) if isinstance(files, str) else [os.path.join(folder, f) for f in files]
    data = dataset_cls(paths, **kwargs)
    rows = [encode_row(r) for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)]
    return {"columns": data.get_col_names(), "size": data.get_dataset_size(), "rows": compact(rows)}


# What MindPage is asked: case, category field, calls ("info"; "id", id, page, num_row; "name", ...).
PAGE_READS: list[tuple[str, str, list[tuple[Any, ...]]]] = [
    ("sharded", "label", [("info",), ("id", 0, 0, 5), ("id", 5, 0, 1), ("name", "3", 0, 1), ("id", 0, 1, 1),
                          ("id", 9, 0, 1), ("name", "nope", 0, 1), ("id", -1, 0, 1), ("id", 0, 0, 0)]),
    ("types", "s", [("info",), ("name", "héllo wörld", 0, 2), ("id", 4, 0, 1)]),
    ("types", "id", [("info",), ("id", 0, 0, 1), ("name", "-2", 0, 1)]),
    ("raw", "x", [("info",), ("id", 1, 0, 1)]),
]


def page_reads(mind_page_cls: Any, folder: str) -> list[Any]:
    """What MindPage returns for :data:`PAGE_READS` (errors as their type name)."""
    out: list[Any] = []
    for name, field, calls in PAGE_READS:
        page = mind_page_cls(os.path.join(folder, file_names(name)[0]))
        page.category_field = field
        for call in calls:
            try:
                if call[0] == "info":
                    out.append(page.read_category_info())
                elif call[0] == "id":
                    out.append([encode_row(r) for r in page.read_at_page_by_id(*call[1:])])
                else:
                    out.append([encode_row(r) for r in page.read_at_page_by_name(*call[1:])])
            except Exception as e:  # noqa: BLE001  (recorded: which error each framework raises)
                out.append(f"error: {type(e).__name__}")
    return out
