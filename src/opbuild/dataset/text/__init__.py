"""``mindspore.dataset.text``: tokenizers, vocabularies and string transforms on NumPy string arrays (in
``Dataset.map`` or eagerly), with MindSpore's names, defaults and output types (``<U`` string arrays, uint32
byte offsets, int32 ids, float32 word vectors). ``JiebaTokenizer`` (an external segmenter) raises an error
naming the library to use instead; ``SentencePieceTokenizer`` needs the optional ``sentencepiece`` library."""

from __future__ import annotations

import enum

from ._common import NormalizeForm
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
from .transforms import (
    AddToken,
    CaseFold,
    FilterWikipediaXML,
    Ngram,
    NormalizeUTF8,
    RegexReplace,
    SlidingWindow,
    Truncate,
    TruncateSequencePair,
    to_bytes,
    to_str,
)
from .vectors import CharNGram, FastText, GloVe, ToVectors, Vectors
from .vocab import Lookup, ToNumber, Vocab


class JiebaMode(enum.IntEnum):
    """Segmentation modes of JiebaTokenizer (which is not available)."""

    MIX = 0
    MP = 1
    HMM = 2


__all__ = ["NormalizeForm", "JiebaMode", "BasicTokenizer", "BertTokenizer", "JiebaTokenizer", "PythonTokenizer",
           "RegexTokenizer", "SentencePieceTokenizer", "UnicodeCharTokenizer", "UnicodeScriptTokenizer",
           "WhitespaceTokenizer", "WordpieceTokenizer", "AddToken", "CaseFold", "FilterWikipediaXML", "Ngram",
           "NormalizeUTF8", "RegexReplace", "SlidingWindow", "Truncate", "TruncateSequencePair", "to_bytes",
           "to_str", "Lookup", "ToNumber", "Vocab", "Vectors", "GloVe", "FastText", "CharNGram", "ToVectors",
           "SPieceTokenizerLoadType", "SPieceTokenizerOutType"]
