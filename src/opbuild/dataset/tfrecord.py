"""``TFRecordDataset``: rows from TFRecord files of ``tf.train.Example`` protobufs, decoded with protobuf
(classes built from a small hand-written descriptor: no TensorFlow), with MindSpore's columns, dtypes,
order and sharding.

The files are indexed when the dataset is built (every record's length and its checksum; tfrecord_files.py)
and a row's record is read, checked against its data checksum and decoded when the row is asked for: a
dataset costs its index in memory, not its contents."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from typing import Any

import numpy as np

from .core import Row, _column_list
from .schema import Schema
from .text_files import Shuffle, _FileRowsSource, find_files
from .tfrecord_files import RecordFile


@cache
def _example_class() -> type:
    """The ``tf.train.Example`` message class (its descriptor written out here, field numbers as TensorFlow's
    example.proto / feature.proto)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    fd = descriptor_pb2.FileDescriptorProto(name="opbuild_tf_example.proto", package="opbuild_tf", syntax="proto3")

    def add(msg: Any, name: str, num: int, ftype: int, label: int = F.LABEL_OPTIONAL, tname: str = "",
            oneof: int | None = None) -> None:
        f = msg.field.add(name=name, number=num, type=ftype, label=label)
        if tname:
            f.type_name = tname
        if oneof is not None:
            f.oneof_index = oneof

    rep = F.LABEL_REPEATED
    add(fd.message_type.add(name="BytesList"), "value", 1, F.TYPE_BYTES, rep)
    add(fd.message_type.add(name="FloatList"), "value", 1, F.TYPE_FLOAT, rep)
    add(fd.message_type.add(name="Int64List"), "value", 1, F.TYPE_INT64, rep)
    feature = fd.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for num, kind in enumerate(("bytes_list", "float_list", "int64_list"), 1):
        add(feature, kind, num, F.TYPE_MESSAGE, tname=f".opbuild_tf.{''.join(p.title() for p in kind.split('_'))}",
            oneof=0)
    features = fd.message_type.add(name="Features")
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    add(entry, "key", 1, F.TYPE_STRING)
    add(entry, "value", 2, F.TYPE_MESSAGE, tname=".opbuild_tf.Feature")
    add(features, "feature", 1, F.TYPE_MESSAGE, rep, ".opbuild_tf.Features.FeatureEntry")
    add(fd.message_type.add(name="Example"), "features", 1, F.TYPE_MESSAGE, tname=".opbuild_tf.Features")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    get = getattr(message_factory, "GetMessageClass", None)
    if get is None:  # protobuf < 4.21
        get = message_factory.MessageFactory(pool).GetPrototype
    return get(pool.FindMessageTypeByName("opbuild_tf.Example"))


def read_records(path: str, compression_type: str | None = None) -> list[bytes]:
    """The payloads of a TFRecord file (``compression_type`` None/'' , 'GZIP' or 'ZLIB'), every checksum
    checked."""
    records = RecordFile(path, compression_type or None)
    return [records.read(i) for i in range(len(records))]


class _Rows(Sequence):
    """The rows of a list of indexed TFRecord files, in file order, each decoded from its record when asked
    for (the file datasets' ``_data``)."""

    def __init__(self, files: list[RecordFile], decode: Callable[[str, bytes], Row]) -> None:
        self._files = files
        self._starts = np.cumsum([0, *(len(f) for f in files)])
        self._decode = decode

    def __len__(self) -> int:
        return int(self._starts[-1])

    def __getitem__(self, index: int) -> Row:  # type: ignore[override]
        if not 0 <= index < len(self):
            raise IndexError(f"TFRecordDataset: row {index} of {len(self)}")
        k = int(np.searchsorted(self._starts, index, side="right")) - 1
        records = self._files[k]
        return self._decode(records.path, records.read(index - int(self._starts[k])))


def _parse(who: str, path: str, record: bytes) -> Any:
    """The features (name -> Feature map) of one ``tf.train.Example`` record."""
    msg = _example_class()()
    try:
        msg.ParseFromString(record)
    except Exception as err:  # protobuf's DecodeError
        raise ValueError(f"{who}: a record of {path} is not a tf.train.Example ({err})") from None
    return msg.features.feature


def _feature_values(feature: Any) -> list[Any]:
    kind = feature.WhichOneof("kind")
    return [] if kind is None else list(getattr(feature, kind).value)


def _convert(who: str, name: str, values: list[Any], col: dict[str, Any] | None) -> np.ndarray:
    ctype = None if col is None else col["type"]
    if values and isinstance(values[0], bytes):
        if ctype in ("string", "bytes"):
            strs = [v.decode("utf-8", "replace") for v in values]
            return np.array(strs[0]) if len(strs) == 1 else np.array(strs)
        arr = np.frombuffer(b"".join(values), np.uint8).copy()
        ctype = None if ctype == "uint8" else ctype
        if ctype is not None:
            raise ValueError(f"{who}: feature {name!r} holds bytes but the schema says {ctype}; use uint8 or string")
    else:
        arr = np.asarray(values, np.float32 if values and isinstance(values[0], float) else np.int64)
        if ctype is not None:
            arr = arr.astype(np.dtype(ctype))
    shape = None if col is None else col.get("shape")
    if shape:
        if -1 not in shape and int(np.prod(shape)) != arr.size:
            raise ValueError(f"{who}: feature {name!r} has {arr.size} values, which do not fit the schema's shape "
                             f"{list(shape)}")
        arr = arr.reshape(shape)
    return arr


class TFRecordDataset(_FileRowsSource):
    """``TFRecordDataset(dataset_files, schema=None, columns_list=None, num_samples=None,
    num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, shard_equal_rows=False,
    cache=None, compression_type=None)``: one row per ``tf.train.Example``. Columns: the ``schema``'s (a
    :class:`Schema` or a schema JSON file; each column's type and shape applied), else the features of the
    first example, sorted by name, as 1-D arrays (int64, float32, or uint8 for the bytes); ``columns_list``
    keeps and orders some. With ``num_shards``, ``shard_equal_rows`` gives every shard the same number of rows
    (contiguous, as the other file datasets); otherwise shard ``i`` reads the files ``i, i + num_shards, ...``
    (every shard needs a file: with fewer files than shards, rows are shared out equally)."""

    def __init__(self, dataset_files: str | Sequence[str], schema: Any = None,
                 columns_list: Sequence[str] | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, shard_equal_rows: bool = False,
                 cache: Any = None, compression_type: str | None = None) -> None:
        who = "TFRecordDataset"
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        if compression_type not in (None, "", "GZIP", "ZLIB"):
            raise ValueError(f"{who}: compression_type must be None, '', 'GZIP' or 'ZLIB', got {compression_type!r}")
        if not isinstance(shard_equal_rows, bool):
            raise TypeError(f"{who}: shard_equal_rows must be a bool, got {shard_equal_rows!r}")
        if isinstance(schema, (str, os.PathLike)):
            schema = Schema(os.fspath(schema))
        if schema is not None and not isinstance(schema, Schema):
            raise TypeError(f"{who}: schema must be a Schema or a schema JSON file, got {type(schema).__name__}")
        files = [RecordFile(path, compression_type or None) for path in find_files(who, dataset_files)]
        self._file_rows = [len(f) for f in files]
        cols = {c["name"]: c for c in schema.columns} if schema is not None else None
        first = next((f for f in files if len(f)), None)
        # Without a schema the columns are the first example's features, so that one is read now.
        names = list(cols) if cols is not None else \
            sorted(_parse(who, first.path, first.read(0))) if first is not None else []
        wanted = _column_list("columns_list", columns_list)
        if wanted:
            missing = [c for c in wanted if c not in names] if cols is not None or first is not None else []
            if missing:
                raise ValueError(f"{who}: columns_list names {missing}, which are not columns {names}")
            names = wanted
        self._names = names

        def decode(path: str, record: bytes) -> Row:
            feats = _parse(who, path, record)
            absent = [n for n in names if n not in feats]
            if absent:
                raise ValueError(f"{who}: an example in {path} has no feature {absent}")
            return tuple(_convert(who, n, _feature_values(feats[n]), None if cols is None else cols[n])
                         for n in names)

        if first is not None:
            decode(first.path, first.read(0))  # a schema that does not fit the data is refused at once
        self._data = _Rows(files, decode)
        self._by_file = bool(num_shards is not None and not shard_equal_rows and len(files) >= num_shards)

    def _blocks(self) -> list[np.ndarray]:
        if not self._by_file:
            return super()._blocks()
        starts = np.cumsum([0, *self._file_rows])
        return [np.arange(starts[k], starts[k + 1]) for k in range(self._shard_id, len(self._file_rows),
                                                                   self._num_shards) if starts[k + 1] > starts[k]]

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        if not (self._by_file and self._shuffle):
            yield from super()._rows(epoch, seed)
            return
        pool = np.concatenate(self._blocks() or [np.zeros(0, np.int64)])
        order = self._rng(epoch, seed).permutation(pool)
        for i in order[:self._num_samples] if self._num_samples else order:
            yield self._data[int(i)]

    def _size(self) -> int:
        if not self._by_file:
            return super()._size()
        n = sum(len(b) for b in self._blocks())
        return min(n, self._num_samples) if self._num_samples else n


__all__ = ["TFRecordDataset", "read_records"]
