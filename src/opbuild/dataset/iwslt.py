"""Readers of the IWSLT 2016 and 2017 TED translation corpora (``IWSLT2016Dataset``, ``IWSLT2017Dataset``):
the training ``train.tags.<src>-<tgt>.<lang>`` line files (lines with metadata tags left out) and the
``IWSLT1x.TED.<set>.<src>-<tgt>.<lang>.xml`` development/test files (the ``<seg>`` elements of each
``<doc>``), paired line by line into ``text`` and ``translation`` string rows, sampled as MindSpore samples
its text files. Unlike MindSpore, nothing is written into ``dataset_dir``."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

import numpy as np

from .readers import _check_dir
from .text_files import Shuffle, _FileRowsSource

# Lines of the training files that carry talk metadata rather than a sentence.
_TAGS = ("<url", "<keywords", "<talkid", "<description", "<reviewer", "<translator", "<title", "<speaker", "<doc",
         "</doc")
_PAIRS_2016 = (("en", "ar"), ("en", "de"), ("en", "fr"), ("en", "cs"), ("ar", "en"), ("fr", "en"), ("de", "en"),
               ("cs", "en"))
_PAIRS_2017 = tuple((a, b) for a in ("en", "de", "it", "nl", "ro") for b in ("en", "de", "it", "nl", "ro") if a != b)
_SETS_2016 = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014")


def _strip_spaces(who: str, text: str, path: str) -> str:
    if not text:
        raise RuntimeError(f"{who}: {path} has an empty line or segment, which MindSpore refuses too")
    return text.strip(" ")


def _tag_pairs(who: str, src: str, tgt: str) -> list[tuple[str, str]]:
    """The sentence pairs of two training files, line by line, tag lines left out."""
    for path in (src, tgt):
        if not os.path.isfile(path):
            raise RuntimeError(f"{who}: {path} not found")
    with open(src, encoding="utf-8", newline="\n") as f:
        src_lines = f.read().split("\n")
    with open(tgt, encoding="utf-8", newline="\n") as f:
        tgt_lines = f.read().split("\n")
    # A final newline ends the last line; it does not start an empty one.
    src_lines = src_lines[:-1] if src_lines and src_lines[-1] == "" else src_lines
    tgt_lines = tgt_lines[:-1] if tgt_lines and tgt_lines[-1] == "" else tgt_lines
    # The files are translations line by line: different counts mean they do not belong together, and zip
    # would pair sentences (all of them after a missing line) with another one's translation.
    if len(src_lines) != len(tgt_lines):
        raise RuntimeError(f"{who}: {src} has {len(src_lines)} lines but {tgt} has {len(tgt_lines)}; the training "
                           "files of a language pair are line-by-line translations (download them again)")
    pairs = []
    for a, b in zip(src_lines, tgt_lines, strict=True):
        if not any(t in a for t in _TAGS) and not any(t in b for t in _TAGS):
            pairs.append((_strip_spaces(who, a, src), _strip_spaces(who, b, tgt)))
    return pairs


def _segments(who: str, path: str) -> list[list[str]]:
    """Per ``<doc>`` (the children of the root's first element from its first ``doc`` on), the texts of its
    first ``<seg>`` and every element after it."""
    if not os.path.isfile(path):
        raise RuntimeError(f"{who}: {path} not found")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise RuntimeError(f"{who}: {path} is not an XML file ({e})") from None
    first = next(iter(root), None)
    children = list(first) if first is not None else []
    start = next((i for i, c in enumerate(children) if c.tag == "doc"), None)
    if start is None:
        raise RuntimeError(f"{who}: {path} has no <doc> element under its root's first element")
    docs = []
    for doc in children[start:]:
        elements = list(doc)
        k = next((i for i, c in enumerate(elements) if c.tag == "seg"), len(elements))
        docs.append([_strip_spaces(who, e.text or "", path) for e in elements[k:]])
    return docs


def _xml_pairs(who: str, src: str, tgt: str) -> list[tuple[str, str]]:
    src_docs, tgt_docs = _segments(who, src), _segments(who, tgt)
    if len(src_docs) != len(tgt_docs):  # as for the training files: a missing one would shift every later pair
        raise RuntimeError(f"{who}: {src} holds {len(src_docs)} documents but {tgt} holds {len(tgt_docs)}; they "
                           "are translations document by document (download them again)")
    for k, (a, b) in enumerate(zip(src_docs, tgt_docs, strict=True), 1):
        if len(a) != len(b):
            raise RuntimeError(f"{who}: document {k} holds {len(a)} segments in {src} but {len(b)} in {tgt}; they "
                               "are translations segment by segment (download them again)")
    pairs = []
    for a, b in zip(src_docs, tgt_docs, strict=True):
        pairs += list(zip(a, b, strict=True))
    return pairs


def _language_pair(who: str, pair: Any, allowed: tuple) -> tuple[str, str]:
    if pair is None:
        return "de", "en"
    if not isinstance(pair, (list, tuple)):
        raise TypeError(f"{who}: language_pair must be a list or tuple of 2 strings, got {type(pair).__name__}")
    if tuple(pair) not in allowed:
        raise ValueError(f"{who}: language_pair must be one of {[list(p) for p in allowed]}, got {list(pair)}")
    return pair[0], pair[1]


def _choice(who: str, name: str, value: Any, allowed: Sequence[str], default: str) -> str:
    value = default if value is None else value
    if not isinstance(value, str):
        raise TypeError(f"{who}: {name} must be a str, got {type(value).__name__}")
    if value not in allowed:
        raise ValueError(f"{who}: {name} must be one of {list(allowed)}, got {value!r}")
    return value


class _IWSLT(_FileRowsSource):
    """Rows of (``text``, ``translation``) from the files of one corpus: train, valid, test ('all')."""

    def _read(self, who: str, folder: str, prefix: str, usage: str, pair: tuple[str, str], valid_set: str,
              test_set: str) -> None:
        self._names = ["text", "translation"]
        src, tgt = pair
        parts = []
        if usage in ("train", "all"):
            parts.append(_tag_pairs(who, *(os.path.join(folder, f"train.tags.{src}-{tgt}.{lang}")
                                           for lang in pair)))
        for part, chosen in (("valid", valid_set), ("test", test_set)):
            if usage in (part, "all"):
                parts.append(_xml_pairs(who, *(os.path.join(folder, f"{prefix}.TED.{chosen}.{src}-{tgt}.{lang}.xml")
                                               for lang in pair)))
        for pairs in parts:
            # MindSpore drops a pair whose translation is empty (its line splits into one field).
            rows = [(np.array(a), np.array(b)) for a, b in pairs if b]
            self._data += rows
            self._file_rows.append(len(rows))
        if not self._data:
            raise RuntimeError(f"{who}: no sentence pair found for usage {usage!r} in {folder}")


class IWSLT2016Dataset(_IWSLT):
    """``IWSLT2016Dataset(dataset_dir, usage=None, language_pair=None, valid_set=None, test_set=None,
    num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, num_parallel_workers=None,
    cache=None)``: files in ``texts/<src>/<tgt>/<src>-<tgt>/``; ``usage`` 'train', 'valid', 'test' or 'all'
    (None); ``language_pair`` (None: ('de', 'en')); ``valid_set`` (None: 'tst2013') and ``test_set`` (None:
    'tst2014') among 'dev2010', 'tst2010' ... 'tst2014'."""

    def __init__(self, dataset_dir: str, usage: str | None = None, language_pair: Sequence[str] | None = None,
                 valid_set: str | None = None, test_set: str | None = None, num_samples: int | None = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None, shard_id: int | None = None,
                 num_parallel_workers: int | None = None, cache: Any = None) -> None:
        who = "IWSLT2016Dataset"
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        root = _check_dir(who, dataset_dir)
        usage = _choice(who, "usage", usage, ("train", "valid", "test", "all"), "all")
        pair = _language_pair(who, language_pair, _PAIRS_2016)
        valid_set = _choice(who, "valid_set", valid_set, _SETS_2016, "tst2013")
        test_set = _choice(who, "test_set", test_set, _SETS_2016, "tst2014")
        folder = os.path.join(root, "texts", pair[0], pair[1], f"{pair[0]}-{pair[1]}")
        self._read(who, folder, "IWSLT16", usage, pair, valid_set, test_set)


class IWSLT2017Dataset(_IWSLT):
    """``IWSLT2017Dataset(dataset_dir, usage=None, language_pair=None, num_samples=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, num_parallel_workers=None, cache=None)``: files
    in ``texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo/``; the valid set is 'dev2010', the test set
    'tst2010'; ``language_pair`` any two of de, en, it, nl, ro (None: ('de', 'en'))."""

    def __init__(self, dataset_dir: str, usage: str | None = None, language_pair: Sequence[str] | None = None,
                 num_samples: int | None = None, shuffle: Any = Shuffle.GLOBAL, num_shards: int | None = None,
                 shard_id: int | None = None, num_parallel_workers: int | None = None, cache: Any = None) -> None:
        who = "IWSLT2017Dataset"
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        root = _check_dir(who, dataset_dir)
        usage = _choice(who, "usage", usage, ("train", "valid", "test", "all"), "all")
        pair = _language_pair(who, language_pair, _PAIRS_2017)
        folder = os.path.join(root, "texts", "DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo")
        self._read(who, folder, "IWSLT17", usage, pair, "dev2010", "tst2010")


__all__ = ["IWSLT2016Dataset", "IWSLT2017Dataset"]
