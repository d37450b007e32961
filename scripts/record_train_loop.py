"""Record MindSpore's results of tests/train/train_loop_programs.py (metrics, a Model.fit with callbacks) into
tests/fixtures/mindspore/train_loop.json.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_train_loop.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore as ms  # noqa: E402
import mindspore.dataset  # noqa: E402, F401
import mindspore.train  # noqa: E402, F401
from tests.train import train_loop_programs as programs  # noqa: E402


def main() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_device("CPU")
    out = {"metrics": programs.run_metrics(ms), "fit": programs.run_fit(ms)}
    path = REPO / "tests" / "fixtures" / "mindspore" / "train_loop.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
