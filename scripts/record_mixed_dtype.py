#!/usr/bin/env python3
"""Record MindSpore 2.10's ``str(result)`` of the programs of tests/compat/mixed_dtype_cases.py
(``ops.Select`` with branches of different dtypes) into tests/fixtures/mindspore/mixed_dtype.json.

    /tmp/ms/bin/python scripts/record_mixed_dtype.py
"""

from __future__ import annotations

import sys

from ms_case_recorder import REPO, record_programs

OUT = REPO / "tests" / "fixtures" / "mindspore" / "mixed_dtype.json"

if __name__ == "__main__":
    record_programs("mixed_dtype_cases", OUT)
    sys.exit(0)
