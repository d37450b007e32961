"""Record MindSpore 2.10's results of the Tensor-method calls of tests/core/tensor_overload_cases.py,
tests/core/tensor_extra_cases.py, tensor_dtype_rule_cases.py, tensor_edge_cases.py, index_bounds_cases.py and
int_input_cases.py into tests/fixtures/mindspore/tensor_overloads.json, tensor_extras.json, tensor_dtype_rules.json,
tensor_edges.json, index_bounds.json and int_inputs.json (values, dtypes and shapes; tuples element by element;
plain Python results by repr).

    /tmp/ms/bin/python scripts/record_tensor_overloads.py [CASE_MODULE ...]   # default: every set
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SETS = [("tensor_overload_cases", "tensor_overloads.json"), ("tensor_extra_cases", "tensor_extras.json"),
        ("tensor_dtype_rule_cases", "tensor_dtype_rules.json"), ("tensor_edge_cases", "tensor_edges.json"),
        ("index_bounds_cases", "index_bounds.json"), ("int_input_cases", "int_inputs.json")]


def encode(r):
    """A result as JSON: a tensor's values, dtype and shape, a tuple element by element."""
    if isinstance(r, (tuple, list)):
        return [encode(x) for x in r]
    if not hasattr(r, "asnumpy"):
        return {"py": repr(r)}
    return {"value": np.asarray(r.asnumpy(), np.float64).tolist(), "dtype": str(r.dtype), "shape": list(r.shape)}


def _load(module: str):
    spec = importlib.util.spec_from_file_location(module, str(REPO / "tests" / "core" / f"{module}.py"))
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    return cases


def _record(ms, cases, expr: str) -> dict | list:
    # A fresh setup per call: some of MindSpore's methods update their input in place.
    env = {"ms": ms, "np": np}
    exec(cases.SETUP, env)  # noqa: S102 - the repository's own case list
    try:
        return encode(eval(expr, env))  # noqa: S307
    except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
        return {"error": type(e).__name__}


def _isolated(module: str, index: int) -> dict | list:
    """One call in a fresh process: after a failed kernel selection MindSpore 2.10 raises the same error again
    on the next call of another op, so a set that records errors (``ISOLATED = True``) runs each call alone."""
    proc = subprocess.run([sys.executable, __file__, "--one", module, str(index)], capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"{module}[{index}] failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    import mindspore as ms

    if sys.argv[1:2] == ["--one"]:
        cases = _load(sys.argv[2])
        print(json.dumps(_record(ms, cases, cases.CASES[int(sys.argv[3])])))
        return 0
    only = sys.argv[1:]  # case modules to record (default: all)
    for module, fixture in SETS:
        if only and module not in only:
            continue
        cases = _load(module)
        data: dict = {"_meta": {"mindspore": ms.__version__}}
        for i, expr in enumerate(cases.CASES):
            data[expr] = _isolated(module, i) if getattr(cases, "ISOLATED", False) else _record(ms, cases, expr)
        out = REPO / "tests" / "fixtures" / "mindspore" / fixture
        out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"{out}: {len(data) - 1} calls, errors: {[k for k, v in data.items() if 'error' in v]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
