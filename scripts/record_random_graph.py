#!/usr/bin/env python3
"""Record MindSpore 2.10's random draws in GRAPH_MODE (Cells and @jit functions after ``set_seed``) into
tests/fixtures/mindspore/random_graph.json: the scenarios of tests/compat/graph_random_programs.py, each in a
fresh process (MindSpore's op-seed counters are process-wide). Run with a Python that has MindSpore 2.10 (CPU):

    /path/to/ms-venv/bin/python scripts/record_random_graph.py [out.json]

Outputs are stored as their values (up to FULL_LIMIT) or as a SHA-256 of their bytes plus the first values,
as scripts/record_random_streams.py stores them. tests/compat/test_random_graph.py runs the same programs on
opbuild and compares every bit.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "mindspore" / "random_graph.json"
FULL_LIMIT = 64


def _out(a) -> dict:
    rec = {"dtype": str(a.dtype), "shape": list(a.shape)}
    flat = a.reshape(-1)
    if flat.size <= FULL_LIMIT:
        rec["values"] = flat.astype(float).tolist() if a.dtype.kind == "f" else flat.tolist()
    else:
        rec["sha256"] = hashlib.sha256(flat.tobytes()).hexdigest()
        rec["first"] = flat[:8].astype(float).tolist() if a.dtype.kind == "f" else flat[:8].tolist()
    return rec


def main() -> None:
    sys.path.insert(0, str(REPO / "tests" / "compat"))
    import graph_random_programs as programs
    if len(sys.argv) == 3 and sys.argv[1] == "--scenario":
        import mindspore as ms
        print(json.dumps([_out(a) for a in programs.run(ms, sys.argv[2])]))
        return
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    result = {}
    for name in programs.SCENARIOS:
        done = subprocess.run([sys.executable, __file__, "--scenario", name], capture_output=True, text=True,
                              check=True)
        result[name] = json.loads(done.stdout.strip().splitlines()[-1])
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
