"""Write small MindRecord files with MindSpore 2.10's FileWriter and record what its MindDataset reads from
them: the files (gzip-compressed, without their .db index) go to tests/fixtures/mindspore/mindrecord/, the
rows to tests/fixtures/mindspore/mindrecord.json (tests/dataset/test_mindrecord.py reads both with opbuild).

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_mindrecord.py``.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore.dataset as ds  # noqa: E402
from mindspore.mindrecord import FileWriter  # noqa: E402
from tests.dataset.file_dataset_programs import _rows  # noqa: E402

OUT = REPO / "tests" / "fixtures" / "mindspore"


def _write(path: str, shards: int, schema: dict, rows: list[dict], index: list[str] | None = None) -> None:
    w = FileWriter(path, shard_num=shards, overwrite=True)
    w.set_header_size(1 << 14)  # the smallest sizes FileWriter takes: small fixture files
    w.set_page_size(1 << 15)
    w.add_schema(schema, "opbuild fixture")
    if index:
        w.add_index(index)
    w.write_raw_data(rows)
    w.commit()


def main() -> None:
    rng = np.random.default_rng(3)
    out: dict = {}
    with tempfile.TemporaryDirectory() as root:
        mixed = f"{root}/mixed.mindrecord"
        schema = {"file_name": {"type": "string"}, "label": {"type": "int32"}, "data": {"type": "bytes"},
                  "vec": {"type": "float32", "shape": [-1]}, "mat": {"type": "int64", "shape": [2, 3]},
                  "ids": {"type": "int32", "shape": [-1]}, "score": {"type": "float64"}, "count": {"type": "int64"}}
        big = [0, -1, 127, -128, 300, -300, 70000, -70000, 2**40, -2**40, 2**62, -2**63]
        rows = [{"file_name": f"img_{k}.jpg", "label": int(k - 2), "data": rng.bytes(3 + k),
                 "vec": rng.standard_normal(k + 1).astype(np.float32),
                 "mat": np.asarray(big[k:k + 6] if k < 6 else big[:6], np.int64).reshape(2, 3),
                 "ids": np.asarray([k, -k * 1000, 40000 + k], np.int32), "score": 0.1 * k, "count": 2**33 + k}
                for k in range(5)]
        _write(mixed, 1, schema, rows, ["file_name", "label"])
        sharded = f"{root}/sharded.mindrecord"
        _write(sharded, 2, {"label": {"type": "int64"}, "img": {"type": "bytes"}},
               [{"label": k, "img": bytes([k + 1] * (k + 1))} for k in range(5)])
        out["mixed"] = _rows(ds.MindDataset(mixed, shuffle=False))
        out["mixed_cols"] = ds.MindDataset(mixed).get_col_names()
        out["mixed_columns"] = _rows(ds.MindDataset(mixed, columns_list=["vec", "label"], shuffle=False))
        out["mixed_sampler"] = _rows(ds.MindDataset(mixed, columns_list=["label"],
                                                    sampler=ds.SubsetSampler([4, 0, 2])))
        out["sharded_all"] = _rows(ds.MindDataset(sharded + "0", shuffle=False))
        out["sharded_one"] = _rows(ds.MindDataset([sharded + "1"], shuffle=False))
        out["sharded_shard"] = [_rows(ds.MindDataset(sharded + "0", shuffle=False, num_shards=2, shard_id=i))
                                for i in range(2)]
        out["padded"] = _rows(ds.MindDataset(sharded + "0", ["img", "label"], shuffle=False, num_shards=2,
                                             shard_id=1, num_padded=1, padded_sample={"label": -1, "img": b"pad"}))
        folder = OUT / "mindrecord"
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("mixed.mindrecord", "sharded.mindrecord0", "sharded.mindrecord1"):
            data = Path(root, name).read_bytes()
            (folder / f"{name}.gz").write_bytes(gzip.compress(data, mtime=0))
        assert not any(n.endswith(".db") for n in os.listdir(folder))
    path = OUT / "mindrecord.json"
    path.write_text(json.dumps(out, sort_keys=True) + "\n")
    print(f"wrote {path} and {folder}")


if __name__ == "__main__":
    main()
