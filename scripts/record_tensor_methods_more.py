#!/usr/bin/env python3
"""Record MindSpore 2.10's ``str(result)`` of the programs of tests/compat/tensor_methods_more_cases.py (the
Tensor methods ``acos``, ``kthvalue``, ``scatter_``, ``index_add_``, ...) into
tests/fixtures/mindspore/tensor_methods_more.json.

    /tmp/ms/bin/python scripts/record_tensor_methods_more.py

As ``ms_case_recorder.record_programs``, with one addition: MindSpore's CPU can report a kernel missing for one
program while the next runs (its launches are asynchronous), so after each program a small op runs and any such
late error is dropped, and every program is recorded with its own result.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from ms_case_recorder import REPO, load_cases

OUT = REPO / "tests" / "fixtures" / "mindspore" / "tensor_methods_more.json"


def _flush(ms) -> None:
    """Run a small op so that an error MindSpore still holds from the last program surfaces here."""
    for _ in range(2):
        try:
            (ms.Tensor(np.ones(1, np.float32)) + 1).asnumpy()
        except Exception:  # noqa: BLE001, S110 - the previous program's late error, already recorded as its own
            pass


def main() -> int:
    import mindspore as ms

    cases = load_cases("tensor_methods_more_cases")
    data: dict = {"_meta": {"mindspore": ms.__version__}}
    for name, code in cases.CASES.items():
        env = {"ms": ms, "np": np}
        try:
            exec(code, env)  # noqa: S102 - the repository's own programs
            data[name] = {"str": str(env["result"])}
        except Exception as e:  # noqa: BLE001 - recorded: opbuild must refuse too, or the test says why not
            data[name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
        _flush(ms)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(data) - 1} programs, errors: {[k for k, v in data.items() if 'error' in v]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
