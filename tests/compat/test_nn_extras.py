"""The programs of tests/compat/nn_extra_cases.py against MindSpore 2.10's ``str(result)``
(tests/fixtures/mindspore/nn_extras.json, recorded by scripts/record_nn_extras.py), and gradient
centralization, which MindSpore 2.10 documents but cannot run on its CPU (the fixture records its
RuntimeError), against NumPy's form of its rule."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms

from ..helpers import FnCell
from .nn_extra_cases import _GC, CASES

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "nn_extras.json").read_text())
# Gradient centralization: MindSpore 2.10's CPU raises RuntimeError at the update; opbuild applies the rule its
# documentation and source give (test_gradient_centralization_rule below).
GC_ON_MINDSPORE_GPU_ONLY = {"gc_momentum", "gc_sgd", "gc_adam", "gc_adadelta", "gc_rmsprop"}
# MindSpore's UniformCandidateSampler, recorded for the expected counts SampledSoftmaxLoss's own draw uses
# (test_sampled_softmax_draw_matches_the_sampler_rule); opbuild has no such public primitive.
SAMPLER_RECORDS = {"uniform_candidate_counts_a", "uniform_candidate_counts_b", "uniform_candidate_counts_c"}


def test_fixture_records_mindspore_2_10() -> None:
    assert FIXTURE["_meta"]["mindspore"] == "2.10.0"
    assert {k for k, v in FIXTURE.items() if "error" in v} == GC_ON_MINDSPORE_GPU_ONLY | {"gc_bad_value"}


@pytest.mark.parametrize("name", sorted(set(CASES) - GC_ON_MINDSPORE_GPU_ONLY - SAMPLER_RECORDS))
def test_program_matches_mindspore(name: str, pynative_mode) -> None:
    env = {"ms": ms, "np": np}
    want = FIXTURE[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the skipped sparse indices
        if "error" in want:
            with pytest.raises(Exception) as info:  # noqa: B017 - MindSpore raises here; so must opbuild
                exec(CASES[name], env)  # noqa: S102
            assert type(info.value).__name__ == want["error"].split(":")[0]
            return
        exec(CASES[name], env)  # noqa: S102 - the repository's own programs
    assert str(env["result"]) == want["str"]


def _centralized(g: np.ndarray) -> np.ndarray:
    if g.ndim > 1 and g.shape[1] % 16 == 0:
        return g - g.mean(axis=tuple(range(1, g.ndim)), keepdims=True)
    return g


@pytest.mark.parametrize("make", ["ms.nn.Momentum(groups, 0.1, 0.0)", "ms.nn.SGD(groups, 0.1)"])
def test_gradient_centralization_rule(make: str, pynative_mode) -> None:
    env = {"ms": ms, "np": np}
    exec(_GC + f"opt = {make}\nbefore = [p.asnumpy().copy() for p in ps]\nopt(g)", env)  # noqa: S102
    # plain SGD steps for the flagged group: Momentum decays before centralizing (decay_weight, then
    # gradients_centralization); SGD centralizes and its kernel adds the decay, as MindSpore's two do
    for k, (p, b, g) in enumerate(zip(env["ps"], env["before"], env["g"], strict=True)):
        grad = g.asnumpy()
        if k == 2:
            want = b - 0.1 * grad
        elif "Momentum" in make:
            want = b - 0.1 * _centralized(grad + 0.01 * b)
        else:
            want = b - 0.1 * (_centralized(grad) + 0.01 * b)
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert env["opt"].grad_centralization_flags == (True, True, False)


@pytest.mark.parametrize("name,num_sampled,num_classes,num_true", [("a", 4, 7, 1), ("b", 5, 20, 2)])
def test_sampled_softmax_draw_matches_the_sampler_rule(name, num_sampled, num_classes, num_true) -> None:
    recorded = eval(FIXTURE[f"uniform_candidate_counts_{name}"]["str"])  # noqa: S307 - our own fixture
    loss = ms.nn.SampledSoftmaxLoss(num_sampled, num_classes, num_true, seed=5)
    labels = ms.Tensor(np.arange(3 * num_true).reshape(3, num_true) % num_classes, ms.int32)
    sampled, true_count, sampled_count = loss._sample(labels)
    assert sampled.shape == recorded[0]
    np.testing.assert_allclose(np.round(true_count.asnumpy(), 6), recorded[1])
    np.testing.assert_allclose(np.round(sampled_count.asnumpy(), 6), recorded[2])
    ids = sampled.asnumpy()
    assert len(set(ids.tolist())) == num_sampled and not set(ids.tolist()) & set(labels.asnumpy().ravel().tolist())
    again = ms.nn.SampledSoftmaxLoss(num_sampled, num_classes, num_true, seed=5)._sample(labels)[0]
    np.testing.assert_array_equal(again.asnumpy(), ids)   # a given seed repeats its draws


def test_sampled_softmax_draws_in_a_graph_where_it_breaks(graph_mode) -> None:
    # the draw reads the labels: in GRAPH_MODE the graph breaks there (core/graph_breaks.py)
    loss = ms.nn.SampledSoftmaxLoss(2, 7)
    w, b = ms.Tensor(np.ones((7, 3), np.float32)), ms.Tensor(np.zeros(7, np.float32))
    out = FnCell(lambda lab, x: loss(w, b, lab, x))(ms.Tensor(np.array([0, 1]), ms.int32),
                                                    ms.Tensor(np.ones((2, 3), np.float32)))
    # equal logits everywhere: each true class against two samples, minus equal log counts -> log(3)
    np.testing.assert_allclose(out.asnumpy(), np.log(3.0), rtol=1e-5)


def test_set_seed_seeds_numpy_as_mindspore_does() -> None:
    # MindSpore's set_seed also calls numpy.random.seed: documented examples draw their data after it
    ms.set_seed(1)
    a = np.random.randint(0, 9, [7, 10])
    np.random.seed(1)
    np.testing.assert_array_equal(a, np.random.randint(0, 9, [7, 10]))
