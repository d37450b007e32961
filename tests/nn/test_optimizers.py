"""nn optimizers and training wrappers: MindSpore's update rules against NumPy over several steps (learning
rate as a float, a list and CosineDecayLR; groups and order_params; the beta/gamma decay filter), a small MLP
trained by TrainOneStepCell (one graph) and by an @jit train step against a NumPy MLP, and the cache."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opbuild as ms
from opbuild import Parameter, Tensor, nn
from tests.conftest import REPO

RNG = np.random.default_rng(3)


def _params():
    return [Parameter(RNG.normal(size=(3, 2)).astype(np.float32), name="fc.weight"),
            Parameter(RNG.normal(size=(3,)).astype(np.float32), name="norm.gamma")]


def _grads(params, steps=3):
    return [[RNG.normal(size=p.shape).astype(np.float32) for p in params] for _ in range(steps)]


def test_momentum_list_lr_weight_decay_filter_and_names(mode):
    params = _params()
    start = [p.asnumpy().astype(np.float64) for p in params]
    lrs = [0.1, 0.05, 0.01]
    opt = nn.Momentum(params, lrs, 0.9, weight_decay=0.1, loss_scale=2.0)
    names = [n for n, _ in opt.parameters_and_names()]
    assert "moments.fc.weight" in names and "moments.norm.gamma" in names and "global_step" in names
    steps = _grads(params, 4)
    for gs in steps:
        opt(tuple(Tensor(g) for g in gs))
    assert opt.global_step.asnumpy().tolist() == [4]
    for k, p in enumerate(params):
        v, a = start[k], np.zeros_like(start[k])
        decay = 0.1 if "gamma" not in p.name else 0.0  # MindSpore's default filter
        for t, gs in enumerate(steps):
            g = (gs[k] + decay * 2.0 * v) / 2.0
            a = a * 0.9 + g
            v = v - lrs[min(t, 2)] * a  # past the list the last rate stays
        np.testing.assert_allclose(p.asnumpy(), v, rtol=1e-5, atol=1e-6)


def test_adam_with_cosine_decay_matches_numpy(mode):
    params = _params()
    start = [p.asnumpy().astype(np.float64) for p in params]
    sched = nn.CosineDecayLR(0.001, 0.01, 2)
    opt = nn.Adam(params, learning_rate=sched, weight_decay=0.0)
    assert [n for n, _ in opt.parameters_and_names() if n.startswith("moment1")] == ["moment1.fc.weight",
                                                                                     "moment1.norm.gamma"]
    steps = _grads(params, 3)
    for gs in steps:
        opt(tuple(Tensor(g) for g in gs))
    np.testing.assert_allclose(opt.beta1_power.asnumpy(), [0.9 ** 3], rtol=1e-6)
    for k, p in enumerate(params):
        v, m, s = start[k], 0.0, 0.0
        for t, gs in enumerate(steps):
            lr = 0.001 + 0.5 * (0.01 - 0.001) * (1 + math.cos(math.pi * min(t, 2) / 2))
            g = gs[k]
            lr_t = lr * np.sqrt(1 - 0.999 ** (t + 1)) / (1 - 0.9 ** (t + 1))
            m = m + (g - m) * 0.1
            s = s + (g * g - s) * 0.001
            v = v - lr_t * m / (1e-8 + np.sqrt(s))
        np.testing.assert_allclose(p.asnumpy(), v, rtol=1e-4, atol=1e-6)


def test_sgd_and_adamweightdecay_groups_order_params(mode):
    params = _params()
    start = [p.asnumpy().astype(np.float64) for p in params]
    w, gamma = params
    groups = [{"params": [gamma], "lr": 0.5, "weight_decay": 0.2}, {"params": [w]}, {"order_params": [w, gamma]}]
    opt = nn.AdamWeightDecay(groups, learning_rate=0.01, weight_decay=0.0)
    assert list(opt.parameters) == [w, gamma]
    assert opt.group_weight_decay == (0.0, 0.2)
    steps = _grads(params, 3)
    for gs in steps:
        opt(tuple(Tensor(g) for g in gs))
    for k, (lr, wd) in enumerate([(0.01, 0.0), (0.5, 0.2)]):
        v, m, s = start[k], 0.0, 0.0
        for gs in steps:
            g = gs[k]
            m = 0.9 * m + 0.1 * g
            s = 0.999 * s + 0.001 * g * g
            v = v - lr * (m / (np.sqrt(s) + 1e-6) + wd * v)
        np.testing.assert_allclose(params[k].asnumpy(), v, rtol=1e-4, atol=1e-6)


def test_optimizer_errors():
    p = _params()
    with pytest.raises(ValueError, match="empty"):
        nn.Momentum([], 0.1, 0.9)
    with pytest.raises(ValueError, match="momentum must be >= 0"):
        nn.Momentum(p, 0.1, -1.0)
    with pytest.raises(ValueError, match="nesterov needs momentum"):
        nn.SGD(p, nesterov=True)
    with pytest.raises(ValueError, match="two groups"):
        nn.SGD([{"params": p}, {"params": p[:1]}])
    with pytest.raises(ValueError, match="order_params"):
        nn.SGD([{"params": p[:1]}, {"order_params": p}])
    with pytest.raises(TypeError, match="learning_rate"):
        nn.Adam(p, learning_rate="0.1")
    with pytest.raises(ValueError, match="2 gradients for 2|got 1 gradients"):
        nn.Momentum(p, 0.1, 0.9)((Tensor(np.ones((3, 2), np.float32)),))


# ---- a small MLP trained end to end ----------------------------------------------------------------------

class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 1)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class MSE(nn.Cell):
    def construct(self, pred, label):
        d = pred - label
        return (d * d).mean()


def _numpy_grads(ws, x, y):
    """Loss and gradients of mean((fc2(relu(fc1(x))) - y)^2), Dense weights (out, in) as MindSpore's."""
    w1, b1, w2, b2 = ws
    h = x @ w1.T + b1
    r = np.maximum(h, 0)
    p = r @ w2.T + b2
    d = 2 * (p - y) / p.size
    gw2, gb2 = d.T @ r, d.sum(0)
    dh = (d @ w2) * (h > 0)
    return float(((p - y) ** 2).mean()), [dh.T @ x, dh.sum(0), gw2, gb2]


def _data():
    rng = np.random.default_rng(11)
    return rng.normal(size=(16, 4)).astype(np.float32), rng.normal(size=(16, 1)).astype(np.float32)


@pytest.mark.parametrize("kind", ["momentum", "adam"])
def test_train_one_step_cell_matches_numpy_mlp(graph_mode, kind):
    ms.set_seed(1)
    net = MLP()
    x, y = _data()
    ws = [p.asnumpy().astype(np.float64) for p in net.trainable_params()]
    opt = (nn.Momentum(net.trainable_params(), 0.1, 0.9) if kind == "momentum"
           else nn.Adam(net.trainable_params(), learning_rate=0.01))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, MSE()), opt)
    assert [p.name for p in net.trainable_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    state = [np.zeros_like(w) for w in ws], [np.zeros_like(w) for w in ws]
    losses = []
    for t in range(1, 4):
        loss = float(step(Tensor(x), Tensor(y)).asnumpy())
        ref_loss, gs = _numpy_grads(ws, x, y)
        assert loss == pytest.approx(ref_loss, rel=1e-4)
        losses.append(loss)
        for k, g in enumerate(gs):
            if kind == "momentum":
                state[0][k] = state[0][k] * 0.9 + g
                ws[k] = ws[k] - 0.1 * state[0][k]
            else:
                state[0][k] += (g - state[0][k]) * 0.1
                state[1][k] += (g * g - state[1][k]) * 0.001
                lr_t = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
                ws[k] = ws[k] - lr_t * state[0][k] / (1e-8 + np.sqrt(state[1][k]))
        for p, w in zip(net.trainable_params(), ws):
            np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-4, atol=1e-5)
    for _ in range(20):
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
    assert losses[-1] < 0.7 * losses[0]
    (graph,) = step.compile_info()
    ops_in_graph = [n.op for n in graph.graph.nodes]
    # the ops fused into other kernels too (ReluGrad is the epilogue of the MatMul computing its input)
    members = [m["op"] for n in graph.graph.nodes for m in n.attrs.get("members", [])]
    # one graph: forward, backward and the four fused updates
    assert "MatMul" in ops_in_graph and "ReluGrad" in ops_in_graph + members
    assert ops_in_graph.count("ApplyMomentum" if kind == "momentum" else "Adam") == 4


def test_jit_train_step_equals_train_one_step_cell(graph_mode):
    x, y = _data()
    results = []
    for use_jit in (False, True):
        ms.set_seed(5)
        net = MLP()
        loss_net = nn.WithLossCell(net, MSE())
        opt = nn.SGD(net.trainable_params(), 0.05, momentum=0.9)
        if use_jit:
            grad_fn = ms.value_and_grad(loss_net, None, opt.parameters)

            @ms.jit
            def train_step(data, label):
                loss, grads = grad_fn(data, label)  # noqa: B023 (called within this iteration)
                opt(grads)  # noqa: B023
                return loss

            step = train_step
        else:
            step = nn.TrainOneStepCell(loss_net, opt)
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
        results.append((losses, [p.asnumpy().copy() for p in net.trainable_params()]))
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-6)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert len(train_step._graphs) == 1


def test_train_step_lowers_the_loss_in_both_modes(mode):
    ms.set_seed(5)
    net = MLP()
    x, y = _data()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, MSE()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
    ws = [p.asnumpy().astype(np.float64) for p in net.trainable_params()]
    assert losses[2] < losses[0] and all(np.isfinite(w).all() for w in ws)


# ---- the cache -------------------------------------------------------------------------------------------

_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import opbuild as ms, opbuild.nn as nn
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1, self.relu, self.fc2 = nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 1)
        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))
    class MSE(nn.Cell):
        def construct(self, p, y):
            d = p - y
            return (d * d).mean()
    net = MLP()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9) if sys.argv[1] == "momentum" else \\
        nn.Adam(net.trainable_params(), 0.01)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, MSE()), opt)
    x, y = ms.Tensor(np.ones((5, 4), np.float32)), ms.Tensor(np.zeros((5, 1), np.float32))
    loss = float(step(x, y).asnumpy())
    r = ms.build_report()
    print(json.dumps({"built": r.built, "reused": r.reused, "loss": loss,
                      "kernels": sorted({k.op for k in r.kernels if k.status == "built"})}))
""")


def _run(tmp_path, which):
    env = {**os.environ, "OPBUILD_CACHE_PATH": str(tmp_path), "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run([sys.executable, "-c", _SCRIPT, which], env=env, capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_cache_second_process_builds_nothing_and_new_optimizer_builds_only_its_updates(tmp_path):
    first = _run(tmp_path, "momentum")
    assert first["built"] > 0 and "ApplyMomentum" in first["kernels"]
    second = _run(tmp_path, "momentum")
    assert second["built"] == 0 and second["reused"] == first["built"] + first["reused"]
    assert second["loss"] == first["loss"]
    adam = _run(tmp_path, "adam")
    # forward and backward kernels are reused; only Adam's update (and its beta-power Mul/Assign) are new
    assert set(adam["kernels"]) <= {"Adam", "Mul", "Assign"} and "Adam" in adam["kernels"]
    assert adam["reused"] > 0
