"""opbuild.train.Model: train / eval / predict on a small classifier, the networks it builds, its errors."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.dataset as ds
from opbuild import nn
from opbuild.train import Accuracy, Callback, Loss, Model


class Net(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Dense(4, 16)
        self.relu = nn.ReLU()
        self.drop = nn.Dropout(p=0.5)
        self.fc2 = nn.Dense(16, 3)

    def construct(self, x):
        return self.fc2(self.drop(self.relu(self.fc1(x))))


def _data(n: int = 96, seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (np.argmax(x[:, :3], axis=1)).astype(np.int32)  # learnable: the largest of the first three features
    return x, y


def _dataset(x, y, batch=16):
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def _model(metrics=None, **kw):
    ms.set_seed(0)
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    return net, Model(net, loss_fn=loss, optimizer=opt, metrics=metrics, **kw)


class Losses(Callback):
    def __init__(self):
        self.epoch_losses: list[list[float]] = []

    def on_train_epoch_begin(self, run_context):
        self.epoch_losses.append([])

    def on_train_step_end(self, run_context):
        self.epoch_losses[-1].append(float(run_context.original_args().net_outputs.asnumpy()))


def test_train_decreases_loss_and_eval_returns_named_metrics(graph_mode):
    x, y = _data()
    net, model = _model(metrics={"accuracy", "loss"})
    assert isinstance(model.train_network, nn.TrainOneStepCell)
    assert isinstance(model.eval_network, nn.WithEvalCell)
    before = model.eval(_dataset(x, y))
    rec = Losses()
    model.train(6, _dataset(x, y), callbacks=rec)
    assert len(rec.epoch_losses) == 6 and all(len(e) == 6 for e in rec.epoch_losses)
    assert np.mean(rec.epoch_losses[-1]) < 0.5 * np.mean(rec.epoch_losses[0])
    after = model.eval(_dataset(x, y))
    assert set(after) == {"accuracy", "loss"}
    assert after["loss"] < before["loss"] and after["accuracy"] > 0.85 >= before["accuracy"]
    # The accuracy is exactly the fraction of right predictions of predict() (Dropout off in both).
    pred = model.predict(ms.Tensor(x))
    assert pred.shape == (96, 3)
    assert after["accuracy"] == pytest.approx(np.mean(pred.asnumpy().argmax(axis=1) == y))


def test_eval_and_predict_leave_the_training_flags_as_they_were(graph_mode):
    x, y = _data(32)
    net, model = _model(metrics={"acc": Accuracy()})
    model.train(1, _dataset(x, y))
    assert net.drop.training is True
    model.eval(_dataset(x, y))
    model.predict(ms.Tensor(x))
    assert net.drop.training is True
    # predict is deterministic: Dropout passes through in inference mode.
    np.testing.assert_array_equal(model.predict(ms.Tensor(x)).asnumpy(), model.predict(ms.Tensor(x)).asnumpy())


def test_metric_dict_names_and_custom_eval_network_with_indexes(graph_mode):
    x, y = _data(32)
    net, _ = _model()

    class Eval(nn.Cell):
        def __init__(self, backbone):
            super().__init__(auto_prefix=False)
            self.backbone = backbone

        def construct(self, data, label):
            return label, self.backbone(data), ms.ops.zeros((1,), ms.float32) + 0.5

    model = Model(net, metrics={"Accuracy": Accuracy(), "Loss": Loss()}, eval_network=Eval(net),
                  eval_indexes=[2, 1, 0])
    out = model.eval(_dataset(x, y))
    assert set(out) == {"Accuracy", "Loss"} and out["Loss"] == pytest.approx(0.5)
    assert out["Accuracy"] == pytest.approx(np.mean(model.predict(ms.Tensor(x)).asnumpy().argmax(1) == y))


def test_network_without_loss_and_optimizer_is_the_train_network(graph_mode):
    x, y = _data(32)
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01))
    model = Model(step)
    assert model.train_network is step
    onehot = np.eye(3, dtype=np.float32)[y]
    rec = Losses()
    model.train(2, _dataset(x, onehot), callbacks=[rec])
    assert len(rec.epoch_losses[1]) == 2


def test_errors_are_clear():
    net = Net()
    with pytest.raises(ValueError, match="amp_level 'O2' needs an optimizer"):
        Model(net, amp_level="O2")
    with pytest.raises(ValueError, match="amp_level must be one of"):
        Model(net, amp_level="auto")
    with pytest.raises(ValueError, match="loss_scale_manager needs an optimizer"):
        Model(net, loss_scale_manager=ms.FixedLossScaleManager())
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    with pytest.raises(TypeError, match="loss_scale_manager must be a LossScaleManager"):
        Model(net, loss_fn=nn.MSELoss(), optimizer=opt, loss_scale_manager=128.0)
    with pytest.raises(TypeError, match="unexpected arguments"):
        Model(net, loss_fn=nn.MSELoss(), optimizer=opt, cast_model_type=ms.float16)
    with pytest.raises(ValueError, match="metrics need an evaluation network"):
        Model(net, metrics={"accuracy"})
    with pytest.raises(KeyError, match="unknown metric 'f1'"):
        Model(net, loss_fn=nn.MSELoss(), metrics={"f1"})
    with pytest.raises(ValueError, match="eval_indexes"):
        Model(net, eval_network=net, metrics={"acc"}, eval_indexes=[0, 1])
    with pytest.raises(TypeError, match="network must be a Cell"):
        Model(lambda x: x)
    model = Model(net, loss_fn=nn.MSELoss())
    with pytest.raises(ValueError, match="no metrics"):
        model.eval(_dataset(*_data(16)))
    with pytest.raises(ValueError, match="epoch must be a positive int"):
        model.train(0, _dataset(*_data(16)))
    with pytest.raises(TypeError, match="opbuild.dataset"):
        model.train(1, [1, 2, 3])
    with pytest.raises(TypeError, match="Callback"):
        model.train(1, _dataset(*_data(16)), callbacks=[print])


def test_sink_mode_warns_and_trains_step_by_step(graph_mode):
    x, y = _data(32)
    _, model = _model()
    rec = Losses()
    with pytest.warns(UserWarning, match="no dataset sink mode"):
        model.train(1, _dataset(x, y), callbacks=rec, dataset_sink_mode=True)
    assert len(rec.epoch_losses[0]) == 2


def test_opbuild_model_is_the_same_class():
    assert ms.Model is Model and ms.train.Model is Model
