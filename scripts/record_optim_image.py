#!/usr/bin/env python3
"""Record MindSpore 2.10's outputs for the cases of tests/compat/optim_apply_cases.py (optimizer primitives),
nn_optim_cases.py (nn optimizers), image_cases.py (image ops), special_cases.py, gather_cases.py and
vision_adjust_cases.py (dataset colour transforms) into tests/fixtures/optim_image.npz (PyNative
mode, CPU). Run with a Python that has MindSpore (a separate virtualenv with ``mindspore==2.10.0`` and
``numpy<2``); opbuild's tests only read the fixture.

    /path/to/ms-venv/bin/python scripts/record_optim_image.py

A case MindSpore rejects is recorded as such (its error message), and the test expects opbuild to refuse it too.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import nn, ops
from mindspore.dataset import vision

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "optim_image.npz"
CASE_FILES = {"optim_apply_cases": ops, "nn_optim_cases": nn, "image_cases": ops,
              "special_cases": ops, "gather_cases": ops, "vision_adjust_cases": vision}


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "tests" / "compat" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    arrays: dict[str, np.ndarray] = {}
    errors: dict[str, str] = {}
    names: dict[str, list[str]] = {}
    count = 0
    for file, namespace in CASE_FILES.items():
        cases = _load(file)
        for name in cases.CASES:
            count += 1
            try:
                outs = cases.run(ms, namespace, name)
            except Exception as e:  # recorded: opbuild must refuse the case too
                errors[name] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                print(f"{name}: MindSpore raised {errors[name]}")
                continue
            for i, o in enumerate(outs):
                arrays[f"{name}:out{i}"] = o
            if hasattr(cases, "state_names"):
                names[name] = cases.state_names(ms, namespace, name)
    arrays["__meta__"] = np.frombuffer(json.dumps({"mindspore": ms.__version__, "errors": errors,
                                                    "state_names": names}).encode(),
                                       dtype=np.uint8)
    np.savez_compressed(OUT, **arrays)
    print(f"{count} cases, {len(errors)} rejected by MindSpore -> {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
