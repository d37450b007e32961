"""Run mindcv models on opbuild under the MindSpore alias, as a mindcv user would, and print JSON results.

    python tests/zoo/zoo_vit_runner.py GRAPH|PYNATIVE label [label ...] [--params-only name ...]

Run in a subprocess by tests/zoo/test_zoo_vit.py (the alias replaces ``mindspore`` for the whole process).
Per model: the float64 parameter sums as packed by zoo_vit_cases.pack_params and the logits, or the error.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from zoo_vit_cases import SEED, case, make_input, pack_params  # noqa: E402


def build(ms, create_model, name: str, kwargs: dict) -> tuple[object, dict]:
    """``name`` built after set_seed, in eval mode, and its record (packed parameters)."""
    ms.set_seed(SEED)
    t0 = time.time()
    net = create_model(name, num_classes=10, **kwargs)
    net.set_train(False)
    return net, {"params": pack_params([(p.name, p.shape, np.asarray(p.asnumpy(), np.float64).sum())
                                        for p in net.get_parameters()]), "build_s": time.time() - t0}


def run_one(ms, create_model, label: str) -> dict:
    """The forward case ``label``: its parameters and its logits for the fixed input (or the error)."""
    name, size, kwargs = case(label)
    t0 = time.time()
    net, rec = build(ms, create_model, name, kwargs)
    try:
        out = net(ms.Tensor(make_input(size))).asnumpy()
    except Exception as exc:  # reported, and the test says which model failed how
        rec["error"] = f"{type(exc).__name__}: {exc}"[:2000]
        return rec
    rec.update(shape=list(out.shape), logits=[float(v) for v in out.reshape(-1)], run_s=time.time() - t0)
    return rec


def main(argv: list[str]) -> None:
    import opbuild
    opbuild.alias_mindspore()
    import mindspore as ms
    from mindcv.models import create_model

    ms.set_context(mode=ms.GRAPH_MODE if argv[0] == "GRAPH" else ms.PYNATIVE_MODE)
    labels, params_only = argv[1:], []
    if "--params-only" in labels:
        at = labels.index("--params-only")
        labels, params_only = labels[:at], labels[at + 1:]
    results = {}
    for label in labels:
        try:
            results[label] = run_one(ms, create_model, label)
        except Exception as exc:  # construction failed
            results[label] = {"error": f"construct: {type(exc).__name__}: {exc}"[:2000]}
        print(label, {k: v for k, v in results[label].items() if k != "params"}, file=sys.stderr, flush=True)
    for name in params_only:
        try:
            results[name] = build(ms, create_model, name, {})[1]
        except Exception as exc:
            results[name] = {"error": f"construct: {type(exc).__name__}: {exc}"[:2000]}
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1:])
