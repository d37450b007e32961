"""SPHERE files and transcripts of TED-LIUM that a damaged download or another writer made: a header without
a sample rate (every segment read as no samples at rate 0), without ``end_head`` in its declared size (the
samples started inside the header's text), an odd count of sample bytes, or a segment time that is not
finite: each is a RuntimeError naming the file, not empty audio or NumPy's bare error."""

from __future__ import annotations

import pytest

import opbuild.dataset as ds
from tests.dataset import tedlium_dataset_programs as ted


def _read_ted3(root) -> list:
    return list(ds.TedliumDataset(str(root / "ted3"), "release3").create_tuple_iterator(output_numpy=True))


@pytest.mark.parametrize("edit, message", [
    (lambda b: b.replace(b"sample_rate -i 16000", b"sample_xate -i 16000"), "has sample_rate None; a positive"),
    (lambda b: b.replace(b"sample_rate -i 16000", b"sample_rate -i 0000"), "has sample_rate '0000'"),
    (lambda b: b.replace(b"end_head", b"end_hxad"), "declares 1024 bytes but holds no end_head"),
    (lambda b: b[:-1], "an odd count"),
])
def test_a_damaged_sphere_file_is_refused_by_name(tmp_path, edit, message):
    ted.make_files(str(tmp_path))
    path = tmp_path / "ted3" / "data" / "sph" / "TalkE.sph"
    path.write_bytes(edit(path.read_bytes()))
    with pytest.raises(RuntimeError, match=rf"TalkE.sph.*{message}"):
        _read_ted3(tmp_path)


@pytest.mark.parametrize("times", ["nan 0.001", "0.0 inf"])
def test_a_segment_time_that_is_not_finite_is_refused(tmp_path, times):
    ted.make_files(str(tmp_path))
    (tmp_path / "ted3" / "data" / "stm" / "TalkE.stm").write_text(f"TalkE 1 TalkE {times} <o,f0,male> three\n")
    with pytest.raises(RuntimeError, match=r"TalkE.sph is not finite"):
        _read_ted3(tmp_path)
