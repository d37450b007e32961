"""IWSLT files of one language pair that do not pair up (a line, document or segment missing on one side) are
refused naming both files; zip used to pair every later sentence with another one's translation, silently."""

from __future__ import annotations

import pytest

import opbuild.dataset as ds
from tests.dataset import iwslt_dataset_programs as iwslt

_DIR = "base/i16/texts/de/en/de-en"


def test_training_files_of_different_line_counts_are_refused(tmp_path):
    iwslt.make_files(str(tmp_path))
    path = tmp_path / _DIR / "train.tags.de-en.de"
    path.write_text(path.read_text().replace("Wie geht es?\n", ""), encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"train.tags.de-en.de has 6 lines but .*train.tags.de-en.en has 7"):
        ds.IWSLT2016Dataset(str(tmp_path / "base/i16"), "train", shuffle=False)


def test_xml_documents_of_different_segment_counts_are_refused(tmp_path):
    iwslt.make_files(str(tmp_path))
    path = tmp_path / _DIR / "IWSLT16.TED.tst2013.de-en.en.xml"
    path.write_text(path.read_text().replace('<seg id="2"> Two &lt;cats&gt; &amp; more. </seg>\n', ""),
                    encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"document 1 holds 2 segments in .*de.xml but 1 in .*en.xml"):
        ds.IWSLT2016Dataset(str(tmp_path / "base/i16"), "valid", shuffle=False)


def test_xml_files_of_different_document_counts_are_refused(tmp_path):
    iwslt.make_files(str(tmp_path))
    (tmp_path / _DIR / "IWSLT16.TED.tst2013.de-en.de.xml").write_text(
        iwslt._xml("de", "srcset", [["Ein Hund.", "Zwei."]]), encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"de.xml holds 1 documents but .*en.xml holds 2"):
        ds.IWSLT2016Dataset(str(tmp_path / "base/i16"), "valid", shuffle=False)
