#!/usr/bin/env python3
"""Record what MindSpore 2.10 makes of mindcv's CNN models into tests/fixtures/mindspore/zoo_cnn.json:

- ``outputs``: for the smallest variant of each CNN family (tests/zoo/cnn_cases.py), built with
  ``create_model(name, num_classes=10)`` after ``set_seed``, in eval mode, its logits for the fixed input;
  every parameter's name, shape and float64 sum (stored as float32) go to zoo_cnn_params.npz beside it
  (``<family>/keys``: the UTF-8 lines ``name:shape``; ``<family>/sums``), which keeps the fixture small;
- ``sweep``: for the sample of other CNN variants the tests build (every registered CNN model with ``--all``:
  slow, ~10 GB of weights), the parameter count, element count and the float64 sum and
  absolute sum of all parameters after construction under the same seed (or the construction error).

Run with a Python that has MindSpore 2.10 (CPU) and mindcv 0.3.0, from the repository root:

    /path/to/ms-venv/bin/python scripts/record_zoo_cnn.py [--outputs-only | --all]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mindcv
import mindspore as ms
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.zoo.cnn_cases import CNN_PREFIXES, FAMILIES, SEED, SWEEP, image, param_summary  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "mindspore" / "zoo_cnn.json"
PARAMS_OUT = OUT.with_name("zoo_cnn_params.npz")


def build(name: str):
    ms.set_seed(SEED)
    net = mindcv.models.create_model(name, num_classes=10)
    net.set_train(False)
    return net


def named_arrays(net) -> list:
    return [(p.name, p.asnumpy()) for p in net.get_parameters()]


def record_outputs() -> tuple[dict, dict]:
    outputs, params = {}, {}
    for family, (name, size) in FAMILIES.items():
        net = build(name)
        logits = net(ms.Tensor(image(size))).asnumpy().astype(np.float64)
        outputs[family] = {"model": name, "size": size, "shape": list(logits.shape),
                           "logits": logits.ravel().tolist()}
        summary = param_summary(named_arrays(net))
        params[f"{family}/keys"] = np.frombuffer("\n".join(f"{n}:{'x'.join(map(str, s))}" for n, s, _ in summary)
                                                 .encode(), dtype=np.uint8)
        params[f"{family}/sums"] = np.array([total for _, _, total in summary], dtype=np.float32)
        print(family, name, logits.ravel()[:3], flush=True)
    return outputs, params


def record_sweep() -> dict:
    sweep = {}
    names = [n for n in mindcv.models.list_models() if n.startswith(CNN_PREFIXES)] if "--all" in sys.argv else SWEEP
    for name in names:
        try:
            arrays = [a.astype(np.float64) for _, a in named_arrays(build(name))]
        except Exception as e:  # noqa: BLE001 - the failure itself is what gets recorded
            sweep[name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
        else:
            sweep[name] = {"count": len(arrays), "numel": int(sum(a.size for a in arrays)),
                           "sum": float(sum(a.sum() for a in arrays)),
                           "abs_sum": float(sum(np.abs(a).sum() for a in arrays))}
        print(name, sweep[name], flush=True)
    return sweep


def main() -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE)
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    outputs, params = record_outputs()
    np.savez_compressed(PARAMS_OUT, **params)
    data = {"mindspore": ms.__version__, "mindcv": mindcv.__version__, "outputs": outputs,
            "sweep": old.get("sweep", {}) if "--outputs-only" in sys.argv else record_sweep()}
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
