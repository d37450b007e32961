"""One MindRecord shard file and its ``.db`` index, as MindSpore 2.x lays them out.

The file: 8 bytes (little-endian) giving the length of a compact JSON header, the header, zeros up to
``header_size``; then pages of ``page_size`` bytes, page ``k`` at ``header_size + k * page_size``, the last one
cut at its used size. Blob pages hold each row's blob fields, raw pages each row's scalar fields as a
MessagePack map; in both, a row is its length (8 bytes, little-endian) then its bytes. The header's page list
says which row groups each page holds. The ``.db`` (SQLite) maps each row to its page and offsets and holds
the index fields' values; readers use it to find rows."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import struct
from dataclasses import dataclass
from typing import Any

from . import _msgpack
from .errors import MRMCommitError, MRMInvalidSchemaError, MRMOpenError
from .layout import ShardLayout
from .schema import blob_fields, compresses_integers, decode_blob, validate_schema

VERSION = "3.0"
_SQL_TYPES = {"int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL", "string": "TEXT"}
_POSITIONS = ("ROW_ID", "PAGE_ID_RAW", "PAGE_OFFSET_RAW", "PAGE_OFFSET_RAW_END", "ROW_GROUP_ID", "PAGE_ID_BLOB",
              "PAGE_OFFSET_BLOB", "PAGE_OFFSET_BLOB_END")


def header_json(*, header_size: int, page_size: int, index_fields: list[str], pages: list[dict[str, Any]],
                compression_size: int, schema: dict[str, dict[str, Any]], desc: str, addresses: list[str],
                shard_id: int) -> bytes:
    """The header JSON in MindSpore's key order and compact form."""
    header = {"header_size": header_size,
              "index_fields": [{"index_field": f, "schema_id": 0} for f in index_fields] or None,
              "page": pages, "page_size": page_size, "compression_size": compression_size,
              "schema": [{"blob_fields": blob_fields(schema), "desc": desc, "schema": schema}],
              "shard_addresses": addresses, "shard_id": shard_id, "statistics": None, "version": VERSION}
    return json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def write_shard(path: str, header: bytes, header_size: int, layout: ShardLayout) -> None:
    """Write the shard file at ``path``."""
    if 8 + len(header) > header_size:
        raise MRMCommitError(f"the header needs {8 + len(header)} bytes, more than header_size ({header_size}); "
                             "call set_header_size with a larger size")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header)
        f.write(b"\0" * (header_size - 8 - len(header)))
        for k, page in enumerate(layout.pages):
            f.write(bytes(page.data))
            if k + 1 < len(layout.pages):
                f.write(b"\0" * (layout.page_size - len(page.data)))


def write_db(path: str, shard_name: str, index_fields: list[str], schema: dict[str, dict[str, Any]],
             layout: ShardLayout) -> None:
    """Write the SQLite index at ``path`` (MindSpore's tables and column names)."""
    columns = ["ROW_ID               INT  NOT NULL", "PAGE_ID_RAW          INT  NOT NULL",
               "PAGE_OFFSET_RAW      INT  NOT NULL", "PAGE_OFFSET_RAW_END  INT  NOT NULL",
               "ROW_GROUP_ID         INT  NOT NULL", "PAGE_ID_BLOB         INT  NOT NULL",
               "PAGE_OFFSET_BLOB     INT  NOT NULL", "PAGE_OFFSET_BLOB_END INT  NOT NULL"]
    extra = "".join(f",INC_{k} INT, {name}_0 {_SQL_TYPES[schema[name]['type']]}"
                    for k, name in enumerate(index_fields))
    keys = ",".join(["ROW_ID"] + [f"INC_{k}" for k in range(len(index_fields))])
    create = f"CREATE TABLE INDEXES(  {', '.join(columns)}{extra}, PRIMARY KEY({keys}))"
    db = sqlite3.connect(path)
    try:
        db.execute(create)
        db.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
        db.execute("INSERT INTO SHARD_NAME (NAME) VALUES (?)", (shard_name,))
        marks = ",".join("?" * (len(_POSITIONS) + 2 * len(index_fields)))
        db.executemany(f"INSERT INTO INDEXES VALUES ({marks})",
                       [pos + tuple(x for v in values for x in (0, v))
                        for pos, values in zip(layout.positions(), layout.index_values)])
        db.commit()
    finally:
        db.close()


@dataclass
class ShardFile:
    """A shard opened for reading: its header and row locations (from the ``.db``)."""

    path: str
    header: dict[str, Any]
    rows: list[tuple[int, int, int, int, int, int]]  # raw page, raw start, raw end, blob page, start, end

    @property
    def schema(self) -> dict[str, dict[str, Any]]:
        return self.header["schema"][0]["schema"]

    def read_row(self, f: Any, k: int, as_file_reader: bool = True) -> dict[str, Any]:
        """Row ``k`` of this shard (field -> value: int, float, str, bytes or ndarray), read from ``f``.
        ``as_file_reader``: scalar numbers as MindSpore's FileReader returns them (see :func:`_scalar`),
        else as stored."""
        raw_page, raw_start, raw_end, blob_page, blob_start, blob_end = self.rows[k]
        hsize, psize = self.header["header_size"], self.header["page_size"]
        raw_at, blob_at = hsize + raw_page * psize + raw_start + 8, hsize + blob_page * psize + blob_start + 8
        if min(raw_at, blob_at, raw_end - raw_start - 8, blob_end - blob_start - 8) < 0:
            raise MRMOpenError(f"{self.path}: row {k} has negative offsets in {self.path}.db (corrupt index)")
        f.seek(raw_at)
        raw = f.read(raw_end - raw_start - 8)
        f.seek(blob_at)
        blob = f.read(blob_end - blob_start - 8)
        if len(raw) != raw_end - raw_start - 8 or len(blob) != blob_end - blob_start - 8:
            raise MRMOpenError(f"{self.path}: row {k} lies past the end of the file (truncated file)")
        try:
            return self._decode(raw, blob, as_file_reader)
        except (ValueError, TypeError, KeyError, IndexError, struct.error, RecursionError) as e:
            # UnicodeDecodeError is a ValueError; the message names the type only (the value may be huge).
            raise MRMOpenError(f"{self.path}: row {k} is corrupt ({type(e).__name__}: {str(e)[:200]}); the file "
                               "was damaged after it was written, or not written completely") from None

    def _decode(self, raw: bytes, blob: bytes, as_file_reader: bool) -> dict[str, Any]:
        schema = self.schema
        values = _msgpack.unpack_row(raw)
        out: dict[str, Any] = {}
        blobs = blob_fields(schema)
        for name, spec in schema.items():
            if name in values:
                v = values[name]
                out[name] = _scalar(v, spec["type"]) if as_file_reader else v
            elif name not in blobs:  # every row holds every field (FileWriter checks it, as MindSpore's)
                raise ValueError(f"the row has no field {name!r}")
        if blobs:
            out.update(decode_blob(blob, schema, compresses_integers(schema, self.header.get("version", "0"))))
        return out


def _scalar(value: Any, kind: str) -> Any:
    """A raw-page value as MindSpore's FileReader returns it. MindSpore turns every number within 1e-7 above
    a whole number into an int, truncating toward zero (so 2.5e-08 reads 0 and -2.9999999999 reads -2);
    opbuild does the same, except that numbers beyond int64, which MindSpore turns into its minimum, stay
    floats."""
    if kind == "string":
        return str(value)
    if isinstance(value, float) and value - math.floor(value) < 1e-7 and -(2.0 ** 63) <= value < 2.0 ** 63:
        return int(value)
    return value


def read_header(path: str) -> dict[str, Any]:
    """The JSON header of the MindRecord file ``path`` (MRMOpenError when it is missing or not one)."""
    if not os.path.isfile(path):
        raise MRMOpenError(f"MindRecord file {path} does not exist")
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise MRMOpenError(f"{path} is not a MindRecord file (shorter than its header length field)")
        n = struct.unpack("<Q", head)[0]
        text = f.read(n) if n <= (1 << 28) else b""
    try:
        header = json.loads(text.decode("utf-8"))
        header["schema"][0]["schema"], header["header_size"], header["page_size"], header["shard_addresses"]
    except (ValueError, UnicodeDecodeError, KeyError, IndexError, TypeError, RecursionError):
        raise MRMOpenError(f"{path} is not a MindRecord file (its header is not MindRecord JSON)") from None
    if not all(isinstance(header[k], int) and header[k] > 0 for k in ("header_size", "page_size")):
        raise MRMOpenError(f"{path} is damaged: its header_size and page_size must be positive ints")
    try:  # the rules FileWriter.add_schema applies: a damaged type name is refused here, not in every row
        validate_schema(header["schema"][0]["schema"])
    except MRMInvalidSchemaError as e:
        raise MRMOpenError(f"{path} is damaged: the schema in its header is not valid ({e})") from None
    return header


def open_shard(path: str) -> ShardFile:
    """Open one shard file and its ``.db`` index."""
    header = read_header(path)
    db_path = path + ".db"
    if not os.path.isfile(db_path):
        raise MRMOpenError(f"the index {db_path} of MindRecord file {path} does not exist (copy it along with "
                           "the file)")
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT DISTINCT ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, "
                              "PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES ORDER BY "
                              "ROW_ID").fetchall()
        finally:
            db.close()
    except sqlite3.Error as e:
        raise MRMOpenError(f"{db_path} is not a MindRecord index ({e})") from None
    return ShardFile(path, header, [tuple(r[1:]) for r in rows])
