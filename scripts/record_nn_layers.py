#!/usr/bin/env python3
"""Record MindSpore 2.10's outputs and gradients for the cases of tests/nn/nn_layer_cases.py into
tests/fixtures/ms_nn_layers.npz (PyNative mode, CPU). Run with a Python that has MindSpore (a separate
virtualenv with ``mindspore==2.10.0`` and ``numpy<2``); opbuild's tests only read the fixture.

    /path/to/ms-venv/bin/python scripts/record_nn_layers.py

For a case marked ``grad`` the gradient of the sum of its first output with respect to each float input is
recorded too (``ms.grad``). A case MindSpore rejects is recorded as such (its error message), and
tests/nn/test_ms_nn_layers.py lists every such case with the reason it is left out.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import nn, ops

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "ms_nn_layers.npz"


def _cases():
    spec = importlib.util.spec_from_file_location("nn_layer_cases", REPO / "tests" / "nn" / "nn_layer_cases.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _error(e: Exception) -> str:
    lines = [ln for ln in str(e).splitlines() if ln.strip() and not ln.startswith("-")]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"


def main() -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    cases = _cases()
    only = set(sys.argv[1:])
    arrays: dict[str, np.ndarray] = {}
    errors: dict[str, str] = {}
    grad_errors: dict[str, str] = {}
    if only and OUT.exists():  # re-record some cases, keep the others
        old = np.load(OUT)
        meta = json.loads(bytes(old["__meta__"]).decode())
        errors = {k: v for k, v in meta["errors"].items() if k not in only}
        grad_errors = {k: v for k, v in meta["grad_errors"].items() if k not in only}
        arrays = {k: old[k] for k in old.files if k != "__meta__" and k.split(":")[0] not in only}
    for name, (fn, inputs, want_grad) in cases.CASES.items():
        if only and name not in only:
            continue
        for i, a in enumerate(inputs):
            arrays[f"{name}:in{i}"] = a
        try:
            outs = cases.outputs(fn(ms, nn, ops, *[ms.Tensor(a) for a in inputs]))
        except Exception as e:  # recorded: opbuild must refuse the case too, or the test says why not
            errors[name] = _error(e)
            print(f"{name}: MindSpore raised {errors[name]}")
            continue
        for i, o in enumerate(outs):
            arrays[f"{name}:out{i}"] = o
        pos = cases.grad_positions(inputs, want_grad)
        if not pos:
            continue

        def total(*ts, _fn=fn):
            out = _fn(ms, nn, ops, *ts)
            return (out[0] if isinstance(out, (tuple, list)) else out).sum()

        try:
            grads = ms.grad(total, grad_position=pos)(*[ms.Tensor(a) for a in inputs])
        except Exception as e:
            grad_errors[name] = _error(e)
            print(f"{name}: MindSpore's gradient raised {grad_errors[name]}")
            continue
        grads = grads if isinstance(grads, tuple) else (grads,)
        for p, g in zip(pos, grads):
            arrays[f"{name}:grad{p}"] = g.asnumpy()
    arrays["__meta__"] = np.frombuffer(json.dumps({"mindspore": ms.__version__, "errors": errors,
                                                   "grad_errors": grad_errors}).encode(), dtype=np.uint8)
    np.savez_compressed(OUT, **arrays)
    print(f"{len(cases.CASES)} cases, {len(errors)} rejected by MindSpore -> {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
