"""``opbuild.dataset.text`` gives MindSpore 2.10's results: tests/dataset/text_programs.py's cases against
what MindSpore gave (scripts/record_dataset_ops.py), plus argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.dataset as ds
from opbuild.dataset import text
from tests.dataset import text_programs
from tests.dataset.ops_fixture import assert_same, expected

EXPECTED = expected("text")
RESULTS = text_programs.run(text, ds)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_matches_mindspore(case):
    assert_same(RESULTS[case], EXPECTED[case], case)


def test_every_case_was_recorded():
    assert set(RESULTS) == set(EXPECTED)


@pytest.mark.parametrize("make,err,match", [
    (lambda: text.JiebaTokenizer("hmm.utf8", "mp.utf8"), NotImplementedError, "pip install jieba"),
    (lambda: text.SentencePieceTokenizer("m.model", None), TypeError, "out_type"),
    (lambda: text.Vocab.from_list(["a", "a"]), ValueError, "more than once"),
    (lambda: text.Lookup(text.Vocab.from_list(["a"]), "zz"), ValueError, "not in the vocab"),
    (lambda: text.Lookup(text.Vocab.from_list(["a"]))(np.array(["b"])), RuntimeError, "unknown_token is None"),
    (lambda: text.ToNumber(ms.int8)(np.array(["x"])), RuntimeError, "not a number"),
    (lambda: text.WhitespaceTokenizer()(np.array([1, 2])), TypeError, "one string"),
    (lambda: text.Ngram(0), ValueError, "positive int"),
])
def test_bad_input_gets_a_one_line_error(make, err, match):
    with pytest.raises(err, match=match):
        make()


def test_vocab_from_dataset_orders_by_frequency_and_applies_specials():
    data = ds.NumpySlicesDataset([["b", "a", "b"], ["c", "b", "a"]], ["text"], shuffle=False)
    vocab = text.Vocab.from_dataset(data, "text", special_tokens=["<pad>"], special_first=True)
    assert vocab.vocab() == {"<pad>": 0, "b": 1, "a": 2, "c": 3}
    top = text.Vocab.from_dataset(data, None, freq_range=(2, None), top_k=1)
    assert top.vocab() == {"b": 0}
