"""Gradient cases where the answer is a convention rather than calculus (ties of max/min, kinks of abs/relu/clip,
zeros in products, the labels of a cross-entropy, integer-valued remainders) and second derivatives, written
once against a MindSpore-shaped namespace: scripts/record_grads.py runs them on real MindSpore 2.10
(tests/fixtures/mindspore/grads.npz) and tests/compat/test_grads_ms.py on opbuild. Smooth gradients are checked
against torch (tests/ops/grad_cases.py); these are the places where torch and MindSpore may disagree.

Each case is ``name -> (fn(ms, ops, *tensors), inputs)``; fn returns the gradients of every input. This module
imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

F32 = np.float32
TIES_A = np.array([[1.0, 2.0, -3.0, 0.5], [4.0, 4.0, 0.0, -1.0]], F32)
TIES_B = np.array([[1.0, 1.5, -3.0, 0.75], [4.0, 5.0, 0.0, -2.0]], F32)
KINKS = np.array([[-1.0, 0.0, 0.5, 1.0], [6.0, -0.0, 3.0, 7.0]], F32)
ROW_TIES = np.array([[3.0, 1.0, 3.0, 2.0], [0.5, 0.5, 0.5, -1.0]], F32)
ZEROS = np.array([[2.0, 0.0, 3.0, 1.5], [0.0, 0.0, 2.0, 1.0], [1.0, 2.0, 0.5, 4.0]], F32)
W = np.array([[0.3, -1.2, 0.7, 2.0], [1.1, -0.4, 0.9, -0.6]], F32)
LOGITS = np.array([[0.2, -1.0, 2.0, 0.5], [1.5, 0.3, -0.7, 0.0], [-0.2, 0.8, 0.1, 1.1]], F32)
PROBS = np.array([[0.1, 0.2, 0.6, 0.1], [0.25, 0.25, 0.25, 0.25], [0.0, 1.0, 0.0, 0.0]], F32)
REM_A = np.array([[5.5, -5.5, 2.25, -7.0], [7.75, -0.5, 3.5, 6.0]], F32)
REM_B = np.array([[2.0, 2.0, -0.75, -3.0], [-3.0, 0.25, 1.25, 2.0]], F32)
SMOOTH = np.array([[0.3, -0.7, 1.2, -1.9], [0.05, 2.2, -0.4, 0.9]], F32)


def _w(shape) -> np.ndarray:
    """A fixed, non-uniform cotangent of ``shape`` (a rule that ignored its cotangent would fail)."""
    n = int(np.prod(shape))
    return (((np.arange(n) * 7 % 11) - 5) * 0.25 + 0.1).reshape(shape).astype(F32)


def _all(fn: Callable, n: int) -> Callable:
    """The gradients of ``sum(fn(ops, *xs) * w)`` with respect to every one of the ``n`` inputs."""
    def run(ms, ops, *xs):
        def loss(*ts):
            out = fn(ms, ops, *ts)
            return (out * ms.Tensor(_w(tuple(out.shape)))).sum()
        return ms.grad(loss, tuple(range(n)))(*xs)
    return run


def _scatter_into_parameter(op_name: str) -> Callable:
    """(d/du, d/dp) of sum(2 * op(p, [[0], [2]], u)) for a Parameter p of ones (an in-place scatter)."""
    def run(ms, ops, u):
        class Net(ms.nn.Cell):
            def __init__(self):
                super().__init__()
                self.p = ms.Parameter(ms.Tensor(np.ones((3, 2), F32)), name="p")
                self.op = getattr(ops, op_name)()

            def construct(self, x):
                return self.op(self.p, ms.Tensor(np.array([[0], [2]], np.int32)), x) * 2.0

        net = Net()
        du, (dp,) = ms.grad(net, grad_position=0, weights=net.trainable_params())(u)
        return du, dp
    return run


def _second(fn: Callable) -> Callable:
    """d/dx sum(W * d/dx sum(fn(x) * SMOOTH)): grad of a function that calls grad."""
    def run(ms, ops, x):
        inner = ms.grad(lambda t: (fn(ops, t) * ms.Tensor(SMOOTH)).sum())
        return ms.grad(lambda t: (inner(t) * ms.Tensor(W)).sum())(x)
    return run


CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "maximum_ties": (_all(lambda ms, ops, a, b: ops.maximum(a, b), 2), [TIES_A, TIES_B]),
    "minimum_ties": (_all(lambda ms, ops, a, b: ops.minimum(a, b), 2), [TIES_A, TIES_B]),
    "relu_kinks": (_all(lambda ms, ops, x: ops.relu(x), 1), [KINKS]),
    "relu6_kinks": (_all(lambda ms, ops, x: ops.relu6(x), 1), [KINKS]),
    "abs_kinks": (_all(lambda ms, ops, x: ops.abs(x), 1), [KINKS]),
    "clip_bounds": (_all(lambda ms, ops, x: ops.clip_by_value(x, ms.Tensor(F32(0.0)), ms.Tensor(F32(6.0))), 1),
                    [KINKS]),
    "clip_tensor_bounds": (_all(lambda ms, ops, x, lo, hi: ops.clip_by_value(x, lo, hi), 3),
                           [KINKS, np.array([[0.0, 0.0, 0.5, 2.0], [0.0, 0.0, 3.0, 1.0]], F32),
                            np.array([[6.0, 1.0, 0.5, 1.0], [6.0, 6.0, 3.0, 0.5]], F32)]),
    "maximum_broadcast_ties": (_all(lambda ms, ops, a, b: ops.maximum(a, b), 2),
                               [TIES_A, np.array([1.0, 2.0, 0.0, -1.0], F32)]),
    "reduce_max_ties": (_all(lambda ms, ops, x: ops.ReduceMax(keep_dims=True)(x, 1) * 1.0, 1), [ROW_TIES]),
    "reduce_min_ties": (_all(lambda ms, ops, x: ops.ReduceMin(keep_dims=True)(x, 1) * 1.0, 1), [ROW_TIES]),
    "reduce_prod_zeros": (_all(lambda ms, ops, x: ops.ReduceProd(keep_dims=True)(x, 1) * 1.0, 1), [ZEROS[:2]]),
    "cumprod_zeros": (_all(lambda ms, ops, x: ops.cumprod(x, 1), 1), [ZEROS[:2]]),
    "cumsum_exclusive_reverse": (_all(lambda ms, ops, x: ops.CumSum(exclusive=True, reverse=True)(x, 1), 1),
                                 [SMOOTH]),
    "topk_ties": (_all(lambda ms, ops, x: ops.topk(x, 2)[0], 1), [ROW_TIES]),
    "topk_ties_forward": (lambda ms, ops, x: ops.topk(x, 2), [ROW_TIES]),
    "tensor_scatter_min_ties": (_all(lambda ms, ops, x, u: ops.tensor_scatter_min(
        x, ms.Tensor(np.array([[0], [2]], np.int32)), u), 2), [ZEROS, np.array([[2.0, 1.0, 3.0, 0.0],
                                                                                [1.0, 3.0, 0.5, 4.0]], F32)]),
    "cummax_ties": (_all(lambda ms, ops, x: ops.cummax(x, 1)[0], 1), [ROW_TIES]),
    "cummin_ties": (_all(lambda ms, ops, x: ops.cummin(x, 1)[0], 1), [ROW_TIES]),
    "floor_mod": (_all(lambda ms, ops, a, b: ops.floor_mod(a, b), 2), [REM_A, REM_B]),
    "fmod": (_all(lambda ms, ops, a, b: ops.fmod(a, b), 2), [REM_A, REM_B]),
    "atan2": (_all(lambda ms, ops, a, b: ops.atan2(a, b), 2), [REM_A, REM_B]),
    "pow_zero_base": (_all(lambda ms, ops, a, b: ops.pow(a, b), 2),
                      [np.array([[0.0, 2.0, 0.0, 1.5], [3.0, 0.0, 0.5, 2.0]], F32),
                       np.array([[2.0, 3.0, 0.5, 1.0], [2.0, 1.0, 2.0, 0.0]], F32)]),
    "sqrt_positive": (_all(lambda ms, ops, x: ops.sqrt(x), 1), [np.abs(SMOOTH) + F32(0.1)]),
    "select": (_all(lambda ms, ops, a, b: ops.select(ms.Tensor(TIES_A > 1.0), a, b), 2), [SMOOTH, TIES_B]),
    "gather_repeated": (_all(lambda ms, ops, x: ops.gather(x, ms.Tensor(np.array([[3, 0, 3, 3], [1, 1, 2, 0]],
                                                                                  np.int32)), 1).sum(0), 1),
                        [SMOOTH]),
    "softmax_ce_dense": (_all(lambda ms, ops, x, y: ops.SoftmaxCrossEntropyWithLogits()(x, y)[0], 2),
                         [LOGITS, PROBS]),
    "softmax_ce_sparse": (_all(lambda ms, ops, x: ops.SparseSoftmaxCrossEntropyWithLogits()(
        x, ms.Tensor(np.array([2, 0, 3], np.int32))), 1), [LOGITS]),
    "tensor_scatter_update": (_all(lambda ms, ops, x, u: ops.tensor_scatter_update(
        x, ms.Tensor(np.array([[0], [2]], np.int32)), u), 2), [ZEROS, W]),
    "tensor_scatter_max_ties": (_all(lambda ms, ops, x, u: ops.tensor_scatter_max(
        x, ms.Tensor(np.array([[0], [2]], np.int32)), u), 2), [ZEROS, np.array([[2.0, 1.0, 3.0, 0.0],
                                                                                [1.0, 3.0, 0.5, 4.0]], F32)]),
    "qr_refused_by_mindspore": (_all(lambda ms, ops, x: ops.qr(x)[1], 1), [SMOOTH[:, :2]]),
    "scatter_nd_update_parameter": (_scatter_into_parameter("ScatterNdUpdate"), [W[:, :2]]),
    "scatter_nd_add_parameter": (_scatter_into_parameter("ScatterNdAdd"), [W[:, :2]]),
    "second_sigmoid": (_second(lambda ops, t: ops.sigmoid(t)), [SMOOTH]),
    "second_tanh": (_second(lambda ops, t: ops.tanh(t)), [SMOOTH]),
    "second_gelu": (_second(lambda ops, t: ops.gelu(t, approximate="none")), [SMOOTH]),
    "second_relu_times_x": (_second(lambda ops, t: ops.relu(t) * t), [SMOOTH]),
    "second_softplus": (_second(lambda ops, t: ops.softplus(t)), [SMOOTH]),
}


def outputs(result: Any) -> list[np.ndarray]:
    """A case's result (a Tensor or a tuple of them) as NumPy arrays."""
    items = result if isinstance(result, (tuple, list)) else [result]
    return [np.array(t.asnumpy()) for t in items]
