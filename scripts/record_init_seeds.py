#!/usr/bin/env python3
"""Record MindSpore 2.10's seeded random values into tests/fixtures/mindspore/init_seeds.json: what
``mindspore.set_seed`` makes of the initializers, of nn layers' default parameters, of ``np.random`` and
``random``, and the native fills behind the initializers. Run with a Python that has MindSpore 2.10 (CPU):

    /path/to/ms-venv/bin/python scripts/record_init_seeds.py [out.json]

tests/core/test_init_seeds.py builds the same things with opbuild and compares every float32 bit. Arrays are
stored as base64 of their float32 bytes (small ones) or as a SHA-256 of those bytes plus the first values.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "init_seeds.json"
FULL_LIMIT = 256  # arrays up to this many values are stored whole

# Initializer specs: [class name, positional args, keyword args].
INITS = [
    ["Normal", [], {}], ["Normal", [0.5, 1.0], {}], ["Uniform", [], {}], ["Uniform", [2.5], {}],
    ["TruncatedNormal", [0.02], {}], ["TruncatedNormal", [1.0, 0.5, -1.0, 3.0], {}],
    ["TruncatedNormal", [2.0, 0.0, 1.5, 9.0], {}],
    ["HeUniform", [], {}], ["HeUniform", [math.sqrt(5)], {}], ["HeNormal", [], {"mode": "fan_out",
                                                                               "nonlinearity": "relu"}],
    ["XavierUniform", [], {}], ["XavierNormal", [2.0], {}], ["Orthogonal", [], {}], ["Orthogonal", [0.5], {}],
    ["Sparse", [0.3], {}], ["VarianceScaling", [2.0], {"distribution": "untruncated_normal"}],
    ["VarianceScaling", [1.0], {"mode": "fan_avg", "distribution": "uniform"}],
]
INIT_SHAPES = [[7, 5], [6, 3, 3, 3], [3, 9]]

# Layer sequences built after one set_seed: [layer name, positional args, keyword args]; an initializer argument
# is {"init": [class name, args, kwargs]}.
NETS = {
    "lenet5": [["Conv2d", [1, 6, 5], {"pad_mode": "valid"}], ["Conv2d", [6, 16, 5], {"pad_mode": "valid"}],
               ["Dense", [400, 120], {"weight_init": {"init": ["Normal", [0.02], {}]}}],
               ["Dense", [120, 84], {"weight_init": {"init": ["Normal", [0.02], {}]}}],
               ["Dense", [84, 10], {"weight_init": {"init": ["Normal", [0.02], {}]}}]],
    "default_layers": [["Conv2d", [3, 8, 3], {}], ["Dense", [12, 7], {}], ["Conv1d", [4, 6, 3], {}],
                       ["Conv3d", [2, 3, 2], {}], ["Conv2dTranspose", [4, 3, 3], {"has_bias": True}],
                       ["Dense", [5, 4], {"weight_init": "xavier_uniform", "bias_init": "normal"}]],
    "resnet_block": [["Conv2d", [16, 16, 3], {"pad_mode": "same", "has_bias": False,
                                              "weight_init": "he_normal"}],
                     ["BatchNorm2d", [16], {}],
                     ["Conv2d", [16, 16, 3], {"pad_mode": "same", "has_bias": False}],
                     ["BatchNorm2d", [16], {}], ["Dense", [16, 10], {}]],
    "recurrent": [["LSTM", [4, 8], {"num_layers": 2, "bidirectional": True}], ["GRU", [3, 5], {}],
                  ["RNN", [3, 4], {"has_bias": False}], ["LSTMCell", [3, 4], {}], ["GRUCell", [2, 3], {}],
                  ["RNNCell", [2, 3], {"has_bias": False}]],
    "embedding": [["Embedding", [20, 6], {}], ["Embedding", [10, 4], {"embedding_table": "xavier_uniform"}],
                  ["Dense", [6, 3], {}]],
}


def encode(arr: np.ndarray) -> dict:
    """float32 values as JSON: shape, and base64 bytes or a SHA-256 with the first values."""
    a = np.ascontiguousarray(arr, dtype=np.float32)
    out = {"shape": list(a.shape)}
    if a.size <= FULL_LIMIT:
        out["b64"] = base64.b64encode(a.tobytes()).decode()
    else:
        out["sha256"] = hashlib.sha256(a.tobytes()).hexdigest()
        out["head"] = [float(v) for v in a.reshape(-1)[:8]]
    return out


def make_init(init_mod, spec):
    name, args, kwargs = spec
    return getattr(init_mod, name)(*args, **kwargs)


def layer_kwargs(init_mod, kwargs):
    return {k: make_init(init_mod, v["init"]) if isinstance(v, dict) else v for k, v in kwargs.items()}


def record_fills():
    from mindspore._c_expression import _random_normal, _random_uniform, _truncated_normal
    fills = []
    for seed in (1, 987654321987, 2**63 - 1):
        for n in (1, 5, 8, 1030):
            arrs = [np.empty(n, np.float32) for _ in range(3)]
            _random_uniform(seed, arrs[0], -0.3, 0.7)
            _random_normal(seed, arrs[1], 0.5, 2.0)
            _truncated_normal(seed, arrs[2], -0.1, 3.0, 0.2, 0.05)
            fills.append({"seed": str(seed), "n": n, "uniform": encode(arrs[0]), "normal": encode(arrs[1]),
                          "truncated_normal": encode(arrs[2])})
    return fills


def main(argv: list[str]) -> int:
    import mindspore as ms
    from mindspore import nn
    from mindspore.common import initializer as init_mod

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    out = {"mindspore": ms.__version__, "fills": record_fills(), "inits": [], "sequence": {}, "nets": {},
           "host": {}}
    for spec in INITS:
        for shape in INIT_SHAPES:
            if spec[0] == "Sparse" and len(shape) != 2:
                continue
            ms.set_seed(11)
            value = init_mod.initializer(make_init(init_mod, spec), shape, ms.float32).asnumpy()
            out["inits"].append({"init": spec, "shape": shape, "seed": 11, "dtype": "float32",
                                 "value": encode(value)})
    # float16 parameters: MindSpore fills float32 and rounds.
    for spec in (["Normal", [0.5, 1.0], {}], ["HeUniform", [], {}], ["TruncatedNormal", [0.02], {}]):
        ms.set_seed(11)
        value = init_mod.initializer(make_init(init_mod, spec), [7, 5], ms.float16).asnumpy()
        out["inits"].append({"init": spec, "shape": [7, 5], "seed": 11, "dtype": "float16", "value": encode(value)})
    # One set_seed, several initializers: each takes the next seed of NumPy's generator.
    ms.set_seed(3)
    seq = [init_mod.initializer(n, [4, 6], ms.float32).asnumpy() for n in ("normal", "zeros", "uniform",
                                                                         "he_uniform", "truncatedNormal")]
    out["sequence"] = {"seed": 3, "names": ["normal", "zeros", "uniform", "he_uniform", "truncatedNormal"],
                       "shape": [4, 6], "values": [encode(v) for v in seq],
                       "np_after": encode(np.random.rand(5))}
    for name, layers in NETS.items():
        ms.set_seed(5)
        params = []
        for layer, args, kwargs in layers:
            cell = getattr(nn, layer)(*args, **layer_kwargs(init_mod, kwargs))
            params.append([[p.name.split(".")[-1], encode(p.asnumpy())] for p in cell.get_parameters()])
        out["nets"][name] = {"seed": 5, "layers": layers, "params": params,
                             "np_after": encode(np.random.rand(4))}
    ms.set_seed(1234)
    out["host"] = {"seed": 1234, "np_rand": encode(np.random.rand(6)), "random": [random.random() for _ in range(3)]}
    path = Path(argv[0]) if argv else OUT
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
