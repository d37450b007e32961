"""Deterministic calls of ``mindspore.dataset.text`` operations, run by scripts/record_dataset_ops.py under
MindSpore 2.10 and by tests/dataset/test_text.py under opbuild. Imports neither framework: ``run(text, ds)``
takes the modules. Each case gives an array, a list of arrays, or a Python value (as a 0-d array)."""

from __future__ import annotations

import numpy as np

SENTENCE = "Welcome     To   BeiJing!"
MIXED = "Hello, World! Ünïcödé [CLS] naïve 床前明月光 don't  x2 [unused7] 12.5"
# MindSpore 2.10 repeats the text before a preserved [CLS] when lower_case is on: those cases avoid it.
MIXED_LOWER = "Hello, World! Ünïcödé naïve 床前明月光 don't  x2 12.5"
VOCAB = ["床", "前", "明", "月", "光", "hello", "world", "un", "##ic", "##od", "##e", "nai", "##ve", "don", "'",
         "t", "x", "##2", "12", ".", "5", ",", "!", "[UNK]", "[CLS]", "[unused7]", "wel", "##come"]


def _pipeline(ds, data, op, in_cols=None, out_cols=None):
    d = ds.NumpySlicesDataset(data, ["text"], shuffle=False)
    d = d.map(operations=op, input_columns=in_cols, output_columns=out_cols)
    return [list(row.values()) for row in d.create_dict_iterator(num_epochs=1, output_numpy=True)]


def cases(text, ds) -> dict:
    vocab = text.Vocab.from_list(VOCAB)
    nf = text.NormalizeForm
    return {
        "whitespace": lambda: list(text.WhitespaceTokenizer(True)(SENTENCE)),
        "whitespace_mixed": lambda: text.WhitespaceTokenizer()(MIXED),
        "unicode_char": lambda: list(text.UnicodeCharTokenizer(True)("a床b é")),
        "unicode_script": lambda: list(text.UnicodeScriptTokenizer(True, True)("北 京abc123 русский!")),
        "unicode_script_nows": lambda: text.UnicodeScriptTokenizer()("北 京abc def"),
        "regex": lambda: list(text.RegexTokenizer(r"[ |,]", with_offsets=True)(SENTENCE)),
        "regex_keep": lambda: list(text.RegexTokenizer("To", "To", True)(SENTENCE)),
        "basic": lambda: list(text.BasicTokenizer(with_offsets=True)(MIXED)),
        "basic_lower": lambda: list(text.BasicTokenizer(True, with_offsets=True)(MIXED_LOWER)),
        "basic_keep_ws": lambda: text.BasicTokenizer(keep_whitespace=True)("a  b,c"),
        "basic_no_unused": lambda: text.BasicTokenizer(preserve_unused_token=False)(MIXED),
        "basic_nfkd": lambda: text.BasicTokenizer(normalization_form=nf.NFKD)("ﬁ café"),
        "bert": lambda: list(text.BertTokenizer(vocab, lower_case=True, with_offsets=True)(MIXED_LOWER)),
        "bert_cased": lambda: text.BertTokenizer(vocab)("Welcome 床前 hello"),
        "bert_preserved": lambda: list(text.BertTokenizer(vocab, with_offsets=True)(MIXED)),
        "bert_unknown_empty": lambda: text.BertTokenizer(vocab, unknown_token="")("zzz hello"),
        "wordpiece": lambda: list(text.WordpieceTokenizer(vocab, with_offsets=True)(
            np.array(["unicode", "naive", "zzz", "x2"]))),
        "wordpiece_maxbytes": lambda: text.WordpieceTokenizer(vocab, max_bytes_per_token=4)(
            np.array(["unicode", "x2"])),
        "vocab_from_list": lambda: np.array(sorted(text.Vocab.from_list(["w1", "w2"], ["<unk>"], False)
                                                   .vocab().items())),
        "tokens_to_ids": lambda: np.array(vocab.tokens_to_ids(["hello", "nope", "床"])),
        "token_to_id": lambda: np.array(vocab.tokens_to_ids("world")),
        "ids_to_tokens": lambda: np.array(vocab.ids_to_tokens([0, 5, 99])),
        "vocab_from_dict": lambda: np.array(text.Vocab.from_dict({"a": 3, "b": 7}).ids_to_tokens([7, 3])),
        "lookup": lambda: text.Lookup(vocab, "[UNK]")(np.array(["hello", "zzz", "月"])),
        "lookup_int64": lambda: text.Lookup(vocab, "[UNK]", _int64(ds))(np.array(["x"])),
        "lookup_missing": lambda: text.Lookup(vocab)(np.array(["zzz"])),
        "to_number": lambda: text.ToNumber(_ms_dtype("int16"))(np.array(["1", "-2", "300"])),
        "to_number_float": lambda: text.ToNumber(_ms_dtype("float32"))(np.array(["1.5", "-2e3"])),
        "to_number_bad": lambda: text.ToNumber(_ms_dtype("int8"))(np.array(["300"])),
        "add_token": lambda: text.AddToken("TOKEN", True)(np.array(["a", "b"])),
        "add_token_end": lambda: text.AddToken("END", False)(np.array(["a", "b"])),
        "casefold": lambda: text.CaseFold()(np.array(["Straße", "ÀbC"])),
        "normalize_nfkc": lambda: text.NormalizeUTF8()(np.array(["ﬁ", "2⁵", "ẛ̣"])),
        "normalize_nfd": lambda: text.NormalizeUTF8(nf.NFD)(np.array(["é"])),
        "regex_replace": lambda: text.RegexReplace("one", "two")(np.array("onetwoonetwoone")),
        "regex_replace_first": lambda: text.RegexReplace("o(n)e", "[$1]", False)(np.array("onetwoone")),
        "ngram": lambda: text.Ngram([1, 2, 3], ("_", 2), ("$", 1), "-")(np.array(["a", "b", "c"])),
        "ngram_short": lambda: text.Ngram(3)(np.array(["a", "b"])),
        "sliding_window": lambda: text.SlidingWindow(2)(np.array(["a", "b", "c", "d"])),
        "sliding_window_int": lambda: text.SlidingWindow(3, 0)(np.array([1, 2, 3, 4, 5])),
        "truncate": lambda: text.Truncate(2)(np.array([[1, 2, 3], [4, 5, 6]])),
        "truncate_pair": lambda: list(text.TruncateSequencePair(4)(np.array([1, 2, 3]), np.array([4, 5]))),
        "truncate_pair_tie": lambda: list(text.TruncateSequencePair(3)(np.array([1, 2]), np.array([4, 5]))),
        "to_str": lambda: text.to_str(np.array([b"a", b"bc"])),
        "to_bytes": lambda: text.to_bytes(np.array(["a", "bc"])),
        "pipeline_basic": lambda: _pipeline(ds, [SENTENCE], text.BasicTokenizer(with_offsets=True), ["text"],
                                            ["token", "offsets_start", "offsets_limit"])[0],
        "pipeline_casefold": lambda: _pipeline(ds, ["AbC", "DéF"], text.CaseFold())[1],
    }


def _ms_dtype(name):
    import importlib
    for mod in ("mindspore", "opbuild"):
        try:
            return getattr(importlib.import_module(mod), name)
        except ImportError:
            continue
    raise ImportError("neither mindspore nor opbuild is importable")


def _int64(ds):
    return _ms_dtype("int64")


def run(text, ds) -> dict:
    """Each case's result as arrays (a list for several outputs), or the name of the exception it raised."""
    out = {}
    for name, fn in cases(text, ds).items():
        try:
            res = fn()
        except Exception as e:  # recorded: a case where MindSpore refuses is compared as a refusal
            out[name] = type(e).__name__
            continue
        out[name] = [np.asarray(r) for r in res] if isinstance(res, list) else np.asarray(res)
    return out
