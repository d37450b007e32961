"""Record MindSpore 2.10's ``str(result)`` of the programs of tests/compat/nn_surface_cases.py into
tests/fixtures/mindspore/nn_surface.json.

    /tmp/ms/bin/python scripts/record_nn_surface.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from ms_case_recorder import REPO, record_programs

OUT = REPO / "tests" / "fixtures" / "mindspore" / "nn_surface.json"


def main(argv: list[str]) -> int:
    record_programs("nn_surface_cases", Path(argv[0]) if argv else OUT)  # an optional argument writes elsewhere
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
