"""String handling shared by the text transforms: inputs as Python strings or arrays of them, outputs as
NumPy unicode arrays (the ``<U`` arrays MindSpore's text operations return) and byte offsets."""

from __future__ import annotations

import enum
from typing import Any

import numpy as np


class NormalizeForm(enum.IntEnum):
    """Unicode normalization forms of ``NormalizeUTF8`` and the BERT tokenizers."""

    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


def _decode(v: Any) -> str:
    return v.decode("utf-8") if isinstance(v, (bytes, np.bytes_)) else str(v)


def one_string(who: str, data: Any) -> str:
    """A single string from ``str``, ``bytes`` or a 0-d/one-element string array."""
    if isinstance(data, (str, bytes, np.str_, np.bytes_)):
        return _decode(data)
    arr = np.asarray(data)
    if arr.dtype.kind not in "US" or arr.size != 1:
        raise TypeError(f"{who}: the input must be one string, got {arr.dtype} of shape {arr.shape}")
    return _decode(arr.reshape(()).item())


def strings(who: str, data: Any) -> np.ndarray:
    """An array of ``str`` from strings, bytes, lists of them or string arrays."""
    if isinstance(data, (str, bytes, np.str_, np.bytes_)):
        return np.array(_decode(data))
    arr = np.asarray(data)
    if arr.dtype.kind == "S":
        return np.vectorize(_decode, otypes=[object])(arr).astype(str) if arr.size else arr.astype(str)
    if arr.dtype.kind != "U":
        raise TypeError(f"{who}: the input must be strings, got {arr.dtype}")
    return arr


def str_array(tokens: list[str]) -> np.ndarray:
    """Tokens as a 1-D unicode array (an empty list gives an empty ``<U1`` array)."""
    return np.array(tokens, dtype=str) if tokens else np.array([], dtype="<U1")


def byte_offsets(text: str, spans: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Character spans as UTF-8 byte offsets (start, limit), uint32 as MindSpore returns them."""
    prefix = np.concatenate([[0], np.cumsum([len(c.encode("utf-8")) for c in text])]).astype(np.int64)
    starts = np.array([prefix[s] for s, _ in spans], dtype=np.uint32)
    limits = np.array([prefix[e] for _, e in spans], dtype=np.uint32)
    return starts, limits


def tokenized(text: str, spans: list[tuple[int, int]], with_offsets: bool) -> Any:
    """The tokens of ``text`` at ``spans``; with offsets, ``(tokens, starts, limits)``."""
    tokens = str_array([text[s:e] for s, e in spans])
    if not with_offsets:
        return tokens
    starts, limits = byte_offsets(text, spans)
    return tokens, starts, limits
