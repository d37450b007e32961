"""Record MindSpore's results and printed output for tests/compat/functional_programs.py into
tests/fixtures/mindspore/functional_programs.json.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_functional.py``. Each
program is written to a file and run from it (GRAPH_MODE parses the source of what it compiles), with the
process's standard output captured at the file-descriptor level (GRAPH_MODE prints from C++); a program
MindSpore rejects is recorded with its error. The tests compare opbuild with the file and never import
MindSpore.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from ms_case_recorder import load_cases  # noqa: E402

OUT = REPO / "tests" / "fixtures" / "mindspore" / "functional_programs.json"


def encode(value: Any) -> Any:
    """A result as JSON: Tensors as {shape, dtype, values}, sequences as lists with their kind."""
    if hasattr(value, "asnumpy"):
        a = value.asnumpy()
        return {"tensor": a.astype(np.float64).tolist() if a.dtype.kind in "fiub" else a.tolist(),
                "shape": list(a.shape), "dtype": str(value.dtype)}
    if isinstance(value, (tuple, list)):
        return {"seq": type(value).__name__, "items": [encode(v) for v in value]}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return {"repr": type(value).__name__}


def run_captured(path: str, env: dict) -> tuple[dict, str]:
    """Run the program file with fd 1 redirected to a temporary file; (its globals, what it printed)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        try:
            out = runpy.run_path(path, init_globals=env)
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        sink.seek(0)
        printed = sink.read().decode(errors="replace")
    return out, printed


def main() -> int:
    import mindspore as ms
    from mindspore import Tensor, nn, ops

    cases = load_cases("functional_programs").CASES
    data: dict[str, Any] = {"_meta": {"mindspore": ms.__version__}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, code in cases.items():
            ms.set_context(mode=ms.PYNATIVE_MODE)
            path = os.path.join(tmp, f"{name}.py")
            Path(path).write_text(code)
            env = {"ms": ms, "np": np, "ops": ops, "nn": nn, "Tensor": Tensor}
            try:
                out, printed = run_captured(path, env)
                data[name] = {"result": encode(out["result"]), "stdout": printed}
            except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
                data[name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
            print(name, "error" if "error" in data[name] else "ok", file=sys.stderr)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(data) - 1} programs, errors: {[k for k, v in data.items() if 'error' in v]}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
