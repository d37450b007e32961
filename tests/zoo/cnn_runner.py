"""Run in a child process by tests/zoo/test_zoo_cnn.py: builds mindcv CNN models on opbuild (under
``opbuild.alias_mindspore()``, so mindcv runs unchanged) exactly as scripts/record_zoo_cnn.py builds them under
MindSpore, and prints one JSON line with what it got.

    python cnn_runner.py MODE FAMILIES SWEEP

MODE is ``graph`` or ``pynative``; FAMILIES and SWEEP are comma-separated family keys (run forward) and model
names (built only, parameter totals), either may be empty.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

import opbuild  # noqa: E402

opbuild.alias_mindspore()

import mindcv  # noqa: E402
import mindspore as ms  # noqa: E402 - opbuild, through the alias

from tests.zoo.cnn_cases import CONSTRUCT_ONLY, FAMILIES, SEED, image, param_summary  # noqa: E402


def _build(name: str):
    ms.set_seed(SEED)
    net = mindcv.models.create_model(name, num_classes=10)
    net.set_train(False)
    return net


def _forward(family: str) -> dict:
    name, size = FAMILIES[family]
    net = _build(name)
    summary = param_summary((p.name, p.asnumpy()) for p in net.get_parameters())
    logits = net(ms.Tensor(image(size))).asnumpy()
    return {"shape": list(logits.shape), "logits": logits.astype(np.float64).ravel().tolist(),
            "keys": [f"{n}:{'x'.join(map(str, s))}" for n, s, _ in summary], "sums": [t for _, _, t in summary]}


def _totals(name: str) -> dict:
    arrays = [p.asnumpy().astype(np.float64) for p in _build(name).get_parameters()]
    return {"count": len(arrays), "numel": int(sum(a.size for a in arrays)),
            "sum": float(sum(a.sum() for a in arrays)), "abs_sum": float(sum(np.abs(a).sum() for a in arrays))}


def _guarded(fn, arg) -> dict:
    try:
        return fn(arg)
    except Exception as e:  # noqa: BLE001 - reported to the test, which names the model that failed
        return {"error": f"{type(e).__name__}: {e}"[:2000]}


def main() -> None:
    mode, families, sweep = sys.argv[1], sys.argv[2], sys.argv[3]
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    result = {"forward": {f: _guarded(_forward, f) for f in families.split(",") if f},
              "sweep": {n: _guarded(_totals, n) for n in sweep.split(",") if n},
              "construct_only": {f: _guarded(lambda n: len(list(_build(n).get_parameters())), n)
                                 for f, n in CONSTRUCT_ONLY.items()} if mode == "graph" and sweep else {}}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
