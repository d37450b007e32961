"""Record MindSpore's results of tests/dataset/dataset_programs.py (file readers, pipeline operations,
samplers, vision and transforms) into tests/fixtures/mindspore/dataset.json.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_dataset.py``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore as ms  # noqa: E402
import mindspore.dataset as ds  # noqa: E402
import mindspore.dataset.transforms  # noqa: E402, F401
import mindspore.dataset.vision  # noqa: E402, F401
from tests.dataset import dataset_programs as programs  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as root:
        programs.make_files(root)
        out = programs.run(ds, ms, root)
    path = REPO / "tests" / "fixtures" / "mindspore" / "dataset.json"
    path.write_text(json.dumps(out) + "\n")
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
