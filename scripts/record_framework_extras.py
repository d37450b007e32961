"""Record MindSpore 2.10's ``str(result)`` of the programs of tests/compat/framework_cases.py into
tests/fixtures/mindspore/framework_extras.json.

    /tmp/ms/bin/python scripts/record_framework_extras.py
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "compat" / "framework_cases.py"
OUT = REPO / "tests" / "fixtures" / "mindspore" / "framework_extras.json"


def main() -> int:
    import mindspore as ms

    spec = importlib.util.spec_from_file_location("framework_cases", str(CASES))
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    data: dict = {"_meta": {"mindspore": ms.__version__}}
    for name, code in cases.CASES.items():
        env = {"ms": ms, "np": np}
        try:
            exec(code, env)  # noqa: S102 - the repository's own programs
            data[name] = {"str": str(env["result"])}
        except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
            data[name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(data) - 1} programs, errors: {[k for k, v in data.items() if 'error' in v]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
