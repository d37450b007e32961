"""The program of tests/distributed/test_sync_batch_norm.py: ``mpirun -n N python sync_bn_worker.py OUT MODE``
trains ``nn.SyncBatchNorm`` for two steps on this rank's block of rows of a global batch (rank r of N takes
rows [r*B, (r+1)*B), B = 4 / N) and writes its outputs, input gradients and moving statistics to
``OUT/rank<r>.npz``; with ``--single`` one process does the same on the whole global batch (the reference)."""

from __future__ import annotations

import sys

import numpy as np

import opbuild as ms
from opbuild import communication as comm
from opbuild import nn

GLOBAL = 4  # rows of the global batch


def batch(step: int) -> np.ndarray:
    """The global (GLOBAL, 3, 2, 3) batch of a step: distinct per channel, so wrong statistics show."""
    x = np.arange(GLOBAL * 3 * 2 * 3, dtype=np.float32).reshape(GLOBAL, 3, 2, 3)
    return np.sin(x * (0.3 + step)) * (1 + np.arange(3, dtype=np.float32)[None, :, None, None]) + step


class Loss(nn.Cell):
    """A weighted sum of the normalised output, so the input gradient depends on the batch statistics."""

    def __init__(self, process_groups: list | None = None) -> None:
        super().__init__()
        self.bn = nn.SyncBatchNorm(3, momentum=0.8, gamma_init=ms.Tensor(np.array([1., 2., 0.5], np.float32)),
                                   beta_init="ones", process_groups=process_groups)

    def construct(self, x, w):
        y = self.bn(x)
        return (y * w).sum(), y


def main() -> None:
    out, mode = sys.argv[1], sys.argv[2]
    single = "--single" in sys.argv
    if not single:
        comm.init()
    rank, size = (0, 1) if single else (comm.get_rank(), comm.get_group_size())
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    net = Loss(None)
    net.set_train()
    grad = ms.value_and_grad(lambda x, w: net(x, w)[0], grad_position=0)
    rows = GLOBAL // size
    saved = {}
    for step in range(2):
        x = batch(step)[rank * rows:(rank + 1) * rows]
        w = np.cos(np.arange(batch(step).size, dtype=np.float32)).reshape(batch(step).shape)[rank * rows:
                                                                                           (rank + 1) * rows]
        _, y = net(ms.Tensor(x), ms.Tensor(w))
        saved[f"y{step}"] = y.asnumpy()
        _, g = grad(ms.Tensor(x), ms.Tensor(w))
        saved[f"dx{step}"] = g.asnumpy()
    saved["moving_mean"] = net.bn.moving_mean.asnumpy()
    saved["moving_variance"] = net.bn.moving_variance.asnumpy()
    np.savez(f"{out}/rank{rank}.npz", **saved)


if __name__ == "__main__":
    main()
