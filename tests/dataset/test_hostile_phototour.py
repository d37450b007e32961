"""PhotoTour lists and bitmaps that are not what the dataset writes: a negative or non-numeric patch number
is refused naming the file and record (a negative one read a patch of the last bitmap through Python's
negative indexing), and a bitmap that is not 1024x1024 is refused naming the file (a smaller one gave
empty or cut patches)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild.dataset as ds
from tests.dataset import photo_dataset_programs as photo
from tests.dataset.file_helpers import _write

pytest.importorskip("PIL")


@pytest.mark.parametrize("line, token", [("-3 7 0 1 7 0 0", "'-3'"), ("0 7 0 x 7 0 0", "'x'")])
def test_a_bad_patch_number_in_the_matches_is_refused(tmp_path, line, token):
    photo.make_files(str(tmp_path))
    _write(f"{tmp_path}/photo/liberty/m50_100000_100000_0.txt", "0 7 0 1 7 0 0\n" + line + "\n")
    with pytest.raises(RuntimeError, match=rf"record 2 of .*m50_100000_100000_0.txt holds {token} where a "
                                           "non-negative integer belongs"):
        ds.PhotoTourDataset(f"{tmp_path}/photo", "liberty", "test")


def test_a_bad_point_id_in_info_is_refused(tmp_path):
    photo.make_files(str(tmp_path))
    _write(f"{tmp_path}/photo/liberty/info.txt", "7 0\nseven 1\n")
    with pytest.raises(RuntimeError, match=r"record 2 of .*info.txt holds 'seven'"):
        ds.PhotoTourDataset(f"{tmp_path}/photo", "liberty")


def test_a_bitmap_of_the_wrong_size_is_refused(tmp_path):
    from PIL import Image

    photo.make_files(str(tmp_path))
    Image.fromarray(np.zeros((512, 512), np.uint8), "L").save(f"{tmp_path}/photo/liberty/patches0000.bmp")
    data = ds.PhotoTourDataset(f"{tmp_path}/photo", "liberty", shuffle=False)
    with pytest.raises(RuntimeError, match=r"patches0000.bmp is 512x512 pixels; .*\(1024x1024\)"):
        list(data.create_tuple_iterator())
