"""A small elementwise network the CLI tests run in subprocesses to fill a kernel cache.

Usage: python elementwise_net.py N [DTYPE] [--log]: builds Square, Add and Exp kernels for shape (N,) and
checks the output against NumPy. --log configures logging with level names (to see WARNING records).
"""

import logging
import sys

import numpy as np

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops

if "--log" in sys.argv:
    sys.argv.remove("--log")
    logging.basicConfig(format="%(levelname)s %(message)s", level=logging.WARNING)

ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.square = ops.Square()
        self.exp = ops.Exp()

    def construct(self, x, y):
        return self.exp(self.square(x) + y)


n = int(sys.argv[1]) if len(sys.argv) > 1 else 3
dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
x = (np.arange(n) / 10).astype(dtype)
out = Net()(ms.Tensor(x), ms.Tensor(x)).asnumpy()
rtol = 1e-5 if dtype == "float32" else 1e-12
np.testing.assert_allclose(out, np.exp(x * x + x), rtol=rtol)
print("ok", out.dtype, out.shape)
