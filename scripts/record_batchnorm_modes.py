#!/usr/bin/env python3
"""Record MindSpore 2.10's nn.BatchNorm2d / nn.BatchNorm1d with ``use_batch_statistics`` (None, True, False)
in training and evaluation mode into
tests/fixtures/mindspore/batchnorm_modes.json: the output of one GRAPH_MODE call and the moving statistics
after it. Run with a Python that has MindSpore 2.10 (CPU):

    /path/to/ms-venv/bin/python scripts/record_batchnorm_modes.py [out.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "batchnorm_modes.json"


def run_case(ms, nn, layer: str, ubs, train: bool, data_format: str, shape) -> dict:
    x = (np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 7 - 2.5) * 0.75
    c = shape[-1] if data_format == "NHWC" else shape[1]
    kw = {"use_batch_statistics": ubs, "momentum": 0.8,
          "moving_mean_init": ms.Tensor(np.linspace(-1, 1, c).astype(np.float32)),
          "moving_var_init": ms.Tensor(np.linspace(0.5, 2, c).astype(np.float32))}
    if data_format != "NCHW":
        kw["data_format"] = data_format
    net = getattr(nn, layer)(c, **kw)
    net.set_train(train)
    try:
        y = net(ms.Tensor(x)).asnumpy()
    except Exception as e:  # noqa: BLE001 - the recorded fact is that MindSpore refuses
        return {"layer": layer, "use_batch_statistics": ubs, "train": train, "data_format": data_format,
                "shape": list(shape), "error": type(e).__name__}
    return {"layer": layer, "use_batch_statistics": ubs, "train": train, "data_format": data_format,
            "shape": list(shape), "out": y.reshape(-1).tolist(),
            "moving_mean": net.moving_mean.asnumpy().tolist(),
            "moving_variance": net.moving_variance.asnumpy().tolist()}


def main() -> None:
    import mindspore as ms
    from mindspore import nn

    ms.set_context(mode=ms.GRAPH_MODE)
    cases = []
    for ubs in (None, True, False):
        for train in (False, True):
            cases.append(run_case(ms, nn, "BatchNorm2d", ubs, train, "NCHW", (2, 3, 2, 2)))
            cases.append(run_case(ms, nn, "BatchNorm1d", ubs, train, "NCHW", (4, 3)))
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.write_text(json.dumps({"mindspore": ms.__version__, "cases": cases}) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
