"""Record MindSpore's rows for tests/dataset/file_dataset_programs.py (text, CSV, CIFAR-100, the MNIST
variants, manifest, VOC, COCO readers and the WeightedRandom/PK samplers) into
tests/fixtures/mindspore/file_datasets.json.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_file_datasets.py``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore.dataset as ds  # noqa: E402
from tests.dataset import file_dataset_programs as programs  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as root:
        programs.make_files(root)
        out = programs.run(ds, root)
    path = REPO / "tests" / "fixtures" / "mindspore" / "file_datasets.json"
    path.write_text(json.dumps(out, sort_keys=True) + "\n")
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
