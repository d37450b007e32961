#!/usr/bin/env python3
"""Record MindSpore 2.10's ``F.tuple_to_array`` of a ``range`` (YOLOX from the model zoo builds its grid with
``F.tuple_to_array(range(grid_size[1]))``), in GRAPH_MODE from shapes and in PyNative, into
tests/fixtures/mindspore/tuple_to_array_range.json. Run with a Python that has MindSpore 2.10 (CPU):

    /path/to/ms-venv/bin/python scripts/record_tuple_to_array_range.py [out.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "tuple_to_array_range.json"
RANGES = [(5,), (1, 5, 2), (6, 0, -2)]


def main() -> None:
    import mindspore as ms
    from mindspore import nn
    from mindspore.ops import functional as F

    class Grid(nn.Cell):
        """Ranges built from the input's shape, as YOLOX does."""

        def construct(self, x):
            n = x.shape[1]
            return (F.tuple_to_array(range(n)), F.tuple_to_array(range(1, n, 2)),
                    F.tuple_to_array(range(n + 1, 0, -2)))

    ms.set_context(mode=ms.GRAPH_MODE)
    graph = [{"values": t.asnumpy().tolist(), "dtype": str(t.dtype)}
             for t in Grid()(ms.Tensor(np.zeros((2, 5), np.float32)))]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = []
    for r in RANGES:
        t = F.tuple_to_array(range(*r))
        eager.append({"range": list(r), "values": t.asnumpy().tolist(), "dtype": str(t.dtype)})
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.write_text(json.dumps({"mindspore": ms.__version__, "graph_shape_5": graph, "pynative": eager}) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
