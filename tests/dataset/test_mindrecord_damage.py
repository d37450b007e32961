"""MindRecord files damaged after they were written: a damaged schema in the header, a damaged raw-page row
and a compressed integer array whose count is far larger than its bytes are MRMOpenErrors naming the file
(and the row), from FileReader and MindDataset alike; never a KeyError, TypeError or struct.error from deep
inside the decoder, nor an allocation sized by a damaged count."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from opbuild import dataset as ds
from opbuild.mindrecord import FileReader, FileWriter, MRMOpenError
from opbuild.mindrecord.schema import uncompress_ints


def _write(path: str, schema: dict, rows: list[dict]) -> None:
    w = FileWriter(path, 1, overwrite=True)
    w.add_schema(schema, "damage")
    w.write_raw_data(rows)
    w.commit()


def _row_offsets(path: str, row: int) -> tuple[int, int]:
    """Where row ``row``'s raw-page bytes and blob bytes begin in the file (after their length fields)."""
    header = FileReader(path).header
    db = sqlite3.connect(path + ".db")
    raw_page, raw_start, blob_page, blob_start = db.execute(
        "SELECT PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_ID_BLOB, PAGE_OFFSET_BLOB FROM INDEXES WHERE ROW_ID=?",
        (row,)).fetchone()
    db.close()
    at = header["header_size"]
    return at + raw_page * header["page_size"] + raw_start + 8, at + blob_page * header["page_size"] + blob_start + 8


def _patch(path: str, offset: int, data: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


SCHEMA = {"label": {"type": "int32"}, "data": {"type": "float32", "shape": [3]}}
ROWS = [{"label": i, "data": np.full(3, i, np.float32)} for i in range(4)]


def test_a_damaged_schema_type_is_refused_when_the_file_is_opened(tmp_path):
    path = str(tmp_path / "a.mindrecord")
    _write(path, SCHEMA, ROWS)
    raw = Path(path).read_bytes()
    at = raw.index(b'"float32"')
    _patch(path, at + 2, b"(")  # "f(oat32": what a flipped bit does to the header
    for open_it in (lambda: FileReader(path), lambda: ds.MindDataset(path)):
        with pytest.raises(MRMOpenError, match="schema in its header is not valid"):
            open_it()


def test_a_damaged_row_is_an_error_naming_the_file_and_the_row(tmp_path):
    path = str(tmp_path / "a.mindrecord")
    _write(path, SCHEMA, ROWS)
    raw_at, _ = _row_offsets(path, 2)
    _patch(path, raw_at, b"\xc1")  # a MessagePack type byte that is never used
    with pytest.raises(MRMOpenError, match=r"a\.mindrecord: row 2 is corrupt"):
        list(FileReader(path).get_next())
    with pytest.raises(MRMOpenError, match="row 2 is corrupt"):
        list(ds.MindDataset(path, shuffle=False).create_tuple_iterator(output_numpy=True))


def test_a_row_missing_a_field_is_corrupt(tmp_path):
    path = str(tmp_path / "a.mindrecord")
    _write(path, SCHEMA, ROWS)
    raw_at, _ = _row_offsets(path, 1)
    # The raw row is the map {"label": 1}: 0x81, 0xa5 "label", 0x01. Renaming the key drops the field.
    assert Path(path).read_bytes()[raw_at:raw_at + 7] == b"\x81\xa5label"
    _patch(path, raw_at + 2, b"x")
    with pytest.raises(MRMOpenError, match="row 1 is corrupt .*no field 'label'"):
        list(FileReader(path).get_next())


def test_a_compressed_count_larger_than_its_bytes_is_refused_before_allocating(tmp_path):
    # 2**32 - 1 int64 values would be 32 GiB: the count is checked against the bytes first.
    with pytest.raises(ValueError, match="declares 4294967295 values in 12 bytes"):
        uncompress_ints(b"\xff\xff\xff\xff" + b"\0" * 8, "int32")
    path = str(tmp_path / "i.mindrecord")
    _write(path, {"ids": {"type": "int64", "shape": [-1]}}, [{"ids": np.arange(5, dtype=np.int64)}])
    _, blob_at = _row_offsets(path, 0)
    _patch(path, blob_at, b"\x7f\xff\xff\xff")
    with pytest.raises(MRMOpenError, match="row 0 is corrupt .*declares 2147483647 values"):
        list(FileReader(path).get_next())
