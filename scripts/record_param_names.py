"""Record MindSpore's parameter names of tests/checkpoint/param_name_programs.py into
tests/fixtures/mindspore/param_names.json: the qualified names of ``parameters_and_names()``, each
Parameter's ``name`` (what ``save_checkpoint`` writes) and ``requires_grad``, and the names a saved checkpoint
holds.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_param_names.py``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore as ms  # noqa: E402
import numpy as np  # noqa: E402
from tests.checkpoint import param_name_programs as programs  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "mindspore"


def main() -> None:
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in programs.build(ms).items():
            net = make()
            path = f"{tmp}/{name}.ckpt"
            ms.save_checkpoint(net, path)
            out[name] = {
                "qualified": [q for q, _ in net.parameters_and_names()],
                "param_names": [p.name for _, p in net.parameters_and_names()],
                "shapes": [list(p.shape) for _, p in net.parameters_and_names()],
                "requires_grad": [bool(p.requires_grad) for _, p in net.parameters_and_names()],
                "checkpoint": list(ms.load_checkpoint(path)),
                "cells": [n for n, _ in net.cells_and_names()],
            }
        # Two MindSpore-written checkpoints with the outputs of their networks on a fixed input: the tests
        # load them into opbuild's networks, which must take every parameter and give the same outputs.
        x = ms.Tensor(np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(4, 2))
        for name in ("list", "shared_attr_first"):
            net = programs.build(ms)[name]()
            ms.save_checkpoint(net, str(FIXTURES / f"params_{name}.ckpt"))
            out[name]["output"] = net(x).asnumpy().tolist()
    path = FIXTURES / "param_names.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {len(out)} networks to {path}")


if __name__ == "__main__":
    main()
