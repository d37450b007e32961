#!/usr/bin/env python3
"""Record MindSpore 2.10's results for mindcv's transformer and MLP-style vision models into
tests/fixtures/mindspore/zoo_vit.json. Run with a Python that has MindSpore 2.10 (CPU) and mindcv 0.3.0:

    /path/to/ms-venv/bin/python scripts/record_zoo_vit.py [out.json]

For the smallest registered variant of each family (and one with raised dropout rates): after
``set_seed(SEED)``, ``create_model(name, num_classes=10)`` in eval mode, the logits for one fixed NumPy image
(tests/zoo/zoo_vit_cases.py makes it) or the error MindSpore raises, and every parameter's name, shape and
float64 sum; for a few more variants the parameters only; and how MindSpore treats the two ``ops.pad`` calls
that stop halonet and volo. tests/zoo/test_zoo_vit.py runs the same on opbuild.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "zoo"))
from zoo_vit_cases import DROP, MODELS, PARAMS_ONLY, SEED, case, make_input, pack_params  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "mindspore" / "zoo_vit.json"


def params_of(ms, create_model, name: str, kwargs: dict) -> tuple[object, list[str]]:
    """The model built after set_seed, in eval mode, and its packed parameter (name, shape, sum) list."""
    ms.set_seed(SEED)
    net = create_model(name, num_classes=10, **kwargs)
    net.set_train(False)
    return net, pack_params([(p.name, p.shape, np.asarray(p.asnumpy(), np.float64).sum())
                             for p in net.get_parameters()])


def record_one(ms, create_model, label: str) -> dict:
    name, size, kwargs = case(label)
    net, params = params_of(ms, create_model, name, kwargs)
    rec = {"size": size, "params": params}
    try:
        out = net(ms.Tensor(make_input(size))).asnumpy()
    except Exception as exc:  # a model MindSpore's CPU backend cannot run is recorded as such
        rec["error"] = f"{type(exc).__name__}: {exc}".strip()[:200]
        return rec
    rec.update(shape=list(out.shape), logits=[float(v) for v in out.reshape(-1)])
    return rec


def facts(ms) -> dict:
    """How MindSpore 2.10 treats the calls that stop mindcv's halonet and volo (the tests check opbuild's)."""
    x = ms.Tensor(np.ones((1, 2, 3, 3), np.float32))
    out = {}
    for key, call in {"pad_paddings_keyword": lambda: ms.ops.pad(x, paddings=((0, 0), (0, 0), (0, 1), (0, 1))),
                      "pad_nested_pairs": lambda: ms.ops.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))}.items():
        try:
            out[key] = list(call().shape)
        except Exception as exc:
            out[key] = f"{type(exc).__name__}: {exc}".strip()[:200]
    return out


def main() -> None:
    import mindspore as ms
    from mindcv.models import create_model

    ms.set_context(mode=ms.PYNATIVE_MODE)
    out_path = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    result = {"mindspore": ms.__version__, "seed": SEED, "models": {}}
    for label in [*MODELS, *DROP]:
        t = time.time()
        result["models"][label] = record_one(ms, create_model, label)
        print(label, f"{time.time() - t:.1f}s", result["models"][label].get("logits", "")[:3], flush=True)
    result["params_only"] = {name: params_of(ms, create_model, name, {})[1] for name in PARAMS_ONLY}
    result["facts"] = facts(ms)
    out_path.write_text(json.dumps(result, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
