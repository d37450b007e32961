#!/usr/bin/env python3
"""Record the names MindSpore 2.10's ``mindspore.nn.layer`` package itself exports (model-zoo code writes
``nn.layer.CellList``, ``nn.layer.Conv2d``) and whether each is the very object ``mindspore.nn`` has, into
tests/fixtures/mindspore/nn_layer_names.json. Run with a Python that has MindSpore 2.10 (CPU):

    /path/to/ms-venv/bin/python scripts/record_nn_layer_names.py [out.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "nn_layer_names.json"


def main() -> None:
    import mindspore
    from mindspore import nn
    from mindspore.nn import layer

    names = {n: getattr(layer, n) is getattr(nn, n, None) for n in layer.__all__}
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.write_text(json.dumps({"mindspore": mindspore.__version__, "all": list(layer.__all__),
                               "same_as_nn": names}, indent=0) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
