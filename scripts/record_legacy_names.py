#!/usr/bin/env python3
"""Record MindSpore 2.10's ``str(result)`` of the programs of tests/compat/legacy_names_cases.py (the older
``ops`` names: ``tensor_add``, ``reduce_sum``, ``scalar_add``, ``tuple_getitem``, ``top_k``, ...) into
tests/fixtures/mindspore/legacy_names.json.

    /tmp/ms/bin/python scripts/record_legacy_names.py
"""

from __future__ import annotations

import sys

from ms_case_recorder import REPO, record_programs

OUT = REPO / "tests" / "fixtures" / "mindspore" / "legacy_names.json"

if __name__ == "__main__":
    record_programs("legacy_names_cases", OUT)
    sys.exit(0)
