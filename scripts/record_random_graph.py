#!/usr/bin/env python3
"""Record MindSpore 2.10's random draws in GRAPH_MODE (Cells and @jit functions after ``set_seed``) into
tests/fixtures/mindspore/random_graph.json: the scenarios of tests/compat/graph_random_programs.py, each in a
fresh process (MindSpore's op-seed counters are process-wide). Run with a Python that has MindSpore 2.10 (CPU):

    /path/to/ms-venv/bin/python scripts/record_random_graph.py [out.json]

Outputs are stored by record_random_streams.array_record: their values (up to 64) or a SHA-256 of their
bytes plus the first values. tests/compat/test_random_graph.py runs the same programs on
opbuild and compares every bit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from record_random_streams import array_record

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "mindspore" / "random_graph.json"


def _out(a) -> dict:
    return array_record(a)


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
