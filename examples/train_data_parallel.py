"""Data-parallel training on MPI: every rank holds the whole model, reads its shard of the data set, and the
train step averages the gradients over the ranks (AllReduce nodes inside the compiled step).

    mpirun -n 2 python examples/train_data_parallel.py          # add --oversubscribe on a small machine

Each rank keeps its kernel cache in ./rank_<rank>/kernel_meta; with OPBUILD_REMOTE_CACHE=file:///shared/tier
(or redis://host:6379/0) the ranks build each kernel once for the whole job. Runs as one process too
(`python examples/train_data_parallel.py`), also where mpi4py is not installed.
"""

from __future__ import annotations

import sys

import numpy as np

import opbuild as ms
from opbuild import communication as comm
from opbuild import dataset as ds
from opbuild import nn
from opbuild.core.errors import MissingPackageError

GLOBAL_BATCH = 64
EPOCHS = 5


def make_data(n: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """A fixed classification problem (the same on every rank: each reads its own shard of it)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 16)).astype(np.float32)
    w = rng.standard_normal((16, 4)).astype(np.float32)
    return x, np.argmax(x @ w, axis=1).astype(np.int32)


def join() -> bool:
    """Join the MPI job; False (one process, said on stderr) where mpi4py is not installed."""
    try:
        comm.init()
    except MissingPackageError as e:
        print(f"{e}; running as one process", file=sys.stderr)
        return False
    return True


def main() -> None:
    distributed = join()
    rank, size = (comm.get_rank(), comm.get_group_size()) if distributed else (0, 1)
    ms.set_context(mode=ms.GRAPH_MODE)
    if distributed:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    net = nn.SequentialCell([nn.Dense(16, 64), nn.ReLU(), nn.Dense(64, 4)])
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    # Broadcasts rank 0's weights to every rank, then reduces gradients at every step.
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    x, y = make_data()
    data = ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False, num_shards=size, shard_id=rank)
    data = data.batch(GLOBAL_BATCH // size, drop_remainder=True)
    for epoch in range(EPOCHS):
        losses = [float(step(bx, by).asnumpy()) for bx, by in data.create_tuple_iterator()]
        # Each rank's loss is over its shard; the mean over ranks is the global batch's.
        mean = float(np.mean(losses))
        if distributed:
            mean = ms.ops.AllReduce()(ms.Tensor(np.array([mean], np.float32))).asnumpy()[0] / size
        if rank == 0:
            print(f"epoch {epoch}: loss {mean:.4f} ({size} rank{'s' if size > 1 else ''})", flush=True)
    if not distributed:
        return
    checksum = ms.ops.AllGather()(ms.Tensor(np.array([net[0].weight.asnumpy().sum()], np.float32))).asnumpy()
    if rank == 0:
        print("weights identical on every rank:", bool(np.all(checksum == checksum[0])))
    comm.release()


if __name__ == "__main__":
    main()
