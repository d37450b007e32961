"""Record the lines tests/nn/cell_state_program.py prints under MindSpore 2.10 into
tests/fixtures/mindspore/cell_state.json.

    /tmp/ms/bin/python scripts/record_cell_state.py
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROGRAM = REPO / "tests" / "nn" / "cell_state_program.py"
OUT = REPO / "tests" / "fixtures" / "mindspore" / "cell_state.json"


def main() -> int:
    import mindspore as ms

    spec = importlib.util.spec_from_file_location("cell_state_program", str(PROGRAM))
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    with tempfile.TemporaryDirectory() as tmp:
        lines = program.run(ms, tmp)
    OUT.write_text(json.dumps({"_meta": {"mindspore": ms.__version__}, "lines": lines}, indent=1) + "\n")
    print(f"{OUT}: {len(lines)} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
