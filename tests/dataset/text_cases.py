"""``dataset.text`` calls (``build(T)`` over the framework's text module: name -> (callable, input));
scripts/record_vision_transforms.py records MindSpore 2.10's outputs into
tests/fixtures/mindspore/text_transforms.npz, tests/dataset/test_text_transforms.py compares opbuild's."""

import numpy as np


def build(T, int32) -> dict:
    """name -> (callable, input); ``int32`` is the framework's dtype of that name."""
    words = np.array(["happy", "birthday", "to", "you"])
    vocab = T.Vocab.from_list(["w1", "w2", "w3"], special_tokens=["<unk>"], special_first=True)
    wp = T.Vocab.from_list(["book", "cholera", "era", "favor", "##ite", "my", "is", "love", "dur", "##ing", "the",
                            "hap", "##py", "to", "[UNK]"])
    return {
        "AddToken": (T.AddToken(token="TOKEN", begin=True), words),
        "AddToken_end": (T.AddToken(token="END", begin=False), words),
        "Truncate": (T.Truncate(2), words), "TruncateSequencePair": (lambda p: T.TruncateSequencePair(4)(*p),
                                                                     (np.array(["1", "2", "3"]), np.array(["4", "5"]))),
        "Ngram": (T.Ngram(3, separator="-"), np.array(["WildRose Country", "Canada's Ocean", "Land of Skies"])),
        "Ngram_multi": (T.Ngram([1, 2], left_pad=("_", 1), right_pad=("-", 1)), words),
        "SlidingWindow": (T.SlidingWindow(2, 0), np.array([1, 2, 3, 4, 5])),
        "ToNumber": (T.ToNumber(int32), np.array(["1", "2", "3"])),
        "CaseFold": (T.CaseFold(), np.array(["Welcome", "To", "BeiJing!"])),
        "NormalizeUTF8": (T.NormalizeUTF8(T.NormalizeForm.NFKC), np.array(["ｈｅｌｌｏ", "ﬁ"])),
        "RegexReplace": (T.RegexReplace("one", "two"), np.array(["onetwoonetwoone"])),
        "RegexReplace_first": (T.RegexReplace("one", "two", False), np.array(["onetwoonetwoone"])),
        "WhitespaceTokenizer": (T.WhitespaceTokenizer(True), np.array("Welcome To   BeiJing!")),
        "UnicodeCharTokenizer": (T.UnicodeCharTokenizer(True), np.array("床前a b")),
        "RegexTokenizer": (T.RegexTokenizer(r"\s+", r"\s+", True), np.array("Welcome  |,  To  |,  BeiJing!")),
        "PythonTokenizer": (T.PythonTokenizer(lambda s: s.split()), np.array("Welcome To BeiJing!")),
        "BasicTokenizer": (T.BasicTokenizer(with_offsets=True), np.array("Welcome     To   BeiJing!")),
        "BasicTokenizer_lower": (T.BasicTokenizer(lower_case=True), np.array("Héllo, 床前明月光 World!")),
        "WordpieceTokenizer": (T.WordpieceTokenizer(wp, with_offsets=True), words),
        "BertTokenizer": (T.BertTokenizer(wp, with_offsets=True), np.array("happy book to favorite, 床")),
        "Lookup": (T.Lookup(vocab, unknown_token="<unk>"), np.array(["w1", "w3", "zz"])),
        "tokens_to_ids": (lambda _: vocab.tokens_to_ids(["w1", "w3", "x"]), None),
        "ids_to_tokens": (lambda _: vocab.ids_to_tokens([1, 3]), None),
        "vocab": (lambda _: sorted(vocab.vocab().items()), None),
        "from_dict": (lambda _: T.Vocab.from_dict({"home": 3, "the": 4}).ids_to_tokens(4), None),
        "to_bytes": (lambda x: T.to_bytes(x), np.array(["a", "床"])),
        "to_str": (lambda x: T.to_str(x), np.array([b"ab", b"c"])),
    }
