"""Readers of the text corpora MindSpore knows by name: the CSV news/review sets (``AGNewsDataset``,
``AmazonReviewDataset``, ``DBpediaDataset``, ``SogouNewsDataset``, ``YahooAnswersDataset``,
``YelpReviewDataset``: ``<usage>.csv`` without a header, string columns), the line corpora
(``PennTreebankDataset``, ``WikiTextDataset``, ``EnWik9Dataset``) and ``IMDBDataset`` (one review per file),
with MindSpore's columns, split order and sampling rules (those read from files as ``TextFileDataset``)."""

from __future__ import annotations

import csv
import os
from typing import Any

import numpy as np

from .core import Row
from .readers import _check_dir
from .sources import _RandomAccessSource
from .text_files import Shuffle, _FileRowsSource


def _parts(who: str, usage: str | None, allowed: tuple[str, ...], all_order: tuple[str, ...]) -> list[str]:
    usage = "all" if usage is None else usage
    if usage not in (*allowed, "all"):
        raise ValueError(f"{who}: usage must be one of {[*allowed, 'all']}, got {usage!r}")
    return list(all_order) if usage == "all" else [usage]


def _need_file(who: str, path: str, usage: Any) -> str:
    if not os.path.isfile(path):
        raise ValueError(f"{who}: {path} not found (needed for usage {usage!r})")
    return path


class _CsvCorpus(_FileRowsSource):
    """``<usage>.csv`` files without a header, every field a string column."""

    _COLUMNS: tuple[str, ...]
    _ALL_ORDER: tuple[str, ...] = ("test", "train")  # MindSpore's file order for usage 'all'

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = type(self).__name__
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        root = _check_dir(who, dataset_dir)
        self._names = list(self._COLUMNS)
        for part in _parts(who, usage, ("train", "test"), self._ALL_ORDER):
            path = _need_file(who, os.path.join(root, f"{part}.csv"), usage)
            with open(path, encoding="utf-8", newline="") as f:
                records = [r for r in csv.reader(f) if r]
            for k, r in enumerate(records):
                if len(r) != len(self._names):
                    raise ValueError(f"{who}: record {k} of {path} has {len(r)} fields, expected {len(self._names)} "
                                     f"({', '.join(self._names)})")
                self._data.append(tuple(np.array(v) for v in r))
            self._file_rows.append(len(records))


class AGNewsDataset(_CsvCorpus):
    """``AGNewsDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)``: ``train.csv`` / ``test.csv``;
    columns ``index``, ``title``, ``description`` (strings)."""

    _COLUMNS = ("index", "title", "description")


class AmazonReviewDataset(_CsvCorpus):
    """``AmazonReviewDataset(dataset_dir, usage=None, ...)``: columns ``label``, ``title``, ``content``."""

    _COLUMNS = ("label", "title", "content")


class DBpediaDataset(_CsvCorpus):
    """``DBpediaDataset(dataset_dir, usage=None, ...)``: columns ``class``, ``title``, ``content``."""

    _COLUMNS = ("class", "title", "content")


class SogouNewsDataset(_CsvCorpus):
    """``SogouNewsDataset(dataset_dir, usage=None, ...)``: columns ``index``, ``title``, ``content``; 'all'
    reads train before test, as MindSpore."""

    _COLUMNS = ("index", "title", "content")
    _ALL_ORDER = ("train", "test")


class YahooAnswersDataset(_CsvCorpus):
    """``YahooAnswersDataset(dataset_dir, usage=None, ...)``: columns ``class``, ``title``, ``content``,
    ``answer``."""

    _COLUMNS = ("class", "title", "content", "answer")


class YelpReviewDataset(_CsvCorpus):
    """``YelpReviewDataset(dataset_dir, usage=None, ...)``: columns ``label``, ``text``; 'all' reads train
    before test, as MindSpore."""

    _COLUMNS = ("label", "text")
    _ALL_ORDER = ("train", "test")


class _LineCorpus(_FileRowsSource):
    """One ``text`` row per line of the split files (empty lines skipped unless ``_KEEP_EMPTY``)."""

    _PATTERN: str
    _KEEP_EMPTY = False

    def _read(self, paths: list[str]) -> None:
        self._names = ["text"]
        for path in paths:
            with open(path, encoding="utf-8", newline="") as f:
                lines = f.read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()  # the text after the last line break
            rows = [(np.array(t),) for t in lines if t or self._KEEP_EMPTY]
            self._data += rows
            self._file_rows.append(len(rows))

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = type(self).__name__
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        root = _check_dir(who, dataset_dir)
        parts = _parts(who, usage, ("train", "valid", "test"), ("test", "train", "valid"))
        self._read([_need_file(who, os.path.join(root, self._PATTERN.format(p)), usage) for p in parts])


class PennTreebankDataset(_LineCorpus):
    """``PennTreebankDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)``: ``ptb.<train|valid|test>.txt``,
    one ``text`` row per non-empty line."""

    _PATTERN = "ptb.{}.txt"


class WikiTextDataset(_LineCorpus):
    """``WikiTextDataset(dataset_dir, usage=None, ...)``: ``wiki.<train|valid|test>.tokens``, one ``text``
    row per non-empty line."""

    _PATTERN = "wiki.{}.tokens"


class EnWik9Dataset(_LineCorpus):
    """``EnWik9Dataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True, num_shards=None,
    shard_id=None, cache=None)``: the file ``enwik9``, one ``text`` row per line, empty lines included (as
    MindSpore reads them)."""

    _KEEP_EMPTY = True

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: Any = True, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "EnWik9Dataset"
        _FileRowsSource.__init__(self, who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        root = _check_dir(who, dataset_dir)
        self._read([_need_file(who, os.path.join(root, "enwik9"), None)])


class IMDBDataset(_RandomAccessSource):
    """``IMDBDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: one row per file of ``<usage>/pos`` and
    ``<usage>/neg`` (in that order, files sorted): ``text`` (the file, a string) and ``label`` (int32: 1
    positive, 0 negative); 'all' (None) reads train, then test."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "IMDBDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        root = _check_dir(who, dataset_dir)
        self._files: list[tuple[str, int]] = []
        for part in _parts(who, usage, ("train", "test"), ("train", "test")):
            for folder, label in (("pos", 1), ("neg", 0)):
                d = os.path.join(root, part, folder)
                if not os.path.isdir(d):
                    raise ValueError(f"{who}: folder {d} not found (usage {usage!r} reads {part}/pos and {part}/neg)")
                self._files += [(os.path.join(d, n), label) for n in sorted(os.listdir(d))
                                if os.path.isfile(os.path.join(d, n))]

    def _column_names(self) -> list[str]:
        return ["text", "label"]

    def _num_rows(self) -> int:
        return len(self._files)

    def _row(self, index: int) -> Row:
        path, label = self._files[index]
        with open(path, encoding="utf-8") as f:
            return np.array(f.read()), np.asarray(label, np.int32)


class SST2Dataset(_FileRowsSource):
    """``SST2Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)``: ``<usage>.tsv`` ('train', 'dev' or
    'test'; None: 'train') after its header line: ``sentence`` and ``label`` (strings), or for 'test' only
    ``sentence`` (its index column left out, as MindSpore)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "SST2Dataset"
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        usage = "train" if usage is None else usage
        if usage not in ("train", "dev", "test"):
            raise ValueError(f"{who}: usage must be 'train', 'dev' or 'test', got {usage!r}")
        path = _need_file(who, os.path.join(_check_dir(who, dataset_dir), f"{usage}.tsv"), usage)
        with open(path, encoding="utf-8", newline="") as f:
            lines = [line.rstrip("\r\n") for line in f][1:]
        self._names = ["sentence"] if usage == "test" else ["sentence", "label"]
        for k, line in enumerate(lines, 2):
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) != 2:
                raise ValueError(f"{who}: line {k} of {path} has {len(fields)} tab-separated fields, expected 2")
            self._data.append((np.array(fields[1]),) if usage == "test" else tuple(np.array(v) for v in fields))
        self._file_rows.append(len(self._data))


__all__ = ["AGNewsDataset", "AmazonReviewDataset", "DBpediaDataset", "SogouNewsDataset", "YahooAnswersDataset",
           "YelpReviewDataset", "PennTreebankDataset", "WikiTextDataset", "EnWik9Dataset", "IMDBDataset", "SST2Dataset"]
