"""Programs over the readers of MATLAB-file image sets (``SVHNDataset``, ``Flowers102Dataset``,
``Caltech101Dataset``, ``SBDataset``), written once for both frameworks: ``make_files(root)`` writes tiny
files in each layout (``.mat`` files with SciPy); ``run(ds, root)`` reads them with ``ds`` =
``mindspore.dataset`` (scripts/record_rare_datasets.py) or ``opbuild.dataset`` (the tests)."""

from __future__ import annotations

import os

import numpy as np

from tests.dataset.file_helpers import _write
from tests.dataset.photo_dataset_programs import attempt, png


def _savemat(path: str, data: dict) -> None:
    from scipy.io import savemat

    os.makedirs(os.path.dirname(path), exist_ok=True)
    savemat(path, data)


def _make_svhn(root: str) -> None:
    rng = np.random.default_rng(3)
    for part, n in (("train", 3), ("test", 2), ("extra", 2)):
        x = rng.integers(0, 256, (32, 32, 3, n), dtype=np.uint8)
        y = (np.arange(n) * 4 + len(part)) % 10 + 1  # classes 1..10 (10 is digit 0)
        _savemat(f"{root}/svhn/{part}_32x32.mat", {"X": x, "y": y.reshape(-1, 1).astype(np.uint8)})


def _make_flowers(root: str) -> None:
    for k in range(1, 7):
        _write(f"{root}/flowers/jpg/image_{k:05d}.jpg", png(60 + k, (3, 4, 3)))
        _write(f"{root}/flowers/segmim/segmim_{k:05d}.jpg", png(70 + k, (3, 4, 3)))
    _savemat(f"{root}/flowers/imagelabels.mat", {"labels": np.array([[3, 1, 102, 7, 1, 2]], np.uint8)})
    _savemat(f"{root}/flowers/setid.mat", {"trnid": np.array([[2, 5]], np.uint16), "valid": np.array([[1]], np.uint16),
                                           "tstid": np.array([[6, 3, 4]], np.uint16)})


def _make_caltech(root: str) -> None:
    base = f"{root}/caltech"
    counts = {"Faces": 2, "BACKGROUND_Google": 1, "accordion": 1, "airplanes": 2}
    seed = 80
    for name, n in counts.items():
        ann = {"Faces": "Faces_2", "airplanes": "Airplanes_Side_2"}.get(name, name)
        for k in range(1, n + 1):
            seed += 1
            _write(f"{base}/101_ObjectCategories/{name}/image_{k:04d}.jpg", png(seed, (2, 3, 3)))
            contour = np.random.default_rng(seed).random((2, 3 + k))
            _savemat(f"{base}/Annotations/{ann}/annotation_{k:04d}.mat", {"obj_contour": contour})


def _make_sbd(root: str) -> None:
    from scipy import sparse

    for k, name in enumerate(("2008_000002", "2008_000003", "2008_000007")):
        _write(f"{root}/sbd/img/{name}.jpg", png(90 + k, (4, 5, 3)))
        rng = np.random.default_rng(k)
        cells = np.empty((20, 1), dtype=object)
        for i in range(20):
            cells[i, 0] = sparse.csc_matrix((rng.random((4, 5)) > 0.8).astype(np.float64))
        seg = rng.integers(0, 21, (4, 5), dtype=np.uint8)
        _savemat(f"{root}/sbd/cls/{name}.mat", {"GTcls": {"Boundaries": cells, "Segmentation": seg,
                                                          "CategoriesPresent": np.array([[1]], np.uint8)}})
    _write(f"{root}/sbd/train.txt", "2008_000002\n2008_000003\n")
    _write(f"{root}/sbd/val.txt", "2008_000007\n")
    _write(f"{root}/sbd/train_noval.txt", "2008_000003\n")


def make_files(root: str) -> None:
    """Write every layout under ``root``."""
    _make_svhn(root)
    _make_flowers(root)
    _make_caltech(root)
    _make_sbd(root)


def run(ds, root: str) -> dict:
    """name -> rows (or an error's type) of each program."""
    svhn, fl, cal, sbd = f"{root}/svhn", f"{root}/flowers", f"{root}/caltech", f"{root}/sbd"
    return {
        "svhn_all": attempt(lambda: ds.SVHNDataset(svhn, shuffle=False)),
        "svhn_test": attempt(lambda: ds.SVHNDataset(svhn, "test", shuffle=False)),
        "svhn_shard": attempt(lambda: ds.SVHNDataset(svhn, "train", num_shards=2, shard_id=1, shuffle=False)),
        "svhn_bad_usage": attempt(lambda: ds.SVHNDataset(svhn, "valid")),
        "svhn_no_dir": attempt(lambda: ds.SVHNDataset(f"{root}/nowhere")),
        "flowers_all": attempt(lambda: ds.Flowers102Dataset(fl, shuffle=False)),
        "flowers_train_decode": attempt(lambda: ds.Flowers102Dataset(fl, usage="train", decode=True, shuffle=False)),
        "flowers_seg_test": attempt(lambda: ds.Flowers102Dataset(fl, "Segmentation", "test", shuffle=False)),
        "flowers_valid_sampler": attempt(lambda: ds.Flowers102Dataset(fl, usage="valid",
                                                                      sampler=ds.SequentialSampler())),
        "flowers_bad_task": attempt(lambda: ds.Flowers102Dataset(fl, "Detection")),
        "flowers_missing": attempt(lambda: ds.Flowers102Dataset(svhn)),
        "caltech_category": attempt(lambda: ds.Caltech101Dataset(cal, shuffle=False)),
        "caltech_annotation": attempt(lambda: ds.Caltech101Dataset(cal, "annotation", shuffle=False)),
        "caltech_all_decode": attempt(lambda: ds.Caltech101Dataset(cal, "all", decode=True, shuffle=False,
                                                                   num_samples=3)),
        "caltech_bad_target": attempt(lambda: ds.Caltech101Dataset(cal, "bbox")),
        "sbd_boundaries": attempt(lambda: ds.SBDataset(sbd, shuffle=False)),
        "sbd_segmentation_decode": attempt(lambda: ds.SBDataset(sbd, "Segmentation", "val", decode=True,
                                                                shuffle=False)),
        "sbd_train_noval": attempt(lambda: ds.SBDataset(sbd, usage="train_noval", shuffle=False)),
        "sbd_bad_usage": attempt(lambda: ds.SBDataset(sbd, usage="test")),
        "sbd_missing_list": attempt(lambda: ds.SBDataset(svhn)),
    }
