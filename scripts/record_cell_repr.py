"""Record MindSpore 2.10's ``repr`` of the cells of tests/nn/cell_repr_cases.py (and the containers
``name_cells``/``cells`` return) into tests/fixtures/mindspore/cell_repr.json.

    /tmp/ms/bin/python scripts/record_cell_repr.py

tests/nn/test_cell_repr.py compares opbuild's with what is written here.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "nn" / "cell_repr_cases.py"
OUT = REPO / "tests" / "fixtures" / "mindspore" / "cell_repr.json"


def main() -> int:
    import mindspore as ms
    from mindspore import nn

    spec = importlib.util.spec_from_file_location("cell_repr_cases", str(CASES))
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    cells = cases.build(nn)
    data = {"_meta": {"mindspore": ms.__version__}, "repr": {k: repr(c) for k, c in cells.items()}}
    seq = cells["Sequential"]
    data["name_cells"] = str(seq.name_cells())
    data["cells"] = str(seq.cells())
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(data['repr'])} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
