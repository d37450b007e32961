"""Pre-trained word vectors of ``mindspore.dataset.text``: ``Vectors`` (any ``token v1 v2 ...`` text file),
``GloVe`` (``glove.6B.*.txt``), ``FastText`` (``*.vec``), ``CharNGram`` (character n-gram vectors, averaged
per word) and the ``ToVectors`` transform that maps string tokens to float32 vectors."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

_INT32_MAX = 2**31 - 1
# C's atof: the longest leading number of a field ("1.5x" -> 1.5), 0 when there is none.
_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.IGNORECASE)


def _atof(field: str) -> float:
    m = _NUMBER.match(field)
    return float(m.group(0)) if m else 0.0


def _values(fields: list[str]) -> np.ndarray:
    try:  # plain numbers: NumPy parses them at C speed (pre-trained files have millions of values)
        return np.array(fields, np.float64).astype(np.float32)
    except ValueError:
        return np.array([_atof(v) for v in fields], np.float32)


def _read(who: str, path: str, max_vectors: int) -> tuple[dict[bytes, np.ndarray], int]:
    """token -> vector (the first occurrence wins) and the dimension. Leading lines of exactly two fields are
    a ``count dim`` header and are skipped; ``max_vectors`` (> 0) caps the vector lines read."""
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    start = 0
    while start < len(lines) and len(lines[start].rstrip(b" ").split(b" ")) == 2:
        start += 1
    body = lines[start:]
    if not body:
        raise RuntimeError(f"{who}: invalid file {path!r}: it has no vectors")
    dim = len(body[0].rstrip(b" ").split(b" ")) - 1
    if max_vectors > 0:
        body = body[:max_vectors]
    table: dict[bytes, np.ndarray] = {}
    for line in body:
        token, _, rest = line.partition(b" ")
        fields = rest.decode("utf-8", "replace").split()
        if len(fields) <= 1:
            raise RuntimeError(f"{who}: the token {token.decode('utf-8', 'replace')!r} has a vector of "
                               f"{len(fields)} value(s); vectors need at least 2")
        if len(fields) != dim:
            raise RuntimeError(f"{who}: all vectors must have the same number of dimensions, got {len(fields)} "
                               f"while expecting {dim}")
        if token not in table:
            table[token] = _values(fields)
    return table, dim


def _lower(token: bytes) -> bytes:
    return token.lower()  # ASCII letters only, as C's tolower byte by byte


class Vectors:
    """Word vectors read from a text file of ``token v1 v2 ... vd`` lines (built with ``from_file``)."""

    _who = "Vectors"

    def __init__(self) -> None:
        self._table: dict[bytes, np.ndarray] = {}
        self._dim = 0

    @property
    def dim(self) -> int:
        """The number of values of each vector."""
        return self._dim

    @classmethod
    def _check_path(cls, path: str) -> None:
        """Subclasses check the file's name."""

    @classmethod
    def from_file(cls, file_path: str, max_vectors: int | None = None) -> Vectors:
        """Load the vectors of ``file_path`` (the first ``max_vectors`` of them; all when None or 0)."""
        if not isinstance(file_path, str):
            raise TypeError(f"{cls._who}.from_file: file_path must be a str, got {type(file_path).__name__}")
        if max_vectors is not None:
            if isinstance(max_vectors, bool) or not isinstance(max_vectors, int):
                raise TypeError(f"{cls._who}.from_file: max_vectors must be an int, got "
                                f"{type(max_vectors).__name__}")
            if not 0 <= max_vectors <= _INT32_MAX:
                raise ValueError(f"{cls._who}.from_file: max_vectors must be in [0, {_INT32_MAX}], got {max_vectors}")
        if not os.path.isfile(file_path):
            raise RuntimeError(f"{cls._who}.from_file: invalid file {file_path!r}: it does not exist or is not a "
                               "regular file")
        cls._check_path(file_path)
        vectors = cls()
        vectors._table, vectors._dim = _read(cls._who, file_path, max_vectors or 0)
        return vectors

    def lookup(self, token: bytes, unk: np.ndarray, lower_case_backup: bool) -> np.ndarray:
        """The vector of ``token`` (lower-cased first with ``lower_case_backup``), else ``unk``."""
        return self._table.get(_lower(token) if lower_case_backup else token, unk)


class GloVe(Vectors):
    """GloVe vectors: ``from_file`` takes a file named ``glove.6B.<dim>.txt``."""

    _who = "GloVe"

    @classmethod
    def _check_path(cls, path: str) -> None:
        parts = os.path.basename(path).split(".")
        if len(parts) < 4 or parts[-1] != "txt" or parts[-3] != "6B" or ".".join(parts[:-3]) != "glove":
            raise RuntimeError(f"GloVe.from_file: the file must be named 'glove.6B.*.txt', got {path!r}")


class FastText(Vectors):
    """FastText vectors: ``from_file`` takes a ``*.vec`` file."""

    _who = "FastText"

    @classmethod
    def _check_path(cls, path: str) -> None:
        if os.path.basename(path).rpartition(".")[2] != "vec":
            raise RuntimeError(f"FastText.from_file: the file must be a '*.vec' file, got {path!r}")


class CharNGram(Vectors):
    """Character n-gram vectors (``<n>gram-<chars>`` tokens): a word's vector is the mean of the vectors of
    its 2-, 3- and 4-grams (of its UTF-8 bytes framed by ``#BEGIN#`` and ``#END#``) that the file has."""

    _who = "CharNGram"

    def lookup(self, token: bytes, unk: np.ndarray, lower_case_backup: bool) -> np.ndarray:
        word = _lower(token) if lower_case_backup else token
        chars = [b"#BEGIN#"] + [bytes([c]) for c in word] + [b"#END#"]
        total, count = np.zeros(self.dim, np.float32), 0
        for n in (2, 3, 4):
            for i in range(len(chars) - n + 1):
                vec = self._table.get(b"%dgram-" % n + b"".join(chars[i:i + n]))
                # MindSpore counts an n-gram only when its vector differs from the unknown-word vector.
                if vec is not None and not np.array_equal(vec, unk):
                    total += vec
                    count += 1
        return total / np.float32(count) if count else unk


class ToVectors:
    """``ToVectors(vectors, unk_init=None, lower_case_backup=False)``: string tokens -> float32 vectors,
    (dim,) for a single token and (N, dim) for N tokens (any input shape is flattened). Unknown tokens get
    ``unk_init`` (zeros when None); ``lower_case_backup`` looks every token up lower-cased."""

    def __init__(self, vectors: Vectors, unk_init: Sequence[float] | None = None,
                 lower_case_backup: bool = False) -> None:
        if not isinstance(vectors, Vectors):
            raise TypeError(f"ToVectors: vectors must be a text.Vectors (or GloVe, FastText, CharNGram), got "
                            f"{type(vectors).__name__}")
        unk = [] if unk_init is None else unk_init
        if not isinstance(unk, (list, tuple)):
            raise TypeError(f"ToVectors: unk_init must be a list or tuple of numbers, got {type(unk).__name__}")
        for i, v in enumerate(unk):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"ToVectors: unk_init[{i}] must be an int or a float, got {type(v).__name__}")
        if not isinstance(lower_case_backup, bool):
            raise TypeError(f"ToVectors: lower_case_backup must be a bool, got {type(lower_case_backup).__name__}")
        self.vectors, self.unk_init, self.lower_case_backup = vectors, list(unk), lower_case_backup

    def __call__(self, data: Any) -> np.ndarray:
        arr = np.asarray(data)
        if arr.dtype.kind not in "US":
            raise RuntimeError(f"ToVectors: the input must be strings, got {arr.dtype}")
        if arr.size == 0:
            raise RuntimeError("ToVectors: the input has no tokens")
        dim = self.vectors.dim
        if self.unk_init and len(self.unk_init) != dim:
            raise RuntimeError(f"ToVectors: unk_init has {len(self.unk_init)} values but the vectors have {dim}")
        unk = np.array(self.unk_init, np.float32) if self.unk_init else np.zeros(dim, np.float32)
        toks = [t.encode("utf-8") if isinstance(t, str) else bytes(t) for t in arr.reshape(-1).tolist()]
        out = np.stack([self.vectors.lookup(t, unk, self.lower_case_backup) for t in toks]).astype(np.float32)
        return out[0] if len(toks) == 1 else out


__all__ = ["Vectors", "GloVe", "FastText", "CharNGram", "ToVectors"]
