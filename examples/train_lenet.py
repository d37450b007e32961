"""Train MindSpore's LeNet5 quick-start network on scikit-learn's bundled handwritten digits with
``opbuild.Model``: every forward, backward and optimizer kernel goes through the incremental build.

    python examples/train_lenet.py [--epochs 10] [--batch-size 32] [--amp-level O0] [--out lenet_out]

The digits (1,797 images of 8x8 pixels, 16 grey levels) are read from the installed scikit-learn package
(``sklearn.datasets.load_digits``: no download), upsampled to LeNet5's 32x32 input and split 80/20 into
train and test sets. Prints MindSpore's LossMonitor lines, the test accuracy after each epoch, the build report
of the whole run (the first process builds every kernel, a second one reuses them all), and writes a
checkpoint and a loss/accuracy curve (PNG) under ``--out``. ``--amp-level O2`` trains in float16 (Conv2d,
MaxPool2d and Dense run in float16 with float32 master weights, MindSpore's dynamic loss scaling; see
docs/dtypes.md "Mixed precision"). Needs ``pip install 'opbuild[examples]'``.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys

import numpy as np

import opbuild as ms
import opbuild.dataset as ds
from opbuild import nn
from opbuild.train import Callback, CheckpointConfig, LossMonitor, Model, ModelCheckpoint, RunContext


class LeNet5(nn.Cell):
    """MindSpore's quick-start LeNet5, unchanged: two 5x5 'valid' convolutions with ReLU and 2x2 max pooling,
    then dense layers 400 -> 120 -> 84 -> num_class. Keeping the network as it is (and upsampling the digits
    to its 32x32 input instead of shrinking it to 8x8, where two 5x5 valid convolutions do not fit) means the
    parameter names and shapes are MindSpore's, so the checkpoint loads into MindSpore's own LeNet5."""

    def __init__(self, num_class: int = 10, num_channel: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x: ms.Tensor) -> ms.Tensor:
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def load_digits_32x32(test_fraction: float = 0.2, seed: int = 0) -> tuple[np.ndarray, ...]:
    """(train_x, train_y, test_x, test_y): images (N, 1, 32, 32) float32, standardized with the training
    set's mean and deviation; labels int32. Upsampling repeats each pixel 4x4 (nearest neighbour): it adds no
    information, and keeps the digits' strokes as sharp as the 8x8 source."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("train_lenet.py needs scikit-learn: pip install 'opbuild[examples]'")
    digits = load_digits()
    images = digits.images.astype(np.float32)[:, None]                       # (1797, 1, 8, 8), values 0..16
    images = np.kron(images, np.ones((1, 1, 4, 4), np.float32))             # (1797, 1, 32, 32)
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(len(labels) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    mean, std = images[train].mean(), images[train].std()
    images = (images - mean) / std
    return images[train], labels[train], images[test], labels[test]


class BuildLog:
    """The build reports of every graph this run compiled (train step, evaluation, prediction):
    ``opbuild.build_report()`` describes the most recent graph build, so it is read after each phase."""

    def __init__(self) -> None:
        self.reports: list[ms.BuildReport] = []

    def record(self) -> None:
        report = ms.build_report()
        # ``rerun``: a graph compiled earlier ran again (nothing traced or built), already recorded
        if report.kernels and not report.rerun and not any(report is seen for seen in self.reports):
            self.reports.append(report)

    def total(self) -> ms.BuildReport:
        total = ms.BuildReport()
        for report in self.reports:
            total.extend(report)
        return total


class Curve(Callback):
    """Records the loss of every step and evaluates the test accuracy after every epoch."""

    def __init__(self, model: Model, test_set: ds.Dataset, log: BuildLog) -> None:
        self.model, self.test_set, self.log = model, test_set, log
        self.losses: list[float] = []
        self.accuracies: list[float] = []

    def on_train_step_end(self, run_context: RunContext) -> None:
        outputs = run_context.original_args().net_outputs
        if isinstance(outputs, tuple):  # loss scaling (amp O2/O3): (loss, overflow, scale)
            outputs = outputs[0]
        self.losses.append(float(outputs.asnumpy()))
        self.log.record()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        accuracy = self.model.eval(self.test_set)["accuracy"]
        self.log.record()
        self.accuracies.append(accuracy)
        print(f"epoch: {run_context.original_args().cur_epoch_num} test accuracy: {accuracy:.4f}", flush=True)


def plot(curve: Curve, steps_per_epoch: int, path: str) -> None:
    """Loss per step and test accuracy per epoch, side by side."""
    try:
        import matplotlib
    except ImportError:
        sys.exit("train_lenet.py needs matplotlib: pip install 'opbuild[examples]'")
    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(np.arange(1, len(curve.losses) + 1) / steps_per_epoch, curve.losses, linewidth=0.8)
    left.set(xlabel="epoch", ylabel="training loss (batch mean)", yscale="log", title="LeNet5 on digits: loss")
    right.plot(np.arange(1, len(curve.accuracies) + 1), curve.accuracies, marker="o")
    right.set(xlabel="epoch", ylabel="test accuracy", ylim=(0, 1), title="test accuracy (359 held-out images)")
    right.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--amp-level", default="O0", choices=["O0", "O1", "O2", "O3"],
                        help="mixed precision (Model's amp_level): O2 runs the network in float16")
    parser.add_argument("--out", default="lenet_out", help="folder for the checkpoint and the curve")
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.batch_size < 1:
        parser.error("--epochs and --batch-size must be positive")

    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    ms.set_seed(1)
    train_x, train_y, test_x, test_y = load_digits_32x32()
    # drop_remainder: every step has one input shape, so the train step is one compiled graph.
    train_set = ds.NumpySlicesDataset({"image": train_x, "label": train_y}, shuffle=True)
    train_set = train_set.batch(args.batch_size, drop_remainder=True)
    test_set = ds.NumpySlicesDataset({"image": test_x, "label": test_y}, shuffle=False).batch(len(test_y))

    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=optimizer, metrics={"accuracy"}, amp_level=args.amp_level)

    os.makedirs(args.out, exist_ok=True)
    # ModelCheckpoint never overwrites: with files of its prefix present it would switch to lenet_1, lenet_2,
    # ... (MindSpore's rule). This example keeps one checkpoint, so it removes those of its earlier runs.
    for old in glob.glob(os.path.join(args.out, "lenet*.ckpt")):
        os.remove(old)
    steps = train_set.get_dataset_size()
    checkpoint = ModelCheckpoint(prefix="lenet", directory=args.out,
                                 config=CheckpointConfig(save_checkpoint_steps=steps, keep_checkpoint_max=1))
    log = BuildLog()
    curve = Curve(model, test_set, log)
    model.train(args.epochs, train_set, callbacks=[LossMonitor(per_print_times=steps // 3 or 1), curve,
                                                   checkpoint])

    predictions = model.predict(ms.Tensor(test_x[:8])).asnumpy().argmax(axis=1)
    log.record()
    print(f"predicted {predictions.tolist()}, labels {test_y[:8].tolist()}")
    accuracy = curve.accuracies[-1]
    print(f"amp level {args.amp_level}")
    print(f"test accuracy: {accuracy:.4f}")
    print(f"build report ({len(log.reports)} graphs: train step, eval, predict): {log.total().summary()}")
    plot(curve, steps, os.path.join(args.out, "lenet_curve.png"))
    print(f"checkpoint: {checkpoint.latest_ckpt_file_name}")
    print(f"curve: {os.path.join(args.out, 'lenet_curve.png')}")
    return accuracy


if __name__ == "__main__":
    main()
