"""Softmax, Softmin and LogSoftmax of float16 inputs: scripts/record_softmax_half.py stores MindSpore 2.10's
results in tests/fixtures/ms_softmax_half.npz (its CPU kernels round the exponentials and their sum to
float16 before dividing); tests/compat/test_softmax_half.py compares opbuild's. Imports neither framework."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RNG = np.random.default_rng(11)
EXAMPLE = np.array([-1, -2, 0, 2, 1], np.float16)
ROWS = RNG.uniform(-4, 4, (4, 300)).astype(np.float16)
COLS = RNG.uniform(-3, 3, (3, 50, 7)).astype(np.float16)
SMALL = RNG.uniform(-2, 2, (6, 9)).astype(np.float16)

CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "softmax_example": (lambda ms, ops, nn, x: nn.Softmax()(x), [EXAMPLE]),
    "softmin_example": (lambda ms, ops, nn, x: nn.Softmin()(x), [EXAMPLE]),
    "ops_softmin_example": (lambda ms, ops, nn, x: ops.softmin(x), [EXAMPLE]),
    "softmax_rows": (lambda ms, ops, nn, x: ops.softmax(x, -1), [ROWS]),
    "softmax_cols": (lambda ms, ops, nn, x: ops.softmax(x, 1), [COLS]),
    "softmax_small": (lambda ms, ops, nn, x: ops.Softmax(0)(x), [SMALL]),
    "log_softmax_rows": (lambda ms, ops, nn, x: ops.log_softmax(x, -1), [ROWS]),
    "softmin_cols": (lambda ms, ops, nn, x: ops.softmin(x, 1), [COLS]),
}


def outputs(result) -> list[np.ndarray]:
    """A result (a Tensor or a tuple of them) as a list of arrays."""
    items = result if isinstance(result, tuple) else (result,)
    return [t.asnumpy() for t in items]
