#!/usr/bin/env python3
"""Record MindSpore 2.10's (CPU) float16 variance and standard deviation: ``ops.var``/``std``/``var_mean``/
``std_mean``, the Tensor methods ``var``/``std`` and ``mint.var``/``mint.std``, over several shapes, axes and
ddof, in PyNative and GRAPH_MODE, into tests/fixtures/mindspore/half_var.json (inputs and results as float16
bit patterns). Run with a Python that has MindSpore:

    /path/to/ms-venv/bin/python scripts/record_half_var.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import Tensor, mint, nn, ops

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "half_var.json"
# (shape, axis, ddof, keepdims, scale): the scale makes some sums of squares pass float16's range.
CASES = [((37,), None, 0, False, 3.0), ((6, 50), 1, 0, False, 3.0), ((6, 50), 0, 1, True, 3.0),
         ((4, 5, 30), (0, 2), 0, False, 3.0), ((300,), None, 1, False, 3.0), ((8, 200), 1, 0, False, 3.0),
         ((8, 200), 1, 2, False, 3.0), ((5, 400), 1, 1, False, 20.0)]


def _calls(axis, ddof, keepdims):
    dim = axis if axis is not None else None
    return {
        "ops.var": lambda t: ops.var(t, axis, ddof, keepdims),
        "ops.std": lambda t: ops.std(t, axis, ddof, keepdims),
        "ops.var_mean": lambda t: ops.var_mean(t, axis, ddof, keepdims),
        "ops.std_mean": lambda t: ops.std_mean(t, axis, ddof, keepdims),
        "Tensor.var": lambda t: t.var(axis, ddof, keepdims),
        "Tensor.std": lambda t: t.std(axis, ddof, keepdims),
        "mint.var": lambda t: mint.var(t, dim, correction=ddof, keepdim=keepdims),
        "mint.std": lambda t: mint.std(t, dim, correction=ddof, keepdim=keepdims),
    }


class _Net(nn.Cell):
    """One call in GRAPH_MODE (GRAPH_MODE cannot parse a lambda kept in an attribute)."""

    def __init__(self, name: str, axis, ddof: int, keepdims: bool):
        super().__init__()
        self.name, self.axis, self.ddof, self.keepdims = name, axis, ddof, keepdims

    def construct(self, x):
        if self.name == "ops.var":
            return ops.var(x, self.axis, self.ddof, self.keepdims)
        if self.name == "ops.std":
            return ops.std(x, self.axis, self.ddof, self.keepdims)
        if self.name == "ops.var_mean":
            return ops.var_mean(x, self.axis, self.ddof, self.keepdims)
        if self.name == "ops.std_mean":
            return ops.std_mean(x, self.axis, self.ddof, self.keepdims)
        if self.name == "Tensor.var":
            return x.var(self.axis, self.ddof, self.keepdims)
        if self.name == "Tensor.std":
            return x.std(self.axis, self.ddof, self.keepdims)
        if self.name == "mint.var":
            return mint.var(x, self.axis, correction=self.ddof, keepdim=self.keepdims)
        return mint.std(x, self.axis, correction=self.ddof, keepdim=self.keepdims)


def _bits(r) -> list:
    outs = r if isinstance(r, tuple) else (r,)
    return [{"dtype": str(o.dtype).lower(), "shape": list(o.shape),
             "bits": np.ascontiguousarray(o.asnumpy()).view(np.uint16).ravel().tolist()} for o in outs]


def main(argv: list[str]) -> int:
    rng = np.random.default_rng(0)
    cases = []
    for shape, axis, ddof, keepdims, scale in CASES:
        x = (rng.standard_normal(shape) * scale + 2).astype(np.float16)
        cases.append({"shape": list(shape), "axis": list(axis) if isinstance(axis, tuple) else axis, "ddof": ddof,
                      "keepdims": keepdims, "x": x.view(np.uint16).ravel().tolist(), "results": {}})
    for mode in ("pynative", "graph"):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE, device_target="CPU")
        for case, (shape, axis, ddof, keepdims, _) in zip(cases, CASES):
            x = Tensor(np.array(case["x"], np.uint16).view(np.float16).reshape(shape))
            for name, fn in _calls(axis, ddof, keepdims).items():
                try:
                    r = _Net(name, axis, ddof, keepdims)(x) if mode == "graph" else fn(x)
                    case["results"][f"{mode} {name}"] = _bits(r)
                except Exception as e:  # noqa: BLE001 - a refusal is a result to record
                    case["results"][f"{mode} {name}"] = {"error": type(e).__name__}
    path = Path(argv[0]) if argv else OUT
    path.write_text(json.dumps({"mindspore": ms.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
