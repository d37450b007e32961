"""Kernel workspaces planned in the arena (passes/memplan.py, runtime/executor.py, OpDef.workspace): a
convolution's im2col column block or tiled phase planes and a half convolution's float32 copies live in the
graph's arena during their node only, never overlap a live value, share bytes across nodes, are passed after
the outputs (kernel ABI 2) and give the same results as PyNative (which allocates them per call)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild.ops as ops
from opbuild.core import trace
from opbuild.core.ir import TensorType
from opbuild.core.tensor import Tensor
from opbuild.ops.registry import get
from opbuild.passes import ConstantFolding, DeadCodeElimination, MemoryPlanning, Pipeline
from opbuild.passes.memplan import PlanError
from opbuild.runtime.session import session
from opbuild.targets.cpu.codegen import ABI_VERSION, kernel_function
from opbuild.targets.cpu.kernels import emit
from tests.helpers import TORCH_MISSING

PLANNED = Pipeline([ConstantFolding(), DeadCodeElimination(), MemoryPlanning()])
RNG = np.random.default_rng(21)
W1 = RNG.standard_normal((8, 4, 3, 3)).astype(np.float32)  # tiled (3x3, 4 -> 8 channels, 16x16)
W2 = RNG.standard_normal((8, 8, 3, 3)).astype(np.float32)  # tiled
WD = RNG.standard_normal((8, 1, 3, 3)).astype(np.float32)  # depthwise (tiled, thread-local planes): none
W3 = RNG.standard_normal((6, 8, 1, 1)).astype(np.float32)  # 1x1 tiled, reading its input in place: none


@pytest.fixture(autouse=True)
def _unfused(monkeypatch):
    monkeypatch.setenv("OPBUILD_FUSION", "0")


def _net(x):
    c1 = ops.Conv2D(8, 3, pad_mode="pad", pad=1)
    c2 = ops.Conv2D(8, 3, pad_mode="pad", pad=1)
    dw = ops.Conv2D(8, 3, pad_mode="pad", pad=1, group=8)
    c3 = ops.Conv2D(6, 1)
    y = ops.relu(c1(x, Tensor(W1)))
    y = ops.relu(c2(y, Tensor(W2))) + y
    return c3(dw(y, Tensor(WD)), Tensor(W3))


def _ref(x):
    def conv(a, w, group=1, pad=1):
        torch = pytest.importorskip("torch", reason=TORCH_MISSING)
        return torch.nn.functional.conv2d(torch.tensor(a), torch.tensor(w), padding=pad, groups=group).numpy()

    y = np.maximum(conv(x, W1), 0)
    y = np.maximum(conv(y, W2), 0) + y
    return conv(conv(y, WD, group=8), W3, pad=0)


def test_padded_convolutions_get_planned_workspaces_that_share_the_arena():
    x = RNG.standard_normal((2, 4, 16, 16)).astype(np.float32)
    graph, _ = trace.trace(_net, [Tensor(x)])
    compiled = session().compile_graph(graph, PLANNED)
    plan = compiled.plan
    plan.verify(compiled.graph)
    convs = [n for n in plan.kernel_nodes if n.op == "Conv2D"]
    algos = [n.attrs["algo"] for n in convs]
    assert algos == ["tiled", "tiled", "dwvec", "tiled"]
    assert set(plan.workspaces) == set(convs[:2])  # only the padded tiled kernels need one (dwvec: per thread)
    for n in convs[:2]:
        offset, size = plan.workspaces[n]
        assert offset % 64 == 0 and size >= get("Conv2D").workspace_bytes(n.attrs, [v.type for v in n.inputs],
                                                                         [v.type for v in n.outputs]) > 0
    # Live at one step each: the two workspaces may take the same bytes, and the arena is smaller than the
    # intermediates plus both workspaces kept apart.
    total = plan.intermediate_bytes + sum(size for _, size in plan.workspaces.values())
    assert plan.arena_bytes < total
    assert plan.summary()["workspaces"] == 2
    out = compiled([x])[0]
    np.testing.assert_allclose(out, _ref(x), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(compiled([x])[0], out)  # a second call through the same arena


def test_verify_rejects_a_workspace_over_a_live_value():
    x = RNG.standard_normal((2, 4, 16, 16)).astype(np.float32)
    graph, _ = trace.trace(_net, [Tensor(x)])
    compiled = session().compile_graph(graph, PLANNED)
    plan = compiled.plan
    second = [n for n in plan.kernel_nodes if n.op == "Conv2D"][1]
    x_loc = plan.locations[second.inputs[0]]  # its input is live at its step
    plan.workspaces[second] = (x_loc.where, 64)
    with pytest.raises(PlanError, match="workspace overlaps"):
        plan.verify(compiled.graph)
    plan.workspaces[second] = (plan.arena_bytes, 64)
    with pytest.raises(PlanError, match="outside the arena"):
        plan.verify(compiled.graph)


def test_the_kernel_reads_its_workspace_after_its_outputs():
    assert ABI_VERSION == 3
    opdef = get("Conv2D")
    im2col = opdef.spec({"out_channel": 8, "kernel_size": 3, "pad_mode": "pad", "pad": 1},
                        [TensorType((2, 4, 16, 16), "float32"), TensorType((8, 4, 3, 3), "float32")])
    body = emit(im2col)
    assert "ob_ws" in body and "ob_col" not in body
    # The ABI wrapper hands the body the pointer after the inputs and outputs (codegen.kernel_function).
    fn = kernel_function("k", im2col.inputs, im2col.outputs, body, workspace=True)
    assert "char *restrict ob_ws" in fn and "(char *)args[3]" in fn
    # ABI 3: the status words of an op that declares a status come after the workspace.
    fn = kernel_function("k", im2col.inputs, im2col.outputs, body, workspace=True, status=True)
    assert "(char *)args[3]" in fn and "int64_t *restrict ob_status" in fn and "(int64_t *)args[4]" in fn
    gemm = opdef.spec({"out_channel": 6, "kernel_size": 1, "algo": "gemm"},
                      [TensorType((2, 8, 16, 16), "float32"), TensorType((6, 8, 1, 1), "float32")])
    assert opdef.workspace_bytes(gemm.attrs, gemm.inputs, gemm.outputs) == 0
    assert "ob_ws" not in emit(gemm)
    in_place = opdef.spec({"out_channel": 6, "kernel_size": 1}, gemm.inputs)  # tiled, reading x in place
    assert in_place.attrs["algo"] == "tiled" and "ob_ws" not in emit(in_place)
    assert opdef.workspace_bytes(in_place.attrs, in_place.inputs, in_place.outputs) == 0
    assert "args[3]" not in kernel_function("k", gemm.inputs, gemm.outputs, emit(gemm))
    half = opdef.spec(gemm.attrs, [TensorType((2, 8, 16, 16), "float16"), TensorType((6, 8, 1, 1), "float16")])
    # float32 copies of x (4096), w (48) and y (3072), each 64-byte aligned: the malloc-free half path
    assert opdef.workspace_bytes(half.attrs, half.inputs, half.outputs) == 4 * 4096 + 192 + 4 * 3072
    assert "malloc" not in emit(half)


def test_backward_ops_plan_their_workspaces_too():
    x = RNG.standard_normal((2, 4, 16, 16)).astype(np.float32)
    w = Tensor(W1)

    def loss(a):
        return (ops.Conv2D(8, 3, pad_mode="pad", pad=1)(a, w) ** 2).sum()

    import opbuild as ms

    def fn(a):
        return ms.grad(loss)(a)

    graph, _ = trace.trace(fn, [Tensor(x)])
    compiled = session().compile_graph(graph, PLANNED)
    compiled.plan.verify(compiled.graph)
    ops_with = {n.op for n in compiled.plan.workspaces}
    assert "Conv2DBackpropInput" in ops_with
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    xt = torch.tensor(x, requires_grad=True)
    (torch.nn.functional.conv2d(xt, torch.tensor(W1), padding=1) ** 2).sum().backward()
    np.testing.assert_allclose(compiled([x])[0], xt.grad.numpy(), rtol=1e-4, atol=1e-2)
