"""LFW lists cut short (fewer people or pairs than their counts announce) are refused naming the list,
instead of reading the lines that are there as the whole list."""

from __future__ import annotations

import pytest

import opbuild.dataset as ds
from tests.dataset import photo_dataset_programs as photo
from tests.dataset.file_helpers import _write

pytest.importorskip("PIL")


def test_a_cut_people_list_is_refused(tmp_path):
    photo.make_files(str(tmp_path))
    _write(f"{tmp_path}/lfw/peopleDevTrain.txt", "3\nAaron_Eckhart\t2\nZed_Zero\t1\n")
    with pytest.raises(RuntimeError, match=r"peopleDevTrain.txt is not an LFW people list \(a block announces 3 "
                                           r"people but only 2 lines follow\)"):
        ds.LFWDataset(f"{tmp_path}/lfw", usage="train")


def test_a_cut_pairs_list_is_refused(tmp_path):
    photo.make_files(str(tmp_path))
    _write(f"{tmp_path}/lfw/pairsDevTrain.txt", "2\nZed_Zero\t1\t3\nAaron_Eckhart\t2\tAbba_Eban\t1\n")
    with pytest.raises(RuntimeError, match=r"pairsDevTrain.txt is not an LFW pairs list \(a fold announces 2 matched "
                                           r"and 2 mismatched pairs but only 2 lines follow\)"):
        ds.LFWDataset(f"{tmp_path}/lfw", task="pairs", usage="train")
