#!/usr/bin/env python3
"""Record MindSpore 2.10's float16 Softmax/Softmin/LogSoftmax results for tests/compat/softmax_half_cases.py
into tests/fixtures/ms_softmax_half.npz (PyNative, CPU). Run with a Python that has MindSpore.

    /path/to/ms-venv/bin/python scripts/record_softmax_half.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import mindspore as ms
from mindspore import nn, ops
from ms_case_recorder import REPO, load_cases, record, save

OUT = REPO / "tests" / "fixtures" / "ms_softmax_half.npz"


def main(argv: list[str]) -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    cases = load_cases("softmax_half_cases")
    arrays: dict = {}
    errors: dict[str, str] = {}
    record(cases.CASES, lambda fn, inputs: fn(ms, ops, nn, *[ms.Tensor(a) for a in inputs]), cases.outputs,
           arrays, errors)
    save(Path(argv[0]) if argv else OUT, arrays, errors, ms.__version__, len(cases.CASES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
