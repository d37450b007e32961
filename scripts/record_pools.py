#!/usr/bin/env python3
"""Record MindSpore 2.10's outputs, and the gradients of the cases named in ``GRAD``, for the cases of
tests/compat/pool_cases.py into tests/fixtures/ms_pools.npz (PyNative mode, CPU). Run with a Python that has
MindSpore (a separate virtualenv with ``mindspore==2.10.0`` and ``numpy<2``); opbuild's tests only read the
fixture. An optional argument writes elsewhere.

    /path/to/ms-venv/bin/python scripts/record_pools.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import mindspore as ms
from mindspore import nn, ops
from ms_case_recorder import REPO, load_cases, record, save

OUT = REPO / "tests" / "fixtures" / "ms_pools.npz"


def main(argv: list[str]) -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    cases = load_cases("pool_cases")
    arrays: dict = {}
    errors: dict[str, str] = {}
    record(cases.CASES, lambda fn, inputs: fn(ms, ops, nn, *[ms.Tensor(a) for a in inputs]), cases.outputs,
           arrays, errors)
    for name in cases.GRAD:
        fn, inputs = cases.CASES[name]
        tensors = [ms.Tensor(a) for a in inputs]
        shape = cases.first(fn(ms, ops, nn, *tensors)).shape
        w = ms.Tensor(cases.weight(tuple(shape)))

        def loss(x, *rest, fn=fn, w=w):
            return (cases.first(fn(ms, ops, nn, x, *rest)) * w).sum()

        try:
            arrays[f"{name}:grad"] = ms.grad(loss, grad_position=0)(*tensors).asnumpy()
        except Exception as e:  # noqa: BLE001 - recorded: the test then compares with torch or NumPy
            errors[f"{name}:grad"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            print(f"{name}: MindSpore's gradient raised {errors[f'{name}:grad']}")
    save(Path(argv[0]) if argv else OUT, arrays, errors, ms.__version__, len(cases.CASES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
