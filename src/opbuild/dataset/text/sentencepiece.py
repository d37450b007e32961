"""``SentencePieceTokenizer`` of ``mindspore.dataset.text`` over a SentencePiece model file, with the
``SPieceTokenizerOutType``/``SPieceTokenizerLoadType`` enums. Tokenizing uses the ``sentencepiece`` library
(an optional extra): a model file gives MindSpore's pieces and ids. Training a vocabulary
(``SentencePieceVocab``) is not provided: the library's current trainer orders the pieces of a new model
differently from the one MindSpore bundles, so the ids would not be MindSpore's."""

from __future__ import annotations

import enum
import os
from typing import Any

import numpy as np


class SPieceTokenizerOutType(enum.IntEnum):
    """What ``SentencePieceTokenizer`` returns: the pieces (strings) or their ids (int32)."""

    STRING = 0
    INT = 1


class SPieceTokenizerLoadType(enum.IntEnum):
    """Where a SentencePiece model comes from: a model file or a trained vocabulary."""

    FILE = 0
    MODEL = 1


def _processor(path: str) -> Any:
    try:
        import sentencepiece
    except ImportError:
        raise ImportError("SentencePieceTokenizer needs the sentencepiece library: pip install "
                          "opbuild[sentencepiece] (or sentencepiece)") from None
    if not os.path.isfile(path):
        raise RuntimeError(f"SentencePieceTokenizer: the model file {path!r} does not exist")
    try:
        return sentencepiece.SentencePieceProcessor(model_file=path)
    except Exception as e:  # the library raises OSError/RuntimeError for files that are not models
        raise RuntimeError(f"SentencePieceTokenizer: {path!r} is not a SentencePiece model ({e})") from None


class SentencePieceTokenizer:
    """``SentencePieceTokenizer(mode, out_type)``: split one string into SentencePiece pieces (a 1-D string
    array) or ids (1-D int32) with the model file ``mode``."""

    def __init__(self, mode: str, out_type: SPieceTokenizerOutType) -> None:
        if not isinstance(mode, str):
            raise TypeError(f"SentencePieceTokenizer: mode must be the path of a SentencePiece model file (str), "
                            f"got {type(mode).__name__} (training a SentencePieceVocab is not provided)")
        if not isinstance(out_type, SPieceTokenizerOutType):
            raise TypeError(f"SentencePieceTokenizer: out_type must be a text.SPieceTokenizerOutType, got "
                            f"{type(out_type).__name__}")
        self.mode, self.out_type = mode, out_type
        self._sp = _processor(mode)

    def __call__(self, text: Any) -> np.ndarray:
        arr = np.asarray(text)
        if arr.ndim != 0 or arr.dtype.kind != "U":
            raise RuntimeError(f"SentencePieceTokenizer: the input must be one string (a str or a 0-d string "
                               f"array), got {arr.dtype} of shape {arr.shape}")
        line = str(arr.item())
        if self.out_type == SPieceTokenizerOutType.STRING:
            return np.array(self._sp.encode(line, out_type=str), dtype=str)
        return np.array(self._sp.encode(line), np.int32)


__all__ = ["SPieceTokenizerOutType", "SPieceTokenizerLoadType", "SentencePieceTokenizer"]
