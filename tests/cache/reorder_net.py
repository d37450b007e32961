"""A network whose graph has two ReLU kernels and two Conv2D kernels of different shapes (the shapes of issue
23's reordered manifest), for tests/cache/test_manifest_rows.py. Prints one JSON line: the outputs, and the
build report with each kernel's source."""

import json

import numpy as np

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops

ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
ms.set_seed(7)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = ops.ReLU()
        self.conv_a = nn.Conv2d(2, 3, 3, pad_mode="same", weight_init="normal")
        self.conv_b = nn.Conv2d(3, 5, 1, weight_init="normal")

    def construct(self, x, y, img):
        return self.relu(x), self.relu(y), self.conv_b(self.conv_a(img))


rng = np.random.default_rng(0)
x = rng.standard_normal(5).astype(np.float32)
y = rng.standard_normal((3, 4)).astype(np.float32)
img = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
outs = Net()(ms.Tensor(x), ms.Tensor(y), ms.Tensor(img))
print(json.dumps({"outputs": [o.asnumpy().tolist() for o in outs], "relu": [np.maximum(x, 0).tolist(),
                  np.maximum(y, 0).tolist()], "report": ms.build_report().as_dict(sources=True)}))
