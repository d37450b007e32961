"""``FileReader``: reads the rows of MindRecord files, written by MindSpore or by :class:`FileWriter`
(``mindspore.mindrecord.FileReader``)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

from .errors import MRMOpenError, ParamTypeError, ParamValueError
from .schema import blob_fields
from .shardfile import ShardFile, open_shard, read_header


def resolve_files(file_name: str | Sequence[str]) -> list[str]:
    """The shard files to read: for one file name, every shard of its set (the header's shard addresses,
    looked up next to it), as MindSpore does; for a list, exactly the files listed."""
    if isinstance(file_name, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(file_name))
        header = read_header(path)
        folder = os.path.dirname(path)
        return [os.path.join(folder, os.path.basename(a)) for a in header["shard_addresses"]]
    if isinstance(file_name, (list, tuple)) and file_name and all(isinstance(f, (str, os.PathLike))
                                                                   for f in file_name):
        return [os.path.abspath(os.fspath(f)) for f in file_name]
    raise ParamTypeError(f"file_name must be a file path or a non-empty list of paths, got {file_name!r}")


def open_shards(file_name: str | Sequence[str]) -> list[ShardFile]:
    """Open the shards :func:`resolve_files` names, checking they share one schema."""
    shards = [open_shard(p) for p in resolve_files(file_name)]
    first = shards[0].schema
    for shard in shards[1:]:
        if shard.schema != first:
            raise MRMOpenError(f"{shard.path} has another schema than {shards[0].path}; read files of one "
                               "dataset together")
    return shards


def output_order(schema: dict[str, dict[str, Any]]) -> list[str]:
    """Field order of FileReader's rows: scalar fields, then blob fields, each by name (MindSpore's order)."""
    blobs = blob_fields(schema)
    return [n for n in schema if n not in blobs] + blobs


class FileReader:
    """Iterate the rows of MindRecord files: ``get_next()`` yields dicts of field -> value (int, float, str,
    bytes or numpy array), shard by shard in row order. ``columns`` keeps those fields only;
    ``num_consumer`` (1 to the CPU count) is accepted; ``operator`` (decryption) is not supported."""

    def __init__(self, file_name: str | Sequence[str], num_consumer: int = 4, columns: list[str] | None = None,
                 operator: Any = None) -> None:
        if not isinstance(num_consumer, int) or num_consumer < 1:
            raise ParamValueError(f"num_consumer must be a positive int, got {num_consumer!r}")
        if operator is not None:
            raise ParamValueError("operator is not supported by opbuild's FileReader; pass None")
        self._shards = open_shards(file_name)
        schema = self._shards[0].schema
        names = output_order(schema)
        if columns is not None:
            if not isinstance(columns, list) or not columns:
                raise ParamTypeError("columns must be a non-empty list of field names")
            unknown = [c for c in columns if c not in schema]
            if unknown:
                raise ParamValueError(f"columns {unknown} are not fields of the file (fields: {names})")
            names = [n for n in names if n in columns]
        self._names = names
        self._closed = False

    @property
    def header(self) -> dict[str, Any]:
        """The JSON header of the first shard."""
        return self._shards[0].header

    @property
    def paths(self) -> list[str]:
        """The shard files read."""
        return [s.path for s in self._shards]

    def shard_rows(self) -> Iterator[list[dict[str, Any]]]:
        """All rows of each shard, one list per shard (every field, numbers as stored)."""
        for shard in self._shards:
            with open(shard.path, "rb") as f:
                yield [shard.read_row(f, k, as_file_reader=False) for k in range(len(shard.rows))]

    def get_next(self) -> Iterator[dict[str, Any]]:
        """Yield the rows, one dict each."""
        if self._closed:
            raise RuntimeError("FileReader is closed")
        for shard in self._shards:
            with open(shard.path, "rb") as f:
                for k in range(len(shard.rows)):
                    row = shard.read_row(f, k)
                    yield {n: row[n] for n in self._names}

    def schema(self) -> dict[str, dict[str, Any]]:
        """The files' schema: field name -> {"type": ..., ["shape": ...]}."""
        return dict(self._shards[0].schema)

    def len(self) -> int:
        """The number of rows in all the files read."""
        return sum(len(s.rows) for s in self._shards)

    def close(self) -> None:
        """Stop reading (later ``get_next`` calls raise)."""
        self._closed = True
