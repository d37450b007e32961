"""Mixed-precision training with ``Model(..., amp_level=...)``: an MLP (Dense -> BatchNorm -> ReLU -> Dense) on
scikit-learn's bundled 8x8 digits, in float32 (O0) or float16 (O1-O3), with MindSpore's loss scaling.

    python examples/train_mlp_amp.py [--amp-level O2] [--loss-scale level|dynamic|fixed|none] [--epochs 12]

At O2 the Dense layers compute in float16 while BatchNorm, the loss and the float32 master weights stay in
float32; O2's default loss scaling (``--loss-scale level``, MindSpore's) is ``DynamicLossScaleManager()``: the
backward is seeded with the loss scale, a step whose gradients overflow is skipped inside the compiled train
step and halves the scale, which doubles after 2000 good steps (``--loss-scale dynamic``: from
``--init-scale``, doubling every ``--scale-window`` good steps). Prints the test accuracy, the
final loss scale and how many steps were skipped. (LeNet5 trains at O2 too: ``examples/train_lenet.py
--amp-level O2``.) Needs scikit-learn: ``pip install 'opbuild[examples]'``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import opbuild as ms
import opbuild.dataset as ds
from opbuild import nn
from opbuild.train import Callback, LossMonitor, Model, RunContext
from opbuild.train.loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager


class MLP(nn.Cell):
    """64 -> 64 (BatchNorm, ReLU) -> 10: BatchNorm is on amp's black list, so O2 keeps it in float32."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Dense(64, 64)
        self.bn = nn.BatchNorm1d(64)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(64, 10)

    def construct(self, x: ms.Tensor) -> ms.Tensor:
        return self.fc2(self.relu(self.bn(self.fc1(x))))


def load_digits_8x8(test_fraction: float = 0.2, seed: int = 0) -> tuple[np.ndarray, ...]:
    """(train_x, train_y, test_x, test_y): the 1,797 digits as 64 features in [0, 1] (float32), labels int32."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("train_mlp_amp.py needs scikit-learn: pip install 'opbuild[examples]'")
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(y))
    n_test = int(len(y) * test_fraction)
    return x[order[n_test:]], y[order[n_test:]], x[order[:n_test]], y[order[:n_test]]


class ScaleLog(Callback):
    """Counts the steps whose update was skipped (overflow) and keeps the last loss scale."""

    def __init__(self) -> None:
        self.skipped = 0
        self.scale: float | None = None

    def on_train_step_end(self, run_context: RunContext) -> None:
        outputs = run_context.original_args().net_outputs
        if isinstance(outputs, tuple):  # TrainOneStepWithLossScaleCell: (loss, overflow, scale)
            self.skipped += int(bool(outputs[1].asnumpy()))
            self.scale = float(np.asarray(outputs[2].asnumpy()).reshape(-1)[0])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amp-level", default="O2", choices=["O0", "O1", "O2", "O3"])
    parser.add_argument("--loss-scale", default="level", choices=["dynamic", "fixed", "none", "level"],
                        help="dynamic: DynamicLossScaleManager; fixed: FixedLossScaleManager(1024); none: no "
                             "scaling; level: the amp level's default")
    parser.add_argument("--init-scale", type=float, default=2.0 ** 16)
    parser.add_argument("--scale-window", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.batch_size < 1:
        parser.error("--epochs and --batch-size must be positive")

    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    ms.set_seed(1)
    train_x, train_y, test_x, test_y = load_digits_8x8()
    train_set = ds.NumpySlicesDataset({"x": train_x, "y": train_y}, shuffle=True)
    train_set = train_set.batch(args.batch_size, drop_remainder=True)
    test_set = ds.NumpySlicesDataset({"x": test_x, "y": test_y}, shuffle=False).batch(len(test_y))

    amp_kwargs = {}
    if args.loss_scale == "dynamic":
        amp_kwargs["loss_scale_manager"] = DynamicLossScaleManager(args.init_scale, 2, args.scale_window)
    elif args.loss_scale == "fixed":
        amp_kwargs["loss_scale_manager"] = FixedLossScaleManager(1024.0)
    elif args.loss_scale == "none":
        amp_kwargs["loss_scale_manager"] = None
    net = MLP()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=optimizer, metrics={"accuracy"}, amp_level=args.amp_level,
                  **amp_kwargs)
    steps = train_set.get_dataset_size()
    log = ScaleLog()
    model.train(args.epochs, train_set, callbacks=[LossMonitor(per_print_times=steps), log])
    accuracy = model.eval(test_set)["accuracy"]
    print(f"amp level {args.amp_level}, train step {type(model.train_network).__name__}")
    print(f"test accuracy: {accuracy:.4f}")
    if log.scale is not None:
        print(f"loss scale at the end: {log.scale:g}; steps skipped for overflow: {log.skipped} of "
              f"{steps * args.epochs}")
    return {"accuracy": accuracy, "scale": log.scale, "skipped": log.skipped}


if __name__ == "__main__":
    main()
