"""String and sequence transforms of ``mindspore.dataset.text``: ``AddToken``, ``CaseFold``,
``NormalizeUTF8``, ``RegexReplace``, ``FilterWikipediaXML``, ``Ngram``, ``SlidingWindow``, ``Truncate``,
``TruncateSequencePair``, and ``to_str``/``to_bytes``."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._common import NormalizeForm, str_array, strings

# MindSpore's text.transforms module holds the tokenizers and the vocabulary/vector operations too.
from .sentencepiece import SentencePieceTokenizer, SPieceTokenizerLoadType, SPieceTokenizerOutType
from .tokenizers import (
    BasicTokenizer,
    BertTokenizer,
    JiebaTokenizer,
    PythonTokenizer,
    RegexTokenizer,
    UnicodeCharTokenizer,
    UnicodeScriptTokenizer,
    WhitespaceTokenizer,
    WordpieceTokenizer,
)
from .vectors import ToVectors
from .vocab import Lookup, ToNumber

_FORMS = {NormalizeForm.NFC: "NFC", NormalizeForm.NFKC: "NFKC", NormalizeForm.NFD: "NFD",
          NormalizeForm.NFKD: "NFKD"}


def _map_strings(who: str, data: Any, fn: Any) -> np.ndarray:
    arr = strings(who, data)
    if arr.ndim == 0:
        return np.array(fn(str(arr)))
    out = [fn(str(s)) for s in arr.reshape(-1)]
    return np.array(out, dtype=str).reshape(arr.shape) if out else arr


class AddToken:
    """``AddToken(token, begin=True)``: ``token`` added before (``begin``) or after a 1-D token array."""

    def __init__(self, token: str, begin: bool = True) -> None:
        self.token, self.begin = str(token), bool(begin)

    def __call__(self, data: Any) -> np.ndarray:
        arr = strings("AddToken", data)
        if arr.ndim != 1:
            raise ValueError(f"AddToken: the input must be a 1-D array of tokens, got shape {arr.shape}")
        items = [str(s) for s in arr]
        return str_array([self.token, *items] if self.begin else [*items, self.token])


class CaseFold:
    """``CaseFold()``: Unicode case folding of every string."""

    def __call__(self, data: Any) -> np.ndarray:
        return _map_strings("CaseFold", data, str.casefold)


class NormalizeUTF8:
    """``NormalizeUTF8(normalize_form=NormalizeForm.NFKC)``: Unicode normalization of every string."""

    def __init__(self, normalize_form: NormalizeForm = NormalizeForm.NFKC) -> None:
        self.form = NormalizeForm(normalize_form)

    def __call__(self, data: Any) -> np.ndarray:
        if self.form == NormalizeForm.NONE:
            return strings("NormalizeUTF8", data)
        return _map_strings("NormalizeUTF8", data, lambda s: unicodedata.normalize(_FORMS[self.form], s))


class RegexReplace:
    """``RegexReplace(pattern, replace, replace_all=True)``: replace matches of ``pattern`` (all, or the
    first) by ``replace`` (``$1`` refers to a group, as in ICU)."""

    def __init__(self, pattern: str, replace: str, replace_all: bool = True) -> None:
        try:
            self.pattern = re.compile(pattern)
        except re.error as e:
            raise ValueError(f"RegexReplace: invalid pattern {pattern!r} ({e})") from None
        self.replace = re.sub(r"\$(\d+)", r"\\g<\1>", str(replace).replace("\\", "\\\\"))
        self.count = 0 if replace_all else 1

    def __call__(self, data: Any) -> np.ndarray:
        return _map_strings("RegexReplace", data, lambda s: self.pattern.sub(self.replace, s, count=self.count))


_DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def _wiki_clean(s: str) -> str:
    """fastText's wikifil cleaning: markup dropped, digits spelled out, letters lower-cased, everything else
    a single space."""
    s = re.sub(r"<[^>]*>", "", s)
    s = re.sub(r"\[\[[^\]|]*\|", "[[", s)
    s = re.sub(r"\{\{[^}]*\}\}", "", s)
    s = re.sub(r"https?://\S+", "", s)
    s = "".join(f" {_DIGITS[int(c)]} " if c.isdigit() and c.isascii() else c for c in s.lower())
    return " ".join(re.sub(r"[^a-z]", " ", s).split())


class FilterWikipediaXML:
    """``FilterWikipediaXML()``: Wikipedia XML dump text cleaned to lower-case words (markup removed, digits
    spelled out, other characters as spaces)."""

    def __call__(self, data: Any) -> np.ndarray:
        return _map_strings("FilterWikipediaXML", data, _wiki_clean)


class Ngram:
    """``Ngram(n, left_pad=('', 0), right_pad=('', 0), separator=' ')``: the n-grams (for each n in ``n``)
    of a 1-D token array, joined by ``separator``, after padding each side with up to n - 1 pad tokens."""

    def __init__(self, n: int | Sequence[int], left_pad: tuple[str, int] = ("", 0),
                 right_pad: tuple[str, int] = ("", 0), separator: str = " ") -> None:
        ns = [n] if isinstance(n, int) else list(n)
        if not ns or any(isinstance(k, bool) or not isinstance(k, int) or k <= 0 for k in ns):
            raise ValueError(f"Ngram: n must be a positive int or a list of them, got {n!r}")
        for name, pad in (("left_pad", left_pad), ("right_pad", right_pad)):
            if not (isinstance(pad, (tuple, list)) and len(pad) == 2 and isinstance(pad[1], int) and pad[1] >= 0):
                raise ValueError(f"Ngram: {name} must be a (token, width >= 0) pair, got {pad!r}")
        self.ns, self.left, self.right, self.sep = ns, tuple(left_pad), tuple(right_pad), str(separator)

    def __call__(self, data: Any) -> np.ndarray:
        arr = strings("Ngram", data)
        if arr.ndim != 1:
            raise ValueError(f"Ngram: the input must be a 1-D array of tokens, got shape {arr.shape}")
        words = [str(s) for s in arr]
        out: list[str] = []
        for n in self.ns:
            seq = [self.left[0]] * min(self.left[1], n - 1) + words + [self.right[0]] * min(self.right[1], n - 1)
            out += [self.sep.join(seq[i:i + n]) for i in range(len(seq) - n + 1)]
        return str_array(out or [""])


class SlidingWindow:
    """``SlidingWindow(width, axis=0)``: the windows of ``width`` consecutive elements along ``axis`` of a
    1-D array, stacked -> (count, width)."""

    def __init__(self, width: int, axis: int = 0) -> None:
        if isinstance(width, bool) or not isinstance(width, int) or width <= 0:
            raise ValueError(f"SlidingWindow: width must be a positive int, got {width!r}")
        self.width, self.axis = width, int(axis)

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        if arr.ndim != 1 or self.axis not in (0, -1):
            raise ValueError(f"SlidingWindow: only 1-D inputs along axis 0 are supported, got shape {arr.shape} "
                             f"and axis {self.axis}")
        count = arr.shape[0] - self.width + 1
        if count <= 0:
            return np.empty((0, self.width), arr.dtype)
        return np.stack([arr[i:i + self.width] for i in range(count)])


class Truncate:
    """``Truncate(max_seq_len)``: the first ``max_seq_len`` elements along the last axis of a 1-D or 2-D
    array."""

    def __init__(self, max_seq_len: int) -> None:
        if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int) or max_seq_len <= 0:
            raise ValueError(f"Truncate: max_seq_len must be a positive int, got {max_seq_len!r}")
        self.max_seq_len = max_seq_len

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        if arr.ndim not in (1, 2):
            raise ValueError(f"Truncate: the input must be 1-D or 2-D, got shape {arr.shape}")
        return arr[..., :self.max_seq_len].copy()


class TruncateSequencePair:
    """``TruncateSequencePair(max_length)``: shorten two 1-D sequences until their total length is at most
    ``max_length``, one element at a time from the end of the longer one (the second on ties)."""

    def __init__(self, max_length: int) -> None:
        if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length <= 0:
            raise ValueError(f"TruncateSequencePair: max_length must be a positive int, got {max_length!r}")
        self.max_length = max_length

    def __call__(self, first: Any, second: Any) -> tuple[np.ndarray, np.ndarray]:
        a, b = np.asarray(first), np.asarray(second)
        la, lb = len(a), len(b)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la].copy(), b[:lb].copy()


def to_str(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A bytes array decoded to a ``str`` array."""
    arr = np.asarray(array)
    if arr.dtype.kind != "S":
        raise TypeError(f"to_str: the input must be a bytes array, got {arr.dtype}")
    return np.char.decode(arr, encoding)


def to_bytes(array: Any, encoding: str = "utf8") -> np.ndarray:
    """A ``str`` array encoded to a bytes array."""
    arr = np.asarray(array)
    if arr.dtype.kind != "U":
        raise TypeError(f"to_bytes: the input must be a str array, got {arr.dtype}")
    return np.char.encode(arr, encoding)


__all__ = ["AddToken", "CaseFold", "NormalizeUTF8", "RegexReplace", "FilterWikipediaXML", "Ngram", "SlidingWindow",
           "Truncate", "TruncateSequencePair", "to_str", "to_bytes", "NormalizeForm", "BasicTokenizer",
           "BertTokenizer", "JiebaTokenizer", "PythonTokenizer", "RegexTokenizer", "UnicodeCharTokenizer",
           "UnicodeScriptTokenizer", "WhitespaceTokenizer", "WordpieceTokenizer", "SentencePieceTokenizer",
           "SPieceTokenizerLoadType", "SPieceTokenizerOutType", "Lookup", "ToNumber", "ToVectors"]
