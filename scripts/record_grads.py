#!/usr/bin/env python3
"""Record MindSpore 2.10's gradients for the cases of tests/compat/grad_ms_cases.py into
tests/fixtures/mindspore/grads.npz (PyNative mode, CPU). Run with a Python that has MindSpore (e.g. a separate
virtualenv with ``mindspore==2.10.0`` and ``numpy<2``); opbuild's tests only read the fixture. An optional
argument writes elsewhere.

    /path/to/ms-venv/bin/python scripts/record_grads.py
"""

from __future__ import annotations

import sys

from ms_case_recorder import REPO, record_op_cases

OUT = REPO / "tests" / "fixtures" / "mindspore" / "grads.npz"


def main(argv: list[str]) -> int:
    return record_op_cases("grad_ms_cases", OUT, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
