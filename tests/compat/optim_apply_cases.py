"""Cases of MindSpore's in-place primitives (the ``Apply*``/``SparseApply*`` optimizer primitives, the
``Scatter*``/``ScatterNd*`` scatters), written once against a MindSpore-shaped namespace:
scripts/record_optim_image.py runs them on real MindSpore 2.10 and stores the results in
tests/fixtures/optim_image.npz; tests/compat/test_optim_apply.py runs them on opbuild and compares.

Each case is ``name -> (make(ops) -> primitive, inputs, state)``: ``inputs`` in the primitive's order (NumPy
arrays, or Python numbers passed as they are), ``state`` the positions wrapped in Parameters. :func:`run` calls
the primitive twice (the second call sees the state the first wrote) and returns every call's result followed
by the state Parameters' final values. This module imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

RNG = np.random.default_rng(25)
SHAPE = (3, 4)


def _t(low: float = -1.0, high: float = 1.0, dtype=np.float32) -> np.ndarray:
    return RNG.uniform(low, high, SHAPE).astype(dtype)


def _s(v: float, dtype=np.float32) -> np.ndarray:
    return np.array(v, dtype)


VAR, GRAD, POS, POS2 = _t(), _t(), _t(0.1, 1.0), _t(0.1, 1.0)
VAR64, GRAD64, POS64 = _t(dtype=np.float64), _t(dtype=np.float64), _t(0.1, 1.0, np.float64)
VAR16, GRAD16, POS16 = _t(dtype=np.float16), _t(dtype=np.float16), _t(0.1, 1.0, np.float16)

CASES: dict[str, tuple[Callable, list[Any], tuple[int, ...]]] = {
    "ApplyAdaMax": (lambda ops: ops.ApplyAdaMax(),
                    [VAR, _t(), POS, _s(0.9), _s(0.01), _s(0.9), _s(0.99), _s(1e-7), GRAD], (0, 1, 2)),
    "ApplyAdaMax_f64": (lambda ops: ops.ApplyAdaMax(),
                        [VAR64, _t(dtype=np.float64), POS64, _s(0.5, np.float64), _s(0.1, np.float64),
                         _s(0.9, np.float64), _s(0.99, np.float64), _s(1e-7, np.float64), GRAD64], (0, 1, 2)),
    "ApplyAdadelta": (lambda ops: ops.ApplyAdadelta(),
                      [VAR, POS, POS2, _s(0.5), _s(0.9), _s(1e-6), GRAD], (0, 1, 2)),
    "ApplyAdagrad": (lambda ops: ops.ApplyAdagrad(), [VAR, POS, _s(0.1), GRAD], (0, 1)),
    "ApplyAdagrad_no_slots": (lambda ops: ops.ApplyAdagrad(update_slots=False), [VAR, POS, _s(0.1), GRAD], (0, 1)),
    "ApplyAdagrad_f16": (lambda ops: ops.ApplyAdagrad(), [VAR16, POS16, _s(0.1, np.float16), GRAD16], (0, 1)),
    "ApplyAdagradV2": (lambda ops: ops.ApplyAdagradV2(epsilon=1e-6), [VAR, POS, _s(0.1), GRAD], (0, 1)),
    "ApplyAdagradV2_no_slots": (lambda ops: ops.ApplyAdagradV2(epsilon=0.01, update_slots=False),
                                [VAR, POS, _s(0.1), GRAD], (0, 1)),
    "ApplyAdagradDA": (lambda ops: ops.ApplyAdagradDA(),
                       [VAR, _t(), POS, GRAD, _s(0.1), _s(0.01), _s(0.02), np.array(2, np.int64)], (0, 1, 2)),
    "ApplyAdagradDA_l1_zero": (lambda ops: ops.ApplyAdagradDA(),
                               [VAR, _t(), POS, GRAD, _s(0.1), _s(0.0), _s(0.02), np.array(3, np.int32)],
                               (0, 1, 2)),
    "ApplyAddSign": (lambda ops: ops.ApplyAddSign(),
                     [VAR, _t(), _s(0.01), _s(1.0), _s(0.99), _s(0.9), GRAD], (0, 1)),
    "ApplyPowerSign": (lambda ops: ops.ApplyPowerSign(),
                       [VAR, _t(), _s(0.01), _s(np.e), _s(0.99), _s(0.9), GRAD], (0, 1)),
    "ApplyCenteredRMSProp": (lambda ops: ops.ApplyCenteredRMSProp(),
                             [VAR, _t(-0.1, 0.1), POS, _t(), GRAD, _s(0.01), 0.9, 0.2, 1e-4], (0, 1, 2, 3)),
    "ApplyRMSProp": (lambda ops: ops.ApplyRMSProp(),
                     [VAR, POS, _t(), _s(0.01), GRAD, 0.9, 0.2, 1e-4], (0, 1, 2)),
    "ApplyFtrl": (lambda ops: ops.ApplyFtrl(),
                  [VAR, POS, _t(), GRAD, _s(0.1), _s(0.01), _s(0.02), _s(-0.5)], (0, 1, 2)),
    "ApplyFtrl_power": (lambda ops: ops.ApplyFtrl(),
                        [VAR, POS, _t(), GRAD, _s(0.1), _s(0.3), _s(0.0), _s(-0.7)], (0, 1, 2)),
    "ApplyGradientDescent": (lambda ops: ops.ApplyGradientDescent(), [VAR, _s(0.1), GRAD], (0,)),
    "ApplyGradientDescent_number": (lambda ops: ops.ApplyGradientDescent(), [VAR, 0.25, GRAD], (0,)),
    "ApplyKerasMomentum": (lambda ops: ops.ApplyKerasMomentum(), [VAR, _t(), _s(0.1), GRAD, _s(0.9)], (0, 1)),
    "ApplyKerasMomentum_nesterov": (lambda ops: ops.ApplyKerasMomentum(use_nesterov=True),
                                    [VAR, _t(), _s(0.1), GRAD, _s(0.9)], (0, 1)),
    "ApplyProximalAdagrad": (lambda ops: ops.ApplyProximalAdagrad(),
                             [VAR, POS, _s(0.1), _s(0.05), _s(0.1), GRAD], (0, 1)),
    "ApplyProximalGradientDescent": (lambda ops: ops.ApplyProximalGradientDescent(),
                                     [VAR, _s(0.1), _s(0.3), _s(0.1), GRAD], (0,)),
    "ApplyAdamWithAmsgrad": (lambda ops: ops.ApplyAdamWithAmsgrad(beta1=0.8, beta2=0.95, epsilon=1e-6),
                             [VAR, _t(), POS, POS2, _s(0.8), _s(0.95), _s(0.01), GRAD], (0, 1, 2, 3)),
    "ApplyAdamWithAmsgradV2": (lambda ops: ops.ApplyAdamWithAmsgradV2(),
                               [VAR, _t(), POS, POS2, _s(0.8), _s(0.95), _s(0.01), _s(0.8), _s(0.95), _s(1e-6),
                                GRAD], (0, 1, 2, 3)),
}

# The sparse primitives update the rows ``indices`` names. SparseApplyAdagradV2 has no case with a repeated
# index: MindSpore 2.10's CPU kernel applies a row's updates in an order that varies between calls.
IDX = np.array([2, 0], np.int32)
DUP = np.array([0, 2, 0], np.int32)
SG, SG3 = RNG.uniform(-1, 1, (2, 4)).astype(np.float32), RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
CASES.update({
    "SparseApplyAdagrad": (lambda ops: ops.SparseApplyAdagrad(lr=0.1), [VAR, POS, SG, IDX], (0, 1)),
    "SparseApplyAdagrad_dup": (lambda ops: ops.SparseApplyAdagrad(lr=0.1), [VAR, POS, SG3, DUP], (0, 1)),
    "SparseApplyAdagrad_no_slots": (lambda ops: ops.SparseApplyAdagrad(lr=0.1, update_slots=False),
                                    [VAR, POS, SG, IDX], (0, 1)),
    "SparseApplyAdagradV2": (lambda ops: ops.SparseApplyAdagradV2(lr=0.1, epsilon=1e-3), [VAR, POS, SG, IDX],
                             (0, 1)),
    "SparseApplyFtrl": (lambda ops: ops.SparseApplyFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5),
                        [VAR, POS, _t(), SG, IDX], (0, 1, 2)),
    "SparseApplyFtrl_dup": (lambda ops: ops.SparseApplyFtrl(lr=0.1, l1=0.01, l2=0.02, lr_power=-0.5),
                            [VAR, POS, _t(), SG3, DUP.astype(np.int64)], (0, 1, 2)),
    "SparseApplyRMSProp": (lambda ops: ops.SparseApplyRMSProp(rho=0.9, momentum=0.2, epsilon=1e-4),
                           [VAR, POS, _t(), _s(0.01), SG3, np.array([2, 0, 1], np.int32)], (0, 1, 2)),
    "SparseApplyRMSProp_dup": (lambda ops: ops.SparseApplyRMSProp(rho=0.9, momentum=0.2, epsilon=1e-4),
                               [VAR, POS, _t(), _s(0.01), SG3, DUP], (0, 1, 2)),
})


# In-place scatters: a repeated index combines in turn (Update: the last wins).
XI = RNG.uniform(-2, 2, (4, 3)).astype(np.float32)
SI = np.array([[2, 0], [2, 3]], np.int32)
SU = RNG.uniform(0.5, 2, (2, 2, 3)).astype(np.float32)
NDI = np.array([[1, 2], [3, 0], [1, 2]], np.int64)
NDU = RNG.uniform(0.5, 2, (3,)).astype(np.float32)
for _k in ("Add", "Sub", "Mul", "Div", "Max", "Min", "Update"):
    CASES[f"Scatter{_k}"] = ((lambda k: lambda ops: getattr(ops, f"Scatter{k}")())(_k), [XI, SI, SU], (0,))
    CASES[f"ScatterNd{_k}"] = ((lambda k: lambda ops: getattr(ops, f"ScatterNd{k}")())(_k), [XI, NDI, NDU], (0,))
CASES.update({
    "ScatterAdd_int32": (lambda ops: ops.ScatterAdd(), [np.arange(12, dtype=np.int32).reshape(4, 3), SI,
                                                        np.ones((2, 2, 3), np.int32)], (0,)),
    "ScatterNdAdd_slices": (lambda ops: ops.ScatterNdAdd(), [XI, np.array([[3], [0]], np.int32),
                                                             np.ones((2, 3), np.float32)], (0,)),
    "scatter_add": (lambda ops: ops.scatter_add, [XI, SI, SU], (0,)),
    "scatter_max": (lambda ops: ops.scatter_max, [XI, SI, SU], (0,)),
    "scatter_update": (lambda ops: ops.scatter_update, [XI, SI, SU], (0,)),
    "scatter_nd_sub": (lambda ops: ops.scatter_nd_sub, [XI, NDI, NDU], (0,)),
    "scatter_nd_update": (lambda ops: ops.scatter_nd_update, [XI, NDI, NDU], (0,)),
    "index_add_axis1": (lambda ops: lambda x, i, y: ops.index_add(x, i, y, 1),
                        [XI, np.array([2, 0, 2], np.int32), RNG.uniform(-1, 1, (4, 3)).astype(np.float32)], (0,)),
    "IndexAdd_axis0": (lambda ops: ops.IndexAdd(0), [XI, np.array([3, 1], np.int32),
                                                     RNG.uniform(-1, 1, (2, 3)).astype(np.float32)], (0,)),
})


def run(ms: Any, ops: Any, name: str, inputs: Sequence[Any] | None = None) -> list[np.ndarray]:
    """Run case ``name`` twice on ``ms``/``ops`` (PyNative) and return the flattened results: each call's
    returned tensors, then the state Parameters' values."""
    make, default_inputs, state = CASES[name]
    inputs = default_inputs if inputs is None else inputs
    prim = make(ops)
    args = [ms.Parameter(ms.Tensor(np.array(a)), name=f"p{i}") if i in state
            else (ms.Tensor(a) if isinstance(a, np.ndarray) else a) for i, a in enumerate(inputs)]
    out: list[np.ndarray] = []
    for _ in range(2):
        res = prim(*args)
        out += [np.array(r.asnumpy()) for r in (res if isinstance(res, tuple) else (res,))]
    out += [np.array(args[i].asnumpy()) for i in state]
    return out


__all__ = ["CASES", "run"]
