#!/usr/bin/env python3
"""Record MindSpore 2.10's outputs for the cases of tests/compat/prim_class_cases.py into
tests/fixtures/prim_classes.npz (PyNative mode, CPU). Run with a Python that has MindSpore (e.g. a separate
virtualenv with ``mindspore==2.10.0`` and ``numpy<2``); opbuild's tests only read the fixture. An optional
argument writes elsewhere (to compare a re-recording with the committed fixture).

    /path/to/ms-venv/bin/python scripts/record_prim_classes.py

A case MindSpore rejects is recorded as such (its error message), and the test expects opbuild to refuse it too.
"""

from __future__ import annotations

import sys

import numpy as np
from ms_case_recorder import REPO, record, record_op_cases

OUT = REPO / "tests" / "fixtures" / "prim_classes.npz"


def _lr_and_nn(cases, ms, arrays: dict, errors: dict) -> None:
    """The learning-rate functions and cells, then the nn cases (``fn(ms, nn, ops, *tensors)``)."""
    ops = cases.ops  # set by record_op_cases
    for name, make in cases.LR_FUNCTIONS.items():
        arrays[f"lr:{name}"] = np.asarray(make(ms.nn), np.float64)
    for name, make in cases.LR_CELLS.items():
        cell = make(ms.nn)
        arrays[f"lrcell:{name}"] = np.array([cell(ms.Tensor(i, ms.int32)).asnumpy() for i in range(cases.STEPS)])
    record(cases.NN_CASES, lambda fn, inputs: fn(ms, ms.nn, ops, *[ms.Tensor(a) for a in inputs]), cases.outputs,
           arrays, errors, prefix="nn:")


def main(argv: list[str]) -> int:
    return record_op_cases("prim_class_cases", OUT, argv, _lr_and_nn)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
