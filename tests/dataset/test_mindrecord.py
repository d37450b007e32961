"""MindDataset reads MindRecord files as MindSpore 2.10 does: the files were written by MindSpore's FileWriter
and read by its MindDataset in scripts/record_mindrecord.py (tests/fixtures/mindspore/mindrecord/, gzipped,
and mindrecord.json); opbuild reads the same files without MindSpore and without their .db index."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import opbuild.dataset as ds
from tests.dataset.file_dataset_programs import _rows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"
EXPECTED = json.loads((FIXTURES / "mindrecord.json").read_text())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("mindrecord")
    for gz in (FIXTURES / "mindrecord").glob("*.gz"):
        (root / gz.name[:-3]).write_bytes(gzip.decompress(gz.read_bytes()))
    return root


def _got(name, files):
    mixed, sharded = str(files / "mixed.mindrecord"), str(files / "sharded.mindrecord")
    if name == "mixed":
        return _rows(ds.MindDataset(mixed, shuffle=False))
    if name == "mixed_cols":
        return ds.MindDataset(mixed).get_col_names()
    if name == "mixed_columns":
        return _rows(ds.MindDataset(mixed, columns_list=["vec", "label"], shuffle=False))
    if name == "mixed_sampler":
        return _rows(ds.MindDataset(mixed, columns_list=["label"], sampler=ds.SubsetSampler([4, 0, 2])))
    if name == "sharded_all":
        return _rows(ds.MindDataset(sharded + "0", shuffle=False))
    if name == "sharded_one":
        return _rows(ds.MindDataset([sharded + "1"], shuffle=False))
    if name == "sharded_shard":
        return [_rows(ds.MindDataset(sharded + "0", shuffle=False, num_shards=2, shard_id=i)) for i in range(2)]
    assert name == "padded"
    return _rows(ds.MindDataset(sharded + "0", ["img", "label"], shuffle=False, num_shards=2, shard_id=1,
                                num_padded=1, padded_sample={"label": np.int64(-1), "img": b"pad"}))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_mindspore(files, name):
    assert json.loads(json.dumps(_got(name, files))) == EXPECTED[name]


def test_shuffle_and_bad_input(files, tmp_path):
    mixed = str(files / "mixed.mindrecord")
    ds.config.set_seed(2)
    it = ds.MindDataset(mixed, columns_list=["label"]).create_tuple_iterator(output_numpy=True, num_epochs=2)
    epochs = [[int(r[0]) for r in it] for _ in range(2)]
    assert sorted(epochs[0]) == sorted(epochs[1]) == [-2, -1, 0, 1, 2] and epochs[0] != epochs[1]
    with pytest.raises(ValueError, match="does not exist"):
        ds.MindDataset(str(tmp_path / "none.mindrecord"))
    (tmp_path / "bad.mindrecord").write_bytes(b"\x05" * 64)
    with pytest.raises(ValueError, match="is not a MindRecord file"):
        ds.MindDataset([str(tmp_path / "bad.mindrecord")])
    (tmp_path / "sharded.mindrecord0").write_bytes((files / "sharded.mindrecord0").read_bytes())
    with pytest.raises(ValueError, match="the shards .*sharded.mindrecord1.* are missing"):
        ds.MindDataset(str(tmp_path / "sharded.mindrecord0"))
    with pytest.raises(ValueError, match="columns_list names"):
        ds.MindDataset(mixed, columns_list=["image"])
    with pytest.raises(ValueError, match="padded_sample and num_padded go together"):
        ds.MindDataset(mixed, num_padded=2)
