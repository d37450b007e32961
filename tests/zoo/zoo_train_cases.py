"""mindcv's training pipeline as a user calls it (losses, optimizers, schedulers, the train step with loss
scale/EMA/accumulation/clipping, checkpoints, data, and Model.train/eval), written once and run twice:
scripts/record_zoo_train.py runs it under MindSpore 2.10 into tests/fixtures/mindspore/zoo_train.json, and
tests/zoo/test_zoo_train.py runs it on opbuild under ``opbuild.alias_mindspore()`` and compares.

Each case returns JSON-able numbers; a case that raises is recorded as its error (so a refusal must match)."""

from __future__ import annotations

import os
import tempfile
import time
import traceback

import mindspore as ms
import numpy as np
from mindcv.loss import create_loss
from mindcv.optim import create_optimizer
from mindcv.scheduler import create_scheduler
from mindspore import Tensor, nn

OPTIMIZERS = ["sgd", "momentum", "nesterov", "adam", "adamw", "lion", "nadam", "adan", "rmsprop", "adagrad",
              "lamb"]
SCHEDULERS = {
    "constant": {}, "cosine_decay": {"warmup_epochs": 1}, "warmup_cosine_decay": {"num_cycles": 2},
    "one_cycle": {"warmup_epochs": 0}, "cyclic": {"warmup_epochs": 0},
    "exponential_decay": {"lr_epoch_stair": True}, "polynomial_decay": {}, "step_decay": {"decay_epochs": 2},
    "multi_step_decay": {"milestones": [1, 3]},
}


def _r(x) -> list:
    """A tensor or array as a flat list of Python floats."""
    a = x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
    return [float(v) for v in np.asarray(a, np.float64).reshape(-1)]


def _error(e: Exception) -> dict:
    if os.environ.get("ZOO_TRAIN_DEBUG"):
        traceback.print_exc()
    return {"error": f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"}


def _guard(fn, *args):
    """``fn(*args)``, or its error recorded (the other runtime must refuse the same case)."""
    try:
        return fn(*args)
    except Exception as e:
        return _error(e)


def _logits():
    rng = np.random.default_rng(0)
    return Tensor(rng.standard_normal((4, 5)).astype(np.float32)), rng


def loss_cases() -> dict:
    out = {}
    logits, rng = _logits()
    sparse = Tensor(np.array([0, 3, 1, 4], np.int32))
    onehot = Tensor(np.eye(5, dtype=np.float32)[[0, 3, 1, 4]])
    multi = Tensor((rng.random((4, 5)) > 0.5).astype(np.float32))
    specs = {
        "ce": (dict(name="CE"), sparse), "ce_smooth": (dict(name="CE", label_smoothing=0.1), sparse),
        "ce_onehot_smooth": (dict(name="CE", label_smoothing=0.2), onehot),
        "ce_sum": (dict(name="CE", reduction="sum", label_smoothing=0.1), sparse),
        "bce": (dict(name="BCE"), multi), "bce_smooth": (dict(name="BCE", label_smoothing=0.1), multi),
        "asl_single": (dict(name="asl_single_label", label_smoothing=0.1), sparse),
        "asl_multi": (dict(name="asl_multi_label"), multi),
    }
    for key, (kw, label) in specs.items():
        loss = create_loss(**kw)
        value = loss(logits, label)
        grad = ms.grad(loss)(logits, label)
        out[key] = {"loss": _r(value), "grad": _r(grad)}
    jsd = create_loss(name="jsd", label_smoothing=0.1)
    jsd.set_train(True)
    three = Tensor(np.concatenate([logits.asnumpy(), logits.asnumpy() * 0.5, logits.asnumpy() + 0.3]))
    labels3 = Tensor(np.concatenate([sparse.asnumpy()] * 3))
    # mindcv 0.3.0's JSD calls ops.split(logits, 0, n) (the pre-2.0 argument order): MindSpore 2.10 refuses
    # a split size of 0, and so must opbuild.
    out["jsd"] = _guard(lambda: {"loss": _r(jsd(three, labels3))})
    aux = create_loss(name="CE", label_smoothing=0.1, aux_factor=0.4)
    out["ce_aux"] = {"loss": _r(aux((logits, logits * 0.5), sparse))}
    return out


class TinyNet(nn.Cell):
    """A conv, a BatchNorm (its gamma/beta are filtered from weight decay by norm_and_bias) and a Dense (its
    bias filtered too). The conv has no bias: BatchNorm cancels it, so its gradient is rounding noise that
    Adam-like optimizers would normalise into full-size steps of either sign."""

    def __init__(self, classes: int = 3) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, has_bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4, classes)

    def construct(self, x):
        return self.fc(self.flat(self.pool(self.relu(self.bn(self.conv(x))))))


def _batch(step: int):
    rng = np.random.default_rng(100 + step)
    return (Tensor(rng.standard_normal((4, 3, 8, 8)).astype(np.float32)),
            Tensor(rng.integers(0, 3, 4).astype(np.int32)))


def _param_sums(net) -> dict:
    return {p.name: float(np.asarray(p.asnumpy(), np.float64).sum()) for p in net.get_parameters()}


def _train(net, step_cell, steps: int = 3, onehot: bool = False) -> dict:
    step_cell.set_train()
    losses = []
    for i in range(steps):
        x, y = _batch(i)
        if onehot:
            y = Tensor(np.eye(3, dtype=np.float32)[y.asnumpy()])
        out = step_cell(x, y)
        losses.append(_r(out[0] if isinstance(out, tuple) else out)[0])
    return {"losses": losses, "params": _param_sums(net)}


def optimizer_cases() -> dict:
    out = {}
    for name in OPTIMIZERS:
        ms.set_seed(1)
        net = TinyNet()
        lr = create_scheduler(2, "cosine_decay", lr=0.05, warmup_epochs=0, num_epochs=2, min_lr=0.001)[0]
        opt = create_optimizer(net, opt=name, lr=0.05 if name != "adagrad" else lr, weight_decay=1e-2,
                               weight_decay_filter="norm_and_bias")
        # Adan resets a parameter's previous gradient when its sum is exactly 0.0; a softmax classifier's
        # bias and weight gradients sum to 0 up to rounding, so that branch would follow rounding noise: Adan
        # trains with BCE on one-hot labels, whose gradients have no such sum.
        loss = create_loss(name="BCE") if name == "adan" else create_loss(name="CE", label_smoothing=0.1)
        cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
        out[name] = _guard(_train, net, cell, 3, name == "adan")
    ms.set_seed(1)
    net = TinyNet()
    opt = create_optimizer(net, opt="momentum", lr=create_scheduler(2, "step_decay", lr=0.1, decay_epochs=1,
                                                                    num_epochs=2, warmup_epochs=0),
                           weight_decay=1e-3, weight_decay_filter="disable", loss_scale=128.0)
    cell = nn.TrainOneStepCell(nn.WithLossCell(net, create_loss(name="CE")), opt, sens=128.0)
    out["momentum_dynamic_lr_loss_scale"] = _train(net, cell, 4)
    return out


def scheduler_cases() -> dict:
    out = {}
    for name, kw in SCHEDULERS.items():
        args = dict(steps_per_epoch=3, scheduler=name, lr=0.1, min_lr=1e-4, warmup_epochs=kw.pop("warmup_epochs", 1),
                    num_epochs=5, decay_epochs=kw.pop("decay_epochs", 2), **kw)
        out[name] = [float(v) for v in create_scheduler(**args)]
    return out


def train_step_cases() -> dict:
    from mindcv.utils.trainer_factory import create_trainer

    out = {}
    variants = {
        "plain": {}, "ema": dict(ema=True, ema_decay=0.9), "clip": dict(clip_grad=True, clip_value=0.05),
        "accumulate": dict(gradient_accumulation_steps=2), "fixed_scale": dict(loss_scale=1024.0),
    }
    for key, kw in variants.items():
        ms.set_seed(1)
        net = TinyNet()
        opt = create_optimizer(net, opt="momentum", lr=0.1, weight_decay=1e-4,
                               loss_scale=kw.get("loss_scale", 1.0))
        kw.setdefault("loss_scale", 1.0)
        model = create_trainer(net, create_loss(name="CE"), opt, metrics={"acc"}, amp_level="O0",
                               amp_cast_list=None, loss_scale_type="fixed", drop_overflow_update=False,
                               **{"ema": False, "clip_grad": False, **kw})
        cell = model.train_network
        out[key] = _guard(_train, net, cell, 4)
        if kw.get("ema"):
            out[key]["ema"] = {p.name: float(p.asnumpy().astype(np.float64).sum())
                               for p in cell.get_parameters() if p.name.startswith("ema.")}
    return out


def _image_folder(root: str, per_class: int = 4) -> str:
    """A two-class ImageFolder of small deterministic PNGs (split ``train`` and ``val``)."""
    from PIL import Image

    rng = np.random.default_rng(7)
    for split in ("train", "val"):
        for c in ("cat", "dog"):
            os.makedirs(os.path.join(root, split, c), exist_ok=True)
            for i in range(per_class):
                img = rng.integers(0, 256, (40, 48, 3), dtype=np.uint8)
                Image.fromarray(img).save(os.path.join(root, split, c, f"{i:03d}.png"))
    return root


def _summary(a) -> dict:
    a = np.asarray(a, np.float64)
    return {"shape": list(a.shape), "sum": float(a.sum()), "abs": float(np.abs(a).sum()),
            "head": [float(v) for v in a.reshape(-1)[:6]]}


def data_cases(root: str) -> dict:
    from mindcv.data import create_dataset, create_loader, create_transforms

    out = {}
    ds_val = create_dataset(name="", root=root, split="val", shuffle=False)
    out["val_size"] = ds_val.get_dataset_size()
    out["val_labels"] = [int(r["label"]) for r in ds_val.create_dict_iterator(output_numpy=True)]
    eval_tf = create_transforms(dataset_name="", image_resize=32, is_training=False)
    out["eval_transforms"] = [type(t).__name__ for t in eval_tf]
    loader = create_loader(ds_val, batch_size=4, is_training=False, num_classes=2, transform=eval_tf)
    out["eval_batches"] = [{"image": _summary(b[0]), "label": b[1].tolist()}
                           for b in loader.create_tuple_iterator(output_numpy=True)]
    train_tf = create_transforms(dataset_name="", image_resize=32, is_training=True)
    out["train_transforms"] = [type(t).__name__ for t in train_tf]
    ds_train = create_dataset(name="", root=root, split="train", shuffle=False)
    loader = create_loader(ds_train, batch_size=4, is_training=True, num_classes=2, transform=train_tf,
                           drop_remainder=True, mixup=0.2, cutmix=1.0, cutmix_prob=1.0)
    # Random crops/flips come from the dataset engine's own generator: compare shapes, dtypes and the
    # label rows' sums (one-hot mixed, each row sums to 1) rather than pixels.
    batches = list(loader.create_tuple_iterator(output_numpy=True))
    out["train_batches"] = [{"image": list(b[0].shape), "dtype": str(b[0].dtype), "label": list(b[1].shape),
                             "label_rowsum": [round(float(v), 5) for v in b[1].sum(axis=1)]} for b in batches]
    return out


def _smallest_model():
    from mindcv.models import create_model

    ms.set_seed(3)
    return create_model("resnet18", num_classes=2)


def model_flow_cases(root: str, workdir: str) -> dict:
    """train.py's flow on a 64x64 ImageFolder (at 32x32 resnet18's last BatchNorms normalise 4 values per
    channel, which turns rounding into visible differences after a step): dataset, eval transforms
    (deterministic), loader, resnet18, CE with smoothing, a warmup-cosine schedule, momentum, create_trainer,
    Model.train with StateMonitor's evaluation and checkpointing, then Model.eval (validate.py)."""
    from mindcv.data import create_dataset, create_loader, create_transforms
    from mindcv.utils import CheckpointManager
    from mindcv.utils.callbacks import StateMonitor
    from mindcv.utils.trainer_factory import create_trainer

    out = {}
    tf = create_transforms(dataset_name="", image_resize=64, is_training=False)
    # One batch of all 8 images per epoch: a batch of one class (the folder order) makes every sample's loss
    # gradient alike, and BatchNorm's backward (the gradient minus its batch mean) then cancels to rounding.
    train = create_loader(create_dataset(name="", root=root, split="train", shuffle=False), batch_size=8,
                          is_training=False, num_classes=2, transform=tf, drop_remainder=True)
    val = create_loader(create_dataset(name="", root=root, split="val", shuffle=False), batch_size=4,
                        is_training=False, num_classes=2, transform=tf)
    net = _smallest_model()
    steps = train.get_dataset_size()
    lrs = create_scheduler(steps, "warmup_cosine_decay", lr=0.002, min_lr=1e-4, warmup_epochs=1, num_epochs=4)
    opt = create_optimizer(net, opt="momentum", lr=lrs, weight_decay=1e-4, weight_decay_filter="norm_and_bias")
    loss = create_loss(name="CE", label_smoothing=0.1)
    model = create_trainer(net, loss, opt, metrics={"acc": nn.Top1CategoricalAccuracy(), "loss": nn.Loss()},
                           amp_level="O0", amp_cast_list=None, loss_scale_type="fixed")
    recorded = []

    class Record(ms.train.Callback):
        def on_train_step_end(self, run_context):
            recorded.append(_r(run_context.original_args().net_outputs)[0])

    monitor = StateMonitor(model, model_name="resnet18", dataset_sink_mode=False,
                           dataset_val=val,
                           metric_name=["acc", "loss"], ckpt_save_dir=workdir, summary_dir=workdir,
                           ckpt_save_policy="top_k",
                           ckpt_keep_max=1, log_interval=1)
    model.train(4, train, callbacks=[Record(), monitor], dataset_sink_mode=False)
    out["losses"] = recorded
    # Sum and L2 norm per parameter: a convolution before BatchNorm has a gradient whose sum over elements
    # cancels almost exactly, so its weights' sum alone follows rounding; the norm does not.
    out["params"] = {p.name: [float(p.asnumpy().astype(np.float64).sum()),
                              float(np.linalg.norm(p.asnumpy().astype(np.float64)))] for p in net.get_parameters()}
    out["eval"] = {k: float(v) for k, v in model.eval(val, dataset_sink_mode=False).items()}
    out["ckpts"] = sorted(f for f in os.listdir(workdir) if f.endswith(".ckpt"))
    # top_k keeps the K best by metric; saves are asynchronous, so wait for the files before reading them.
    manager = CheckpointManager(ckpt_save_policy="top_k")
    for i, metric in enumerate([0.5, 0.9, 0.7]):
        manager.save_ckpoint(net, num_ckpt=2, metric=metric, save_path=os.path.join(workdir, f"top-{i}.ckpt"))
    out["top_k"] = [(os.path.basename(f), m) for f, m in manager.ckpoint_filelist]
    best = os.path.join(workdir, "top-1.ckpt")
    for _ in range(100):
        if os.path.exists(best) and os.path.getsize(best):
            break
        time.sleep(0.05)
    time.sleep(0.2)
    loaded = ms.load_checkpoint(best)
    out["loaded_fc_sum"] = float(loaded["classifier.weight"].asnumpy().astype(np.float64).sum())
    return out


def run_all() -> dict:
    """Every group's cases; a group that raises records its error and the traceback's last line."""
    ms.set_context(mode=ms.GRAPH_MODE)
    results = {}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        root = _image_folder(os.path.join(tmp, "data"))
        groups = {"loss": loss_cases, "optim": optimizer_cases, "scheduler": scheduler_cases,
                  "train_step": train_step_cases, "data": lambda: data_cases(root),
                  "model_flow": lambda: model_flow_cases(root, os.path.join(tmp, "ckpt"))}
        only = os.environ.get("ZOO_TRAIN_GROUPS")
        for name, fn in groups.items():
            if only and name not in only.split(","):
                continue
            try:
                results[name] = fn()
            except Exception as e:  # recorded: the other runtime must fail the same way
                results[name] = _error(e)
    return results
