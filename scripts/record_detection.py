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
from pathlib import Path

import mindspore as ms
from mindspore import ops
from ms_case_recorder import REPO, load_cases, record, save

OUT = REPO / "tests" / "fixtures" / "detection.npz"


def main(argv: list[str]) -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    cases = load_cases("detection_cases")
    arrays: dict = {}
    errors: dict[str, str] = {}
    record(cases.CASES, lambda fn, inputs: fn(ms, ops, *[ms.Tensor(a) for a in inputs]), cases.outputs, arrays,
           errors)
    save(Path(argv[0]) if argv else OUT, arrays, errors, ms.__version__, len(cases.CASES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
