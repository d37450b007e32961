"""Metrics calls and a ``Model.fit`` run with callbacks, written once for both frameworks: ``run_*(ms)`` take
the framework module (``mindspore`` in scripts/record_train_loop.py, ``opbuild`` in the tests) and return
plain Python/NumPy results. Imports no framework itself."""

from __future__ import annotations

import numpy as np


def metric_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    scores = rng.random((2, 6, 4)).astype(np.float32)
    labels = rng.integers(0, 4, (2, 6))
    labels[0, :4] = [0, 1, 2, 3]
    return {"scores": scores, "labels": labels, "one_hot": np.eye(4, dtype=np.float32)[labels[1]],
            "ml_pred": (rng.random((2, 5, 3)) > 0.5).astype(np.float32),
            "ml_true": (rng.random((2, 5, 3)) > 0.4).astype(np.float32),
            "reg_pred": rng.standard_normal((2, 5, 2)).astype(np.float32),
            "reg_true": rng.standard_normal((2, 5, 2)).astype(np.float32),
            "bin_scores": np.array([0.1, 0.4, 0.35, 0.8, 0.4, 0.9], np.float32),
            "bin_labels": np.array([0, 0, 1, 1, 0, 1])}


def run_metrics(ms) -> dict:
    """name -> result (arrays as nested lists) of each metric over the inputs."""
    t = ms.train
    d = metric_inputs()
    out: dict = {}

    def two_batches(metric, y_pred, y):
        metric.clear()
        for b in range(2):
            metric.update(ms.Tensor(y_pred[b]), ms.Tensor(y[b]))
        return metric

    for name, cls in (("precision", t.Precision), ("recall", t.Recall)):
        m = two_batches(cls(), d["scores"], d["labels"])
        out[name] = m.eval().tolist()
        out[name + "_avg"] = float(m.eval(average=True))
        m = two_batches(cls("multilabel"), d["ml_pred"], d["ml_true"])
        out[name + "_ml"] = m.eval().tolist()
        out[name + "_ml_avg"] = float(m.eval(average=True))
    f1 = two_batches(t.F1(), d["scores"], d["labels"])
    out["f1"], out["f1_avg"] = f1.eval().tolist(), float(f1.eval(average=True))
    fb = two_batches(t.Fbeta(0.5), d["scores"], d["labels"])
    out["fbeta"] = fb.eval().tolist()
    onehot = t.Precision()
    onehot.update(ms.Tensor(d["scores"][1]), ms.Tensor(d["one_hot"]))
    out["precision_one_hot"] = onehot.eval().tolist()
    for k in (1, 2, 3):
        out[f"top{k}"] = float(two_batches(t.TopKCategoricalAccuracy(k), d["scores"], d["labels"]).eval())
    out["top5_small"] = float(two_batches(t.Top1CategoricalAccuracy(), d["scores"], d["labels"]).eval())
    out["mae"] = float(two_batches(t.MAE(), d["reg_pred"], d["reg_true"]).eval())
    out["mse"] = float(two_batches(t.MSE(), d["reg_pred"], d["reg_true"]).eval())
    for norm in ("no_norm", "target", "prediction", "all"):
        cm = two_batches(t.ConfusionMatrix(4, normalize=norm), d["scores"], d["labels"])
        out[f"confusion_{norm}"] = cm.eval().tolist()
    cm = t.ConfusionMatrix(2, threshold=0.5)
    cm.update(ms.Tensor(d["bin_scores"]), ms.Tensor(d["bin_labels"]))
    out["confusion_threshold"] = cm.eval().tolist()
    roc = t.ROC(pos_label=1)
    roc.update(ms.Tensor(d["bin_scores"]), ms.Tensor(d["bin_labels"]))
    fpr, tpr, thr = roc.eval()
    out["roc"] = [fpr.tolist(), tpr.tolist(), thr.tolist()]
    out["auc"] = float(t.auc(fpr, tpr))
    roc_mc = t.ROC(class_num=4)
    roc_mc.update(ms.Tensor(d["scores"][0]), ms.Tensor(d["labels"][0]))
    fprs, tprs, thrs = roc_mc.eval()
    out["roc_multiclass"] = [[f.tolist() for f in fprs], [r.tolist() for r in tprs], [h.tolist() for h in thrs]]
    out["auc_decreasing"] = float(t.auc(np.array([3.0, 2.0, 0.5]), np.array([1.0, 0.5, 0.25])))
    idx = t.Accuracy().set_indexes([1, 2])
    idx.update(ms.Tensor(np.zeros(3, np.float32)), ms.Tensor(d["scores"][0]), ms.Tensor(d["labels"][0]))
    out["accuracy_indexes"] = float(idx.eval())
    return out


def fit_data() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(11)
    x = rng.standard_normal((16, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0.5).astype(np.int32)
    w = (rng.standard_normal((3, 4)) * 0.1).astype(np.float32)
    return x, y, w


def run_fit(ms) -> dict:
    """A fit with History, EarlyStopping, ReduceLROnPlateau and a LambdaCallback; returns what they saw."""
    nn, t = ms.nn, ms.train
    x, y, w = fit_data()
    net = nn.Dense(4, 3, weight_init=ms.Tensor(w), bias_init="zeros")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.5, momentum=0.9)
    model = t.Model(net, loss, opt, metrics={"accuracy": t.Accuracy(), "f1": t.F1()})
    train = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    valid = ms.dataset.NumpySlicesDataset({"x": x[:8], "y": y[:8]}, shuffle=False).batch(4)
    seen: dict = {"eval_results": [], "lr": [], "eval_hooks": 0}

    def on_epoch_end(run_context):
        cb = run_context.original_args()
        results = cb.get("eval_results")
        seen["eval_results"].append(None if results is None else
                                    {k: (np.asarray(v).tolist()) for k, v in results.items()})
        seen["lr"].append(float(opt.learning_rate.asnumpy()))

    def on_eval_end(run_context):
        seen["eval_hooks"] += 1

    history = t.History()
    stop = t.EarlyStopping(monitor="accuracy", patience=2, min_delta=0.0, mode="max")
    plateau = t.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=10.0)
    hooks = t.LambdaCallback(on_train_epoch_end=on_epoch_end, on_eval_end=on_eval_end)
    model.fit(8, train, valid, valid_frequency=[1, 2, 3, 5, 6, 7, 8], callbacks=[history, stop, plateau, hooks])
    seen["history"] = {k: [np.asarray(v).tolist() for v in vs] for k, vs in history.history.items()}
    seen["epochs"] = history.epoch["epoch"]
    seen["stopped_epoch"] = int(stop.stopped_epoch)
    seen["weight"] = net.weight.asnumpy().tolist()
    return seen
