"""Device-resident Parameters on the emulated GPU (runtime/device_mirrors.py, core/host_writes.py's owners): a
train step leaves the updated weights and optimizer state on the device and downloads only its outputs; every
host read (asnumpy, printing, checkpoints, PyNative ops, a CPU graph) sees the trained values, equal to the CPU
target's run; graphs sharing Parameters take them from each other on the device; host writes between steps
are uploaded; a dropped graph hands what it owns to the host; OPBUILD_GPU_WRITEBACK=1 restores the copy-back
after every call. Byte counts are the emulated driver's (what a GPU's bus would carry)."""

from __future__ import annotations

import functools
import gc
import pickle

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops
from opbuild.core import config, host_writes
from opbuild.core.errors import ConfigError

from .gpu_nets import Net, Predict, data, weights

TOL = {"rtol": 1e-4, "atol": 1e-6}
LOSS_BYTES = 4  # a float32 scalar
# The status words (flag, value, position) of the net's one kernel that can meet an index out of range (its
# Gather), downloaded with the outputs of every call of a graph holding it (runtime/device_graph.py).
STATUS_BYTES = 3 * 8
INPUT_BYTES = 6 * 10 * 4 + 6 * 8  # y float32[6, 10], idx int64[6]


def on(target: str, fn):
    ms.set_device(target)
    try:
        return fn()
    finally:
        ms.set_device("GPU")


def momentum_step(net: Net) -> nn.TrainOneStepCell:
    return nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))


def delta(gpu, before: dict[str, int]) -> dict[str, int]:
    now = gpu.transferred()
    return {k: now[k] - before[k] for k in now}


@functools.cache
def cpu_trained(steps: int) -> dict[str, np.ndarray]:
    """The Parameters (weights and moments) after ``steps`` Momentum steps on the CPU target."""
    def run():
        mode = ms.get_context("mode")
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            net = Net(weights())
            step = momentum_step(net)
            y, idx = data()
            losses = [float(step(y, idx).asnumpy()) for _ in range(steps)]
            out = {p.name: p.asnumpy().copy() for p in step.get_parameters()}
            out["losses"] = np.array(losses)
            return out
        finally:
            ms.set_context(mode=mode)
    return on("CPU", run)


def trained_on_gpu(steps: int):
    net = Net(weights())
    step = momentum_step(net)
    y, idx = data()
    losses = [float(step(y, idx).asnumpy()) for _ in range(steps)]
    return net, step, losses


def test_momentum_steps_download_only_the_loss(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, step, _ = trained_on_gpu(1)  # the first call compiles and uploads every Parameter once
    y, idx = data()
    for _ in range(3):
        before = gpu.transferred()
        step(y, idx)
        assert delta(gpu, before) == {"up": INPUT_BYTES, "down": LOSS_BYTES + STATUS_BYTES, "dtod": 0}
    assert host_writes.owner(net.w1._data) is not None  # the newest w1 is on the device
    want = cpu_trained(4)
    assert not np.allclose(net.w1._data, want["w1"], **TOL)  # the host array is behind ...
    assert np.allclose(net.w1.asnumpy(), want["w1"], **TOL)  # ... until it is read


def test_write_back_switch_restores_the_copy_back_after_every_call(gpu, monkeypatch):
    monkeypatch.setenv("OPBUILD_GPU_WRITEBACK", "1")
    ms.set_context(mode=ms.GRAPH_MODE)
    net, step, _ = trained_on_gpu(1)
    updated = sum(p._data.nbytes for p in step.get_parameters() if p.name in ("w1", "w2", "moments.w1", "moments.w2"))
    y, idx = data()
    before = gpu.transferred()
    step(y, idx)
    assert delta(gpu, before) == {"up": INPUT_BYTES, "down": LOSS_BYTES + STATUS_BYTES + updated, "dtod": 0}
    assert all(host_writes.owner(p._data) is None for p in step.get_parameters())  # the host holds everything
    assert np.allclose(net.w1._data, cpu_trained(2)["w1"], **TOL)
    monkeypatch.setenv("OPBUILD_GPU_WRITEBACK", "sometimes")
    with pytest.raises(ConfigError, match="OPBUILD_GPU_WRITEBACK='sometimes' is not a boolean"):
        config.gpu_writeback()


def _read_paths(tmp_path):
    """name -> read of a trained TrainOneStepCell's Parameters that returns {name: array}."""
    def ckpt(step):
        path = str(tmp_path / "trained.ckpt")
        ms.save_checkpoint(step, path)
        return {k: v.asnumpy() for k, v in ms.load_checkpoint(path).items()}

    def cpu_graph(step):
        class Read(nn.Cell):
            def __init__(self, params):
                super().__init__()
                self.params = ms.ParameterTuple(params)

            def construct(self):
                return tuple(p * 1.0 for p in self.params)

        params = list(step.get_parameters())
        out = on("CPU", lambda: Read(params)())
        return {p.name: o.asnumpy() for p, o in zip(params, out)}

    return {
        "asnumpy": lambda step: {p.name: p.asnumpy() for p in step.get_parameters()},
        "checkpoint": ckpt,
        "parameters_dict": lambda step: {n: p.value().asnumpy() for n, p in step.parameters_dict().items()},
        "pickle": lambda step: {p.name: pickle.loads(pickle.dumps(p)).asnumpy() for p in step.get_parameters()},
        "pynative op": lambda step: {p.name: (p * 1).asnumpy() for p in step.get_parameters()},
        "cpu graph": cpu_graph,
        "clone": lambda step: {p.name: p.clone().asnumpy() for p in step.get_parameters()},
    }


@pytest.mark.parametrize("path", ["asnumpy", "checkpoint", "parameters_dict", "pickle", "pynative op", "cpu graph",
                                  "clone"])
def test_every_host_read_after_steps_sees_the_trained_values(gpu, tmp_path, path):
    ms.set_context(mode=ms.GRAPH_MODE)
    _, step, losses = trained_on_gpu(3)
    want = cpu_trained(3)
    assert np.allclose(losses, want["losses"], rtol=1e-5)
    assert host_writes.owner(step.network.w1._data) is not None  # the updated weights and moments are on the device
    ms.set_context(mode=ms.PYNATIVE_MODE)
    got = _read_paths(tmp_path)[path](step)
    assert {"w1", "w2", "moments.w1", "moments.w2"} <= set(got)
    for name, value in got.items():
        assert np.allclose(value, want[name], **TOL), name


def test_printing_a_trained_parameter_shows_the_device_values(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net(weights())
    step = momentum_step(net)
    y, idx = data()
    step(y, idx)
    step(y, idx)
    stale = str(ms.Tensor(net.w2._data))  # the host array's bytes, two steps behind
    version = host_writes.version(net.w2._data)
    text = str(net.w2.value())
    assert host_writes.version(net.w2._data) == version  # read, not written
    assert text != stale and text == str(ms.Tensor(net.w2.asnumpy()))
    assert np.allclose(net.w2.asnumpy(), cpu_trained(2)["w2"], **TOL)
    w1 = net.w1.value()  # read without writing: the device copy stays current, nothing is uploaded again
    before = gpu.transferred()
    step(y, idx)
    assert delta(gpu, before)["up"] == INPUT_BYTES + net.w2._data.nbytes  # w2's asnumpy above, not w1's value()
    assert np.allclose(w1.asnumpy(), cpu_trained(2)["w1"], **TOL)


def test_a_train_graph_and_an_eval_graph_share_parameters_on_the_device(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net(weights())
    step, predict = momentum_step(net), Predict(net)
    y, idx = data()
    step(y, idx)  # the first call traces (reading every Parameter with asnumpy), then runs
    predict(idx)
    step(y, idx)
    before = gpu.transferred()
    logits = predict(idx).asnumpy()  # its mirrors of w1, w2 are stale: taken from the train graph's
    moved = delta(gpu, before)
    assert moved == {"up": 6 * 8, "down": logits.nbytes + STATUS_BYTES,
                     "dtod": net.w1._data.nbytes + net.w2._data.nbytes}
    want = cpu_trained(2)
    cpu_logits = on("CPU", lambda: Predict(Net({"emb": weights()["emb"], "w1": want["w1"],
                                                "w2": want["w2"]}))(idx).asnumpy())
    assert np.allclose(logits, cpu_logits, **TOL)
    before = gpu.transferred()
    step(y, idx)  # the train graph still owns them: nothing moves but its inputs and the loss
    assert delta(gpu, before) == {"up": INPUT_BYTES, "down": LOSS_BYTES + STATUS_BYTES, "dtod": 0}
    assert np.allclose(net.w1.asnumpy(), cpu_trained(3)["w1"], **TOL)


def test_pynative_ops_after_a_graph_step_see_the_new_values(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, step, _ = trained_on_gpu(2)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    launches = gpu.launches
    doubled = (net.w1 * 2.0).asnumpy()  # a PyNative op on the GPU
    assert gpu.launches == launches + 1
    assert np.allclose(doubled, 2 * cpu_trained(2)["w1"], **TOL)
    ops.assign(net.w2, ms.Tensor(np.zeros((32, 10), np.float32)))  # a PyNative in-place op on the device
    ms.set_context(mode=ms.GRAPH_MODE)
    before = gpu.transferred()
    step(*data())
    assert delta(gpu, before)["up"] == INPUT_BYTES + net.w2._data.nbytes  # the host write is uploaded
    w2 = net.w2.asnumpy()
    moments = {p.name: p for p in step.get_parameters()}["moments.w2"].asnumpy()
    assert np.allclose(w2, -0.1 * moments, **TOL)  # updated from zeros: w2 = 0 - lr * moment


@pytest.mark.parametrize("write", ["set_data", "asnumpy", "assign_value", "setitem", "load_param_into_net",
                                   "load_checkpoint"])
def test_a_host_write_between_steps_is_uploaded(gpu, write, tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, step, _ = trained_on_gpu(2)
    new = np.full((16, 32), 0.01, np.float32)
    if write == "set_data":
        net.w1.set_data(new.copy())
    elif write == "asnumpy":
        net.w1.asnumpy()[...] = new
    elif write == "assign_value":
        net.w1.assign_value(new)
    elif write == "setitem":
        ms.set_context(mode=ms.PYNATIVE_MODE)
        net.w1[:] = ms.Tensor(new)
        ms.set_context(mode=ms.GRAPH_MODE)
    elif write == "load_param_into_net":
        with pytest.warns(UserWarning, match="keep their values"):
            ms.load_param_into_net(net, {"w1": ms.Parameter(ms.Tensor(new), name="w1")})
    else:
        path = str(tmp_path / "w1.ckpt")
        ms.save_checkpoint([{"name": "w1", "data": ms.Tensor(new)}], path)
        with pytest.warns(UserWarning, match="keep their values"):
            ms.load_checkpoint(path, net)
    before = gpu.transferred()
    step(*data())
    assert delta(gpu, before)["up"] == INPUT_BYTES + new.nbytes

    def reference():  # the CPU: two steps, the same write, one more step
        ms.set_context(mode=ms.GRAPH_MODE)
        cpu_net = Net(weights())
        cpu_step = momentum_step(cpu_net)
        cpu_step(*data())
        cpu_step(*data())
        cpu_net.w1.set_data(new.copy())
        cpu_step(*data())
        return cpu_net.w1.asnumpy().copy()

    assert np.allclose(net.w1.asnumpy(), on("CPU", reference), **TOL)


def test_set_data_of_the_held_array_wins_over_the_device_copy(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    net, step, _ = trained_on_gpu(1)
    held = net.w1.asnumpy()  # downloaded, handed out
    step(*data())  # the device owns w1 again
    held[...] = 0.5  # the caller refills the array it held and sets it
    net.w1.set_data(held)
    assert np.all(net.w1.asnumpy() == 0.5)  # not overwritten by the device's bytes


def test_a_graph_dropped_while_owning_data_hands_it_to_the_host(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net(weights())
    step = momentum_step(net)
    step(*data())
    step(*data())
    moments = {p.name: p for p in step.get_parameters()}["moments.w1"]
    assert host_writes.owner(net.w1._data) is not None
    live = gpu.live_bytes()
    del step
    gc.collect()
    assert gpu.live_bytes() < live  # the train graph's memory is freed ...
    assert host_writes.owner(net.w1._data) is None and host_writes.owner(moments._data) is None
    want = cpu_trained(2)
    assert np.allclose(net.w1._data, want["w1"], **TOL)  # ... after its bytes reached the host
    assert np.allclose(moments._data, want["moments.w1"], **TOL)


def test_a_failed_call_keeps_the_device_update_as_the_cpu_does(gpu, monkeypatch):
    """A host node raising after an in-place update: the update stands (the CPU's in-place kernels ran too)."""
    fail = []

    def check(a):
        if fail:
            raise RuntimeError("the host node failed")
        return a

    class Step(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(ms.Tensor(np.ones(4, np.float32)), name="p")
            self.check = ops.Custom(check, out_shape=(4,), out_dtype=ms.float32, func_type="pyfunc")

        def construct(self, x):
            ops.assign(self.p, self.p + x)
            return self.check(self.p)

    def run():
        ms.set_context(mode=ms.GRAPH_MODE)
        step, x = Step(), ms.Tensor(np.full(4, 2.0, np.float32))
        first = step(x).asnumpy()
        fail.append(True)
        with pytest.raises(RuntimeError, match="the host node failed"):
            step(x)
        fail.clear()
        return first, step.p.asnumpy().copy(), step(x).asnumpy(), step.p.asnumpy().copy()

    got = run()
    want = on("CPU", run)
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g, w)


class _OtherDevice:
    """The same device memory seen as another device's (another object): copies between them go through the
    host."""

    def __init__(self, dev):
        self._dev = dev

    def __getattr__(self, name):
        return getattr(self._dev, name)


def test_a_mirror_on_another_device_is_refreshed_through_the_host(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net(weights())
    step, predict = momentum_step(net), Predict(net)
    y, idx = data()
    step(y, idx)
    predict(idx)
    step(y, idx)
    owner, _ = host_writes.owner(net.w1._data)
    owner.dev = _OtherDevice(owner.dev)
    before = gpu.transferred()
    logits = predict(idx).asnumpy()
    weights_bytes = net.w1._data.nbytes + net.w2._data.nbytes
    assert delta(gpu, before) == {"up": 6 * 8 + weights_bytes, "down": logits.nbytes + STATUS_BYTES + weights_bytes,
                                  "dtod": 0}
    assert host_writes.owner(net.w1._data) is None  # fetched: the host holds the newest bytes again
    assert np.allclose(net.w1._data, cpu_trained(2)["w1"], **TOL)


def test_a_pynative_optimizer_step_after_graph_steps_equals_the_cpu(gpu):
    """Two GRAPH_MODE Momentum steps leave weights and moments on the device; a PYNATIVE_MODE step of the same
    TrainOneStepCell (gradients compiled, ApplyMomentum run eagerly on the updated inputs' host arrays) starts
    from them."""
    def run():
        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net(weights())
        step = momentum_step(net)
        y, idx = data()
        step(y, idx)
        step(y, idx)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        step(y, idx)
        ms.set_context(mode=ms.GRAPH_MODE)
        step(y, idx)
        return {p.name: p.asnumpy().copy() for p in step.get_parameters()}

    got, want = run(), on("CPU", run)
    for name in ("w1", "w2", "moments.w1", "moments.w2"):
        assert np.allclose(got[name], want[name], **TOL), name


def test_a_host_node_reading_a_parameter_its_graph_owns_sees_the_update_as_on_the_cpu(gpu):
    """A pyfunc node of the graph that owns a Parameter's newest bytes reads that Parameter mid-call: the
    download runs under the graph's own (re-entrant) lock, after the kernels queued before it."""
    seen: list[np.ndarray] = []
    holder: dict = {}

    def peek(a):
        seen.append(holder["p"].asnumpy().copy())
        return a

    class Step(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(ms.Tensor(np.ones(4, np.float32)), name="p")
            self.peek = ops.Custom(peek, out_shape=(4,), out_dtype=ms.float32, func_type="pyfunc")

        def construct(self, x):
            ops.assign(self.p, self.p * x)
            return self.peek(x)

    def run():
        ms.set_context(mode=ms.GRAPH_MODE)
        seen.clear()
        step = Step()
        holder["p"] = step.p
        x = ms.Tensor(np.full(4, 2.0, np.float32))
        for _ in range(3):
            step(x)
        return [*seen[-3:], step.p.asnumpy().copy()]

    got = run()
    want = on("CPU", run)
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
    assert got[-1].tolist() == [8.0] * 4
