"""Record how MindSpore 2.10 prints tensors, parameters and dtypes into tests/fixtures/mindspore/tensor_print.json.

Run with the interpreter of a real MindSpore 2.10 install::

    /tmp/ms/bin/python scripts/record_tensor_print.py

The tensors are tests/core/tensor_print_cases.py's; tests/core/test_tensor_format.py compares opbuild's
``repr``/``str`` with what is written here.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "core" / "tensor_print_cases.py"
OUT = REPO / "tests" / "fixtures" / "mindspore" / "tensor_print.json"


def main() -> int:
    import mindspore as ms

    spec = importlib.util.spec_from_file_location("tensor_print_cases", str(CASES))
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    data: dict = {"_meta": {"mindspore": ms.__version__}, "tensors": {}}
    for name, expr, dtype in cases.CASES:
        arr = eval(expr, {"np": np})  # noqa: S307 - the repository's own case list
        t = ms.tensor(arr, dtype=getattr(ms, dtype)) if dtype else ms.Tensor(arr)
        data["tensors"][name] = {"repr": repr(t), "str": str(t)}
    p = ms.Parameter(ms.Tensor(np.ones((2, 3), np.float32)), name="w")
    q = ms.Parameter(ms.Tensor(np.ones((), np.int32)), name="step", requires_grad=False)
    data["parameter"] = {"repr": repr(p), "str": str(p), "repr_frozen": repr(q),
                         "list": str([p])}
    data["dtype"] = {n: {"repr": repr(getattr(ms, n)), "str": str(getattr(ms, n))}
                     for n in ("float32", "float16", "bfloat16", "int64", "uint8", "bool", "float64")}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(data['tensors'])} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
