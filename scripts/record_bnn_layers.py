#!/usr/bin/env python3
"""Record MindSpore 2.10's ``nn.probability.bnn_layers`` values (tests/compat/bnn_layer_cases.py) into
tests/fixtures/mindspore/bnn_layers.npz (PyNative, CPU): parameter names, KL terms with fixed posteriors,
outputs with negligible posterior sd, and WithBNNLossCell's loss. Run with MindSpore's Python:

    /tmp/ms/bin/python scripts/record_bnn_layers.py
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import mindspore as ms
import mindspore.nn.probability.bnn_layers as bnn
import numpy as np
from mindspore import Tensor, nn

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "mindspore" / "bnn_layers.npz"


def _cases():
    spec = importlib.util.spec_from_file_location("bnn_layer_cases", REPO / "tests" / "compat" / "bnn_layer_cases.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _set(c, layer, std: float) -> None:
    for i, p in enumerate(layer.get_parameters()):
        if p.name.endswith(".mean"):
            p.set_data(Tensor(c.posterior_values(p.shape, i)))
        elif p.name.endswith("untransformed_std"):
            p.set_data(Tensor(np.full(p.shape, std if std == c.TINY else std - 0.1 * i, np.float32)))


def main() -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    c = _cases()
    arrays: dict = {}
    names = {}
    for key, (cls, args, kw, x) in c.LAYERS.items():
        layer = getattr(bnn, cls)(*args, **kw)
        names[key] = [(p.name, list(p.shape), bool(p.requires_grad)) for p in layer.get_parameters()]
        _set(c, layer, -0.5)
        arrays[f"{key}/kl"] = layer.compute_kl_loss().asnumpy()
        _set(c, layer, c.TINY)
        arrays[f"{key}/out"] = layer(Tensor(x)).asnumpy()
    layer = bnn.DenseReparam(3, 2)
    net = nn.SequentialCell([layer])
    _set(c, layer, -0.5)
    cell = bnn.WithBNNLossCell(net, nn.MSELoss(), 2.0, 0.5)
    x, y = c.LAYERS["dense"][3], np.ones((2, 2), np.float32)
    # the loss is random through the draws: record its parts (backbone loss with the posterior mean, KL)
    arrays["with_loss/kl"] = layer.compute_kl_loss().asnumpy()
    _set(c, layer, c.TINY)
    arrays["with_loss/tiny"] = cell(Tensor(x), Tensor(y)).asnumpy()
    arrays["__names__"] = np.array(json.dumps({"params": names, "all": list(bnn.__all__)}))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez(OUT, **arrays)
    print(f"wrote {OUT}: {len(arrays)} arrays")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
