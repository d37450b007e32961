"""``mindspore.dataset.text``'s vocabulary (``Vocab``, ``Lookup``) and BERT tokenizers (``BasicTokenizer``,
``WordpieceTokenizer``, ``BertTokenizer``), re-exported by text.py. Offsets are UTF-8 byte offsets (uint32)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

import numpy as np


def _strings(x: Any) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind == "S":
        arr = np.char.decode(arr, "utf-8")
    if arr.dtype.kind != "U":
        raise TypeError(f"the input must be strings, got {arr.dtype}")
    return arr


def _bytes(s: str) -> int:
    return len(s.encode("utf-8"))


class Vocab:
    """A token -> id mapping (``Vocab.from_list``, ``Vocab.from_dict``, ``Vocab.from_file``)."""

    def __init__(self, mapping: dict[str, int]) -> None:
        self._ids = dict(mapping)
        self._tokens = {i: t for t, i in self._ids.items()}

    @classmethod
    def from_list(cls, word_list: Sequence[str], special_tokens: Sequence[str] | None = None,
                  special_first: bool = True) -> Vocab:
        """Ids in list order; ``special_tokens`` first (or last)."""
        words = list(word_list)
        specials = list(special_tokens or [])
        if len(set(words + specials)) != len(words) + len(specials):
            raise ValueError("Vocab.from_list: word_list and special_tokens must not repeat a token")
        order = specials + words if special_first else words + specials
        return cls({t: i for i, t in enumerate(order)})

    @classmethod
    def from_dict(cls, word_dict: dict[str, int]) -> Vocab:
        """The given token -> id mapping (ids must be non-negative ints)."""
        if not all(isinstance(i, int) and i >= 0 for i in word_dict.values()):
            raise ValueError("Vocab.from_dict: ids must be non-negative ints")
        return cls(word_dict)

    @classmethod
    def from_file(cls, file_path: str, delimiter: str = "", vocab_size: int | None = None,
                  special_tokens: Sequence[str] | None = None, special_first: bool = True) -> Vocab:
        """One token per line (the text before ``delimiter``), at most ``vocab_size`` tokens."""
        with open(file_path, encoding="utf-8") as f:
            words = [(line.split(delimiter)[0] if delimiter else line).strip() for line in f if line.strip()]
        return cls.from_list(words[:vocab_size] if vocab_size else words, special_tokens, special_first)

    def vocab(self) -> dict[str, int]:
        """The token -> id mapping."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens: str | Sequence[str]) -> int | list[int]:
        """The id of each token (-1 for a token not in the vocabulary)."""
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        return [self._ids.get(str(t), -1) for t in tokens]

    def ids_to_tokens(self, ids: int | Sequence[int]) -> str | list[str]:
        """The token of each id ('' for an unknown id)."""
        if isinstance(ids, (int, np.integer)):
            return self._tokens.get(int(ids), "")
        return [self._tokens.get(int(i), "") for i in ids]


class Lookup:
    """``Lookup(vocab, unknown_token=None, data_type=mstype.int32)``: tokens to ids (unknown tokens to the
    id of ``unknown_token``; without one they raise)."""

    def __init__(self, vocab: Vocab, unknown_token: str | None = None, data_type: Any = np.int32) -> None:
        self.vocab, self.unknown = vocab, unknown_token
        self.dtype = np.dtype(getattr(data_type, "np_dtype", data_type))
        if unknown_token is not None and unknown_token not in vocab.vocab():
            raise ValueError(f"Lookup: unknown_token {unknown_token!r} is not in the vocabulary")

    def __call__(self, x: Any) -> np.ndarray:
        arr = _strings(x)
        table = self.vocab.vocab()
        out = []
        for t in arr.ravel():
            if t in table:
                out.append(table[t])
            elif self.unknown is not None:
                out.append(table[self.unknown])
            else:
                raise RuntimeError(f"Lookup: {t!r} is not in the vocabulary and no unknown_token is set")
        return np.array(out, self.dtype).reshape(arr.shape)


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(a <= cp <= b for a, b in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF),
                                         (0x2A700, 0x2B73F), (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF),
                                         (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


class BasicTokenizer:
    """``BasicTokenizer(lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
    preserve_unused_token=True, with_offsets=False)``: split on whitespace, punctuation and CJK characters
    (``lower_case``: case-fold and strip accents first)."""

    def __init__(self, lower_case: bool = False, keep_whitespace: bool = False, normalization_form: Any = 0,
                 preserve_unused_token: bool = True, with_offsets: bool = False) -> None:
        self.lower, self.keep_ws, self.with_offsets = bool(lower_case), bool(keep_whitespace), bool(with_offsets)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) character spans of the tokens of ``text``."""
        spans, start = [], None
        for i, ch in enumerate(text):
            if ch.isspace():
                if start is not None:
                    spans.append((start, i))
                    start = None
                if self.keep_ws:
                    spans.append((i, i + 1))
            elif _is_punct(ch) or _is_cjk(ch):
                if start is not None:
                    spans.append((start, i))
                    start = None
                spans.append((i, i + 1))
            elif start is None:
                start = i
        if start is not None:
            spans.append((start, len(text)))
        return spans

    def _token(self, tok: str) -> str:
        if not self.lower:
            return tok
        tok = unicodedata.normalize("NFD", tok.casefold())
        return "".join(c for c in tok if unicodedata.category(c) != "Mn")

    def __call__(self, x: Any):
        text = str(_strings(x).reshape(()))
        spans = self.spans(text)
        tokens = np.array([self._token(text[a:b]) for a, b in spans] or [], dtype=str)
        if not self.with_offsets:
            return tokens
        return (tokens, np.array([_bytes(text[:a]) for a, _ in spans], np.uint32),
                np.array([_bytes(text[:b]) for _, b in spans], np.uint32))


class WordpieceTokenizer:
    """``WordpieceTokenizer(vocab, suffix_indicator='##', max_bytes_per_token=100, unknown_token='[UNK]',
    with_offsets=False)``: each token split greedily into the longest vocabulary pieces (continuations
    prefixed by ``suffix_indicator``); a token that cannot be split becomes ``unknown_token`` (or stays
    itself when that is '')."""

    def __init__(self, vocab: Vocab, suffix_indicator: str = "##", max_bytes_per_token: int = 100,
                 unknown_token: str = "[UNK]", with_offsets: bool = False) -> None:
        self.vocab, self.suffix, self.max_bytes = vocab.vocab(), suffix_indicator, int(max_bytes_per_token)
        self.unknown, self.with_offsets = unknown_token, bool(with_offsets)

    def pieces(self, word: str) -> list[tuple[str, int, int]]:
        """(piece, start byte, end byte) of ``word``."""
        unknown = [(self.unknown or word, 0, _bytes(word))]
        if _bytes(word) > self.max_bytes:
            return unknown
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self.suffix + word[start:end]
                if piece in self.vocab:
                    break
                end -= 1
            if end == start:
                return unknown
            out.append((piece, _bytes(word[:start]), _bytes(word[:end])))
            start = end
        return out

    def __call__(self, x: Any):
        words = _strings(x).ravel()
        toks, starts, limits = [], [], []
        for w in words:
            for piece, a, b in self.pieces(str(w)):
                toks.append(piece)
                starts.append(a)
                limits.append(b)
        tokens = np.array(toks, dtype=str)
        if not self.with_offsets:
            return tokens
        return tokens, np.array(starts, np.uint32), np.array(limits, np.uint32)


class BertTokenizer:
    """``BertTokenizer(vocab, suffix_indicator='##', max_bytes_per_token=100, unknown_token='[UNK]',
    lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
    preserve_unused_token=True, with_offsets=False)``: BasicTokenizer, then WordpieceTokenizer."""

    def __init__(self, vocab: Vocab, suffix_indicator: str = "##", max_bytes_per_token: int = 100,
                 unknown_token: str = "[UNK]", lower_case: bool = False, keep_whitespace: bool = False,
                 normalization_form: Any = 0, preserve_unused_token: bool = True, with_offsets: bool = False) -> None:
        self.basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form, preserve_unused_token)
        self.wordpiece = WordpieceTokenizer(vocab, suffix_indicator, max_bytes_per_token, unknown_token)
        self.with_offsets = bool(with_offsets)

    def __call__(self, x: Any):
        text = str(_strings(x).reshape(()))
        toks, starts, limits = [], [], []
        for a, b in self.basic.spans(text):
            base = _bytes(text[:a])
            for piece, s, e in self.wordpiece.pieces(self.basic._token(text[a:b])):
                toks.append(piece)
                starts.append(base + s)
                limits.append(base + e)
        tokens = np.array(toks, dtype=str)
        if not self.with_offsets:
            return tokens
        return tokens, np.array(starts, np.uint32), np.array(limits, np.uint32)
