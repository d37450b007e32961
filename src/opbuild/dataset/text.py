"""``mindspore.dataset.text``: string transforms on NumPy string arrays (in ``Dataset.map`` or eagerly) with
MindSpore's names and outputs: token edits (``AddToken``, ``Truncate``, ``TruncateSequencePair``, ``Ngram``,
``SlidingWindow``, ``ToNumber``, ``CaseFold``, ``NormalizeUTF8``, ``RegexReplace``), tokenizers (whitespace,
regex, unicode characters, Python callables, BERT's basic/wordpiece/full; ``with_offsets`` gives UTF-8 byte
offsets as uint32), ``Vocab`` with ``Lookup``, and ``to_bytes``/``to_str``."""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def _strings(x: Any) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind == "S":
        arr = np.char.decode(arr, "utf-8")
    if arr.dtype.kind != "U":
        raise TypeError(f"the input must be strings, got {arr.dtype}")
    return arr


def _str_array(items: Sequence[str]) -> np.ndarray:
    return np.array(list(items), dtype=str) if len(items) else np.array([], dtype="<U1")


class NormalizeForm(enum.IntEnum):
    """Unicode normalisation forms."""

    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


class JiebaMode(enum.IntEnum):
    """Jieba segmentation modes (named for MindSpore's API; no Jieba tokenizer here)."""

    MIX = 0
    MP = 1
    HMM = 2


class SPieceTokenizerOutType(enum.IntEnum):
    """SentencePiece output types (named for MindSpore's API)."""

    STRING = 0
    INT = 1


class AddToken:
    """``AddToken(token, begin=True)``: ``token`` added before (or after) a 1-D string array."""

    def __init__(self, token: str, begin: bool = True) -> None:
        self.token, self.begin = str(token), bool(begin)

    def __call__(self, x: Any) -> np.ndarray:
        arr = list(_strings(x).ravel())
        return _str_array([self.token] + arr if self.begin else arr + [self.token])


class Truncate:
    """``Truncate(max_seq_len)``: the first ``max_seq_len`` elements of a 1-D (or the last axis of a 2-D)
    array."""

    def __init__(self, max_seq_len: int) -> None:
        if max_seq_len <= 0:
            raise ValueError(f"Truncate: max_seq_len must be positive, got {max_seq_len}")
        self.n = int(max_seq_len)

    def __call__(self, x: Any) -> np.ndarray:
        return np.asarray(x)[..., :self.n]


class TruncateSequencePair:
    """``TruncateSequencePair(max_length)``: cut the longer of two sequences until their total fits."""

    def __init__(self, max_length: int) -> None:
        self.n = int(max_length)

    def __call__(self, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        a, b = np.asarray(a), np.asarray(b)
        la, lb = len(a), len(b)
        while la + lb > self.n:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la], b[:lb]


class Ngram:
    """``Ngram(n, left_pad=('', 0), right_pad=('', 0), separator=' ')``: the n-grams of a 1-D string
    array for each n in ``n``, joined by ``separator`` (padded by at most n - 1 tokens each side)."""

    def __init__(self, n: int | Sequence[int], left_pad=("", 0), right_pad=("", 0), separator: str = " ") -> None:
        self.ns = [n] if isinstance(n, int) else list(n)
        if any(k <= 0 for k in self.ns):
            raise ValueError(f"Ngram: n must be positive, got {n!r}")
        self.left, self.right, self.sep = tuple(left_pad), tuple(right_pad), separator

    def __call__(self, x: Any) -> np.ndarray:
        words = list(_strings(x).ravel())
        out: list[str] = []
        for k in self.ns:
            # Each side is padded by at most n - 1 tokens for the n-grams of size n, as MindSpore pads.
            seq = [self.left[0]] * min(self.left[1], k - 1) + words + [self.right[0]] * min(self.right[1], k - 1)
            out += [self.sep.join(seq[i:i + k]) for i in range(len(seq) - k + 1)]
        return _str_array(out if out else [""])


class SlidingWindow:
    """``SlidingWindow(width, axis=0)``: the windows of ``width`` consecutive elements of a 1-D array."""

    def __init__(self, width: int, axis: int = 0) -> None:
        if width <= 0:
            raise ValueError(f"SlidingWindow: width must be positive, got {width}")
        self.width, self.axis = int(width), int(axis)

    def __call__(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        n = arr.shape[self.axis] - self.width + 1
        if n <= 0:
            return np.empty((0, self.width), arr.dtype)
        return np.stack([np.take(arr, range(i, i + self.width), axis=self.axis) for i in range(n)], self.axis)


class ToNumber:
    """``ToNumber(data_type)``: strings parsed as numbers of ``data_type`` (a MindSpore dtype)."""

    def __init__(self, data_type: Any) -> None:
        self.dtype = np.dtype(getattr(data_type, "np_dtype", data_type))

    def __call__(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        try:
            values = np.array([float(s) if self.dtype.kind == "f" else int(s) for s in arr.ravel()])
        except ValueError as e:
            raise RuntimeError(f"ToNumber: a string is not a number: {e}") from None
        info = np.finfo(self.dtype) if self.dtype.kind == "f" else np.iinfo(self.dtype)
        if values.size and (values.min() < info.min or values.max() > info.max):
            raise RuntimeError(f"ToNumber: a value is out of the range of {self.dtype}")
        return values.astype(self.dtype).reshape(arr.shape)


class CaseFold:
    """``CaseFold()``: Unicode case folding."""

    def __call__(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        return np.array([s.casefold() for s in arr.ravel()], dtype=str).reshape(arr.shape)


class NormalizeUTF8:
    """``NormalizeUTF8(normalize_form=NormalizeForm.NFKC)``: Unicode normalisation."""

    def __init__(self, normalize_form: NormalizeForm = NormalizeForm.NFKC) -> None:
        self.form = NormalizeForm(normalize_form)

    def __call__(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        if self.form == NormalizeForm.NONE:
            return arr
        return np.array([unicodedata.normalize(self.form.name, s) for s in arr.ravel()], dtype=str).reshape(arr.shape)


class RegexReplace:
    """``RegexReplace(pattern, replace, replace_all=True)``: substitute ``pattern`` by ``replace``."""

    def __init__(self, pattern: str, replace: str, replace_all: bool = True) -> None:
        self.re, self.replace, self.count = re.compile(pattern), replace, 0 if replace_all else 1

    def __call__(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        return np.array([self.re.sub(self.replace, s, count=self.count) for s in arr.ravel()],
                        dtype=str).reshape(arr.shape)


def _utf8_offsets(text: str, spans: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    starts = [len(text[:a].encode("utf-8")) for a, _ in spans]
    limits = [len(text[:b].encode("utf-8")) for _, b in spans]
    return np.array(starts, np.uint32), np.array(limits, np.uint32)


class _Tokenizer:
    with_offsets = False

    def _spans(self, text: str) -> list[tuple[int, int]]:
        raise NotImplementedError

    def __call__(self, x: Any):
        arr = _strings(x)
        if arr.ndim != 0:
            if arr.size != 1:
                raise TypeError(f"{type(self).__name__}: the input must be one string, got shape {arr.shape}")
            arr = arr.reshape(())
        text = str(arr)
        spans = self._spans(text)
        tokens = _str_array([text[a:b] for a, b in spans])
        if not self.with_offsets:
            return tokens
        return (tokens, *_utf8_offsets(text, spans))


class WhitespaceTokenizer(_Tokenizer):
    """``WhitespaceTokenizer(with_offsets=False)``: split on ICU whitespace."""

    def __init__(self, with_offsets: bool = False) -> None:
        self.with_offsets = bool(with_offsets)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in re.finditer(r"\S+", text)]


class UnicodeCharTokenizer(_Tokenizer):
    """``UnicodeCharTokenizer(with_offsets=False)``: one token per character."""

    def __init__(self, with_offsets: bool = False) -> None:
        self.with_offsets = bool(with_offsets)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        return [(i, i + 1) for i in range(len(text))]


class RegexTokenizer(_Tokenizer):
    """``RegexTokenizer(delim_pattern, keep_delim_pattern='', with_offsets=False)``: split at matches of
    ``delim_pattern``; delimiters that also match ``keep_delim_pattern`` are kept as tokens."""

    def __init__(self, delim_pattern: str, keep_delim_pattern: str = "", with_offsets: bool = False) -> None:
        self.delim, self.keep, self.with_offsets = re.compile(delim_pattern), keep_delim_pattern, bool(with_offsets)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        spans, pos = [], 0
        for m in self.delim.finditer(text):
            if m.start() > pos:
                spans.append((pos, m.start()))
            if self.keep and re.fullmatch(self.keep, m.group()) and m.end() > m.start():
                spans.append(m.span())
            pos = m.end()
        if pos < len(text):
            spans.append((pos, len(text)))
        return spans


class PythonTokenizer:
    """``PythonTokenizer(tokenizer)``: tokens from a Python callable on the string."""

    def __init__(self, tokenizer: Callable[[str], Sequence[str]]) -> None:
        if not callable(tokenizer):
            raise TypeError("PythonTokenizer: tokenizer must be callable")
        self.tokenizer = tokenizer

    def __call__(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        return _str_array(list(self.tokenizer(str(arr.reshape(()) if arr.size == 1 else arr))))


def to_bytes(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A string array encoded to bytes."""
    return np.char.encode(_strings(array), encoding)


def to_str(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A bytes array decoded to strings."""
    arr = np.asarray(array)
    if arr.dtype.kind != "S":
        raise TypeError(f"to_str: the input must be a bytes array, got {arr.dtype}")
    return np.char.decode(arr, encoding)


from .text_vocab import (  # noqa: E402 - the vocabulary and BERT tokenizers, re-exported here
    BasicTokenizer,
    BertTokenizer,
    Lookup,
    Vocab,
    WordpieceTokenizer,
)

__all__ = ["NormalizeForm", "JiebaMode", "SPieceTokenizerOutType", "AddToken", "Truncate", "TruncateSequencePair",
           "Ngram", "SlidingWindow", "ToNumber", "CaseFold", "NormalizeUTF8", "RegexReplace", "WhitespaceTokenizer",
           "UnicodeCharTokenizer", "RegexTokenizer", "PythonTokenizer", "to_bytes", "to_str", "Vocab", "Lookup",
           "BasicTokenizer", "WordpieceTokenizer", "BertTokenizer"]
