"""``Vocab`` (token <-> id tables), ``Lookup`` and ``ToNumber`` of ``mindspore.dataset.text``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...core.dtypes import dtype_of
from ._common import strings


class Vocab:
    """A table of tokens and their ids, built with ``from_list``, ``from_dict``, ``from_file`` or
    ``from_dataset``."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._tokens: dict[int, str] = {}

    @classmethod
    def _of(cls, words: Sequence[str], special_tokens: Sequence[str] | None, special_first: bool) -> Vocab:
        special = list(special_tokens or [])
        order = special + list(words) if special_first else list(words) + special
        if len(set(order)) != len(order):
            dup = next(w for w, n in Counter(order).items() if n > 1)
            raise ValueError(f"Vocab: the word {dup!r} appears more than once (in the list or the special tokens)")
        v = cls()
        for i, w in enumerate(order):
            v._ids[str(w)], v._tokens[i] = i, str(w)
        return v

    @classmethod
    def from_list(cls, word_list: Sequence[str], special_tokens: Sequence[str] | None = None,
                  special_first: bool = True) -> Vocab:
        """Ids in list order; ``special_tokens`` before (``special_first``) or after the words."""
        if not isinstance(word_list, (list, tuple)):
            raise TypeError(f"Vocab.from_list: word_list must be a list of strings, got {type(word_list).__name__}")
        return cls._of(word_list, special_tokens, special_first)

    @classmethod
    def from_dict(cls, word_dict: Mapping[str, int]) -> Vocab:
        """The given token -> id table (ids must be non-negative ints)."""
        v = cls()
        for w, i in word_dict.items():
            if isinstance(i, bool) or not isinstance(i, int) or i < 0:
                raise ValueError(f"Vocab.from_dict: the id of {w!r} must be a non-negative int, got {i!r}")
            v._ids[str(w)], v._tokens[i] = i, str(w)
        return v

    @classmethod
    def from_file(cls, file_path: str, delimiter: str = "", vocab_size: int | None = None,
                  special_tokens: Sequence[str] | None = None, special_first: bool = True) -> Vocab:
        """One word per line (the text before ``delimiter`` when given), the first ``vocab_size`` lines."""
        with open(file_path, encoding="utf-8") as f:
            lines = [ln.rstrip("\n") for ln in f if ln.strip()]
        words = [ln.split(delimiter)[0] if delimiter else ln for ln in lines]
        return cls._of(words[:vocab_size] if vocab_size is not None else words, special_tokens, special_first)

    @classmethod
    def from_dataset(cls, dataset: Any, columns: Sequence[str] | str | None = None,
                     freq_range: tuple[int | None, int | None] | None = None, top_k: int | None = None,
                     special_tokens: Sequence[str] | None = None, special_first: bool = True) -> Vocab:
        """Words of a dataset's string columns, most frequent first (ties by first appearance), keeping those
        whose count is within ``freq_range`` and the ``top_k`` most frequent."""
        names = [columns] if isinstance(columns, str) else columns
        counts: Counter[str] = Counter()
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            for name in names or list(row):
                counts.update(str(t) for t in strings("Vocab.from_dataset", row[name]).reshape(-1))
        lo, hi = freq_range or (None, None)
        kept = [w for w, n in counts.items() if (lo is None or n >= lo) and (hi is None or n <= hi)]
        kept.sort(key=lambda w: -counts[w])
        return cls._of(kept[:top_k] if top_k is not None else kept, special_tokens, special_first)

    def __contains__(self, token: str) -> bool:
        return token in self._ids

    def vocab(self) -> dict[str, int]:
        """The token -> id table."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens: str | Sequence[str] | np.ndarray) -> int | list[int]:
        """The id of a token (-1 if absent), or the list of ids of a list of tokens."""
        if isinstance(tokens, (str, np.str_)):
            return self._ids.get(str(tokens), -1)
        return [self._ids.get(str(t), -1) for t in np.asarray(tokens).reshape(-1)]

    def ids_to_tokens(self, ids: int | Sequence[int] | np.ndarray) -> str | list[str]:
        """The token of an id ('' if absent), or the list of tokens of a list of ids."""
        if isinstance(ids, (int, np.integer)):
            return self._tokens.get(int(ids), "")
        return [self._tokens.get(int(i), "") for i in np.asarray(ids).reshape(-1)]


class Lookup:
    """``Lookup(vocab, unknown_token=None, data_type=mstype.int32)``: tokens -> ids of ``vocab``; tokens
    missing from it take ``unknown_token``'s id (an error when that is None)."""

    def __init__(self, vocab: Vocab, unknown_token: str | None = None, data_type: Any = None) -> None:
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Lookup: vocab must be a text.Vocab, got {type(vocab).__name__}")
        self.vocab = vocab
        if unknown_token is not None and unknown_token not in vocab:
            raise ValueError(f"Lookup: unknown_token {unknown_token!r} is not in the vocab")
        self.unknown = unknown_token
        self.np_dtype = np.dtype(np.int32) if data_type is None else dtype_of(data_type).np_dtype
        if self.np_dtype.kind not in "iu":
            raise TypeError(f"Lookup: data_type must be an integer type, got {data_type!r}")

    def __call__(self, data: Any) -> np.ndarray:
        tokens = strings("Lookup", data)
        ids = self.vocab.vocab()
        default = ids[self.unknown] if self.unknown is not None else None

        def one(t: str) -> int:
            if t in ids:
                return ids[t]
            if default is None:
                raise RuntimeError(f"Lookup: the token {t!r} is not in the vocab and unknown_token is None; pass "
                                   "unknown_token naming a vocab entry")
            return default

        flat = [one(str(t)) for t in tokens.reshape(-1)]
        return np.array(flat, dtype=self.np_dtype).reshape(tokens.shape)


class ToNumber:
    """``ToNumber(data_type)``: numeric strings -> numbers of ``data_type`` (an error for strings that do not
    parse or values out of the type's range)."""

    def __init__(self, data_type: Any) -> None:
        self.np_dtype = dtype_of(data_type).np_dtype
        if self.np_dtype.kind not in "iuf":
            raise TypeError(f"ToNumber: data_type must be a numeric type, got {data_type!r}")

    def __call__(self, data: Any) -> np.ndarray:
        tokens = strings("ToNumber", data)
        out = np.empty(tokens.shape, self.np_dtype)
        for idx, t in np.ndenumerate(tokens):
            try:
                value = float(t) if self.np_dtype.kind == "f" else int(str(t).strip())
            except ValueError:
                raise RuntimeError(f"ToNumber: {str(t)!r} is not a number of type {self.np_dtype}") from None
            if self.np_dtype.kind in "iu":
                info = np.iinfo(self.np_dtype)
                if not info.min <= value <= info.max:
                    raise RuntimeError(f"ToNumber: {t!r} is out of the range of {self.np_dtype}")
            out[idx] = value
        return out


__all__ = ["Vocab", "Lookup", "ToNumber"]
