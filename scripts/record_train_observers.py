#!/usr/bin/env python3
"""Record what MindSpore 2.10 (CPU) prints for ``train.FlopsUtilizationCollector`` and what
``train.ConvertNetUtils`` makes of a network, into tests/fixtures/mindspore/train_observers.json
(tests/train/test_train_observers.py runs the same programs on opbuild).

    /tmp/ms/bin/python scripts/record_train_observers.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "fixtures" / "mindspore" / "train_observers.json"

# The networks of the FLOPs programs; ``{net}`` picks one. The first is the documented example's.
NETWORKS = {
    "dense": "nn.Dense(10, 5)",
    "two_dense": "nn.SequentialCell([nn.Dense(10, 7), nn.ReLU(), nn.Dense(7, 5)])",
    "conv_bmm": "ConvNet()",
}

FLOPS_PROGRAM = """
import numpy as np
import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn, ops
from mindspore.train import Model, FlopsUtilizationCollector


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(2, 3, 3, pad_mode="valid", has_bias=True)
        self.c2 = nn.Conv2d(3, 4, 3, stride=2, pad_mode="same")
        self.bmm = ops.BatchMatMul()
        self.flat = nn.Flatten()
        self.fc = nn.Dense(16, 5)

    def construct(self, x):
        h = self.c2(self.c1(x.reshape(-1, 2, 6, 6)))
        return self.fc(self.flat(self.bmm(h, h.transpose(0, 1, 3, 2))))


if __name__ == "__main__":
    ms.set_context(mode=ms.{mode})
    rng = np.random.default_rng(0)
    width = 72 if "{name}" == "conv_bmm" else 10
    data = {{"x": rng.random((64, width)).astype(np.float32), "y": rng.integers(0, 5, (64,)).astype(np.int32)}}
    train_dataset = ds.NumpySlicesDataset(data=data, shuffle=False).batch(32)
    net = {net}
    crit = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    flops = FlopsUtilizationCollector(train_dataset.get_dataset_size(), computility=10e6)
    model = Model(network=net, optimizer=opt, loss_fn=crit)
    model.train(2, train_dataset, callbacks=[flops])
"""

CONVERT_PROGRAM = """
import numpy as np
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.body = nn.SequentialCell([nn.Dense(4, 6, activation="relu"), nn.Dense(6, 3)])
        self.frozen = nn.Dense(3, 2)
        self.frozen.weight.requires_grad = False
        self.wide_part = nn.Dense(2, 2)

    def construct(self, ids):
        return self.wide_part(self.frozen(self.body(self.emb(ids).sum(1))))


if __name__ == "__main__":
    net = Net()
    ms.train.ConvertNetUtils().convert_to_thor_net(net)
    print("CELLS", [[n, type(c).__name__] for n, c in net.cells_and_names()])
    print("PARAMS", [p.name for p in net.get_parameters()])
"""


def _run(program: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "prog.py")
        Path(path).write_text(program)
        proc = subprocess.run([sys.executable, path], capture_output=True, text=True, cwd=tmp, timeout=600)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-3000:])
        return proc.stdout


def main() -> int:
    record: dict = {"flops": {}, "flops_pynative": None}
    for name, net in NETWORKS.items():
        out = _run(FLOPS_PROGRAM.replace("{net}", net).replace("{name}", name).replace("{mode}", "GRAPH_MODE")
                   .replace("{{", "{").replace("}}", "}"))
        lines = [ln for ln in out.splitlines() if "flops" in ln or "per step time" in ln]
        record["flops"][name] = {"summary": lines[0],
                                 "step_lines": [ln.split(" per step time:")[0] for ln in lines[1:]],
                                 "units": [ln.split(" ms")[1].strip() != "" for ln in lines[1:]]}
    try:
        _run(FLOPS_PROGRAM.replace("{net}", NETWORKS["dense"]).replace("{name}", "dense")
             .replace("{mode}", "PYNATIVE_MODE").replace("{{", "{").replace("}}", "}"))
    except SystemExit as err:
        record["flops_pynative"] = str(err).strip().splitlines()[-1]
    out = _run(CONVERT_PROGRAM)
    for line in out.splitlines():
        if line.startswith(("CELLS ", "PARAMS ")):
            key, _, value = line.partition(" ")
            record["convert_" + key.lower()] = eval(value)  # noqa: S307 (our own printed lists)
    OUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
