"""MindRecord: opbuild reads the files MindSpore wrote (tests/fixtures/mindspore/mindrecord/ms_files.tar.gz)
and returns what MindSpore's FileReader and MindDataset returned (reads.json, scripts/record_mindrecord.py);
opbuild writes the same cases byte for byte as MindSpore did (so MindSpore reads them: the recorder's
``--read`` mode checks that on files these tests leave in $MINDRECORD_OUT_DIR); round trips; bad input."""

from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import shutil
import sqlite3
import struct
import tarfile
from pathlib import Path

import numpy as np
import pytest

from opbuild import dataset as ds
from opbuild.mindrecord import (
    Cifar10ToMR,
    Cifar100ToMR,
    CsvToMR,
    FileReader,
    FileWriter,
    ImageNetToMR,
    MindPage,
    MnistToMR,
    MRMCommitError,
    MRMDefineCategoryError,
    MRMInvalidSchemaError,
    MRMOpenError,
    MRMValidateDataError,
)
from tests.dataset import mindrecord_cases as cases

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "mindrecord"
RECORDED = json.loads((FIXTURES / "reads.json").read_text())


@pytest.fixture(scope="module")
def ms_dir(tmp_path_factory) -> str:
    """The files MindSpore wrote, unpacked."""
    root = tmp_path_factory.mktemp("ms_mindrecord")
    with tarfile.open(FIXTURES / "ms_files.tar.gz") as tar:
        tar.extractall(root, filter="data")
    return str(root)


@pytest.fixture(scope="module")
def ob_dir(tmp_path_factory) -> str:
    """The same cases written by opbuild (copied to $MINDRECORD_OUT_DIR when set, for the recorder)."""
    root = tmp_path_factory.mktemp("ob_mindrecord")
    for name in cases.CASES:
        cases.write_case(FileWriter, str(root), name)
    out = os.environ.get("MINDRECORD_OUT_DIR")
    if out:
        shutil.copytree(root, out, dirs_exist_ok=True)
    return str(root)


@pytest.mark.parametrize("name", list(cases.CASES))
def test_file_reader_reads_mindspore_files(ms_dir, name):
    reader = FileReader(os.path.join(ms_dir, cases.file_names(name)[0]))
    got = cases.compact(json.loads(json.dumps([cases.encode_row(r) for r in reader.get_next()])))
    assert got == RECORDED["file_reader"][name]


@pytest.mark.parametrize("k", range(len(cases.DATASET_READS)))
def test_mind_dataset_reads_mindspore_files(ms_dir, k):
    name, files, kwargs = cases.DATASET_READS[k]
    got = cases.dataset_rows(ds.MindDataset, ms_dir, files, kwargs)
    assert json.loads(json.dumps(got)) == RECORDED["dataset"][k]


def _db_contents(path: str) -> tuple:
    db = sqlite3.connect(path)
    try:
        tables = sorted(db.execute("SELECT type, name, sql FROM sqlite_master").fetchall(), key=str)
        return (tables, db.execute("SELECT * FROM INDEXES ORDER BY ROW_ID").fetchall(),
                db.execute("SELECT * FROM SHARD_NAME").fetchall())
    finally:
        db.close()


@pytest.mark.parametrize("name", list(cases.CASES))
def test_written_files_match_mindspore(ms_dir, ob_dir, name):
    for f in cases.file_names(name):
        ours, theirs = os.path.join(ob_dir, f), os.path.join(ms_dir, f)
        if f.endswith(".db"):
            # SQLite files differ in bookkeeping bytes; their tables and rows must not.
            assert _db_contents(ours) == _db_contents(theirs), f
        else:
            assert Path(ours).read_bytes() == Path(theirs).read_bytes(), f


@pytest.mark.parametrize("name", list(cases.CASES))
def test_round_trip(ob_dir, name):
    """opbuild reads back exactly what it wrote (MindDataset keeps stored numbers as they are)."""
    schema = cases.CASES[name][2]
    written = [r for batch in cases.CASES[name][5]() for r in batch]
    data = ds.MindDataset(os.path.join(ob_dir, cases.file_names(name)[0]), shuffle=False)
    read = list(data.create_dict_iterator(output_numpy=True, num_epochs=1))
    assert len(read) == len(written)
    if cases.CASES[name][1] > 1:  # shards hold runs of rows: order them back
        read.sort(key=lambda r: int(r["label"]))
    for want, got in zip(written, read):
        for field, spec in schema.items():
            value = got[field]
            if "shape" in spec:
                assert value.dtype == want[field].dtype
                np.testing.assert_array_equal(value, want[field].reshape(value.shape))
            elif spec["type"] == "bytes":
                # One numpy bytes element (MindSpore's form), which drops trailing NULs when read.
                assert value.shape == (1,) and value.dtype.itemsize == max(len(want[field]), 1)
                assert value[0] == want[field].rstrip(b"\0")
            else:
                assert value.dtype.kind == "U" if spec["type"] == "string" else value.dtype == spec["type"]
                expected = np.float32(want[field]) if spec["type"] == "float32" else want[field]
                assert value.item() == expected, field


def test_open_for_append(tmp_path):
    path = str(tmp_path / "app.mindrecord")
    w = FileWriter(path)
    w.add_schema({"k": {"type": "int32"}, "v": {"type": "float32", "shape": [2]}})
    w.write_raw_data([{"k": i, "v": np.full(2, i, np.float32)} for i in range(3)])
    w.commit()
    w = FileWriter.open_for_append(path)
    w.write_raw_data([{"k": 10 + i, "v": np.zeros(2, np.float32)} for i in range(2)])
    w.commit()
    assert [r["k"] for r in FileReader(path).get_next()] == [0, 1, 2, 10, 11]
    assert FileReader(path).len() == 5

    # A set of shards, and numbers FileReader would show as ints: appending keeps them as stored.
    path = str(tmp_path / "set.mindrecord")
    w = FileWriter(path, shard_num=2)
    w.add_schema({"x": {"type": "float64"}, "s": {"type": "string"}})
    w.write_raw_data([{"x": 2.5e-8, "s": "a"}, {"x": 0.5, "s": "b"}])
    w.commit()
    w = FileWriter.open_for_append(path + "1")
    w.write_raw_data([{"x": 1.5, "s": "c"}, {"x": 2.5, "s": "d"}])
    w.commit()
    data = ds.MindDataset(path + "0", shuffle=False)
    assert [(float(r["x"]), str(r["s"])) for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)] == [
        (2.5e-8, "a"), (1.5, "c"), (0.5, "b"), (2.5, "d")]


def test_shards_and_columns(tmp_path):
    path = str(tmp_path / "s.mr")
    w = FileWriter(path, shard_num=3)
    w.add_schema({"a": {"type": "int64"}, "s": {"type": "string"}})
    w.write_raw_data([{"a": i, "s": str(i)} for i in range(7)])
    w.commit()
    assert sorted(os.listdir(tmp_path)) == sorted(f"s.mr{i}{e}" for i in range(3) for e in ("", ".db"))
    # 7 rows over 3 shards: 3, 2, 2 consecutive rows.
    assert [r["a"] for r in FileReader(path + "1").get_next()] == list(range(7))
    assert [r for r in FileReader([path + "2"], columns=["s"]).get_next()] == [{"s": "5"}, {"s": "6"}]
    data = ds.MindDataset(path + "0", shuffle=True)
    assert sorted(int(r["a"]) for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)) == list(range(7))


def test_bad_input(tmp_path):
    with pytest.raises(MRMOpenError, match="does not exist"):
        FileReader(str(tmp_path / "missing.mindrecord"))
    (tmp_path / "junk.mindrecord").write_bytes(struct.pack("<Q", 5) + b"{oops")
    with pytest.raises(MRMOpenError, match="not a MindRecord file"):
        ds.MindDataset(str(tmp_path / "junk.mindrecord"))
    with pytest.raises(MRMInvalidSchemaError, match="array field's type"):
        FileWriter(str(tmp_path / "x.mr")).add_schema({"a": {"type": "string", "shape": [2]}})

    path = str(tmp_path / "w.mr")
    w = FileWriter(path)
    w.add_schema({"a": {"type": "int32"}, "v": {"type": "float32", "shape": [2, 2]}})
    good = {"a": 1, "v": np.zeros((2, 2), np.float32)}
    with pytest.raises(MRMValidateDataError, match="row 1: field 'v' needs a float32 array"):
        w.write_raw_data([good, {"a": 2, "v": np.zeros((2, 2))}])
    with pytest.raises(MRMValidateDataError, match="row 0: field 'a' of the schema is missing"):
        w.write_raw_data([{"v": good["v"]}])
    with pytest.raises(MRMValidateDataError, match="shape"):
        w.write_raw_data([{"a": 1, "v": np.zeros(3, np.float32)}])
    with pytest.raises(MRMValidateDataError, match="type str"):
        w.write_raw_data([{"a": "1", "v": good["v"]}])
    assert os.listdir(tmp_path) == ["junk.mindrecord"]  # nothing written before commit
    w.write_raw_data([good])
    w.commit()
    assert [r["a"] for r in FileReader(path).get_next()] == [1]  # the rejected calls wrote nothing

    with pytest.raises(RuntimeError, match="already exists: pass overwrite=True"):
        FileWriter(path)
    FileWriter(path, overwrite=True)  # allowed; the old files stay until a commit replaces them
    assert [r["a"] for r in FileReader(path).get_next()] == [1]

    os.remove(path + ".db")
    with pytest.raises(MRMOpenError, match="index .* does not exist"):
        FileReader(path)


def test_failed_commit_leaves_nothing(tmp_path):
    # Many pages overflow the smallest header: commit fails and no file, final or temporary, remains.
    w = FileWriter(str(tmp_path / "big.mr"))
    w.set_header_size(1 << 14)
    w.set_page_size(1 << 15)
    w.add_schema({"img": {"type": "bytes"}, "k": {"type": "int32"}})
    w.write_raw_data([{"img": b"x" * 30000, "k": i} for i in range(150)])
    with pytest.raises(MRMCommitError, match="set_header_size"):
        w.commit()
    assert os.listdir(tmp_path) == []
    with pytest.raises(MRMCommitError, match="set_page_size"):
        w.write_raw_data([{"img": b"x" * 40000, "k": 0}])


def test_csv_to_mr(tmp_path):
    src = tmp_path / "t.csv"
    src.write_text("name,age,score,ok\nann,3,1.5,True\nbob,4,2,False\n")
    dest = str(tmp_path / "t.mindrecord")
    assert CsvToMR(str(src), dest).transform() == 0
    reader = FileReader(dest)
    assert reader.schema() == {"age": {"type": "int64"}, "name": {"type": "string"}, "ok": {"type": "int32"},
                               "score": {"type": "float64"}}
    assert list(reader.get_next()) == [{"age": 3, "name": "ann", "ok": 1, "score": 1.5},
                                       {"age": 4, "name": "bob", "ok": 0, "score": 2}]
    assert [f["index_field"] for f in reader.header["index_fields"]] == ["name", "age", "score", "ok"]
    with pytest.raises(RuntimeError, match="column nope does not exist"):
        CsvToMR(str(src), str(tmp_path / "u.mindrecord"), columns_list=["nope"]).transform()
    assert not (tmp_path / "u.mindrecord").exists()


def _decoded(jpeg: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(jpeg)))


def test_mnist_to_mr(tmp_path):
    pytest.importorskip("PIL", reason="JPEG encoding needs Pillow (the vision extra)")
    rng = np.random.default_rng(0)
    images = {"train": (rng.random((3, 28, 28)) > 0.5).astype(np.uint8) * 255, "test": np.zeros((2, 28, 28),
                                                                                                np.uint8)}
    labels = {"train": np.array([7, 1, 4], np.uint8), "test": np.array([0, 9], np.uint8)}
    for usage, prefix in (("train", "train"), ("test", "t10k")):
        with gzip.open(tmp_path / f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
            f.write(bytes((0, 0, 8, 3)) + struct.pack(">3i", len(images[usage]), 28, 28) + images[usage].tobytes())
        with gzip.open(tmp_path / f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(bytes((0, 0, 8, 1)) + struct.pack(">i", len(labels[usage])) + labels[usage].tobytes())
    dest = str(tmp_path / "mnist")
    assert MnistToMR(str(tmp_path), dest).transform() == 0
    for usage in ("train", "test"):
        reader = FileReader(f"{dest}_{usage}.mindrecord")
        assert reader.schema() == {"data": {"type": "bytes"}, "label": {"type": "int64"}}
        assert reader.header["schema"][0]["desc"] == "mnist_schema"
        rows = list(reader.get_next())
        assert [r["label"] for r in rows] == labels[usage].tolist()
        for r, image in zip(rows, images[usage]):
            assert np.abs(_decoded(r["data"]).astype(int) - image).mean() < 8  # JPEG, quality 95


def test_cifar10_to_mr(tmp_path):
    pytest.importorskip("PIL", reason="JPEG encoding needs Pillow (the vision extra)")
    rng = np.random.default_rng(1)
    data = {}
    flat = np.array([200, 40, 90], np.uint8)  # a flat colour survives JPEG: the channel order shows
    for name, n in (("data_batch_1", 2), ("data_batch_2", 1), ("test_batch", 2)):
        images = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
        if name == "data_batch_1":
            images[0] = np.repeat(flat, 1024)  # CIFAR rows are channel-major: 1024 R, 1024 G, 1024 B
        data[name] = (images, list(range(n)))
        with open(tmp_path / name, "wb") as f:
            pickle.dump({b"data": data[name][0], b"labels": data[name][1]}, f)
    dest = str(tmp_path / "out" / "cifar")
    os.makedirs(tmp_path / "out")
    assert Cifar10ToMR(str(tmp_path), dest).transform(["label"]) == 0
    train = list(FileReader(dest).get_next())
    assert [(r["id"], r["label"]) for r in train] == [(0, 0), (1, 1), (2, 0)]
    decoded = _decoded(train[0]["data"])
    assert decoded.shape == (32, 32, 3)
    assert np.abs(decoded.astype(int) - flat).max() <= 2
    assert [r["id"] for r in FileReader(dest + "_test").get_next()] == [0, 1]
    assert FileReader(dest).header["index_fields"] == [{"index_field": "label", "schema_id": 0}]


def test_cifar100_to_mr(tmp_path):
    pytest.importorskip("PIL", reason="JPEG encoding needs Pillow (the vision extra)")
    for name, n in (("train", 3), ("test", 1)):
        with open(tmp_path / name, "wb") as f:
            pickle.dump({b"data": np.full((n, 3072), 128, np.uint8), b"fine_labels": list(range(n)),
                         b"coarse_labels": [9] * n}, f)
    dest = str(tmp_path / "c100")
    assert Cifar100ToMR(str(tmp_path), dest).transform(["fine_label"]) == 0
    rows = list(FileReader(dest).get_next())
    assert [(r["id"], r["fine_label"], r["coarse_label"]) for r in rows] == [(0, 0, 9), (1, 1, 9), (2, 2, 9)]
    assert np.abs(_decoded(rows[0]["data"]).astype(int) - 128).max() <= 2
    assert FileReader(dest + "_test").len() == 1


def test_imagenet_to_mr(tmp_path):
    # Image files are stored as they are (MindSpore 2.10 writes these bytes too: checked by hand).
    for folder, files in (("n01", {"a.JPEG": b"AAAA", "skip.png": b"x"}), ("n02", {"b.jpg": b"BB", "c.jpg": b""})):
        (tmp_path / "imgs" / folder).mkdir(parents=True)
        for name, data in files.items():
            (tmp_path / "imgs" / folder / name).write_bytes(data)
    (tmp_path / "map.txt").write_text("n01 0\nn02 1\nmissing 2\n")
    dest = str(tmp_path / "inet.mindrecord")
    assert ImageNetToMR(str(tmp_path / "map.txt"), str(tmp_path / "imgs"), dest).transform() == 0
    reader = FileReader(dest)
    assert [(r["label"], r["image"], os.path.basename(r["file_name"])) for r in reader.get_next()] == [
        (0, b"AAAA", "a.JPEG"), (1, b"BB", "b.jpg")]
    assert reader.header["page_size"] == 1 << 25 and reader.header["header_size"] == 1 << 24


def test_mind_page_reads_mindspore_files(ms_dir):
    got = cases.page_reads(MindPage, ms_dir)
    assert json.loads(json.dumps(got)) == RECORDED["mind_page"]
    with pytest.raises(MRMDefineCategoryError, match="not a candidate category field"):
        MindPage(os.path.join(ms_dir, "types.mindrecord")).category_field = "f"
