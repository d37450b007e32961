"""TFRecordDataset reads records when their rows are asked for: building a dataset over a large file costs
its index, not its contents, compressed files are decompressed in a stream to a temporary file removed with
the dataset, and a record damaged after the dataset was built is refused when it is read."""

from __future__ import annotations

import gc
import gzip
import os
import struct
import subprocess
import sys
import tracemalloc
import zlib

import numpy as np
import pytest

from opbuild import dataset as ds
from opbuild.core.crc32c import masked_crc32c
from opbuild.dataset.tfrecord import _example_class

_ROWS, _WIDTH = 48, 1 << 18  # 48 records of 256 KiB: 12 MiB of payload


def _payload(i: int) -> bytes:
    return np.full(_WIDTH, i % 251, np.uint8).tobytes()


def _tfrecord_bytes() -> bytes:
    out = bytearray()
    for i in range(_ROWS):
        msg = _example_class()()
        msg.features.feature["data"].bytes_list.value.append(_payload(i))
        msg.features.feature["index"].int64_list.value.append(i)
        record = msg.SerializeToString()
        head = struct.pack("<Q", len(record))
        out += head + struct.pack("<I", masked_crc32c(head)) + record + struct.pack("<I", masked_crc32c(record))
    return bytes(out)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tfrecord_lazy")
    raw = _tfrecord_bytes()
    (folder / "plain.tfrecord").write_bytes(raw)
    (folder / "gzip.tfrecord").write_bytes(gzip.compress(raw, 1))
    (folder / "zlib.tfrecord").write_bytes(zlib.compress(raw, 1))
    return folder


def _peak_while(build):
    gc.collect()
    tracemalloc.start()
    try:
        result = build()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name,kind", [("plain", None), ("gzip", "GZIP"), ("zlib", "ZLIB")])
def test_building_costs_the_index_not_the_contents(records, name, kind):
    data, peak = _peak_while(lambda: ds.TFRecordDataset(str(records / f"{name}.tfrecord"), shuffle=False,
                                                        compression_type=kind))
    # 12 MiB of records (held twice over, raw and decoded, before rows were read lazily); the index, the
    # first example (read for the columns, ~4 copies of 256 KiB while parsed) and the stream buffers
    # stay far below it.
    assert peak < _ROWS * _WIDTH // 4, f"building the dataset allocated {peak} bytes at peak"
    assert data.get_dataset_size() == _ROWS
    seen = 0
    for row in data.create_dict_iterator(output_numpy=True):
        i = int(row["index"][0])
        assert i == seen and row["data"].shape == (_WIDTH,) and (row["data"] == i % 251).all()
        seen += 1
    assert seen == _ROWS


def test_compressed_copy_goes_with_the_dataset(records):
    before = {p for p in os.listdir(os.environ.get("TMPDIR", "/tmp")) if p.startswith("opbuild-tfrecord-")}
    data = ds.TFRecordDataset(str(records / "gzip.tfrecord"), compression_type="GZIP", shuffle=False)
    during = {p for p in os.listdir(os.environ.get("TMPDIR", "/tmp")) if p.startswith("opbuild-tfrecord-")}
    assert len(during - before) == 1
    del data
    gc.collect()
    after = {p for p in os.listdir(os.environ.get("TMPDIR", "/tmp")) if p.startswith("opbuild-tfrecord-")}
    assert not (after - before)


def test_truncated_compressed_stream_is_refused(tmp_path, records):
    cut = (records / "zlib.tfrecord").read_bytes()[:-100]
    (tmp_path / "cut.tfrecord").write_bytes(cut)
    with pytest.raises(ValueError, match="not ZLIB-compressed .*truncated"):
        ds.TFRecordDataset(str(tmp_path / "cut.tfrecord"), compression_type="ZLIB")
    (tmp_path / "cut.gz").write_bytes((records / "gzip.tfrecord").read_bytes()[:-100])
    with pytest.raises(ValueError, match="not GZIP-compressed"):
        ds.TFRecordDataset(str(tmp_path / "cut.gz"), compression_type="GZIP")


@pytest.mark.parametrize("where,message", [
    ("payload", r"late.tfrecord is damaged: record 20 \(data at byte .*\) fails its checksum"),
    ("header", r"late.tfrecord changed after the dataset was built: record 20 at byte \d+ is no longer")])
def test_record_damaged_after_building_is_refused_when_read(tmp_path, where, message):
    path = tmp_path / "late.tfrecord"
    path.write_bytes(_tfrecord_bytes())
    data = ds.TFRecordDataset(str(path), shuffle=False)
    raw = bytearray(path.read_bytes())
    start = 20 * (len(raw) // _ROWS)  # the records are all the same size
    raw[start + (2 if where == "header" else 1000)] ^= 0x10
    path.write_bytes(bytes(raw))
    rows = data.create_tuple_iterator(output_numpy=True)
    for _ in range(20):
        next(rows)  # the records before the damaged one still read
    with pytest.raises(ValueError, match=message):
        next(rows)


def test_a_compressed_stream_that_is_not_tfrecord_is_refused_at_its_first_header(tmp_path, monkeypatch):
    """A gzip bomb (64 MiB of zeros in 64 KiB) is refused once its first 12 bytes are out, not after the
    whole stream was written to the temporary folder."""
    from opbuild.dataset import tfrecord_files

    bomb = tmp_path / "bomb.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as f:
        for _ in range(64):
            f.write(bytes(1 << 20))
    fed = []
    feed = tfrecord_files._StreamIndex.feed
    monkeypatch.setattr(tfrecord_files._StreamIndex, "feed", lambda self, chunk: (fed.append(len(chunk)),
                                                                                   feed(self, chunk))[1])
    with pytest.raises(ValueError, match=r"bomb.gz is not a TFRecord file once decompressed \(bad length checksum "
                                         r"at byte 0"):
        ds.TFRecordDataset(str(bomb), compression_type="GZIP")
    assert sum(fed) <= tfrecord_files._CHUNK


def test_concatenated_zlib_streams_are_all_read_and_trailing_bytes_refused(tmp_path):
    raw = _tfrecord_bytes()
    cut = len(raw) // _ROWS * 30  # the records are all the same size: 30 in the first stream, 18 in the second
    (tmp_path / "two.z").write_bytes(zlib.compress(raw[:cut], 1) + zlib.compress(raw[cut:], 1))
    data = ds.TFRecordDataset(str(tmp_path / "two.z"), compression_type="ZLIB", shuffle=False)
    assert data.get_dataset_size() == _ROWS
    assert [int(r["index"][0]) for r in data.create_dict_iterator(output_numpy=True)] == list(range(_ROWS))
    # Bytes after the stream's end: opbuild looped for ever there (decompressing the same tail again, with no
    # output, while zlib's unused_data grew), hence a child process with a time limit.
    (tmp_path / "tail.z").write_bytes(zlib.compress(raw, 1) + b"trailing bytes")
    code = ("import sys\nfrom opbuild import dataset as ds\ntry:\n    ds.TFRecordDataset(sys.argv[1], "
            "compression_type='ZLIB')\nexcept ValueError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "tail.z")], capture_output=True, text=True,
                          timeout=300)
    assert "tail.z is not ZLIB-compressed" in done.stdout, done.stdout + done.stderr
    (tmp_path / "empty.z").write_bytes(b"")
    with pytest.raises(ValueError, match="empty.z is not ZLIB-compressed .*truncated"):
        ds.TFRecordDataset(str(tmp_path / "empty.z"), compression_type="ZLIB")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full to fill a disk")
def test_a_full_temporary_folder_is_named_not_taken_for_a_bad_file(tmp_path, records, monkeypatch):
    """The decompressed copy cannot be written (ENOSPC: its temporary file is /dev/full here): the error says
    where and what to set, where it said the file was not GZIP-compressed."""
    from opbuild.dataset import tfrecord_files

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "records").symlink_to("/dev/full")
    monkeypatch.setattr(tfrecord_files.tempfile, "mkdtemp", lambda prefix="": str(scratch))
    with pytest.raises(OSError, match=r"cannot write the decompressed copy of .*gzip.tfrecord to .*scratch "
                                      r"\(No space left on device\): set TMPDIR"):
        ds.TFRecordDataset(str(records / "gzip.tfrecord"), compression_type="GZIP")
