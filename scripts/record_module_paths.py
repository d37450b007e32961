#!/usr/bin/env python3
"""Record which import statements of tests/compat/module_path_cases.py MindSpore 2.10 accepts (each in a fresh
interpreter, so one import cannot help another) into tests/fixtures/mindspore/module_paths.json;
tests/compat/test_module_paths.py runs the accepted ones with opbuild.

    /tmp/ms/bin/python scripts/record_module_paths.py
"""

from __future__ import annotations

import json
import subprocess
import sys

from ms_case_recorder import REPO, load_cases

OUT = REPO / "tests" / "fixtures" / "mindspore" / "module_paths.json"


def main() -> int:
    import mindspore

    results = {}
    for line in load_cases("module_path_cases").IMPORTS:
        proc = subprocess.run([sys.executable, "-c", line], capture_output=True, text=True, timeout=300)
        last = proc.stderr.strip().splitlines()[-1] if proc.returncode else ""
        results[line] = "ok" if proc.returncode == 0 else last
        print(("ok  " if proc.returncode == 0 else "FAIL"), line, last[:80])
    OUT.write_text(json.dumps({"_meta": {"mindspore": mindspore.__version__}, "imports": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
