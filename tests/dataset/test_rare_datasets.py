"""The readers of photo collections (LFW, SBU, PhotoTour), of MATLAB-file sets (SVHN, Flowers102, SBD,
Caltech101) and of the IWSLT corpora give MindSpore 2.10's rows, column dtypes and errors: the programs of
tests/dataset/*_dataset_programs.py run on opbuild over files they write into tmp_path and are compared with
what MindSpore gave on the same files (scripts/record_rare_datasets.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild.dataset as ds
from tests.dataset import iwslt_dataset_programs as iwslt
from tests.dataset import lsun_dataset_programs as lsun
from tests.dataset import mat_dataset_programs as mat
from tests.dataset import photo_dataset_programs as photo
from tests.dataset import tedlium_dataset_programs as ted

EXPECTED = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "rare_datasets.json").read_text())


@pytest.fixture(scope="module")
def photo_results(tmp_path_factory):
    root = tmp_path_factory.mktemp("photo-sets")
    photo.make_files(str(root))
    return json.loads(json.dumps(photo.run(ds, str(root))))


@pytest.mark.parametrize("name", sorted(k for k in EXPECTED if k.split("_")[0] in ("lfw", "sbu", "photo")))
def test_photo_sets_match_mindspore(photo_results, name):
    assert photo_results[name] == EXPECTED[name]


@pytest.fixture(scope="module")
def mat_results(tmp_path_factory):
    pytest.importorskip("scipy", reason="the .mat readers need the optional extra opbuild[mat] (scipy)")
    root = tmp_path_factory.mktemp("mat-sets")
    mat.make_files(str(root))
    return json.loads(json.dumps(mat.run(ds, str(root))))


@pytest.mark.parametrize("name", sorted(k for k in EXPECTED if k.split("_")[0] in ("svhn", "flowers", "caltech",
                                                                                    "sbd")))
def test_mat_sets_match_mindspore(mat_results, name):
    assert mat_results[name] == EXPECTED[name]


@pytest.fixture(scope="module")
def iwslt_results(tmp_path_factory):
    root = tmp_path_factory.mktemp("iwslt")
    iwslt.make_files(str(root))
    return json.loads(json.dumps(iwslt.run(ds, str(root))))


@pytest.mark.parametrize("name", sorted(k for k in EXPECTED if k.startswith("iwslt")))
def test_iwslt_matches_mindspore(iwslt_results, name):
    assert iwslt_results[name] == EXPECTED[name]


def test_iwslt_writes_nothing_into_the_dataset(tmp_path):
    iwslt.make_files(str(tmp_path))
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert len(list(ds.IWSLT2016Dataset(str(tmp_path / "base" / "i16")).create_tuple_iterator(output_numpy=True))) == 8
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


@pytest.fixture(scope="module")
def tedlium_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("tedlium")
    ted.make_files(str(root))
    return str(root)


@pytest.mark.parametrize("name", sorted(k for k in EXPECTED if k.startswith("tedlium")))
def test_tedlium_matches_mindspore(tedlium_root, name):
    assert json.loads(json.dumps(ted.run(ds, tedlium_root)[name])) == EXPECTED[name]


def test_tedlium_reads_the_segments_samples(tedlium_root):
    # MindSpore 2.10 returns zeros here; opbuild returns the written samples of [start, end) / 32767, in
    # either byte order.
    rows = list(ds.TedliumDataset(f"{tedlium_root}/ted1", "release1", "train", shuffle=False)
                .create_tuple_iterator(output_numpy=True))
    first = rows[0]  # TalkA, 0.01 .. 0.02 s at 16 kHz
    expected = ted.samples("TalkA")[160:320].astype(np.float64) / 32767.0
    np.testing.assert_allclose(first[0][0], expected, rtol=1e-7)
    (e,) = ds.TedliumDataset(f"{tedlium_root}/ted3", "release3", shuffle=False).create_tuple_iterator(
        output_numpy=True)
    np.testing.assert_allclose(e[0][0], ted.samples("TalkE")[:16] / 32767.0, rtol=1e-7)


def test_tedlium_refuses_compressed_audio(tmp_path):
    ted.make_files(str(tmp_path))
    path = tmp_path / "ted3" / "data" / "sph" / "TalkE.sph"
    path.write_bytes(path.read_bytes().replace(b"sample_coding -s3 pcm", b"sample_coding -s7 shorten"))
    with pytest.raises(RuntimeError, match="sph2pipe"):
        list(ds.TedliumDataset(str(tmp_path / "ted3"), "release3").create_tuple_iterator(output_numpy=True))


@pytest.fixture(scope="module")
def lsun_results(tmp_path_factory):
    root = tmp_path_factory.mktemp("lsun")
    lsun.make_files(str(root))
    return json.loads(json.dumps(lsun.run(ds, str(root))))


@pytest.mark.parametrize("name", sorted(k for k in EXPECTED if k.startswith("lsun")))
def test_lsun_matches_mindspore(lsun_results, name):
    assert lsun_results[name] == EXPECTED[name]


def test_required_names_are_checked(tmp_path):
    with pytest.raises(TypeError, match="name must be a str"):
        ds.PhotoTourDataset(str(tmp_path), None)
    with pytest.raises(TypeError, match="classes must be a str"):
        ds.LSUNDataset(str(tmp_path), classes=[None])
    with pytest.raises(ValueError, match="is not a directory"):
        ds.LFWDataset(str(tmp_path / "missing"))


def test_mat_readers_name_the_extra_without_scipy(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "scipy.io", None)  # what an install without SciPy sees
    (tmp_path / "train_32x32.mat").write_bytes(b"")
    with pytest.raises(ImportError, match=r"opbuild\[mat\]"):
        ds.SVHNDataset(str(tmp_path), "train")
