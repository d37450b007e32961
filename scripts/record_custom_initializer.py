#!/usr/bin/env python3
"""Record how MindSpore 2.10 treats a user Initializer subclass that fills ``_initialize(arr)`` in place
(the idiom of many model-zoo networks) into tests/fixtures/mindspore/custom_initializer.json: the shape and
dtype of the array it is handed, the values ``initializer(...)`` then holds, and what a Parameter built from
it holds. Run with a Python that has MindSpore 2.10 (CPU):

    /path/to/ms-venv/bin/python scripts/record_custom_initializer.py [out.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "custom_initializer.json"


def main() -> None:
    import mindspore as ms
    from mindspore.common import initializer as init

    seen: list = []

    class Ramp(init.Initializer):
        """Fills index * scale + offset; remembers the array it was handed."""

        def __init__(self, scale: float, offset: float = 0.0) -> None:
            super().__init__()
            self.scale, self.offset = scale, offset

        def _initialize(self, arr):
            seen.append({"shape": list(arr.shape), "dtype": str(arr.dtype)})
            arr[:] = np.arange(arr.size, dtype=np.float64).reshape(arr.shape) * self.scale + self.offset

    cases = []
    for shape, dtype, scale, offset in [((2, 3), "float32", 0.1, -0.25), ((4,), "float16", 0.3, 1.0),
                                        ((2, 1, 2), "int32", 1.7, 0.0), ((3, 2), "float64", 1 / 3, 0.0)]:
        seen.clear()
        t = init.initializer(Ramp(scale, offset), shape, getattr(ms, dtype))
        vals = t.asnumpy()
        p = ms.Parameter(init.initializer(Ramp(scale, offset), shape, getattr(ms, dtype)), name="w")
        cases.append({"shape": list(shape), "dtype": dtype, "scale": scale, "offset": offset,
                      "handed": seen[0], "out_dtype": str(vals.dtype), "values": vals.reshape(-1).tolist(),
                      "param_values": p.asnumpy().reshape(-1).tolist()})
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.write_text(json.dumps({"mindspore": ms.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
