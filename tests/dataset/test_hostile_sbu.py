"""SBU's URL and caption lists of different line counts (a caption missing in the middle) are refused naming
both files; zip paired every later photo with another one's caption, silently."""

from __future__ import annotations

import pytest

import opbuild.dataset as ds
from tests.dataset import photo_dataset_programs as photo
from tests.dataset.file_helpers import _write

pytest.importorskip("PIL")


def test_lists_of_different_lengths_are_refused(tmp_path):
    photo.make_files(str(tmp_path))
    _write(f"{tmp_path}/sbu/SBU_captioned_photo_dataset_captions.txt", "the sea at night\n two boats \nmissing photo\n")
    with pytest.raises(RuntimeError, match=r"urls.txt has 4 lines but .*captions.txt has 3; they pair up line by line"):
        ds.SBUDataset(f"{tmp_path}/sbu")


def test_lists_without_a_final_newline_still_pair(tmp_path):
    photo.make_files(str(tmp_path))
    path = tmp_path / "sbu" / "SBU_captioned_photo_dataset_captions.txt"
    path.write_text(path.read_text().rstrip("\n"))
    rows = list(ds.SBUDataset(f"{tmp_path}/sbu", shuffle=False).create_tuple_iterator(output_numpy=True))
    assert [str(r[1]) for r in rows] == ["a dog on a hill", "the sea at night", " two boats"]
