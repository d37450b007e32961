"""The programs whose summary files scripts/record_summary.py records from MindSpore 2.10 and
tests/train/test_summary_record.py writes with opbuild: each takes the framework module ``ms`` (``mindspore`` or
``opbuild``) and the folder to write into, so both run the very same code."""

from __future__ import annotations

from typing import Any

import numpy as np


def make_net(ms: Any) -> Any:
    """A network with one summary operator of each kind."""

    class Net(ms.nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.scalar, self.tensor = ms.ops.ScalarSummary(), ms.ops.TensorSummary()
            self.hist, self.image = ms.ops.HistogramSummary(), ms.ops.ImageSummary()

        def construct(self, x):
            y = x * 2
            self.scalar("zeta", y.sum())
            self.tensor("alpha", y)
            self.hist("mid", y)
            self.image("img", y.reshape(1, 1, 2, 3))
            return y

    return Net()


def run_net(ms: Any, directory: str) -> None:
    """Three recorded steps of the network, an added value, then a step recorded in 'eval' mode."""
    net = make_net(ms)
    with ms.SummaryRecord(directory) as record:
        for step in range(3):
            net(ms.Tensor(np.arange(6, dtype=np.float32) + step))
            record.record(step + 1)
        record.add_value("scalar", "extra", ms.Tensor(1.5))
        record.record(7)
        net(ms.Tensor(np.ones(6, np.float32)))
        record.set_mode("eval")
        record.record(8)


def add_values(ms: Any, directory: str) -> None:
    """``add_value`` of every kind and dtype (NaN/inf histograms, float16, uint8 and tiled images), duplicate
    tags and ``plugin_filter``."""
    tensor = ms.Tensor
    rng = np.random.default_rng(5)
    with ms.SummaryRecord(directory, file_prefix="p", file_suffix="_s") as record:
        record.add_value("scalar", "f64", tensor(np.float64(2.25)))
        record.add_value("scalar", "int", tensor(np.int32(7)))
        record.add_value("tensor", "t64", tensor(np.array([[1.1, 2.2], [3.3, 4.4]], np.float64)))
        record.add_value("tensor", "ti", tensor(np.arange(5, dtype=np.int64)))
        record.add_value("tensor", "tb", tensor(np.array([True, False])))
        record.add_value("histogram", "normal", tensor(rng.standard_normal(1000).astype(np.float32)))
        record.add_value("histogram", "ints", tensor(np.arange(12, dtype=np.int32)))
        record.add_value("histogram", "const", tensor(np.full(4, 3.0, np.float32)))
        record.add_value("histogram", "special", tensor(np.array([1.0, np.nan, np.inf, -np.inf, 2.0], np.float32)))
        record.add_value("histogram", "allnan", tensor(np.array([np.nan, np.nan], np.float32)))
        record.add_value("histogram", "f16", tensor(np.array([0.5, 1.5, 2.5, 9.0], np.float16)))
        record.record(3)
        record.add_value("image", "u8", tensor(rng.integers(0, 256, (1, 1, 3, 4)).astype(np.uint8)))
        record.add_value("image", "grid", tensor(rng.random((10, 3, 2, 2)).astype(np.float32)))
        record.add_value("image", "wide", tensor((rng.random((2, 3, 2, 3)) * 50 - 10).astype(np.float32)))
        record.add_value("image", "bad", tensor(np.zeros((1, 2, 2, 2), np.float32)))
        record.add_value("scalar", "dup", tensor(1.0))
        record.add_value("scalar", "dup", tensor(2.0))
        record.record(4, plugin_filter=lambda plugin: plugin != "scalar")
        record.add_value("scalar", "kept", tensor(0.25))
        record.record(5)
        record.record(6)
