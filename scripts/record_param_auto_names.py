#!/usr/bin/env python3
"""Record MindSpore 2.10's generated Parameter names (tests/core/param_auto_name_program.py, a fresh process:
the numbers count every Parameter made without a name) into tests/fixtures/mindspore/param_auto_names.json.

    /tmp/ms/bin/python scripts/record_param_auto_names.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    proc = subprocess.run([sys.executable, str(REPO / "tests" / "core" / "param_auto_name_program.py")],
                          capture_output=True, text=True, check=True)
    out = json.loads(next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))[7:])
    import mindspore as ms

    out["_meta"] = {"mindspore": ms.__version__}
    path = REPO / "tests" / "fixtures" / "mindspore" / "param_auto_names.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
