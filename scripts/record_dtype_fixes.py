#!/usr/bin/env python3
"""Record MindSpore 2.10's values, dtypes and shapes (or its error's type) for the calls of
tests/compat/dtype_fix_cases.py, int_dtype_cases.py and int_activation_cases.py, in PyNative and in a
GRAPH_MODE Cell, into tests/fixtures/mindspore/dtype_fixes.json, int_dtypes.json and int_activations.json.

    /tmp/ms/bin/python scripts/record_dtype_fixes.py [CASE_MODULE ...]   # default: all
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from ms_case_recorder import REPO, load_cases
from record_tensor_overloads import encode

SETS = {"dtype_fix_cases": "dtype_fixes.json", "int_dtype_cases": "int_dtypes.json",
        "int_activation_cases": "int_activations.json"}


def _calls(cases) -> list[tuple[str, str, list[str] | None]]:
    """(key, callable or expression, graph arguments or None) of every case, PyNative ones first."""
    return [(e, e, None) for e in cases.CASES] + [(cases.graph_key(f, a), f, a) for f, a in cases.GRAPH]


def _run_from(module: str, start: int) -> None:
    """Record the calls from ``start`` on, one JSON line each, and stop after the first error: after a failed
    kernel selection MindSpore 2.10 repeats the error on the next call, so the parent starts a fresh process."""
    import mindspore as ms

    sys.path.insert(0, str(REPO))  # a cases module may import another one of tests/compat
    cases = load_cases(module)

    class Apply(ms.nn.Cell):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def construct(self, *xs):
            return self.fn(*xs)

    for i, (key, expr, args) in enumerate(_calls(cases)[start:], start):
        env = {"ms": ms, "np": np}
        exec(cases.SETUP, env)  # noqa: S102 - the repository's own case list
        ms.set_context(mode=ms.PYNATIVE_MODE if args is None else ms.GRAPH_MODE, device_target="CPU")
        try:
            if args is None:
                out = encode(eval(expr, env))  # noqa: S307
            else:
                out = encode(Apply(eval(expr, env))(*[eval(a, env) for a in args]))  # noqa: S307
        except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
            print(json.dumps({"i": i, "key": key, "out": {"error": type(e).__name__, "text": str(e)[:300]}}))
            return
        print(json.dumps({"i": i, "key": key, "out": out}), flush=True)


def _record_set(module: str, fixture: str, version: str) -> None:
    sys.path.insert(0, str(REPO))
    n = len(_calls(load_cases(module)))
    data: dict = {"_meta": {"mindspore": version}}
    start = 0
    while start < n:
        proc = subprocess.run([sys.executable, __file__, "--from", module, str(start)], capture_output=True,
                              text=True, timeout=1200)
        lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith('{"i"')]
        if not lines:
            raise RuntimeError(f"{module}[{start}] failed:\n{proc.stderr[-2000:]}")
        for rec in lines:
            data[rec["key"]] = rec["out"]
        start = lines[-1]["i"] + 1
    out = REPO / "tests" / "fixtures" / "mindspore" / fixture
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{out}: {n} calls, {sum('error' in v for v in data.values())} refused")


def main() -> int:
    if sys.argv[1:2] == ["--from"]:
        _run_from(sys.argv[2], int(sys.argv[3]))
        return 0
    import mindspore as ms

    for module, fixture in SETS.items():
        if sys.argv[1:] and module not in sys.argv[1:]:
            continue
        _record_set(module, fixture, ms.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
