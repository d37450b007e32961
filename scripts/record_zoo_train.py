#!/usr/bin/env python3
"""Record mindcv's training pipeline under MindSpore 2.10 (tests/zoo/zoo_train_cases.py) into
tests/fixtures/mindspore/zoo_train.json; tests/zoo/test_zoo_train.py replays the same cases on opbuild.

    /tmp/ms/bin/python scripts/record_zoo_train.py
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "mindspore" / "zoo_train.json"


def main() -> int:
    import mindcv
    import mindspore

    spec = importlib.util.spec_from_file_location("zoo_train_cases", REPO / "tests" / "zoo" / "zoo_train_cases.py")
    cases = importlib.util.module_from_spec(spec)
    sys.modules["zoo_train_cases"] = cases  # MindSpore's graph compiler imports a construct's module
    spec.loader.exec_module(cases)
    results = cases.run_all()
    for group, value in results.items():
        print(group, "ERROR " + value["error"] if "error" in value else "ok")
    meta = {"mindspore": mindspore.__version__, "mindcv": mindcv.__version__}
    OUT.write_text(json.dumps({"_meta": meta, **results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
