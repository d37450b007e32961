"""Programs over ``IWSLT2016Dataset`` and ``IWSLT2017Dataset``, written once for both frameworks:
``make_files(root)`` writes tiny corpora (training tag files, XML dev/test sets); ``run(ds, root)`` reads them
with ``ds`` = ``mindspore.dataset`` (scripts/record_rare_datasets.py) or ``opbuild.dataset`` (the tests).
MindSpore writes cleaned copies next to the files, so each program gets its own copy of the tree."""

from __future__ import annotations

import os
import shutil

from tests.dataset.file_helpers import _write
from tests.dataset.photo_dataset_programs import attempt

_TRAIN = {
    "de": "<url>http://www.ted.com/talks/a</url>\n<keywords>talks</keywords>\n  Guten Morgen.  \n"
          "Wie geht es?\n<talkid>1</talkid>\nDanke &amp; gut.\nZum Schluss\n",
    "en": "<url>http://www.ted.com/talks/a</url>\n<keywords>talks</keywords>\nGood morning.\n"
          "How are you?\n<talkid>1</talkid>\nThanks &amp; fine.\nFinally\n",
}


def _xml(lang: str, tag: str, sentences: list[list[str]]) -> str:
    docs = "".join(
        f'<doc docid="{d}" genre="lectures">\n<url>http://ted.com/{d}</url>\n<title>T{d}</title>\n'
        + "".join(f'<seg id="{i + 1}"> {s} </seg>\n' for i, s in enumerate(doc)) + "</doc>\n"
        for d, doc in enumerate(sentences))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<mteval>\n<{tag} setid="x" srclang="{lang}">\n{docs}</{tag}>\n' \
           "</mteval>\n"


def _corpus(folder: str, prefix: str, pair: tuple[str, str], sets: dict) -> None:
    src, tgt = pair
    for lang in pair:
        _write(f"{folder}/train.tags.{src}-{tgt}.{lang}", _TRAIN[lang])
    for name, (de_docs, en_docs) in sets.items():
        _write(f"{folder}/{prefix}.TED.{name}.{src}-{tgt}.{src}.xml", _xml(src, "srcset", de_docs))
        _write(f"{folder}/{prefix}.TED.{name}.{src}-{tgt}.{tgt}.xml", _xml(tgt, "refset", en_docs))


def make_files(root: str) -> None:
    """Write both corpora under ``root/base``."""
    sets16 = {"tst2013": ([["Ein Hund.", "Zwei &lt;Katzen&gt;."], ["Drei."]],
                          [["A dog.", "Two &lt;cats&gt; &amp; more."], ["Three."]]),
              "tst2014": ([["Vier Baeume."]], [["Four trees."]]),
              "dev2010": ([["Fuenf."], ["Sechs.", "Sieben."]], [["Five."], ["Six.", "Seven."]])}
    _corpus(f"{root}/base/i16/texts/de/en/de-en", "IWSLT16", ("de", "en"), sets16)
    sets17 = {"dev2010": ([["Acht."]], [["Eight."]]), "tst2010": ([["Neun.", "Zehn."]], [["Nine.", "Ten."]])}
    _corpus(f"{root}/base/i17/texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo", "IWSLT17", ("de", "en"), sets17)


def _fresh(root: str, name: str) -> str:
    """A copy of the corpora for one program (MindSpore leaves its cleaned files behind)."""
    dst = f"{root}/runs/{name}"
    if not os.path.isdir(dst):
        shutil.copytree(f"{root}/base", dst)
    return dst


def run(ds, root: str) -> dict:
    """name -> rows (or an error's type) of each program."""
    programs = {
        "iwslt16_all": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", shuffle=False),
        "iwslt16_train": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", "train", shuffle=False),
        "iwslt16_valid_dev": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", "valid", ("de", "en"), "dev2010",
                                                           shuffle=False),
        "iwslt16_test": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", "test", ["de", "en"], shuffle=False),
        "iwslt16_shard": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", num_shards=3, shard_id=2, shuffle=False),
        "iwslt16_num_samples": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", num_samples=4, shuffle=False),
        "iwslt16_bad_pair": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", language_pair=("de", "it")),
        "iwslt16_pair_str": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", language_pair="de-en"),
        "iwslt16_bad_set": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", valid_set="tst2015"),
        "iwslt16_missing_pair": lambda d: ds.IWSLT2016Dataset(f"{d}/i16", language_pair=("en", "fr")),
        "iwslt17_all": lambda d: ds.IWSLT2017Dataset(f"{d}/i17", shuffle=False),
        "iwslt17_test": lambda d: ds.IWSLT2017Dataset(f"{d}/i17", "test", shuffle=False),
        "iwslt17_valid_workers": lambda d: ds.IWSLT2017Dataset(f"{d}/i17", "valid", num_parallel_workers=1,
                                                               shuffle=False),
        "iwslt17_bad_usage": lambda d: ds.IWSLT2017Dataset(f"{d}/i17", "dev"),
        "iwslt17_bad_pair": lambda d: ds.IWSLT2017Dataset(f"{d}/i17", language_pair=("en", "en")),
    }
    return {name: attempt(lambda make=make, name=name: make(_fresh(root, name))) for name, make in programs.items()}
