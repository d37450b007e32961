"""Model.fit, the epoch callbacks and the metrics give MindSpore's results: tests/train/train_loop_programs.py
runs here on opbuild and compares with what MindSpore 2.10 gave (scripts/record_train_loop.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
import opbuild.dataset  # noqa: F401
import opbuild.train as train
from tests.train import train_loop_programs as programs

EXPECTED = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "train_loop.json")
                      .read_text())


def _close(got, want, path=""):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _close(g, w, f"{path}[{i}]")
    elif isinstance(want, dict):
        assert set(got) == set(want), path
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    elif want is None or isinstance(want, (str, bool)):
        assert got == want, path
    elif math.isnan(want):
        assert math.isnan(got), path
    else:
        assert got == pytest.approx(want, rel=1e-5, abs=1e-6), path


@pytest.fixture(scope="module")
def metric_results():
    return programs.run_metrics(ms)


@pytest.mark.parametrize("name", sorted(EXPECTED["metrics"]))
def test_metric_matches_mindspore(metric_results, name):
    _close(metric_results[name], EXPECTED["metrics"][name], name)


def test_fit_with_callbacks_matches_mindspore():
    got = programs.run_fit(ms)
    want = EXPECTED["fit"]
    assert got["epochs"] == want["epochs"] and got["stopped_epoch"] == want["stopped_epoch"] > 0
    assert got["eval_hooks"] == want["eval_hooks"]  # built-in callbacks get no eval hooks in fit
    _close(got["lr"], want["lr"], "lr")
    # the training itself runs in float32 kernels: compare the learned values loosely, the bookkeeping exactly
    for k, (g, w) in enumerate(zip(got["eval_results"], want["eval_results"], strict=True)):
        if w is None:
            assert g is None, k
        else:
            assert g["accuracy"] == w["accuracy"] and g["f1"] == pytest.approx(w["f1"])
            assert g["eval_loss"] == pytest.approx(w["eval_loss"], rel=2e-3, abs=1e-5)
    assert set(got["history"]) == set(want["history"])
    np.testing.assert_allclose(got["history"]["net_output"], want["history"]["net_output"], rtol=2e-3)
    assert got["history"]["accuracy"] == want["history"]["accuracy"]
    np.testing.assert_allclose(got["weight"], want["weight"], rtol=2e-3, atol=2e-4)


def test_lambda_callback_rejects_non_callables():
    with pytest.raises(TypeError, match="on_train_end must be callable"):
        train.LambdaCallback(on_train_end=3)


def test_reduce_lr_refuses_a_dynamic_learning_rate():
    x, y, w = programs.fit_data()
    net = ms.nn.Dense(4, 3)
    opt = ms.nn.Momentum(net.trainable_params(), learning_rate=[0.1, 0.05, 0.01, 0.01], momentum=0.9)
    model = train.Model(net, ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)
    data = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    with pytest.raises(ValueError, match="does not support dynamic learning rate"):
        model.train(1, data, callbacks=[train.ReduceLROnPlateau(monitor="loss")])


def test_fit_needs_metrics_for_validation():
    x, y, _ = programs.fit_data()
    net = ms.nn.Dense(4, 3)
    model = train.Model(net, ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                        ms.nn.Momentum(net.trainable_params(), 0.1, 0.9))
    data = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    with pytest.raises(ValueError, match="a valid_dataset needs metrics"):
        model.fit(1, data, data)


def test_build_compiles_every_kernel_without_training(graph_mode):
    x, y, w = programs.fit_data()
    net = ms.nn.Dense(4, 3, weight_init=ms.Tensor(w), bias_init="zeros")
    model = train.Model(net, ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                        ms.nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"accuracy"})
    data = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    model.build(data, data)
    built = ms.build_report()
    assert len(built.kernels) > 0
    np.testing.assert_array_equal(net.weight.asnumpy(), w)  # nothing ran
    model.train(1, data)
    assert ms.build_report().built == 0  # the first step reused what build compiled
