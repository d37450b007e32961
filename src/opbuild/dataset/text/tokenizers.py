"""Tokenizers of ``mindspore.dataset.text`` that need no model files: whitespace, Unicode characters,
Unicode scripts, regular expressions, a Python callable, and BERT's basic/word-piece/full tokenizers over a
``Vocab``. Offsets (``with_offsets=True``) are UTF-8 byte positions as uint32, as in MindSpore."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

import numpy as np

from ._common import NormalizeForm, byte_offsets, one_string, str_array, strings, tokenized
from .vocab import Vocab

_FORMS = {NormalizeForm.NFC: "NFC", NormalizeForm.NFKC: "NFKC", NormalizeForm.NFD: "NFD",
          NormalizeForm.NFKD: "NFKD"}


class WhitespaceTokenizer:
    """``WhitespaceTokenizer(with_offsets=False)``: split a string on runs of Unicode whitespace."""

    def __init__(self, with_offsets: bool = False) -> None:
        self.with_offsets = bool(with_offsets)

    def __call__(self, data: Any) -> Any:
        text = one_string("WhitespaceTokenizer", data)
        spans = [m.span() for m in re.finditer(r"\S+", text)]
        return tokenized(text, spans, self.with_offsets)


class UnicodeCharTokenizer:
    """``UnicodeCharTokenizer(with_offsets=False)``: one token per Unicode character."""

    def __init__(self, with_offsets: bool = False) -> None:
        self.with_offsets = bool(with_offsets)

    def __call__(self, data: Any) -> Any:
        text = one_string("UnicodeCharTokenizer", data)
        return tokenized(text, [(i, i + 1) for i in range(len(text))], self.with_offsets)


def _script(ch: str) -> str:
    """A character's script class: whitespace, the first word of a letter's Unicode name (LATIN, CJK,
    CYRILLIC, ...), or COMMON for digits, punctuation and symbols."""
    if ch.isspace():
        return " "
    if unicodedata.category(ch)[0] in "LM":
        name = unicodedata.name(ch, "")
        return name.split(" ")[0] if name else "UNKNOWN"
    return "COMMON"


class UnicodeScriptTokenizer:
    """``UnicodeScriptTokenizer(keep_whitespace=False, with_offsets=False)``: split where the Unicode script
    changes (whitespace runs are tokens only with ``keep_whitespace``)."""

    def __init__(self, keep_whitespace: bool = False, with_offsets: bool = False) -> None:
        self.keep_whitespace, self.with_offsets = bool(keep_whitespace), bool(with_offsets)

    def __call__(self, data: Any) -> Any:
        text = one_string("UnicodeScriptTokenizer", data)
        spans: list[tuple[int, int]] = []
        start = 0
        for i in range(1, len(text) + 1):
            if i == len(text) or _script(text[i]) != _script(text[start]):
                if self.keep_whitespace or not text[start].isspace():
                    spans.append((start, i))
                start = i
        return tokenized(text, spans, self.with_offsets)


class RegexTokenizer:
    """``RegexTokenizer(delim_pattern, keep_delim_pattern='', with_offsets=False)``: split on matches of
    ``delim_pattern``; delimiters that also match ``keep_delim_pattern`` are kept as tokens."""

    def __init__(self, delim_pattern: str, keep_delim_pattern: str = "", with_offsets: bool = False) -> None:
        try:
            self.delim = re.compile(delim_pattern)
            self.keep = re.compile(keep_delim_pattern) if keep_delim_pattern else None
        except re.error as e:
            raise ValueError(f"RegexTokenizer: invalid pattern ({e})") from None
        self.with_offsets = bool(with_offsets)

    def __call__(self, data: Any) -> Any:
        text = one_string("RegexTokenizer", data)
        spans: list[tuple[int, int]] = []
        pos = 0
        for m in self.delim.finditer(text):
            if m.start() == m.end():
                continue
            if m.start() > pos:
                spans.append((pos, m.start()))
            if self.keep is not None and self.keep.fullmatch(m.group()):
                spans.append(m.span())
            pos = m.end()
        if pos < len(text):
            spans.append((pos, len(text)))
        return tokenized(text, spans, self.with_offsets)


class PythonTokenizer:
    """``PythonTokenizer(tokenizer)``: tokens from a Python callable taking a ``str`` and returning a list of
    strings."""

    def __init__(self, tokenizer: Callable[[str], Any]) -> None:
        if not callable(tokenizer):
            raise TypeError(f"PythonTokenizer: tokenizer must be callable, got {type(tokenizer).__name__}")
        self.tokenizer = tokenizer

    def __call__(self, data: Any) -> np.ndarray:
        return strings("PythonTokenizer", self.tokenizer(one_string("PythonTokenizer", data)))


_UNUSED = re.compile(r"\[(UNK|CLS|SEP|PAD|MASK|unused\d+)\]")


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
                                              (0x2A700, 0x2B73F), (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF),
                                              (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


class BasicTokenizer:
    """``BasicTokenizer(lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
    preserve_unused_token=True, with_offsets=False)``: BERT's basic tokenization: split on whitespace, every
    punctuation mark and CJK character a token; ``lower_case`` folds case and strips accents;
    ``preserve_unused_token`` keeps ``[CLS]``, ``[SEP]``, ``[UNK]``, ``[PAD]``, ``[MASK]``, ``[unusedN]``
    whole."""

    def __init__(self, lower_case: bool = False, keep_whitespace: bool = False,
                 normalization_form: NormalizeForm = NormalizeForm.NONE, preserve_unused_token: bool = True,
                 with_offsets: bool = False) -> None:
        self.lower_case, self.keep_whitespace = bool(lower_case), bool(keep_whitespace)
        self.normalization_form = NormalizeForm(normalization_form)
        self.preserve_unused_token, self.with_offsets = bool(preserve_unused_token), bool(with_offsets)

    def _prepare(self, text: str) -> str:
        if self.lower_case:
            text = unicodedata.normalize("NFD", text.casefold())
            return "".join(c for c in text if unicodedata.category(c) != "Mn")
        if self.normalization_form != NormalizeForm.NONE:
            return unicodedata.normalize(_FORMS[self.normalization_form], text)
        return text

    def spans(self, text: str) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        i, start = 0, None
        while i < len(text):
            m = _UNUSED.match(text, i) if self.preserve_unused_token else None
            ch = text[i]
            if m or ch.isspace() or _is_punct(ch) or _is_cjk(ch):
                if start is not None:
                    spans.append((start, i))
                    start = None
                end = m.end() if m else i + 1
                if not m and ch.isspace():  # a whitespace run is one token when kept
                    while end < len(text) and text[end].isspace():
                        end += 1
                if m or not ch.isspace() or self.keep_whitespace:
                    spans.append((i, end))
                i = end
                continue
            if start is None:
                start = i
            i += 1
        if start is not None:
            spans.append((start, len(text)))
        return spans

    def __call__(self, data: Any) -> Any:
        text = self._prepare(one_string("BasicTokenizer", data))
        return tokenized(text, self.spans(text), self.with_offsets)


def _check_vocab(who: str, vocab: Any) -> Vocab:
    if not isinstance(vocab, Vocab):
        raise TypeError(f"{who}: vocab must be a text.Vocab, got {type(vocab).__name__}")
    return vocab


def wordpiece(word: str, vocab: Vocab, suffix: str, max_bytes: int, unknown: str) -> list[tuple[str, int, int]]:
    """Greedy longest-match-first word pieces of ``word`` as (piece, byte start, byte limit)."""
    size = len(word.encode("utf-8"))
    if size > max_bytes:
        return [(unknown if unknown else word, 0, size)]
    pieces, start = [], 0
    while start < len(word):
        end, found = len(word), None
        while start < end:
            sub = word[start:end] if start == 0 else suffix + word[start:end]
            if sub in vocab:
                found = sub
                break
            end -= 1
        if found is None:
            return [(unknown if unknown else word, 0, size)]
        b0, b1 = len(word[:start].encode("utf-8")), len(word[:end].encode("utf-8"))
        pieces.append((found, b0, b1))
        start = end
    return pieces


class WordpieceTokenizer:
    """``WordpieceTokenizer(vocab, suffix_indicator='##', max_bytes_per_token=100, unknown_token='[UNK]',
    with_offsets=False)``: split each input token into the longest word pieces of ``vocab``; a token that
    cannot be split becomes ``unknown_token`` (or stays whole when it is empty)."""

    def __init__(self, vocab: Vocab, suffix_indicator: str = "##", max_bytes_per_token: int = 100,
                 unknown_token: str = "[UNK]", with_offsets: bool = False) -> None:
        self.vocab = _check_vocab("WordpieceTokenizer", vocab)
        self.suffix, self.max_bytes = str(suffix_indicator), int(max_bytes_per_token)
        self.unknown, self.with_offsets = str(unknown_token), bool(with_offsets)

    def __call__(self, data: Any) -> Any:
        words = strings("WordpieceTokenizer", data).reshape(-1)
        out = [p for w in words for p in wordpiece(str(w), self.vocab, self.suffix, self.max_bytes, self.unknown)]
        tokens = str_array([p for p, _, _ in out])
        if not self.with_offsets:
            return tokens
        return (tokens, np.array([s for _, s, _ in out], np.uint32), np.array([e for _, _, e in out], np.uint32))


class BertTokenizer:
    """``BertTokenizer(vocab, suffix_indicator='##', max_bytes_per_token=100, unknown_token='[UNK]',
    lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
    with_offsets=False)``: ``BasicTokenizer`` then ``WordpieceTokenizer`` (offsets into the input string)."""

    def __init__(self, vocab: Vocab, suffix_indicator: str = "##", max_bytes_per_token: int = 100,
                 unknown_token: str = "[UNK]", lower_case: bool = False, keep_whitespace: bool = False,
                 normalization_form: NormalizeForm = NormalizeForm.NONE, preserve_unused_token: bool = True,
                 with_offsets: bool = False) -> None:
        self.vocab = _check_vocab("BertTokenizer", vocab)
        self.basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form, preserve_unused_token, True)
        self.suffix, self.max_bytes = str(suffix_indicator), int(max_bytes_per_token)
        self.unknown, self.with_offsets = str(unknown_token), bool(with_offsets)

    def __call__(self, data: Any) -> Any:
        text = self.basic._prepare(one_string("BertTokenizer", data))
        spans = self.basic.spans(text)
        starts, _ = byte_offsets(text, spans)
        out = []
        for (s, e), b in zip(spans, starts, strict=True):
            for piece, p0, p1 in wordpiece(text[s:e], self.vocab, self.suffix, self.max_bytes, self.unknown):
                out.append((piece, int(b) + p0, int(b) + p1))
        tokens = str_array([p for p, _, _ in out])
        if not self.with_offsets:
            return tokens
        return (tokens, np.array([s for _, s, _ in out], np.uint32), np.array([e for _, _, e in out], np.uint32))


class JiebaTokenizer:
    """``JiebaTokenizer(hmm_path, mp_path, mode=JiebaMode.MIX, with_offsets=False)``: not available."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("JiebaTokenizer needs cppjieba's segmenter and its dictionary files, which opbuild "
                                  "does not include; tokenize with text.PythonTokenizer(jieba.lcut) after "
                                  "`pip install jieba`")


__all__ = ["WhitespaceTokenizer", "UnicodeCharTokenizer", "UnicodeScriptTokenizer", "RegexTokenizer",
           "PythonTokenizer", "BasicTokenizer", "WordpieceTokenizer", "BertTokenizer", "JiebaTokenizer",
           "wordpiece"]
