""".mat files of the MATLAB-file image sets that do not hold what the dataset writes: a missing variable is a
RuntimeError naming the file and the variable (not a bare KeyError), SVHN images and labels of different
counts are refused (concatenated parts would pair every later image with another one's label), and a
Flowers102 image id outside the labels is refused when the dataset is created (an id of 0 read the last
label)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild.dataset as ds
from tests.dataset import mat_dataset_programs as mat

pytest.importorskip("scipy")


def test_svhn_images_and_labels_of_different_counts_are_refused(tmp_path):
    mat.make_files(str(tmp_path))
    x = np.zeros((32, 32, 3, 3), np.uint8)
    mat._savemat(f"{tmp_path}/svhn/train_32x32.mat", {"X": x, "y": np.ones((2, 1), np.uint8)})
    with pytest.raises(RuntimeError, match=r"train_32x32.mat holds 3 images \(X\) but 2 labels \(y\)"):
        ds.SVHNDataset(f"{tmp_path}/svhn")


def test_svhn_without_y_names_the_file_and_variable(tmp_path):
    mat.make_files(str(tmp_path))
    mat._savemat(f"{tmp_path}/svhn/test_32x32.mat", {"X": np.zeros((32, 32, 3, 2), np.uint8)})
    with pytest.raises(RuntimeError, match=r"test_32x32.mat has no variable 'y' \(it holds \['X'\]\)"):
        ds.SVHNDataset(f"{tmp_path}/svhn", "test")


@pytest.mark.parametrize("ids, bad", [([[0, 2]], 0), ([[2, 7]], 7)])
def test_flowers_ids_outside_the_labels_are_refused(tmp_path, ids, bad):
    mat.make_files(str(tmp_path))
    mat._savemat(f"{tmp_path}/flowers/setid.mat", {"trnid": np.array(ids, np.uint16), "valid": np.array([[1]]),
                                                    "tstid": np.array([[3]])})
    with pytest.raises(RuntimeError, match=rf"lists image id {bad}, but .*imagelabels.mat labels images 1 to 6"):
        ds.Flowers102Dataset(f"{tmp_path}/flowers", usage="train")


def test_flowers_without_a_split_names_the_file_and_variable(tmp_path):
    mat.make_files(str(tmp_path))
    mat._savemat(f"{tmp_path}/flowers/setid.mat", {"trnid": np.array([[1]], np.uint16)})
    with pytest.raises(RuntimeError, match=r"setid.mat has no variable 'tstid'"):
        ds.Flowers102Dataset(f"{tmp_path}/flowers")


def test_caltech_and_sbd_annotations_without_their_variable_name_it(tmp_path):
    mat.make_files(str(tmp_path))
    mat._savemat(f"{tmp_path}/caltech/Annotations/accordion/annotation_0001.mat", {"contour": np.zeros((2, 3))})
    with pytest.raises(RuntimeError, match=r"annotation_0001.mat has no variable 'obj_contour'"):
        list(ds.Caltech101Dataset(f"{tmp_path}/caltech", "annotation", shuffle=False).create_tuple_iterator())
    mat._savemat(f"{tmp_path}/sbd/cls/2008_000002.mat", {"GT": np.zeros((2, 2))})
    with pytest.raises(RuntimeError, match=r"2008_000002.mat has no variable 'GTcls'"):
        list(ds.SBDataset(f"{tmp_path}/sbd", usage="train", shuffle=False).create_tuple_iterator())
