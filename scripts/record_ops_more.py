#!/usr/bin/env python3
"""Record MindSpore 2.10's outputs for the cases of tests/compat/ops_more_cases.py into
tests/fixtures/ops_more.npz (PyNative mode, CPU). Run with a Python that has MindSpore (e.g. a separate
virtualenv with ``mindspore==2.10.0`` and ``numpy<2``); opbuild's tests only read the fixture. An optional
argument writes elsewhere (to compare a re-recording with the committed fixture).

    /path/to/ms-venv/bin/python scripts/record_ops_more.py

A case MindSpore rejects is recorded as such (its error message), and the test expects opbuild to refuse it too.
"""

from __future__ import annotations

import sys

from ms_case_recorder import REPO, record_op_cases

OUT = REPO / "tests" / "fixtures" / "ops_more.npz"


def main(argv: list[str]) -> int:
    return record_op_cases("ops_more_cases", OUT, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
