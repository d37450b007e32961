"""The autodiff pass and the gradient API: MindSpore's return conventions, Cells with Parameters, a small
MLP and CNN against finite differences, and the build cache (a second process builds nothing; forward
kernels are shared by inference and training)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.core.trace import trace
from opbuild.passes import Autodiff

REPO = Path(__file__).resolve().parents[2]


def t(a):
    return ms.Tensor(np.asarray(a, np.float64))


def f3(x, y, z):
    return x * y * z


X, Y, Z = t([1.0, 2.0]), t([-2.0, 3.0]), t([0.5, 4.0])


# ---- the pass on its own ---------------------------------------------------------------------------------

def test_pass_appends_gradients_after_outputs():
    graph, _ = trace(lambda x, y: ops.ReduceSum()(x * y), [X, Y])
    n_nodes = len(graph.nodes)
    Autodiff(positions=(0, 1)).run(graph)
    assert len(graph.outputs) == 3 and len(graph.nodes) > n_nodes
    assert graph.outputs[1].type == X._type and graph.outputs[2].type == Y._type


def test_accumulates_cotangents_of_a_value_used_twice(graph_mode):
    # d/dx (x * x + x) = 2x + 1: x reaches the output three times
    g = ms.grad(lambda x: ops.ReduceSum()(x * x + x))(X)
    np.testing.assert_allclose(g.asnumpy(), 2 * X.asnumpy() + 1)


def test_unreached_input_gets_zeros(graph_mode):
    gx, gy = ms.grad(lambda x, y: ops.ReduceSum()(x * 2.0), (0, 1))(X, Y)
    np.testing.assert_allclose(gx.asnumpy(), 2.0)
    np.testing.assert_array_equal(gy.asnumpy(), 0.0)


def test_integer_input_cannot_be_differentiated(graph_mode):
    with pytest.raises(Exception, match="only float tensors"):
        ms.grad(lambda x: x * 2)(ms.Tensor(np.array([1, 2], np.int32)))


# ---- return conventions ----------------------------------------------------------------------------------

def test_grad_position_int_and_tuple(mode):
    g = ms.grad(f3)(X, Y, Z)
    assert isinstance(g, ms.Tensor)
    np.testing.assert_allclose(g.asnumpy(), (Y.asnumpy() * Z.asnumpy()))
    gs = ms.grad(f3, grad_position=(1, 2))(X, Y, Z)
    assert isinstance(gs, tuple) and len(gs) == 2
    np.testing.assert_allclose(gs[0].asnumpy(), X.asnumpy() * Z.asnumpy())
    np.testing.assert_allclose(gs[1].asnumpy(), X.asnumpy() * Y.asnumpy())
    one = ms.grad(f3, grad_position=(0,))(X, Y, Z)
    assert isinstance(one, tuple) and len(one) == 1


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(np.array([2.0, -1.0]), name="w")
        self.b = ms.Parameter(np.array([0.5, 0.5]), name="b")
        self.frozen = ms.Parameter(np.array([3.0, 3.0]), name="frozen", requires_grad=False)

    def construct(self, x):
        return x * self.w * self.frozen + self.b


def test_weights_only_both_and_single_parameter(mode):
    net = Scale()
    params = net.trainable_params()
    assert [p.name for p in params] == ["w", "b"]
    gw = ms.grad(net, grad_position=None, weights=params)(X)
    assert isinstance(gw, tuple) and len(gw) == 2
    np.testing.assert_allclose(gw[0].asnumpy(), X.asnumpy() * 3.0)
    np.testing.assert_allclose(gw[1].asnumpy(), 1.0)
    gx, gw2 = ms.grad(net, grad_position=0, weights=params)(X)
    np.testing.assert_allclose(gx.asnumpy(), net.w.asnumpy() * 3.0)
    np.testing.assert_allclose(gw2[1].asnumpy(), 1.0)
    single = ms.grad(net, grad_position=None, weights=net.b)(X)
    assert isinstance(single, ms.Tensor)
    with pytest.raises(ValueError, match="both be None"):
        ms.grad(net, grad_position=None, weights=None)


def test_has_aux_and_value_and_grad(mode):
    def fn(x, y, z):
        return x * ops.Exp()(y) * ops.Pow()(z, t(2.0)), z

    grads, aux = ms.grad(fn, grad_position=(1, 2), has_aux=True)(X, Y, Z)
    assert isinstance(aux, tuple) and len(aux) == 1
    np.testing.assert_allclose(aux[0].asnumpy(), Z.asnumpy())
    x, y, z = X.asnumpy(), Y.asnumpy(), Z.asnumpy()
    np.testing.assert_allclose(grads[0].asnumpy(), x * np.exp(y) * z ** 2)
    np.testing.assert_allclose(grads[1].asnumpy(), x * np.exp(y) * 2 * z)
    value, grads2 = ms.value_and_grad(fn, grad_position=(1, 2), has_aux=True)(X, Y, Z)
    assert isinstance(value, tuple) and len(value) == 2
    np.testing.assert_allclose(value[0].asnumpy(), x * np.exp(y) * z ** 2)
    np.testing.assert_allclose(grads2[1].asnumpy(), grads[1].asnumpy())
    # without has_aux, every output is differentiated (the gradient of their sum): z contributes 1
    g = ms.grad(fn, grad_position=2)(X, Y, Z)
    np.testing.assert_allclose(g.asnumpy(), x * np.exp(y) * 2 * z + 1)


def test_return_ids(graph_mode):
    net = Scale()
    (pos, gx), ((name, _), _) = ms.grad(net, 0, net.trainable_params(), return_ids=True)(X)
    assert pos == 0 and name == "w"


def test_grad_operation_forms(mode):
    net = Scale()
    np.testing.assert_allclose(ops.GradOperation()(net)(X).asnumpy(), net.w.asnumpy() * 3.0)
    assert len(ops.GradOperation(get_all=True)(f3)(X, Y, Z)) == 3
    w = ms.ParameterTuple(net.trainable_params())
    by_list = ops.GradOperation(get_by_list=True)(net, w)(X)
    assert isinstance(by_list, tuple) and len(by_list) == 2
    ins, ws = ops.GradOperation(get_all=True, get_by_list=True)(net, w)(X)
    assert len(ins) == 1 and len(ws) == 2
    sens = t([10.0, -1.0])
    g = ops.GradOperation(sens_param=True)(net)(X, sens)
    np.testing.assert_allclose(g.asnumpy(), net.w.asnumpy() * 3.0 * sens.asnumpy())


def test_compiled_once_per_signature(graph_mode):
    net = Scale()
    gfn = ms.grad(net, None, net.trainable_params())
    gfn(X)
    first = ms.build_report()
    gfn(t([3.0, 4.0]))  # same signature: no trace, no build (the last report is still the first call's)
    assert ms.build_report() is first
    gfn(t([[3.0, 4.0]]))  # a new shape: a second graph, compiled through the build
    assert ms.build_report() is not first
    net.w.set_data(np.array([5.0, 5.0]))  # parameters are read live, not baked into the graph
    np.testing.assert_allclose(ms.grad(net)(X).asnumpy(), 15.0)


# ---- small networks against finite differences --------------------------------------------------------------

def _fd_check(net, loss_fn, x, label, eps=1e-6, rtol=1e-4, atol=1e-6):
    params = net.trainable_params()
    loss = nn_with_loss(net, loss_fn)
    grads = ms.grad(loss, grad_position=None, weights=params)(x, label)
    for p, g in zip(params, grads, strict=True):
        data = p.asnumpy().copy()
        num = np.zeros_like(data)
        flat = list(np.ndindex(data.shape))
        for idx in flat[:: max(1, len(flat) // 12)]:  # a spread sample of each parameter's elements
            for sign in (1, -1):
                d = data.copy()
                d[idx] += sign * eps
                p.set_data(d)
                num[idx] += sign * float(loss(x, label).asnumpy()) / (2 * eps)
            p.set_data(data)
            np.testing.assert_allclose(g.asnumpy()[idx], num[idx], rtol=rtol, atol=atol, err_msg=f"{p.name}{idx}")


def nn_with_loss(net, loss_fn):
    class WithLoss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = net

        def construct(self, x, label):
            return loss_fn(self.net(x), label)

    return WithLoss()


def mse(out, label):
    d = out - label
    return ops.ReduceMean()(d * d)


def xent(logits, onehot):
    return ops.ReduceMean()(ops.Neg()(ops.ReduceSum()(ops.LogSoftmax()(logits) * onehot, -1)))


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 5)
        self.act = nn.ReLU()
        self.fc2 = nn.Dense(5, 3)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


def _float64(net):
    """The network's parameters in float64 (set_data keeps the dtype, so the array is replaced), for finite
    differences that are not float32 noise."""
    for p in net.get_parameters():
        p._data = p.asnumpy().astype(np.float64)
    return net


def test_mlp_gradients_match_finite_differences(graph_mode):
    ms.set_seed(1)
    net = _float64(MLP())
    assert [p.name for p in net.trainable_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    x = t(np.random.default_rng(0).normal(size=(6, 4)))
    onehot = t(np.eye(3)[[0, 1, 2, 0, 1, 2]])
    _fd_check(net, xent, x, onehot)


class CNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 3, 3, pad_mode="same", has_bias=True)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(3 * 3 * 3, 2)

    def construct(self, x):
        return self.fc(self.flatten(self.pool(self.relu(self.conv1(x)))))


def test_cnn_gradients_match_finite_differences(graph_mode):
    ms.set_seed(2)
    net = _float64(CNN())
    assert [p.name for p in net.trainable_params()] == ["conv1.weight", "conv1.bias", "fc.weight", "fc.bias"]
    x = t(np.random.default_rng(1).normal(size=(2, 2, 6, 6)))
    label = t(np.random.default_rng(2).normal(size=(2, 2)))
    _fd_check(net, mse, x, label)


# ---- the build cache --------------------------------------------------------------------------------------

_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import opbuild as ms, opbuild.nn as nn, opbuild.ops as ops
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 8)
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(8, 2)
        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))

    net = Net()
    x = ms.Tensor(np.ones((3, 4), np.float32))
    report = {}
    if "infer" in sys.argv:
        net(x)
        r = ms.build_report()
        report["infer"] = [r.built, r.reused]
    loss = lambda x: ops.ReduceSum()(net(x))
    g = ms.grad(loss, None, net.trainable_params())(x)
    r = ms.build_report()
    report["grad"] = [r.built, r.reused]
    report["g"] = [float(v.asnumpy().sum()) for v in g]
    print(json.dumps(report))
""")


def _run(tmp_path, *args):
    env = {**os.environ, "OPBUILD_CACHE_PATH": str(tmp_path), "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run([sys.executable, "-c", _SCRIPT, *args], env=env, capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _entries(tmp_path):
    return {p.stem for p in (tmp_path / "rank_0" / "kernel_meta").glob("*.info")}


def test_second_process_builds_nothing_and_forward_kernels_are_shared(tmp_path):
    first = _run(tmp_path, "infer")
    n_forward = first["infer"][0]
    assert n_forward > 0 and first["infer"][1] == 0
    # the train graph reuses every forward kernel inference built, and builds only the backward ones
    built, reused = first["grad"]
    assert reused >= n_forward and built > 0
    entries = _entries(tmp_path)
    assert len(entries) == n_forward + built
    second = _run(tmp_path)
    assert second["grad"] == [0, built + reused]
    assert second["g"] == first["g"]
    assert _entries(tmp_path) == entries
