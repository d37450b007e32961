"""Record MindSpore 2.10's ``str(result)`` of the programs of tests/compat/missing_names_cases.py (``mint``,
``Tensor.mH``, ``ops.cond``, ``ops.function`` names, in-place and random Tensor methods, ``ops.LSTM``, the
primitive-authoring helpers) into tests/fixtures/mindspore/missing_names.json.

    /tmp/ms/bin/python scripts/record_missing_names.py

A MindSpore error in PyNative mode can leave state behind that makes the next program fail with the same
message, so every program that raised is run again alone in a new process, and that run is what is recorded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from ms_case_recorder import REPO, load_cases, record_programs

OUT = REPO / "tests" / "fixtures" / "mindspore" / "missing_names.json"
CASES = "missing_names_cases"


def run_one(name: str) -> dict:
    """Run the program ``name`` alone; its ``{"str": ...}`` or ``{"error": ...}``."""
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    env = {"ms": ms, "np": np}
    try:
        exec(load_cases(CASES).CASES[name], env)  # noqa: S102 - the repository's own programs
        return {"str": str(env["result"])}
    except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
        return {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        print("RESULT " + json.dumps(run_one(argv[1])))
        return 0
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    out = Path(argv[0]) if argv else OUT
    record_programs(CASES, out)
    data = json.loads(out.read_text())
    for name in [k for k, v in data.items() if "error" in v]:
        proc = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True,
                              check=True, timeout=300)
        line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1]
        data[name] = json.loads(line[len("RESULT "):])
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"rerun alone; errors now: {[k for k, v in data.items() if 'error' in v]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
