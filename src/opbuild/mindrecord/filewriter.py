"""``FileWriter``: writes rows to MindRecord files MindSpore reads (``mindspore.mindrecord.FileWriter``).

Rows are packed as ``write_raw_data`` receives them and kept in memory; ``commit`` writes every shard and
its ``.db`` under temporary names, then renames them into place, so a failed or abandoned writer leaves no
partial file behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from typing import Any

from . import _msgpack
from .errors import (
    MRMAddSchemaError,
    MRMCommitError,
    MRMDefineIndexError,
    MRMInvalidHeaderSizeError,
    MRMInvalidPageSizeError,
    MRMValidateDataError,
    ParamTypeError,
    ParamValueError,
)
from .filereader import FileReader
from .layout import ShardLayout
from .schema import blob_fields, check_row, compresses_integers, encode_blob, raw_value, validate_schema
from .shardfile import header_json, write_db, write_shard

SUCCESS = 0
FAILED = 1
_DEFAULT_HEADER, _DEFAULT_PAGE = 1 << 24, 1 << 25


def shard_paths(file_name: str, shard_num: int) -> list[str]:
    """The files of a set of ``shard_num`` shards: the name itself for one, else the name with 0, 1, ..."""
    return [file_name] if shard_num == 1 else [f"{file_name}{i}" for i in range(shard_num)]


class FileWriter:
    """Write MindRecord files: ``add_schema``, optionally ``add_index``, ``write_raw_data`` (any number of
    times), then ``commit``. ``shard_num`` files (1 to 1000) share the rows: each ``write_raw_data`` call
    gives each shard an equal run of its rows, in order; the ``n % shard_num`` rows left over go one each to
    the first shards (MindSpore picks those shards at random).
    A row that does not fit the schema raises MRMValidateDataError and that call writes nothing (MindSpore
    drops such rows with a warning instead)."""

    def __init__(self, file_name: str, shard_num: int = 1, overwrite: bool = False) -> None:
        if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
            raise ParamValueError(f"file_name must be a non-empty path, got {file_name!r}")
        if not isinstance(shard_num, int) or isinstance(shard_num, bool):
            raise ParamTypeError("shard_num must be an int")
        if not 1 <= shard_num <= 1000:
            raise ParamValueError(f"shard_num must be between 1 and 1000, got {shard_num}")
        if not isinstance(overwrite, bool):
            raise ParamTypeError("overwrite must be a bool")
        self._paths = [os.path.abspath(p) for p in shard_paths(os.fspath(file_name), shard_num)]
        folder = os.path.dirname(self._paths[0])
        if not os.path.isdir(folder):
            raise ParamValueError(f"the folder {folder} of file_name does not exist")
        existing = [p for path in self._paths for p in (path, path + ".db") if os.path.exists(p)]
        if existing and not overwrite:
            raise RuntimeError(f"MindRecord file {existing[0]} already exists: pass overwrite=True to replace "
                               "it, or write to another name")
        self._init_state(self._paths)

    def _init_state(self, paths: list[str]) -> None:
        self._paths = paths
        self._schema: dict[str, dict[str, Any]] | None = None
        self._desc = ""
        self._index: list[str] | None = None
        self._header_size, self._page_size = _DEFAULT_HEADER, _DEFAULT_PAGE
        self._layouts: list[ShardLayout] | None = None
        self._saved = 0
        self._committed = False

    @classmethod
    def open_for_append(cls, file_name: str) -> FileWriter:
        """A writer that adds rows to the existing files of ``file_name`` (any shard of the set): their rows,
        schema, index fields and sizes are kept, and ``commit`` rewrites the set."""

        reader = FileReader(file_name)
        header = reader.header
        writer = cls.__new__(cls)
        writer._init_state(list(reader.paths))
        writer.set_header_size(header["header_size"])
        writer.set_page_size(header["page_size"])
        writer.add_schema(header["schema"][0]["schema"], header["schema"][0].get("desc", ""))
        if header.get("index_fields"):
            writer.add_index([f["index_field"] for f in header["index_fields"]])
        for s, rows in enumerate(reader.shard_rows()):
            writer._append(rows, s)
        reader.close()
        return writer

    def add_schema(self, content: dict[str, Any], desc: str | None = None) -> None:
        """Set the schema: field name -> ``{"type": t}`` (t: int32, int64, float32, float64, string, bytes) or
        ``{"type": t, "shape": [...]}`` for ndarray fields (t: int32, int64, float32, float64; one dimension
        may be -1). Returns None, as MindSpore 2.10 does."""
        if self._schema is not None:
            raise MRMAddSchemaError("a schema was added already; a MindRecord file holds one schema")
        if desc is not None and not isinstance(desc, str):
            raise ParamTypeError("desc must be a str or None")
        self._schema = validate_schema(content)
        self._desc = desc or ""
        return None

    def add_index(self, index_fields: Sequence[str]) -> None:
        """Fields the ``.db`` indexes (scalar int, float or string fields); default: every scalar field."""
        if self._schema is None:
            raise MRMDefineIndexError("add_schema must come before add_index")
        if not isinstance(index_fields, list) or not index_fields:
            raise ParamTypeError("index_fields must be a non-empty list of field names")
        for name in index_fields:
            if not isinstance(name, str):
                raise ParamTypeError(f"index field {name!r} must be a str")
            spec = self._schema.get(name)
            if spec is None or "shape" in spec or spec["type"] == "bytes":
                raise MRMDefineIndexError(f"cannot index field {name!r}: index fields must be scalar int, float "
                                          "or string fields of the schema")
        self._index = list(index_fields)
        return None

    def set_header_size(self, header_size: int) -> None:
        """The header's size in bytes, 16 KB to 128 MB (default 16 MB), before any row is written."""
        if not isinstance(header_size, int) or not (1 << 14) <= header_size <= (1 << 27):
            raise MRMInvalidHeaderSizeError(f"header_size must be an int between 16 KB and 128 MB, got "
                                            f"{header_size!r}")
        self._header_size = header_size
        return None

    def set_page_size(self, page_size: int) -> None:
        """The page size in bytes, 32 KB to 256 MB (default 32 MB), before any row is written."""
        if not isinstance(page_size, int) or not (1 << 15) <= page_size <= (1 << 28):
            raise MRMInvalidPageSizeError(f"page_size must be an int between 32 KB and 256 MB, got "
                                          f"{page_size!r}")
        if self._layouts is not None:
            raise MRMInvalidPageSizeError("set_page_size must come before write_raw_data")
        self._page_size = page_size
        return None

    def _layouts_or_new(self) -> list[ShardLayout]:
        if self._layouts is None:
            self._layouts = [ShardLayout(self._page_size) for _ in self._paths]
        return self._layouts

    def write_raw_data(self, raw_data: list[dict[str, Any]], parallel_writer: bool = False) -> None:
        """Add rows (dicts of field -> value) checked against the schema; nothing of the call is written when
        a row is wrong. ``parallel_writer`` is accepted and changes nothing here."""
        if self._committed:
            raise RuntimeError("write_raw_data after commit: the files are written; open them with "
                               "FileWriter.open_for_append to add rows")
        if self._schema is None:
            raise MRMValidateDataError("add_schema must come before write_raw_data")
        if not isinstance(parallel_writer, bool):
            raise TypeError("parallel_writer must be a bool")
        if not isinstance(raw_data, list):
            raise ParamTypeError(f"raw_data must be a list of dicts, got {type(raw_data).__name__}")
        for i, row in enumerate(raw_data):
            check_row(i, row, self._schema)
        layouts = self._layouts_or_new()
        n, shards = len(raw_data), len(layouts)
        # Each shard takes n // shards consecutive rows; MindSpore gives the n % shards left over to shards it
        # picks at random, here to the first ones.
        base, extra = divmod(n, shards)
        start = 0
        for s in range(shards):
            stop = start + base + (s < extra)
            self._append(raw_data[start:stop], s)
            start = stop
        return None

    def _append(self, rows: list[dict[str, Any]], shard: int) -> None:
        """Pack ``rows`` into shard ``shard``."""
        schema = self._schema
        assert schema is not None
        layouts = self._layouts_or_new()
        blobs = set(blob_fields(schema))
        raw_names = [n for n in schema if n not in blobs]
        index = self._index_fields()
        compress = compresses_integers(schema)
        batch = []
        for row in rows:
            # MindSpore stores {"id": 0} as the raw map of a schema without scalar fields.
            raw = _msgpack.pack_row({n: raw_value(row[n], schema[n]["type"]) for n in raw_names} if raw_names
                                    else {"id": 0})
            blob, saved = encode_blob(row, schema, compress)
            self._saved += saved
            batch.append((raw, blob, [raw_value(row[n], schema[n]["type"]) for n in index]))
        layouts[shard].add_batch(batch)

    def _index_fields(self) -> list[str]:
        assert self._schema is not None
        if self._index is not None:
            return self._index
        blobs = set(blob_fields(self._schema))
        return [n for n in self._schema if n not in blobs]

    def commit(self) -> None:
        """Write the shard files and their ``.db`` indexes (temporary names, then renamed into place)."""
        if self._committed:
            raise RuntimeError("commit was called already")
        if self._schema is None:
            raise MRMCommitError("add_schema must come before commit")
        layouts = self._layouts_or_new()
        names = [os.path.basename(p) for p in self._paths]
        index = self._index_fields()
        staged: list[tuple[str, str]] = []
        try:
            for s, (path, layout) in enumerate(zip(self._paths, layouts)):
                header = header_json(header_size=self._header_size, page_size=self._page_size,
                                     index_fields=index, pages=[p.meta(s) for p in layout.pages],
                                     compression_size=max(self._saved, 0), schema=self._schema, desc=self._desc,
                                     addresses=names, shard_id=s)
                tmp = _temp_name(path)
                staged.append((tmp, path))
                write_shard(tmp, header, self._header_size, layout)
                tmp_db = _temp_name(path + ".db")
                staged.append((tmp_db, path + ".db"))
                write_db(tmp_db, names[s], index, self._schema, layout)
        except BaseException:
            for tmp, _ in staged:
                if os.path.exists(tmp):
                    os.remove(tmp)
            raise
        for tmp, final in staged:
            os.replace(tmp, final)
        self._committed = True
        return None


def _temp_name(path: str) -> str:
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".partial", dir=os.path.dirname(path))
    os.close(fd)
    return tmp
