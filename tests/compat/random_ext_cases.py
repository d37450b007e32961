"""Cases of the random operators of ops/api/random_ext.py and ops/ms_prim_random.py, written once against a
MindSpore-shaped namespace: scripts/record_random_ext.py draws them on real MindSpore 2.10 into
tests/fixtures/random_ext.npz; tests/ops/test_random_ext.py draws them on opbuild and compares shapes, dtypes
and (the bit streams differ) the distributions: sample moments and category frequencies.

Each case is ``name -> fn(ms, ops)`` returning a Tensor or a tuple of them. This module imports neither
MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

N = 6000
LOGITS = np.log(np.array([[1.0, 2.0, 3.0], [4.0, 1.0, 1.0]], np.float32))


def _t(ms, a, dt=None):
    return ms.Tensor(np.asarray(a), dt) if dt is not None else ms.Tensor(np.asarray(a))


CASES: dict[str, Callable] = {
    "bernoulli_float": lambda ms, ops: ops.bernoulli(_t(ms, np.zeros(N, np.float32)), 0.3, seed=4),
    "bernoulli_int_p_tensor": lambda ms, ops: ops.bernoulli(_t(ms, [1, 2, 3]), _t(ms, [0.0, 1.0, 1.0], ms.float32)),
    "Bernoulli_float64": lambda ms, ops: ops.Bernoulli(seed=3)(_t(ms, np.zeros(N)), _t(ms, [0.7], ms.float32)),
    "random_gamma": lambda ms, ops: ops.random_gamma(_t(ms, [N], ms.int64), _t(ms, [0.5, 3.0], ms.float32), seed=5),
    "RandomGamma_float64": lambda ms, ops: ops.RandomGamma(seed=2)(_t(ms, [N, 1], ms.int32),
                                                                  _t(ms, [2.0], ms.float64)),
    "random_poisson": lambda ms, ops: ops.random_poisson(_t(ms, [N], ms.int64), _t(ms, [[2.0, 10.0]], ms.float32),
                                                         seed=5, dtype=ms.int32),
    "RandomPoisson": lambda ms, ops: ops.RandomPoisson(seed=1)(_t(ms, [N], ms.int32), _t(ms, [4], ms.int64)),
    "random_categorical": lambda ms, ops: ops.random_categorical(_t(ms, LOGITS), N, 3),
    "RandomCategorical_int16": lambda ms, ops: ops.RandomCategorical(ms.int16)(_t(ms, LOGITS), N, 2),
    "multinomial_with_replacement": lambda ms, ops: ops.multinomial_with_replacement(
        _t(ms, [[1.0, 2.0, 0.0, 1.0]], ms.float32), 3, 7, N, True),
    "MultinomialWithReplacement": lambda ms, ops: ops.MultinomialWithReplacement(N, True)(
        _t(ms, [2.0, 1.0, 1.0], ms.float64), _t(ms, 5, ms.int64), _t(ms, 1, ms.int64)),
    "multinomial_int": lambda ms, ops: ops.multinomial(_t(ms, [[90, 10, 0], [0, 50, 50]]), N),
    "multinomial_int_no_replacement": lambda ms, ops: ops.multinomial(_t(ms, [90, 10, 0], ms.int32), 2, False),
    "standard_laplace": lambda ms, ops: ops.standard_laplace((N,), seed=6),
    "gumbel_softmax_hard": lambda ms, ops: ops.gumbel_softmax(_t(ms, np.repeat(LOGITS[:1], N, 0)), 1.0, True, -1),
    "gumbel_softmax_float16": lambda ms, ops: ops.gumbel_softmax(_t(ms, np.repeat(LOGITS[:1], 8, 0), ms.float16),
                                                                 0.5, False, 0),
    "choice_with_mask": lambda ms, ops: ops.choice_with_mask(_t(ms, np.eye(3, dtype=bool)), 5, seed=2),
    "RandomChoiceWithMask": lambda ms, ops: ops.RandomChoiceWithMask(4, seed=1)(_t(ms, np.ones((2, 1, 3), bool))),
    "uniform_candidate_sampler": lambda ms, ops: ops.uniform_candidate_sampler(
        _t(ms, [[1], [3]], ms.int32), 1, 3, False, 4, seed=3),
    "UniformCandidateSampler_unique": lambda ms, ops: ops.UniformCandidateSampler(2, 5, True, 5, seed=4)(
        _t(ms, [[1, 3], [0, 4]])),
    "log_uniform_candidate_sampler": lambda ms, ops: ops.log_uniform_candidate_sampler(
        _t(ms, [[1, 7], [0, 4], [3, 3]]), 2, 5, True, 5),
    "LogUniformCandidateSampler": lambda ms, ops: ops.LogUniformCandidateSampler(1, 4, False, 6, seed=2)(
        _t(ms, [[1], [5]])),
}


def outputs(result) -> list[np.ndarray]:
    """A case's result as a list of NumPy arrays."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [r.asnumpy() if hasattr(r, "asnumpy") else np.asarray(r) for r in items]
