"""The program every rank of tests/distributed/test_mpi.py runs (``mpirun -n N python worker.py OUT``).

A small MLP trained with Momentum for a few steps on a fixed data set sharded with ``num_shards``/``shard_id``;
each rank writes its starting and final weights (``init<r>.npz``, ``rank<r>.npz``) and the build
report of its train step (``rank<r>.json``).
``--single`` trains one process on the global batch instead (the reference); ``--fail-rank R`` makes rank R
raise after its first step (the abort test), ``--kill-rank R`` makes rank R kill itself with SIGKILL there;
``--model`` trains through ``Model.train`` with a ``ModelCheckpoint`` into ``OUT/ckpt`` instead of calling the
train step itself. Each rank logs the ``opbuild`` logger at INFO into ``OUT/rank<r>.log``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal

import numpy as np

import opbuild as ms
from opbuild import communication as comm
from opbuild import dataset as ds
from opbuild import nn

GLOBAL_BATCH = 12  # divisible by 1, 2 and 3 ranks
STEPS = 4


def data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((GLOBAL_BATCH * STEPS, 6)).astype(np.float32)
    y = rng.standard_normal((GLOBAL_BATCH * STEPS, 3)).astype(np.float32)
    return x, y


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--single", action="store_true")
    parser.add_argument("--fail-rank", type=int, default=-1)
    parser.add_argument("--kill-rank", type=int, default=-1)
    parser.add_argument("--model", action="store_true")
    args = parser.parse_args()
    comm.init()
    ms.set_context(mode=ms.GRAPH_MODE)  # a training step is one compiled graph (PYNATIVE_MODE is the default)
    rank, size = comm.get_rank(), comm.get_group_size()
    handler = logging.FileHandler(os.path.join(args.out, f"rank{rank}.log"))
    logging.getLogger("opbuild").addHandler(handler)
    logging.getLogger("opbuild").setLevel(logging.INFO)
    assert os.environ["RANK_ID"] == str(rank), (os.environ["RANK_ID"], rank)
    if not args.single:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    # A different initialisation on every rank: the broadcast from rank 0 must make them one model.
    ms.set_seed(100 + rank)
    net = nn.SequentialCell([nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3)])
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    if args.model:
        from opbuild.train import CheckpointConfig, Model, ModelCheckpoint

        model = Model(net, nn.MSELoss(), opt)
        step = model.train_network
    else:
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    # After the broadcast (in TrainOneStepCell's constructor): the weights every rank starts from.
    np.savez(os.path.join(args.out, f"init{rank}.npz"), **{p.name: p.asnumpy() for p in net.trainable_params()})
    x, y = data()
    shard = {} if args.single else {"num_shards": size, "shard_id": rank}
    batch = GLOBAL_BATCH if args.single else GLOBAL_BATCH // size
    dataset = ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False, **shard).batch(batch)
    report = None
    if args.model:
        ckpt = ModelCheckpoint(prefix="w", directory=os.path.join(args.out, "ckpt"),
                               config=CheckpointConfig(save_checkpoint_steps=2))
        model.train(1, dataset, callbacks=[ckpt])
        report = ms.build_report().as_dict()
    for i, (bx, by) in enumerate([] if args.model else dataset.create_tuple_iterator()):
        step(bx, by)
        if i == 0:
            report = ms.build_report().as_dict()
            if rank == args.fail_rank:
                raise RuntimeError(f"injected failure on rank {rank}")
            if rank == args.kill_rank:
                os.kill(os.getpid(), signal.SIGKILL)
    params = {p.name: p.asnumpy() for p in net.trainable_params()}
    np.savez(os.path.join(args.out, f"rank{rank}.npz"), **params)
    with open(os.path.join(args.out, f"rank{rank}.json"), "w") as f:
        json.dump({"rank": rank, "size": size, "report": report,
                   "checkpoint": ckpt.latest_ckpt_file_name if args.model else None}, f)


if __name__ == "__main__":
    main()
