"""Record MindSpore 2.10's rows for the readers of tests/dataset/photo_dataset_programs.py (LFW, SBU,
PhotoTour), tests/dataset/mat_dataset_programs.py (SVHN, Flowers102, SBD, Caltech101) and
tests/dataset/iwslt_dataset_programs.py (IWSLT2016/2017) and tests/dataset/tedlium_dataset_programs.py
(TED-LIUM), tests/dataset/lsun_dataset_programs.py into tests/fixtures/mindspore/rare_datasets.json.

    /tmp/ms/bin/python scripts/record_rare_datasets.py
"""

from __future__ import annotations

import importlib
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore.dataset as ds  # noqa: E402

MODULES = ("photo_dataset_programs", "mat_dataset_programs", "iwslt_dataset_programs",
           "tedlium_dataset_programs", "lsun_dataset_programs")


def main() -> None:
    out: dict = {}
    for name in MODULES:
        try:
            programs = importlib.import_module(f"tests.dataset.{name}")
        except ImportError:
            continue
        with tempfile.TemporaryDirectory() as root:
            programs.make_files(root)
            out.update(programs.run(ds, root))
    path = REPO / "tests" / "fixtures" / "mindspore" / "rare_datasets.json"
    path.write_text(json.dumps(out, sort_keys=True) + "\n")
    print(f"wrote {path} ({path.stat().st_size} bytes, {len(out)} programs)")


if __name__ == "__main__":
    main()
