#!/usr/bin/env python3
"""Record MindSpore 2.10's ``str(result)`` of the programs of tests/compat/framework_names_cases.py (the
top-level runtime, dtype, context, checkpoint and training names) into
tests/fixtures/mindspore/framework_names.json.

    /tmp/ms/bin/python scripts/record_framework_names.py
"""

from __future__ import annotations

import os
import sys
import tempfile

from ms_case_recorder import REPO, record_programs

OUT = REPO / "tests" / "fixtures" / "mindspore" / "framework_names.json"

if __name__ == "__main__":
    # MindSpore's custom_mixed_precision writes its rewritten network's source under ./rewritten_network: run in
    # a scratch directory so that nothing of MindSpore's lands in the repository.
    os.chdir(tempfile.mkdtemp(prefix="record_framework_names_"))
    record_programs("framework_names_cases", OUT)
    sys.exit(0)
