"""Record MindSpore's results of tests/nn/half_param_programs.py (float16 inputs of layers with float32
parameters) into tests/fixtures/mindspore/half_params.json.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_half_params.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore as ms  # noqa: E402
import mindspore.nn as nn  # noqa: E402
import mindspore.ops as ops  # noqa: E402
from tests.nn import half_param_programs  # noqa: E402


def main() -> None:
    path = REPO / "tests" / "fixtures" / "mindspore" / "half_params.json"
    path.write_text(json.dumps(half_param_programs.run(ms, nn, ops), indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
