#!/usr/bin/env python3
"""Record what MindSpore 2.10 (CPU) gives for floor division and the remainders of bool tensors, with bool,
int, float tensors and Python scalars, in PyNative and GRAPH_MODE: ``ops.floor_divide``/``remainder``/``fmod``,
the Tensor methods of those names and the ``//``/``%`` operators. Writes
tests/fixtures/mindspore/bool_division.json (values and dtypes, or the error's type). Run with a Python that
has MindSpore:

    /path/to/ms-venv/bin/python scripts/record_bool_division.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "bool_division.json"
A = [True, True, False, False]
B = [True, False, True, False]
INTS = [2, -3, 5, 0]
FLOATS = [2.5, -3.0, 0.5, 0.0]
# operand pairs: (left, right); a list is a tensor (bool, int32 or float32 by its values), a scalar stays Python's.
PAIRS = {"bool_bool": (A, B), "bool_int32": (A, INTS), "int32_bool": (INTS, A), "bool_float32": (A, FLOATS),
         "float32_bool": (FLOATS, A), "bool_pyint": (A, 2), "bool_pyfloat": (A, 1.5), "bool_pytrue": (A, True)}
FUNCS = ("floor_divide", "remainder", "fmod", "Tensor.floor_divide", "Tensor.remainder", "Tensor.fmod", "//", "%")


def _tensor(v):
    if not isinstance(v, list):
        return v
    dtype = bool if isinstance(v[0], bool) else np.int32 if isinstance(v[0], int) else np.float32
    return Tensor(np.array(v, dtype))


def _call(name: str, x, y):
    if name == "//":
        return x // y
    if name == "%":
        return x % y
    if name.startswith("Tensor."):
        return getattr(x, name[7:])(y)
    return getattr(ops, name)(x, y)


class _Net(nn.Cell):
    """One call in GRAPH_MODE; a Python scalar right operand is a constant of the graph."""

    def __init__(self, name: str, scalar):
        super().__init__()
        self.name, self.scalar = name, scalar

    def construct(self, x, y):
        if self.scalar is not None:
            return _call(self.name, x, self.scalar)
        return _call(self.name, x, y)


def _record(mode: str) -> dict:
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE, device_target="CPU")
    out = {}
    for name in FUNCS:
        for pair, (left, right) in PAIRS.items():
            x, y = _tensor(left), _tensor(right)
            try:
                if mode == "graph":
                    scalar = None if isinstance(right, list) else right
                    r = _Net(name, scalar)(x, y if scalar is None else x)
                else:
                    r = _call(name, x, y)
                out[f"{name} {pair}"] = {"dtype": str(r.dtype).lower(), "values": r.asnumpy().tolist()}
            except Exception as e:  # noqa: BLE001 - a refusal is a result to record
                out[f"{name} {pair}"] = {"error": type(e).__name__}
    return out


def main(argv: list[str]) -> int:
    data = {"mindspore": ms.__version__, "a": A, "b": B, "ints": INTS, "floats": FLOATS,
            "pynative": _record("pynative"), "graph": _record("graph")}
    path = Path(argv[0]) if argv else OUT
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
