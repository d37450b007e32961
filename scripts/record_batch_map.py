"""Record MindSpore's results of tests/dataset/batch_map_programs.py (``batch(per_batch_map=...)``) into
tests/fixtures/mindspore/batch_map.json.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_batch_map.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore.dataset as ds  # noqa: E402
from tests.dataset import batch_map_programs  # noqa: E402


def main() -> None:
    path = REPO / "tests" / "fixtures" / "mindspore" / "batch_map.json"
    results = sorted(batch_map_programs.run(ds).items())
    path.write_text("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in results) + "\n}\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
