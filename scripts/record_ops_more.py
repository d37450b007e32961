#!/usr/bin/env python3
"""Record MindSpore 2.10's outputs for the cases of tests/compat/ops_more_cases.py into
tests/fixtures/ops_more.npz (PyNative mode, CPU). Run with a Python that has MindSpore (e.g. a separate
virtualenv with ``mindspore==2.10.0`` and ``numpy<2``); opbuild's tests only read the fixture.

    /path/to/ms-venv/bin/python scripts/record_ops_more.py

A case MindSpore rejects is recorded as such (its error message), and the test expects opbuild to refuse it too.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import ops

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "ops_more.npz"


def _cases():
    spec = importlib.util.spec_from_file_location("ops_more_cases", REPO / "tests" / "compat" / "ops_more_cases.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    cases = _cases()
    arrays: dict[str, np.ndarray] = {}
    errors: dict[str, str] = {}
    for name, (fn, inputs) in cases.CASES.items():
        for i, a in enumerate(inputs):
            arrays[f"{name}:in{i}"] = a
        try:
            outs = cases.outputs(fn(ms, ops, *[ms.Tensor(a) for a in inputs]))
        except Exception as e:  # recorded: opbuild must refuse the case too
            errors[name] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            print(f"{name}: MindSpore raised {errors[name]}")
            continue
        for i, o in enumerate(outs):
            arrays[f"{name}:out{i}"] = o
    arrays["__meta__"] = np.frombuffer(json.dumps({"mindspore": ms.__version__, "errors": errors}).encode(),
                                       dtype=np.uint8)
    np.savez_compressed(OUT, **arrays)
    print(f"{len(cases.CASES)} cases, {len(errors)} rejected by MindSpore -> {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
