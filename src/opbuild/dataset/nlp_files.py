"""Readers of annotated NLP corpora: ``CoNLL2000Dataset`` and ``UDPOSDataset`` (one token per line, sentences
ended by a blank line), ``SQuADDataset`` (question answering JSON) and ``Multi30kDataset`` (parallel lines),
with MindSpore's columns, dtypes and sampling rules (read from files as ``TextFileDataset``)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .readers import _check_dir
from .text_corpora import _need_file, _parts
from .text_files import Shuffle, _FileRowsSource, find_files


class _TaggedSentences(_FileRowsSource):
    """One row per sentence: a 1-D string array per column, from the first fields of each token line. As in
    MindSpore, a sentence counts once a blank line ends it (the text after the last blank line is left out)."""

    _COLUMNS: tuple[str, ...]
    _FILES: dict[str, str]
    _ALL_ORDER: tuple[str, ...]
    _SEP: str | None

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 num_parallel_workers: int | None = None, cache: Any = None) -> None:
        who = type(self).__name__
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        root = _check_dir(who, dataset_dir)
        self._names = list(self._COLUMNS)
        width = len(self._names)
        for part in _parts(who, usage, tuple(self._FILES), self._ALL_ORDER):
            path = _need_file(who, os.path.join(root, self._FILES[part]), usage)
            rows, tokens = [], []
            with open(path, encoding="utf-8") as f:
                for k, line in enumerate(f, 1):
                    line = line.rstrip("\r\n")
                    if not line.strip():
                        if tokens:
                            rows.append(tuple(np.array([t[c] for t in tokens]) for c in range(width)))
                            tokens = []
                        continue
                    fields = line.split(self._SEP)
                    if len(fields) < width:
                        raise ValueError(f"{who}: line {k} of {path} has {len(fields)} fields, expected {width} "
                                         f"({', '.join(self._names)})")
                    tokens.append(fields[:width])
            self._data += rows
            self._file_rows.append(len(rows))


class CoNLL2000Dataset(_TaggedSentences):
    """``CoNLL2000Dataset(dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
    shard_id=None, num_parallel_workers=None, cache=None)``: ``train.txt`` / ``test.txt``, lines ``word POS
    chunk`` split on single spaces; columns ``word``, ``pos_tag``, ``chunk_tag``."""

    _COLUMNS = ("word", "pos_tag", "chunk_tag")
    _FILES = {"train": "train.txt", "test": "test.txt"}
    _ALL_ORDER = ("test", "train")  # MindSpore's: the file names sorted
    _SEP = " "


class UDPOSDataset(_TaggedSentences):
    """``UDPOSDataset(dataset_dir, usage=None, ...)``: ``en-ud-tag.v2.<train|dev|test>.txt``, tab-separated
    lines ``word universal-tag stanford-tag``; columns ``word``, ``universal``, ``stanford``."""

    _COLUMNS = ("word", "universal", "stanford")
    _FILES = {"train": "en-ud-tag.v2.train.txt", "valid": "en-ud-tag.v2.dev.txt", "test": "en-ud-tag.v2.test.txt"}
    _ALL_ORDER = ("valid", "test", "train")  # the file names sorted (dev, test, train)
    _SEP = "\t"


class SQuADDataset(_FileRowsSource):
    """``SQuADDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)``: one row per question of
    ``train-v1.1.json`` / ``dev-v1.1.json`` (or the ``v2.0`` files): ``context``, ``question`` (strings),
    ``text`` (the answers, 1-D strings) and ``answer_start`` (uint32); a question without answers gives
    ``['']`` and ``[4294967295]``, as MindSpore."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "SQuADDataset"
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        root = _check_dir(who, dataset_dir)
        self._names = ["context", "question", "text", "answer_start"]
        for part in _parts(who, usage, ("train", "dev"), ("train", "dev")):
            found = [os.path.join(root, f"{part}-v{v}.json") for v in ("1.1", "2.0")]
            found = [p for p in found if os.path.isfile(p)]
            if not found:
                raise ValueError(f"{who}: no {part}-v1.1.json or {part}-v2.0.json in {root} (usage {usage!r})")
            rows = []
            for path in found:
                try:
                    with open(path, encoding="utf-8") as f:
                        doc = json.load(f)
                except json.JSONDecodeError as err:
                    raise ValueError(f"{who}: {path} is not JSON ({err})") from None
                for article in doc.get("data", []):
                    for para in article.get("paragraphs", []):
                        for qa in para.get("qas", []):
                            answers = qa.get("answers") or [{"text": "", "answer_start": -1}]
                            rows.append((np.array(para.get("context", "")), np.array(qa.get("question", "")),
                                         np.array([a.get("text", "") for a in answers]),
                                         np.array([a.get("answer_start", -1) for a in answers]).astype(np.uint32)))
            self._data += rows
            self._file_rows.append(len(rows))


_MULTI30K = {"train": ("training", "train"), "valid": ("validation", "val"), "test": ("mmt16_task1_test", "test")}


class Multi30kDataset(_FileRowsSource):
    """``Multi30kDataset(dataset_dir, usage=None, language_pair=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, num_shards=None, shard_id=None, cache=None)``: ``training/train``, ``validation/val`` and
    ``mmt16_task1_test/test`` ``.en`` and ``.de`` files, line by line: ``text`` (the first language of
    ``language_pair``, default ``['en', 'de']``) and ``translation`` (strings). 'all' (None) reads test,
    train, valid."""

    def __init__(self, dataset_dir: str, usage: str | None = None, language_pair: Sequence[str] | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None, shuffle: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "Multi30kDataset"
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        pair = ["en", "de"] if language_pair is None else list(language_pair)
        if sorted(pair) != ["de", "en"]:
            raise ValueError(f"{who}: language_pair must be ['en', 'de'] or ['de', 'en'], got {language_pair!r}")
        root = _check_dir(who, dataset_dir)
        self._names = ["text", "translation"]
        for part in _parts(who, usage, ("train", "valid", "test"), ("test", "train", "valid")):
            folder, stem = _MULTI30K[part]
            texts = []
            for lang in pair:
                path = _need_file(who, os.path.join(root, folder, f"{stem}.{lang}"), usage)
                with open(path, encoding="utf-8") as f:
                    texts.append([line.rstrip("\r\n") for line in f])
            if len(texts[0]) != len(texts[1]):
                raise ValueError(f"{who}: {folder}/{stem}.en and .de have different numbers of lines")
            rows = [(np.array(a), np.array(b)) for a, b in zip(*texts) if a or b]
            self._data += rows
            self._file_rows.append(len(rows))


# The fields of each CLUE task (train/eval; test has ``id`` or no ``label``), and those read as uint32.
_CLUE_FIELDS = {"AFQMC": ("label", "sentence1", "sentence2"), "CMNLI": ("label", "sentence1", "sentence2"),
                "TNEWS": ("keywords", "label", "label_desc", "sentence"), "IFLYTEK": ("label", "label_des", "sentence"),
                "WSC": ("idx", "label", "span1_index", "span1_text", "span2_index", "span2_text", "text"),
                "CSL": ("abst", "id", "keyword", "label")}
_CLUE_TEST = {"AFQMC": ("id", "sentence1", "sentence2"), "CMNLI": ("id", "sentence1", "sentence2"),
              "TNEWS": ("id", "keywords", "sentence"), "IFLYTEK": ("id", "sentence"),
              "WSC": ("idx", "span1_index", "span1_text", "span2_index", "span2_text", "text"),
              "CSL": ("abst", "id", "keyword")}
_CLUE_INTS = {"id", "idx", "span1_index", "span2_index"}


class CLUEDataset(_FileRowsSource):
    """``CLUEDataset(dataset_files, task='AFQMC', usage='train', num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)``: JSON lines of a CLUE task ('AFQMC',
    'TNEWS', 'IFLYTEK', 'CMNLI', 'WSC', 'CSL'), the task's fields as columns in sorted order (WSC's ``target``
    spans flattened): strings, ``id``/``idx``/span indexes uint32, CSL's ``keyword`` a 1-D string array.
    ``usage`` 'train', 'eval' or 'test' (test files have ``id`` and no ``label``)."""

    def __init__(self, dataset_files: str | Sequence[str], task: str = "AFQMC", usage: str = "train",
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "CLUEDataset"
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        if task not in _CLUE_FIELDS:
            raise ValueError(f"{who}: task must be one of {list(_CLUE_FIELDS)}, got {task!r}")
        if usage not in ("train", "eval", "test"):
            raise ValueError(f"{who}: usage must be 'train', 'eval' or 'test', got {usage!r}")
        self._names = list((_CLUE_TEST if usage == "test" else _CLUE_FIELDS)[task])
        for path in find_files(who, dataset_files):
            rows = []
            with open(path, encoding="utf-8") as f:
                for k, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    try:
                        obj = json.loads(line)
                    except json.JSONDecodeError as err:
                        raise ValueError(f"{who}: line {k} of {path} is not JSON ({err})") from None
                    if task == "WSC" and isinstance(obj.get("target"), dict):
                        obj = {**obj, **obj["target"]}
                    missing = [n for n in self._names if n not in obj]
                    if missing:
                        raise ValueError(f"{who}: line {k} of {path} has no {missing} (task {task!r}, usage {usage!r})")
                    rows.append(tuple(self._value(n, obj[n]) for n in self._names))
            self._data += rows
            self._file_rows.append(len(rows))

    @staticmethod
    def _value(name: str, value: Any) -> np.ndarray:
        if name in _CLUE_INTS:
            return np.asarray(int(value), np.uint32)
        if isinstance(value, list):
            return np.array([str(v) for v in value])
        return np.array(value if isinstance(value, str) else json.dumps(value))


__all__ = ["CoNLL2000Dataset", "UDPOSDataset", "SQuADDataset", "Multi30kDataset", "CLUEDataset"]
