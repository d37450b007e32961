"""Callbacks of Model: MindSpore's hook order (2.x and 1.x names), RunContext.request_stop, LossMonitor and
TimeMonitor lines, ModelCheckpoint files, prefixes and keep_checkpoint_max."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

import opbuild as ms
import opbuild.dataset as ds
from opbuild import nn
from opbuild.train import (
    Callback,
    CheckpointConfig,
    LossMonitor,
    Model,
    ModelCheckpoint,
    RunContext,
    TimeMonitor,
)


def _model(metrics=None):
    ms.set_seed(0)
    net = nn.Dense(4, 3)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, Model(net, loss_fn=loss, optimizer=nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics=metrics)


def _dataset(n=24, batch=8):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    return ds.NumpySlicesDataset({"x": x, "y": (x[:, 0] > 0).astype(np.int32)}, shuffle=False).batch(batch)


class Recorder(Callback):
    """Records every 2.x hook with (epoch, step); the 1.x hooks are reached through the defaults."""

    def __init__(self):
        self.calls: list[tuple] = []

    def _rec(self, name, run_context):
        p = run_context.original_args()
        self.calls.append((name, p.cur_epoch_num, p.cur_step_num))


for _hook in ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
              "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_step_begin",
              "on_eval_step_end", "on_eval_epoch_end", "on_eval_end"):
    setattr(Recorder, _hook, lambda self, rc, _n=_hook: self._rec(_n, rc))


class OldStyle(Callback):
    """A MindSpore 1.x callback: only begin/epoch_begin/step_begin/step_end/epoch_end/end."""

    def __init__(self):
        self.calls: list[str] = []

    def begin(self, rc):
        self.calls.append("begin")

    def epoch_begin(self, rc):
        self.calls.append("epoch_begin")

    def step_begin(self, rc):
        self.calls.append("step_begin")

    def step_end(self, rc):
        self.calls.append("step_end")

    def epoch_end(self, rc):
        self.calls.append("epoch_end")

    def end(self, rc):
        self.calls.append("end")


def test_train_hooks_in_mindspores_order_and_cb_params(graph_mode):
    _, model = _model()
    rec, old = Recorder(), OldStyle()
    seen = {}

    class Params(Callback):
        def on_train_step_end(self, rc):
            p = rc.original_args()
            seen.update(batch_num=p.batch_num, epoch_num=p.epoch_num, mode=p.mode, net=p.train_network,
                        out=p.net_outputs, element=p.train_dataset_element)

    model.train(2, _dataset(), callbacks=[rec, old, Params()])
    expected = [("on_train_begin", 0, 0)]
    for epoch in (1, 2):
        expected.append(("on_train_epoch_begin", epoch, (epoch - 1) * 3))
        for step in range((epoch - 1) * 3 + 1, epoch * 3 + 1):
            expected += [("on_train_step_begin", epoch, step), ("on_train_step_end", epoch, step)]
        expected.append(("on_train_epoch_end", epoch, epoch * 3))
    expected.append(("on_train_end", 2, 6))
    assert rec.calls == expected
    assert old.calls == ["begin"] + (["epoch_begin"] + ["step_begin", "step_end"] * 3 + ["epoch_end"]) * 2 + ["end"]
    assert seen["batch_num"] == 3 and seen["epoch_num"] == 2 and seen["mode"] == "train"
    assert seen["net"] is model.train_network and seen["out"].shape == () and len(seen["element"]) == 2


def test_eval_hooks_and_metrics_in_cb_params(graph_mode):
    _, model = _model(metrics={"accuracy"})
    rec = Recorder()
    got = {}

    class Metrics(Callback):
        def on_eval_step_end(self, rc):
            got.setdefault("elements", []).append(len(rc.original_args().eval_dataset_element))

        def on_eval_epoch_end(self, rc):
            # MindSpore sets cb_params.metrics after this hook: it must not see this pass's results yet
            got["at_epoch_end"] = getattr(rc.original_args(), "metrics", None)

        def on_eval_end(self, rc):
            got["at_end"] = dict(rc.original_args().metrics)

    result = model.eval(_dataset(), callbacks=[rec, Metrics()])
    assert [c[0] for c in rec.calls] == ["on_eval_begin", "on_eval_epoch_begin"] + \
        ["on_eval_step_begin", "on_eval_step_end"] * 3 + ["on_eval_epoch_end", "on_eval_end"]
    assert got["at_end"] == result and set(result) == {"accuracy"}
    assert got["at_epoch_end"] is None and got["elements"] == [2, 2, 2]


def test_request_stop_ends_training_after_the_step(graph_mode):
    _, model = _model()
    rec = Recorder()

    class StopAt4(Callback):
        def on_train_step_end(self, rc: RunContext):
            if rc.original_args().cur_step_num == 4:
                rc.request_stop()

    model.train(5, _dataset(), callbacks=[StopAt4(), rec])
    assert rec.calls[-3:] == [("on_train_step_end", 2, 4), ("on_train_epoch_end", 2, 4), ("on_train_end", 2, 4)]


def test_loss_monitor_and_time_monitor_lines(graph_mode, capsys):
    _, model = _model()
    model.train(2, _dataset(), callbacks=[LossMonitor(per_print_times=2), TimeMonitor()])
    lines = capsys.readouterr().out.splitlines()
    loss_lines = [line for line in lines if "loss is" in line]
    # Every 2nd global step, numbered within the epoch (3 steps per epoch): global steps 2, 4, 6.
    assert [re.match(r"epoch: (\d+) step: (\d+), loss is [0-9.e-]+$", s).groups() for s in loss_lines] == \
        [("1", "2"), ("2", "1"), ("2", "3")]
    times = [line for line in lines if line.startswith("Train epoch time:")]
    assert len(times) == 2 and all(re.fullmatch(r"Train epoch time: [0-9.]+ ms, per step time: [0-9.]+ ms", t)
                                   for t in times)
    with pytest.raises(ValueError, match="per_print_times"):
        LossMonitor(-1)
    with pytest.raises(ValueError, match="data_size"):
        TimeMonitor(0)


def test_loss_monitor_stops_on_nan():
    from opbuild.train.callback import CallbackParam

    params = CallbackParam(cur_epoch_num=2, cur_step_num=5, batch_num=3,
                           net_outputs=(ms.Tensor(np.array(np.nan, np.float32)), ms.Tensor(np.ones(2))))
    with pytest.raises(ValueError, match=r"epoch: 2 step: 2\. Invalid loss, terminating training"):
        LossMonitor().on_train_step_end(RunContext(params))


def test_model_checkpoint_names_keep_max_and_prefix_of_a_second_run(graph_mode, tmp_path):
    net, model = _model()
    config = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2, append_info=["epoch_num"])
    ckpt = ModelCheckpoint(prefix="net", directory=tmp_path / "ckpt", config=config)
    model.train(3, _dataset(), callbacks=ckpt)   # 9 steps: saves at global steps 2, 4, 6, 8 and the last, 9
    files = sorted(os.listdir(tmp_path / "ckpt"))
    assert files == ["net-3_2.ckpt", "net-3_3.ckpt"]          # steps 8 and 9 (within epoch 3: 2 and 3)
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "ckpt" / "net-3_3.ckpt")
    loaded = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    np.testing.assert_array_equal(loaded["weight"].asnumpy(), net.weight.asnumpy())
    assert int(loaded["epoch_num"].asnumpy()) == 3
    # A second ModelCheckpoint in the same folder never overwrites the first run's files: prefix net_1.
    second = ModelCheckpoint(prefix="net", directory=tmp_path / "ckpt",
                             config=CheckpointConfig(save_checkpoint_steps=3, keep_checkpoint_max=1))
    model.train(1, _dataset(), callbacks=second)
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["net-3_2.ckpt", "net-3_3.ckpt", "net_1-1_3.ckpt"]


def test_checkpoint_config_errors():
    with pytest.raises(ValueError, match="can not both be 0"):
        CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=0)
    with pytest.raises(ValueError, match="keep_checkpoint_max"):
        CheckpointConfig(keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=0)
    with pytest.raises(ValueError, match="save_checkpoint_steps"):
        CheckpointConfig(save_checkpoint_steps=-1)
    with pytest.raises(ValueError, match="append_info"):
        CheckpointConfig(append_info=["lr"])
    with pytest.raises(TypeError, match="CheckpointConfig"):
        ModelCheckpoint(config={"save_checkpoint_steps": 1})
    assert CheckpointConfig(save_checkpoint_steps=5, save_checkpoint_seconds=10).save_checkpoint_seconds == 0
