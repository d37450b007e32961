"""Record MindSpore 2.10's results of the Tensor-method calls of tests/core/tensor_overload_cases.py and
tests/core/tensor_extra_cases.py into tests/fixtures/mindspore/tensor_overloads.json and tensor_extras.json
(values, dtypes and shapes; tuples element by element; plain Python results by repr).

    /tmp/ms/bin/python scripts/record_tensor_overloads.py
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SETS = [("tensor_overload_cases", "tensor_overloads.json"), ("tensor_extra_cases", "tensor_extras.json")]


def encode(r):
    """A result as JSON: a tensor's values, dtype and shape, a tuple element by element."""
    if isinstance(r, (tuple, list)):
        return [encode(x) for x in r]
    if not hasattr(r, "asnumpy"):
        return {"py": repr(r)}
    return {"value": np.asarray(r.asnumpy(), np.float64).tolist(), "dtype": str(r.dtype), "shape": list(r.shape)}


def main() -> int:
    import mindspore as ms

    for module, fixture in SETS:
        spec = importlib.util.spec_from_file_location(module, str(REPO / "tests" / "core" / f"{module}.py"))
        cases = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cases)
        data: dict = {"_meta": {"mindspore": ms.__version__}}
        for expr in cases.CASES:
            # A fresh setup per call: some of MindSpore's methods update their input in place.
            env = {"ms": ms, "np": np}
            exec(cases.SETUP, env)  # noqa: S102 - the repository's own case list
            try:
                data[expr] = encode(eval(expr, env))  # noqa: S307
            except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
                data[expr] = {"error": type(e).__name__}
        out = REPO / "tests" / "fixtures" / "mindspore" / fixture
        out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"{out}: {len(data) - 1} calls, errors: {[k for k, v in data.items() if 'error' in v]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
