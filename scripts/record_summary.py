#!/usr/bin/env python3
"""Record the summary files MindSpore 2.10 (CPU) writes into tests/fixtures/mindspore/summary_events.json.

Each scenario is a small program run by MindSpore's Python in its own process (GRAPH_MODE refuses code given
with ``-c``); the events of the file it writes are stored with their wall time zeroed, as the hex of the
re-serialized ``Event`` (so a test can compare bytes) and as readable fields (tag, kind, values).
tests/train/test_summary_record.py runs the same programs on opbuild and compares.

    /tmp/ms/bin/python scripts/record_summary.py
"""

from __future__ import annotations

import glob
import json
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "fixtures" / "mindspore" / "summary_events.json"
PROGRAMS = REPO / "tests" / "train"

# The shared programs (tests/train/summary_programs.py), run with MindSpore as ``ms``.
_SHARED = """
import sys
sys.path.insert(0, r"{programs}")
import mindspore as ms
from summary_programs import {fn}

if __name__ == "__main__":
    ms.set_context(mode=ms.{mode})
    {fn}(ms, r"{dir}")
"""
_RUN_NET = _SHARED.replace("{fn}", "run_net")
_ADD_VALUES = _SHARED.replace("{fn}", "add_values").replace("{mode}", "PYNATIVE_MODE")

_COLLECTOR = """
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor
import mindspore.dataset as ds
from mindspore.train import Model, SummaryCollector

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")
    def construct(self, x):
        return self.fc(x)

if __name__ == "__main__":
    ms.set_context(mode=ms.{mode})
    x = np.linspace(0, 1, 48, dtype=np.float32).reshape(12, 4)
    y = (np.arange(12) % 2).astype(np.int32)
    data = ds.NumpySlicesDataset({{"x": x, "y": y}}, shuffle=False).batch(4)
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    collector = SummaryCollector(r"{dir}", collect_freq=2,
                                 collect_specified_data={{"collect_graph": False, "collect_dataset_graph": False,
                                                          "collect_train_lineage": False, "collect_landscape": None,
                                                          "collect_eval_lineage": False}})
    model.train(2, data, callbacks=[collector], dataset_sink_mode=False)
"""

_COLLECTOR_OPS = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops
import mindspore.dataset as ds
from mindspore.train import Model, SummaryCollector

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")
        self.scalar = ops.ScalarSummary()
        self.hist = ops.HistogramSummary()
    def construct(self, x):
        out = self.fc(x)
        self.scalar("out_mean", out.mean())
        self.hist("out", out)
        return out

if __name__ == "__main__":
    ms.set_context(mode=ms.GRAPH_MODE)
    x = np.linspace(0, 1, 48, dtype=np.float32).reshape(12, 4)
    y = (np.arange(12) % 2).astype(np.int32)
    data = ds.NumpySlicesDataset({{"x": x, "y": y}}, shuffle=False).batch(4)
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    collector = SummaryCollector(r"{dir}", collect_freq=2,
                                 collect_specified_data={{"histogram_regular": "fc.w.*", "collect_graph": False,
                                                          "collect_dataset_graph": False, "collect_landscape": None,
                                                          "collect_train_lineage": False}})
    model.train(2, data, callbacks=[collector], dataset_sink_mode=False)
"""

SCENARIOS = {
    "graph_net": _RUN_NET.replace("{mode}", "GRAPH_MODE"),
    "pynative_net": _RUN_NET.replace("{mode}", "PYNATIVE_MODE"),
    "add_values": _ADD_VALUES,
    "collector": _COLLECTOR.replace("{mode}", "GRAPH_MODE"),
    "collector_ops": _COLLECTOR_OPS,
}


def _events(path: str) -> list[dict]:
    from google.protobuf.json_format import MessageToDict  # noqa: PLC0415
    from mindspore.train.summary_pb2 import Event  # noqa: PLC0415 (MindSpore's Python only)

    raw = Path(path).read_bytes()
    out, pos = [], 0
    while pos < len(raw):
        (size,) = struct.unpack_from("<Q", raw, pos)
        body = raw[pos + 12:pos + 12 + size]
        pos += 16 + size
        event = Event()
        event.ParseFromString(body)
        event.wall_time = 0.0
        fields = MessageToDict(event, preserving_proto_field_name=True)
        fields.pop("wall_time", None)
        out.append({"hex": event.SerializeToString().hex(), "fields": fields})
    return out


def main() -> int:
    record: dict = {}
    for name, program in SCENARIOS.items():
        with tempfile.TemporaryDirectory() as tmp:
            out_dir = os.path.join(tmp, "summary")
            script = os.path.join(tmp, "prog.py")
            text = program.replace("{dir}", out_dir).replace("{programs}", str(PROGRAMS))
            Path(script).write_text(text.replace("{{", "{").replace("}}", "}"))
            proc = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=tmp, timeout=600)
            if proc.returncode != 0:
                raise SystemExit(f"{name} failed:\n{proc.stderr[-3000:]}")
            files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out_dir, "*")))
            summary = [p for p in glob.glob(os.path.join(out_dir, "*")) if p.endswith(("_MS", "_s"))]
            record[name] = {"files": files, "events": _events(summary[0])}
    OUT.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
