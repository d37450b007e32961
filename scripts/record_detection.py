#!/usr/bin/env python3
"""Record MindSpore 2.10's outputs for the cases of tests/compat/detection_cases.py (detection and sequence ops) into
tests/fixtures/detection.npz (PyNative mode, CPU). Run with a Python that has MindSpore (a separate virtualenv
with ``mindspore==2.10.0`` and ``numpy<2``); opbuild's tests only read the fixture. An optional argument writes
elsewhere.

    /path/to/ms-venv/bin/python scripts/record_detection.py

A case MindSpore rejects is recorded with its error message, and the test expects opbuild to refuse it too.
"""

from __future__ import annotations

import sys

from ms_case_recorder import REPO, record_op_cases

OUT = REPO / "tests" / "fixtures" / "detection.npz"


def main(argv: list[str]) -> int:
    return record_op_cases("detection_cases", OUT, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
