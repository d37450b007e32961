"""Record MindSpore 2.10's results of the Tensor-overload calls of tests/core/tensor_overload_cases.py into
tests/fixtures/mindspore/tensor_overloads.json (values, dtypes and shapes; tuples element by element).

    /tmp/ms/bin/python scripts/record_tensor_overloads.py
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "core" / "tensor_overload_cases.py"
OUT = REPO / "tests" / "fixtures" / "mindspore" / "tensor_overloads.json"


def encode(r):
    """A result as JSON: a tensor's values, dtype and shape, a tuple element by element."""
    if isinstance(r, (tuple, list)):
        return [encode(x) for x in r]
    return {"value": np.asarray(r.asnumpy(), np.float64).tolist(), "dtype": str(r.dtype), "shape": list(r.shape)}


def main() -> int:
    import mindspore as ms

    spec = importlib.util.spec_from_file_location("tensor_overload_cases", str(CASES))
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    env = {"ms": ms, "np": np}
    exec(cases.SETUP, env)  # noqa: S102 - the repository's own case list
    data: dict = {"_meta": {"mindspore": ms.__version__}}
    for expr in cases.CASES:
        try:
            data[expr] = encode(eval(expr, env))  # noqa: S307
        except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
            data[expr] = {"error": type(e).__name__}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(data) - 1} calls, errors: {[k for k, v in data.items() if 'error' in v]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
