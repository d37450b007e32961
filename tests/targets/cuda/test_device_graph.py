"""The GPU executor on the emulated device (emulated_device.py: the driver on host memory, the kernels the
NVRTC programs compiled by g++): PyNative ops, GRAPH_MODE forward and gradients equal the CPU target's;
Parameters changed on the host between calls are seen; in-place updates made on the device reach the host;
device memory is freed with its graph; without a GPU the run is a one-line error."""

from __future__ import annotations

import gc
import re

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops
from opbuild.core import host_writes
from opbuild.core.ir import Graph, TensorType, Value
from opbuild.ops.registry import get as get_op
from opbuild.runtime import session as session_module
from opbuild.runtime.device_graph import DeviceGraph
from opbuild.runtime.session import session
from opbuild.targets.cuda import device
from opbuild.targets.cuda.errors import CudaUnavailableError

from .conftest import nvrtc_missing
from .gpu_nets import Grads, Net, Predict, SGDStep, data, train_momentum, weights

F32 = {"rtol": 1e-5, "atol": 1e-6}


def on(target: str, fn):
    """``fn()`` with ``device_target`` set to ``target``; the GPU is restored afterwards."""
    ms.set_device(target)
    try:
        return fn()
    finally:
        ms.set_device("GPU")


def arrays(out) -> list[np.ndarray]:
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [o.asnumpy() for o in outs]


def test_pynative_ops_on_the_gpu_equal_the_cpu(gpu):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((5, 33)).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((33, 7)).astype(np.float32))
    b = ms.Tensor(rng.standard_normal((33,)).astype(np.float32))
    i = ms.Tensor(rng.integers(-50, 50, (4, 9)).astype(np.int32))
    idx = ms.Tensor(np.array([4, 0, 2, 2], np.int64))
    calls = [lambda: ops.exp(x), lambda: x + b, lambda: ops.matmul(x, w), lambda: ops.softmax(x, axis=-1),
             lambda: ops.mean(x, 1), lambda: ops.sum(x, 0), lambda: ops.transpose(x, (1, 0)),
             lambda: ops.gather(x, idx, 0), lambda: i // 7, lambda: ops.maximum(i, 3), lambda: x > 0.5]
    launches = gpu.launches
    for call in calls:
        got, want = arrays(call()), arrays(on("CPU", call))
        for g, c in zip(got, want, strict=True):
            assert g.dtype == c.dtype and g.shape == c.shape
            assert np.allclose(g, c, rtol=1e-4, atol=1e-5) if g.dtype.kind == "f" else np.array_equal(g, c)
    assert gpu.launches - launches == len(calls)  # each ran on the (emulated) device


def test_pynative_in_place_op_updates_the_host_array(gpu, monkeypatch):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    p = ms.Parameter(ms.Tensor(np.zeros((3, 5), np.float32)), name="p")
    held = p._data
    ops.assign(p, ms.Tensor(np.full((3, 5), 2.5, np.float32)))
    assert p._data is held and np.all(p.asnumpy() == 2.5)


def test_pynative_gradients_on_the_gpu_equal_the_cpu(gpu):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))

    def grads():
        return ms.grad(lambda t: ops.sum(ops.softmax(t * t, axis=-1) * ops.exp(t)))(x).asnumpy()

    launches = gpu.launches
    got = grads()
    assert gpu.launches > launches
    assert np.allclose(got, on("CPU", grads), rtol=1e-4, atol=1e-6)


def _forward_and_grads():
    net = Net(weights())
    y, idx = data()
    return arrays(net(y, idx)) + arrays(Grads(net)(y, idx))


def test_graph_mode_forward_and_gradients_equal_the_cpu(gpu, monkeypatch):
    ms.set_context(mode=ms.GRAPH_MODE)
    made: list[DeviceGraph] = []

    class Recorded(DeviceGraph):
        def __init__(self, *args):
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(session_module, "DeviceGraph", Recorded)
    launches = gpu.launches
    got = _forward_and_grads()
    assert len(made) == 2 and gpu.launches - launches >= 10  # the forward and the gradient graph, on the GPU
    want = on("CPU", _forward_and_grads)
    assert len(got) == 3
    for g, w in zip(got, want, strict=True):
        assert np.allclose(g, w, rtol=1e-4, atol=1e-6), np.abs(g - w).max()


def test_a_cell_built_for_the_cpu_runs_on_the_gpu_after_set_device(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    predict, idx = Predict(Net(weights())), data()[1]
    want = on("CPU", lambda: predict(idx).asnumpy())
    launches = gpu.launches
    assert np.allclose(predict(idx).asnumpy(), want, **F32)  # the device target is part of the graph's key
    assert gpu.launches > launches


class _Dense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)), name="w")

    def construct(self, x):
        return ops.relu(ops.matmul(x, self.w)) + 1.0


def test_a_dynamic_batch_cell_built_for_the_cpu_runs_on_the_gpu_after_set_device(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _Dense()
    net.set_inputs(ms.Tensor(shape=[None, 4], dtype=ms.float32))
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 7)
    want = on("CPU", lambda: net(x).asnumpy())
    launches = gpu.launches
    assert np.allclose(net(x).asnumpy(), want, **F32)  # the device target is part of the dynamic-batch key
    assert gpu.launches > launches


def test_host_changes_to_parameters_are_seen_and_unchanged_ones_not_uploaded(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net(weights())
    predict = Predict(net)
    y, idx = data()

    def cpu_logits(w):
        return on("CPU", lambda: Predict(Net(w))(idx).asnumpy())

    w = weights()
    assert np.allclose(predict(idx).asnumpy(), cpu_logits(w), **F32)
    uploads = gpu.uploads
    predict(idx)
    assert gpu.uploads - uploads == 1  # the graph input only: every mirror is current

    w["w1"] = w["w1"] * -1.0  # set_data: a new array
    net.w1.set_data(w["w1"].copy())
    assert np.allclose(predict(idx).asnumpy(), cpu_logits(w), **F32)

    buffer = w["w1"].copy()  # set_data with the caller's own array, refilled and set again
    net.w1.set_data(buffer)
    predict(idx)
    buffer *= 0.5
    net.w1.set_data(buffer)
    assert net.w1._data is buffer
    w["w1"] = buffer.copy()
    assert np.allclose(predict(idx).asnumpy(), cpu_logits(w), **F32)

    net.w2.asnumpy()[0, :] = 3.0  # in place, through the array asnumpy hands out
    w["w2"][0, :] = 3.0
    assert np.allclose(predict(idx).asnumpy(), cpu_logits(w), **F32)

    net.w2.assign_value(w["w2"] * 0.5)  # assign_value
    w["w2"] = w["w2"] * 0.5
    assert np.allclose(predict(idx).asnumpy(), cpu_logits(w), **F32)

    w["w1"] = w["w1"] * 1.5  # load_param_into_net (a checkpoint)
    ms.load_param_into_net(predict, {p.name: ms.Parameter(ms.Tensor(w[p.name.split(".")[-1]]), name=p.name)
                                     for p in (net.emb, net.w1, net.w2)})
    assert np.allclose(predict(idx).asnumpy(), cpu_logits(w), **F32)

    net.emb[2] = 0.0  # Tensor setitem
    w["emb"][2] = 0.0
    assert np.allclose(predict(idx).asnumpy(), cpu_logits(w), **F32)

    ms.set_context(mode=ms.PYNATIVE_MODE)  # a PyNative in-place op on the CPU target (Assign)
    w["w2"] = w["w2"] + 0.25
    on("CPU", lambda: ops.assign(net.w2, ms.Tensor(w["w2"])))
    ms.set_context(mode=ms.GRAPH_MODE)
    assert np.allclose(predict(idx).asnumpy(), cpu_logits(w), **F32)


def _train(steps: int) -> tuple[list[float], list[np.ndarray], np.ndarray]:
    net = Net(weights())
    step = SGDStep(net)
    y, idx = data()
    before = Predict(net)(idx)  # another graph over the same Parameters, run before the updates
    losses = [float(step(y, idx)[0].asnumpy()) for _ in range(steps)]
    after = Predict(net)(idx).asnumpy()
    del before
    return losses, [net.w1.asnumpy().copy(), net.w2.asnumpy().copy()], after


def test_in_place_updates_on_the_device_reach_the_host_parameters(gpu, monkeypatch):
    ms.set_context(mode=ms.GRAPH_MODE)
    losses, params, after = _train(3)
    want_losses, want_params, want_after = on("CPU", lambda: _train(3))
    assert losses[2] < losses[0]
    assert np.allclose(losses, want_losses, rtol=1e-5)
    for g, w in zip(params, want_params, strict=True):
        assert np.allclose(g, w, rtol=1e-4, atol=1e-6)
    assert np.allclose(after, want_after, rtol=1e-4, atol=1e-5)  # the other graph's mirrors went stale


def test_train_one_step_cell_with_momentum_equals_the_cpu(gpu, monkeypatch):
    """TrainOneStepCell(net, Momentum): ApplyMomentum updates the weights and the accumulations in place on the
    device (a test emitter until the optimizers' GPU kernels exist); the host Parameters follow the CPU's."""
    ms.set_context(mode=ms.GRAPH_MODE)
    losses, params = train_momentum(4)
    want_losses, want_params = on("CPU", lambda: train_momentum(4))
    assert losses[3] < losses[0]
    assert np.allclose(losses, want_losses, rtol=1e-5)
    for g, w in zip(params, want_params, strict=True):
        assert np.allclose(g, w, rtol=1e-4, atol=1e-6)


def test_a_pynative_train_step_updates_the_parameters_as_on_the_cpu(gpu, monkeypatch):
    """PYNATIVE_MODE: the forward op by op, the gradients as a compiled graph, ApplyMomentum run eagerly on the
    device and downloaded into the Parameters' host arrays."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    launches = gpu.launches
    losses, params = train_momentum(3)
    assert gpu.launches - launches > 20
    want_losses, want_params = on("CPU", lambda: train_momentum(3))
    assert np.allclose(losses, want_losses, rtol=1e-5)
    for g, w in zip(params, want_params, strict=True):
        assert np.allclose(g, w, rtol=1e-4, atol=1e-6)


def test_the_same_predict_graph_sees_updates_made_by_a_train_graph(gpu, monkeypatch):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net(weights())
    predict, step = Predict(net), SGDStep(net)
    y, idx = data()
    first = predict(idx).asnumpy()
    step(y, idx)  # the first call traces and compiles (which reads the Parameters' arrays)
    predict(idx)
    uploads = gpu.uploads
    step(y, idx)  # a step like every later one: its updates are the only host writes
    assert gpu.uploads - uploads == 2  # the train graph's own mirrors stay current: only its inputs
    second = predict(idx).asnumpy()  # the same compiled graph: its mirrors of w1, w2 are stale now
    w = {"emb": net.emb.asnumpy(), "w1": net.w1.asnumpy(), "w2": net.w2.asnumpy()}
    assert not np.allclose(first, second)
    assert np.allclose(second, on("CPU", lambda: Predict(Net(w))(idx).asnumpy()), **F32)
    uploads = gpu.uploads
    step(y, idx)  # asnumpy() above handed the arrays out (they may have been written): uploaded again
    assert gpu.uploads - uploads == 2 + 3


def test_a_print_in_a_graph_runs_on_the_host(gpu, capfd):
    ms.set_context(mode=ms.GRAPH_MODE)

    class Printing(ms.nn.Cell):
        def construct(self, x):
            y = ops.exp(x)
            ops.print_("y:", y)
            return y * 2.0

    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    out = Printing()(ms.Tensor(x)).asnumpy()
    assert np.allclose(out, np.exp(x) * 2.0, **F32)
    printed = capfd.readouterr().out
    assert "y:" in printed and "1.22140" in printed  # exp(0.2), downloaded for the host node


def test_a_failed_call_leaves_no_stale_mirror(gpu, monkeypatch):
    """With write-back (OPBUILD_GPU_WRITEBACK=1), a host node raising after an in-place update on the device:
    the host Parameter keeps its old value, and the next call uploads it again (the device's half-done update
    is not reused). Without it the device's update stands, as the CPU's does (test_device_resident.py)."""
    monkeypatch.setenv("OPBUILD_GPU_WRITEBACK", "1")
    ms.set_context(mode=ms.GRAPH_MODE)
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

    step, x = Step(), ms.Tensor(np.full(4, 2.0, np.float32))
    assert np.array_equal(step(x).asnumpy(), np.full(4, 3.0))
    fail.append(True)
    with pytest.raises(RuntimeError, match="the host node failed"):
        step(x)
    assert np.array_equal(step.p._data, np.full(4, 3.0))  # not written back (read without asnumpy, which
    # would make the mirror stale by itself)
    fail.clear()
    assert np.array_equal(step(x).asnumpy(), np.full(4, 5.0))
    assert np.array_equal(step.p.asnumpy(), np.full(4, 5.0))


def _graph_and_kernels():
    """exp(x) for x: float32[3], as a hand-made graph with its GPU kernel and the device's memory."""
    x = Value(TensorType((3,), "float32"))
    graph = Graph(inputs=[x])
    node = graph.add_node("Exp", {}, [x], [TensorType((3,), "float32")])
    graph.outputs = list(node.outputs)
    target = session().builder.target
    (kernel,), _ = session().builder.build([get_op("Exp").spec({}, [x.type])])
    return graph, [kernel], target.device()


def test_device_memory_is_freed_with_its_graph(gpu):
    ms.set_context(mode=ms.GRAPH_MODE)
    ops.exp(ms.Tensor(np.ones(3, np.float32)))  # the PyNative scratch buffer exists before the count
    gc.collect()
    live = gpu.live_bytes()
    watched = len(host_writes._watched)
    predict = Predict(Net(weights()))
    predict(data()[1])
    assert gpu.live_bytes() > live and len(host_writes._watched) > watched
    del predict
    gc.collect()
    assert gpu.live_bytes() == live and len(host_writes._watched) == watched

    graph = DeviceGraph(*_graph_and_kernels())
    graph.free()  # at once, on request
    assert gpu.live_bytes() == live
    with pytest.raises(RuntimeError, match="device memory was freed"):
        graph([np.ones(3, np.float32)])


def test_without_a_gpu_a_graph_builds_and_its_run_is_one_line(monkeypatch, tmp_path):
    if device.probe().ok:
        pytest.skip("a GPU is present")
    if nvrtc_missing():
        pytest.skip(nvrtc_missing())
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    monkeypatch.setenv("OPBUILD_CUDA_ARCH", "sm_90")
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_device("GPU")
    try:
        predict, idx = Predict(Net(weights())), data()[1]
        predict.compile(idx)  # building needs no GPU: Cell.compile warms the cache
        assert ms.build_report().built > 0
        with pytest.raises(CudaUnavailableError) as e:
            predict(idx)
    finally:
        ms.set_device("CPU")
    text = str(e.value)
    assert "\n" not in text and text.startswith("device_target 'GPU': cannot run GPU kernels: no usable CUDA")


def test_indices_out_of_range_raise_on_the_gpu_as_on_the_cpu(gpu):
    """The GPU kernels report through their status words (kernel ABI 2): PyNative and a compiled graph raise
    the CPU's KernelInputError (which index a kernel reports among several is the device's choice: one bad
    index here), and the graph's next call runs clean."""
    from opbuild.core.errors import KernelInputError

    x = ms.Tensor(np.arange(15, dtype=np.float32).reshape(5, 3))
    u = ms.Tensor(np.ones((1, 3), np.float32))

    def i32(v):
        return ms.Tensor(np.array(v, np.int32))

    bad = [(lambda: ops.gather(x, i32([0, 5]), 0), "Gather", "input_indices[1] = 5"),
           (lambda: ops.gather_elements(x, 1, i32([[0], [0], [-4], [0], [0]])), "GatherD", "index[2, 0] = -4"),
           (lambda: ops.gather_nd(x, i32([[1, 3]])), "GatherNd", "indices[0, 1] = 3"),
           (lambda: ops.tensor_scatter_add(x, i32([[-1]]), u), "TensorScatterAdd", "indices[0, 0] = -1")]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for call, op, where in bad:
        with pytest.raises(KernelInputError, match=rf"For '{op}', {re.escape(where)} is out of range"):
            call()
    np.testing.assert_array_equal(ops.gather(x, i32([-1, 0]), 0).asnumpy(), x.asnumpy()[[4, 0]])
    p = ms.Parameter(ms.Tensor(np.zeros((5, 3), np.float32)), name="p")
    with pytest.raises(KernelInputError, match=r"indices\[1, 0\] = 5 is out of range"):
        ops.scatter_add(p, i32([0, 5]), ms.Tensor(np.ones((2, 3), np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), 0)  # every index checked before any update

    class Doubled(nn.Cell):
        def construct(self, t, i):
            return ops.gather(t, i * 2, 0)

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Doubled()
    np.testing.assert_array_equal(net(x, i32([1, 2])).asnumpy(), x.asnumpy()[[2, 4]])
    with pytest.raises(KernelInputError, match=r"input_indices\[1\] = 6 is out of range"):
        net(x, i32([1, 3]))
    np.testing.assert_array_equal(net(x, i32([-1, 0])).asnumpy(), x.asnumpy()[[3, 0]])


def test_a_refused_train_step_on_the_gpu_updates_no_parameter(gpu):
    """The Gather's status is read right after it (a wait), before the backward and the optimizer update:
    a step fed an index out of range raises and leaves the device-resident Parameters as they were."""
    from opbuild.core.errors import KernelInputError

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net(weights())
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))  # Net returns its loss
    y, idx = data()
    step(y, idx)
    before = {p.name: p.asnumpy().copy() for p in step.get_parameters()}
    bad = idx.asnumpy().copy()
    bad[2] = 20
    with pytest.raises(KernelInputError, match=r"input_indices\[2\] = 20 is out of range"):
        step(y, ms.Tensor(bad))
    for p in step.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), before[p.name], err_msg=p.name)
    step(y, idx)
    assert not np.array_equal(net.w1.asnumpy(), before["w1"])
