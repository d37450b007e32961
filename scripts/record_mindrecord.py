"""Record MindSpore's MindRecord files and reads for tests/dataset/test_mindrecord.py.

Writes every case of tests/dataset/mindrecord_cases.py with MindSpore's FileWriter, packs the files into
tests/fixtures/mindspore/mindrecord/ms_files.tar.gz (they are mostly zero padding, so they pack small), and
records what MindSpore's FileReader, MindDataset and MindPage return for them in
tests/fixtures/mindspore/mindrecord/reads.json.

``--read DIR`` instead reads the cases' files found in DIR (written by opbuild: run
``tests/dataset/test_mindrecord.py`` with ``MINDRECORD_OUT_DIR=DIR``) with MindSpore and checks it
returns what it returns for its own files.

Run with real MindSpore 2.10: ``/tmp/ms/bin/python scripts/record_mindrecord.py [--read DIR]``.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore.dataset as ds  # noqa: E402
from mindspore.mindrecord import FileReader, FileWriter, MindPage  # noqa: E402
from tests.dataset import mindrecord_cases as cases  # noqa: E402

OUT = REPO / "tests" / "fixtures" / "mindspore" / "mindrecord"


def reads(folder: str) -> dict:
    """What MindSpore's FileReader and MindDataset return for the cases' files in ``folder``."""
    out: dict = {"file_reader": {}, "dataset": []}
    for name in cases.CASES:
        first = os.path.join(folder, cases.file_names(name)[0])
        reader = FileReader(first)
        out["file_reader"][name] = cases.compact([cases.encode_row(r) for r in reader.get_next()])
        reader.close()
    for _name, files, kwargs in cases.DATASET_READS:
        out["dataset"].append(cases.dataset_rows(ds.MindDataset, folder, files, kwargs))
    out["mind_page"] = cases.page_reads(MindPage, folder)
    return out


def record() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as root:
        for name in cases.CASES:
            cases.write_case(FileWriter, root, name)
        buf = io.BytesIO()
        # A fixed gzip time stamp, so that re-recording unchanged files changes no byte.
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
            for name in cases.CASES:
                for f in cases.file_names(name):
                    info = tar.gettarinfo(os.path.join(root, f), arcname=f)
                    info.mtime, info.uid, info.gid, info.uname, info.gname, info.mode = 0, 0, 0, "", "", 0o644
                    with open(os.path.join(root, f), "rb") as fh:
                        tar.addfile(info, fh)
        (OUT / "ms_files.tar.gz").write_bytes(buf.getvalue())
        (OUT / "reads.json").write_text(json.dumps(reads(root)) + "\n")
    for p in sorted(OUT.iterdir()):
        print(f"wrote {p} ({p.stat().st_size} bytes)")


def check(folder: str) -> None:
    expected = json.loads((OUT / "reads.json").read_text())
    got = reads(folder)
    bad = [name for name in expected["file_reader"] if got["file_reader"][name] != expected["file_reader"][name]]
    bad += [f"dataset read {k}" for k, (a, b) in enumerate(zip(got["dataset"], expected["dataset"])) if a != b]
    bad += ["MindPage reads"] if got["mind_page"] != expected["mind_page"] else []
    print("MindSpore reads the files in", folder, "as its own:", "yes" if not bad else f"NO ({bad})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--read":
        check(sys.argv[2])
    else:
        record()
