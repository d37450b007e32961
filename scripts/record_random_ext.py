#!/usr/bin/env python3
"""Record MindSpore 2.10's draws for the cases of tests/compat/random_ext_cases.py into
tests/fixtures/random_ext.npz (PyNative mode, CPU): the samples themselves, whose shapes, dtypes and
distributions tests/ops/test_random_ext.py compares with opbuild's (the bit streams differ). Run with a Python
that has MindSpore (``mindspore==2.10.0``, ``numpy<2``); an optional argument writes elsewhere.

    /path/to/ms-venv/bin/python scripts/record_random_ext.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import mindspore as ms
from mindspore import ops
from ms_case_recorder import REPO, load_cases, record, save

OUT = REPO / "tests" / "fixtures" / "random_ext.npz"


def main(argv: list[str]) -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    ms.set_seed(7)
    cases = load_cases("random_ext_cases")
    arrays: dict = {}
    errors: dict[str, str] = {}
    record({k: (fn, []) for k, fn in cases.CASES.items()}, lambda fn, inputs: fn(ms, ops), cases.outputs, arrays,
           errors)
    save(Path(argv[0]) if argv else OUT, arrays, errors, ms.__version__, len(cases.CASES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
