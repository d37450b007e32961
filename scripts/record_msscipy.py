#!/usr/bin/env python3
"""Record MindSpore 2.10's ``str(result)`` of the programs of tests/compat/msscipy_cases.py
(``mindspore.scipy.linalg`` and ``mindspore.device_context``) into tests/fixtures/mindspore/msscipy.json.

    /tmp/ms/bin/python scripts/record_msscipy.py
"""

from __future__ import annotations

import sys

from ms_case_recorder import REPO, record_programs

OUT = REPO / "tests" / "fixtures" / "mindspore" / "msscipy.json"

if __name__ == "__main__":
    record_programs("msscipy_cases", OUT)
    sys.exit(0)
