#!/usr/bin/env python3
"""Record MindSpore 2.10's results for the gradient primitives of ``mindspore.ops.operations._grad_ops`` that
opbuild provides (opbuild/ops/grad_ops.py) into tests/fixtures/mindspore/grad_ops.json (PyNative, CPU).

Each case stores its constructor arguments, its inputs (arrays as dtype and nested lists; tuples of ints as
they are) and MindSpore's outputs; tests/ops/test_grad_ops.py feeds the same inputs to opbuild.

    /tmp/ms/bin/python scripts/record_grad_ops.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "fixtures" / "mindspore" / "grad_ops.json"

_rng = np.random.default_rng(11)


def _r(*shape: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return _rng.uniform(low, high, shape).astype(np.float32)


def _edges() -> np.ndarray:
    """Values on the kinks of ReLU6, HSwish, HSigmoid and the shrinks, beside random ones."""
    return np.array([-4.0, -3.0, -0.5, 0.0, 0.5, 3.0, 6.0, 7.0, 1.5, -1.5], np.float32)


def _cases() -> list[tuple[str, dict, list]]:
    x, dy = _r(2, 5), _r(2, 5)
    e, de = _edges(), _r(10)
    unit = _r(2, 5, low=-0.9, high=0.9)
    pos = _r(2, 5, low=0.5, high=3.0)
    img = _r(1, 2, 4, 4)
    cases = [
        ("ReluGrad", {}, [de, e]), ("ReLU6Grad", {}, [de, e]), ("SigmoidGrad", {}, [unit * 0.5 + 0.5, dy]),
        ("TanhGrad", {}, [unit, dy]), ("SqrtGrad", {}, [dy, pos]), ("RsqrtGrad", {}, [pos, dy]),
        ("ReciprocalGrad", {}, [x, dy]), ("InvGrad", {}, [x, dy]), ("EluGrad", {}, [dy, x]),
        ("GeLUGrad", {}, [de, e, e]), ("FastGeLUGrad", {}, [de, e]), ("HSwishGrad", {}, [de, e]),
        ("HSigmoidGrad", {}, [de, e]), ("SoftmaxGrad", {}, [np.abs(unit), dy]),
        ("LogSoftmaxGrad", {}, [-pos, dy]), ("LogSoftmaxGrad", {"axis": 0}, [-pos, dy]),
        ("BiasAddGrad", {}, [_r(2, 3, 2, 2)]), ("BiasAddGrad", {"data_format": "NHWC"}, [_r(2, 2, 2, 3)]),
        ("MaximumGrad", {}, [np.array([[1, 2, 3], [3, 2, 1]], np.float32), np.array([2, 2, 2], np.float32),
                             _r(2, 3)]),
        ("MinimumGrad", {}, [np.array([[1, 2, 3], [3, 2, 1]], np.float32), np.array([2, 2, 2], np.float32),
                             _r(2, 3)]),
        ("MaximumGrad", {"grad_x": True, "grad_y": False}, [x, dy, _r(2, 5)]),
        ("SigmoidCrossEntropyWithLogitsGrad", {}, [x, np.abs(unit), dy]),
        ("SmoothL1LossGrad", {}, [x, dy, _r(2, 5)]),
        ("SmoothL1LossGrad", {"beta": 0.5, "reduction": "mean"}, [x, dy, np.float32(1.5)]),
        ("SliceGrad", {}, [_r(2, 2), _r(3, 4), (1, 1), (2, 2)]),
        ("StridedSliceGrad", {}, [_r(2, 2), (4, 5), (0, 1), (4, 5), (2, 2)]),
        ("AbsGrad", {}, [e, de]), ("ACosGrad", {}, [unit, dy]), ("AsinGrad", {}, [unit, dy]),
        ("AtanGrad", {}, [x, dy]), ("AcoshGrad", {}, [pos, dy]), ("AsinhGrad", {}, [x, dy]),
        ("SoftplusGrad", {}, [dy, x]), ("SeluGrad", {}, [dy, x]), ("SiLUGrad", {}, [dy, x]),
        ("LayerNormGrad", {"begin_norm_axis": 1, "begin_params_axis": 1},
         [x, dy, np.var(x, 1, keepdims=True), np.mean(x, 1, keepdims=True), _r(5)]),
        ("LayerNormGrad", {"begin_norm_axis": -1, "begin_params_axis": -1},
         [_r(2, 3, 4), _r(2, 3, 4), _r(2, 3, 1, low=0.5, high=1.5), _r(2, 3, 1), _r(4)]),
        ("MaxPoolGrad", {"kernel_size": 2, "strides": 2}, [img, None, _r(1, 2, 2, 2)]),
        ("MaxPoolGrad", {"kernel_size": 3, "strides": 1, "pad_mode": "SAME"}, [img, None, _r(1, 2, 4, 4)]),
        ("AvgPoolGrad", {"kernel_size": 2, "strides": 2}, [img, None, _r(1, 2, 2, 2)]),
        ("AvgPoolGrad", {"kernel_size": 3, "strides": 1, "pad_mode": "SAME"}, [img, None, _r(1, 2, 4, 4)]),
        ("ResizeBilinearGrad", {}, [_r(1, 2, 6, 6), _r(1, 2, 4, 4)]),
        ("ResizeBilinearGrad", {"align_corners": True}, [_r(1, 2, 3, 5), _r(1, 2, 4, 4)]),
        ("ResizeBilinearGrad", {"half_pixel_centers": True}, [_r(1, 2, 6, 6), _r(1, 2, 4, 4)]),
        ("ResizeNearestNeighborGrad", {}, [_r(1, 2, 6, 6), (4, 4)]),
        ("ResizeNearestNeighborGrad", {"align_corners": True}, [_r(1, 2, 3, 5), (4, 4)]),
        ("DropoutGrad", {"keep_prob": 0.8}, [x, (np.abs(dy) > 0.5).astype(np.float32)]),
        ("FlattenGrad", {}, [_r(2, 6), (2, 3, 2)]),
        ("HShrinkGrad", {}, [de, e]), ("SoftShrinkGrad", {"lambd": 1.5}, [de, e]),
        ("PReLUGrad", {}, [_r(2, 3, 2), _r(2, 3, 2), _r(3)]),
        ("LogitGrad", {}, [dy, np.abs(unit)]), ("LogitGrad", {"eps": 0.2}, [dy, np.abs(unit)]),
        ("GluGrad", {"axis": -1}, [_r(2, 3), _r(2, 6)]),
        ("BinaryCrossEntropyGrad", {"reduction": "none"}, [np.abs(unit), np.abs(_r(2, 5)) / 2, dy]),
        ("BinaryCrossEntropyGrad", {"reduction": "mean"}, [np.abs(unit), np.abs(_r(2, 5)) / 2, np.float32(2.0),
                                                           np.abs(_r(2, 5))]),
        ("MirrorPadGrad", {"mode": "REFLECT"}, [_r(4, 7), np.array([[1, 1], [2, 1]], np.int64)]),
        ("MirrorPadGrad", {"mode": "SYMMETRIC"}, [_r(4, 7), np.array([[1, 1], [2, 1]], np.int64)]),
    ]
    return cases


def _encode(v) -> object:
    if v is None:
        return None
    if isinstance(v, tuple):
        return {"tuple": list(v)}
    a = np.asarray(v)
    return {"dtype": str(a.dtype), "shape": list(a.shape), "value": a.reshape(-1).tolist()}


def main() -> int:
    import mindspore as ms
    from mindspore import Tensor, ops
    from mindspore.ops.operations import _grad_ops as G

    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = []
    for name, kwargs, inputs in _cases():
        if name in ("MaxPoolGrad", "AvgPoolGrad"):  # the forward output, from MindSpore's forward op
            fwd = (ops.MaxPool if name == "MaxPoolGrad" else ops.AvgPool)(**kwargs)
            inputs = [inputs[0], fwd(Tensor(inputs[0])).asnumpy(), inputs[2]]
        args = [v if isinstance(v, tuple) else Tensor(v) for v in inputs]
        if name == "MirrorPadGrad":
            args = [Tensor(inputs[0]), Tensor(inputs[1])]
        case = {"name": name, "kwargs": kwargs, "inputs": [_encode(v) for v in inputs]}
        try:
            res = getattr(G, name)(**kwargs)(*args)
            res = list(res) if isinstance(res, (tuple, list)) else [res]
            case["outputs"] = [_encode(r.asnumpy()) for r in res]
        except Exception as err:  # recorded: opbuild must refuse too
            case["error"] = f"{type(err).__name__}: {str(err).splitlines()[0]}"
        out.append(case)
    OUT.write_text(json.dumps(out, indent=0) + "\n")
    print(f"wrote {OUT}: {len(out)} cases, {sum('error' in c for c in out)} errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
