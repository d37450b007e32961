#!/usr/bin/env python3
"""Record MindSpore 2.10's values, dtypes and shapes (or its error's type) for the calls of
tests/compat/dtype_fix_cases.py, in PyNative and in a GRAPH_MODE Cell, into tests/fixtures/mindspore/dtype_fixes.json.

    /tmp/ms/bin/python scripts/record_dtype_fixes.py
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from ms_case_recorder import REPO, load_cases
from record_tensor_overloads import encode

OUT = REPO / "tests" / "fixtures" / "mindspore" / "dtype_fixes.json"


def _calls(cases) -> list[tuple[str, str, list[str] | None]]:
    """(key, callable or expression, graph arguments or None) of every case, PyNative ones first."""
    return [(e, e, None) for e in cases.CASES] + [(cases.graph_key(f, a), f, a) for f, a in cases.GRAPH]


def _run_from(start: int) -> None:
    """Record the calls from ``start`` on, one JSON line each, and stop after the first error: after a failed
    kernel selection MindSpore 2.10 repeats the error on the next call, so the parent starts a fresh process."""
    import mindspore as ms

    cases = load_cases("dtype_fix_cases")

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


def main() -> int:
    if sys.argv[1:2] == ["--from"]:
        _run_from(int(sys.argv[2]))
        return 0
    import mindspore as ms

    n = len(_calls(load_cases("dtype_fix_cases")))
    data: dict = {"_meta": {"mindspore": ms.__version__}}
    start = 0
    while start < n:
        proc = subprocess.run([sys.executable, __file__, "--from", str(start)], capture_output=True, text=True,
                              timeout=1200)
        lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith('{"i"')]
        if not lines:
            raise RuntimeError(f"call {start} failed:\n{proc.stderr[-2000:]}")
        for rec in lines:
            data[rec["key"]] = rec["out"]
        start = lines[-1]["i"] + 1
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {n} calls, errors: {[k for k, v in data.items() if 'error' in v]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
