"""MindSpore's random primitive classes over ops/api/random_ext.py: ``Bernoulli``, ``RandomGamma``,
``RandomPoisson``, ``RandomCategorical``, ``RandomChoiceWithMask``, ``MultinomialWithReplacement``,
``UniformCandidateSampler`` and ``LogUniformCandidateSampler``.

Each instance owns its generator state ``[seed, counter]`` (a Parameter, as the sampling primitives of
ops/random_sample.py do), made from its ``seed``/``seed2`` by MindSpore's rules (both 0: the next op seed of the
``set_seed`` sequence), so successive calls draw new values and a program draws the same ones in every run.
``RandomCategorical`` takes its seed per call, as MindSpore's does; ``MultinomialWithReplacement`` is a pure
function of the ``seed``/``offset`` tensors it is called with.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.ms_random_streams import KernelStream
from ..core.tensor import as_tensor
from .api import random_ext as R
from .api.sampling import _state
from .primitive import Primitive
from .random_sample import draw, new_state, state_seed


class _Seeded(Primitive):
    """A primitive with MindSpore's ``seed``/``seed2`` attributes and a generator state of its own."""

    def __init__(self, seed: int = 0, seed2: int = 0, **attrs: Any):
        Primitive.__init__(self, seed=seed, seed2=seed2, **attrs)
        object.__setattr__(self, "_rng", new_state(state_seed(seed, seed2)))


class Bernoulli(Primitive):
    """``ops.Bernoulli(seed=-1, offset=0)(x, p)``: 0/1 samples of Bernoulli(``p``) of ``x``'s shape and dtype.
    A seed (not -1) draws MindSpore's values, the same at every call (its CPU kernel's; ``offset`` is unused
    there); ``seed=-1`` (unseeded in MindSpore) takes the next op seed of the ``set_seed`` sequence and draws
    opbuild's stream, from ``offset``."""

    def __init__(self, seed: int = -1, offset: int = 0):
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < -1:
            raise ValueError(f"Bernoulli: seed must be -1 or a non-negative int, got {seed!r}")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ValueError(f"Bernoulli: offset must be a non-negative int, got {offset!r}")
        Primitive.__init__(self, seed=seed, offset=offset)
        rng = new_state(state_seed(0, 0) if seed == -1 else state_seed(seed, 1))
        rng.set_data(np.array([int(rng.asnumpy()[0]), offset], np.int64))
        object.__setattr__(self, "_rng", rng)

    def __call__(self, x, p):
        t = as_tensor(x)
        if self.attrs["seed"] != -1:  # MindSpore's values: its kernel restarts the seed's stream at every call
            return R.seeded_bernoulli(t, p, self.attrs["seed"], "Bernoulli")
        u = draw("UniformReal", {"shape": tuple(t.shape)}, self._rng)
        return R.bernoulli_with(t, p, u, "Bernoulli")


class RandomGamma(_Seeded):
    """``ops.RandomGamma(seed=0, seed2=0)(shape, alpha)``: Gamma(alpha, 1) samples of ``shape + alpha.shape``
    (a fixed-round rejection sampler over the sampling kernels)."""

    def __call__(self, shape, alpha):
        return R.gamma_draw("RandomGamma", shape, alpha, self._rng)


class RandomPoisson(_Seeded):
    """``ops.RandomPoisson(seed=0, seed2=0, dtype=int64)(shape, rate)``: Poisson(rate) samples of
    ``shape + rate.shape`` (inversion and fixed-round rejection over the sampling kernels)."""

    def __init__(self, seed: int = 0, seed2: int = 0, dtype: Any = "int64"):
        dt = R.index_dtype("RandomPoisson", dtype, ("float16", "float32", "float64", "int32", "int64"))
        _Seeded.__init__(self, seed, seed2, dtype=dt)

    def __call__(self, shape, rate):
        return R.poisson_draw("RandomPoisson", shape, rate, self._rng, self.attrs["dtype"])


class RandomCategorical(Primitive):
    """``ops.RandomCategorical(dtype=int64)(logits, num_sample, seed=0)``: ``num_sample`` category indices per
    row of the 2-D ``logits``, drawn from their softmax."""

    def __init__(self, dtype: Any = "int64"):
        Primitive.__init__(self, dtype=R.index_dtype("RandomCategorical", dtype))
        object.__setattr__(self, "_ms_kernels", {})

    def __call__(self, logits, num_sample, seed=0):
        s = R.int_arg("RandomCategorical", "seed", seed)
        got = R.ms_categorical("RandomCategorical", logits, num_sample, self._kernel(logits, num_sample, s),
                               self.attrs["dtype"])
        if got is not None:
            return got
        return R.categorical("RandomCategorical", logits, num_sample, _state("RandomCategorical", s or None),
                             self.attrs["dtype"])

    def _kernel(self, logits, num_sample, seed: int) -> KernelStream | None:
        """MindSpore's generator of this object for the call (a seed given): one per kernel (logits' shape and
        dtype, sample count, seed), continued across calls, as MindSpore's PyNative kernel cache keeps it."""
        if not seed:
            return None
        x = as_tensor(logits)
        key = (tuple(x.shape), x.dtype.name, num_sample, seed)
        if key not in self._ms_kernels:
            self._ms_kernels[key] = KernelStream(0, seed, normal=True)
        return self._ms_kernels[key]


class RandomChoiceWithMask(_Seeded):
    """``ops.RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x)``: ``ops.choice_with_mask`` with this
    primitive's own generator."""

    def __init__(self, count: int = 256, seed: int = 0, seed2: int = 0):
        _Seeded.__init__(self, seed, seed2, count=count)

    def __call__(self, input_x):
        return R.choice_draw("RandomChoiceWithMask", input_x, self.attrs["count"], self._rng)


class MultinomialWithReplacement(Primitive):
    """``ops.MultinomialWithReplacement(numsamples, replacement=False)(x, seed, offset)``:
    ``ops.multinomial_with_replacement``."""

    def __init__(self, numsamples: int, replacement: bool = False):
        Primitive.__init__(self, numsamples=numsamples, replacement=replacement)

    def __call__(self, x, seed, offset):
        return R.multinomial_with_replacement(x, seed, offset, self.attrs["numsamples"], self.attrs["replacement"])


class UniformCandidateSampler(_Seeded):
    """``ops.UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed=0,
    remove_accidental_hits=False)(true_classes)``: ``ops.uniform_candidate_sampler``."""

    def __init__(self, num_true: int, num_sampled: int, unique: bool, range_max: int, seed: int = 0,
                 remove_accidental_hits: bool = False):
        _Seeded.__init__(self, seed, 0, num_true=num_true, num_sampled=num_sampled, unique=unique,
                         range_max=range_max, remove_accidental_hits=remove_accidental_hits)

    def __call__(self, true_classes):
        a = self.attrs
        return R.candidate_draw("UniformCandidateSampler", true_classes, a["num_true"], a["num_sampled"],
                                a["unique"], a["range_max"], self._rng, False, a["remove_accidental_hits"])


class LogUniformCandidateSampler(_Seeded):
    """``ops.LogUniformCandidateSampler(num_true=1, num_sampled=5, unique=True, range_max=5, seed=0)
    (true_classes)``: ``ops.log_uniform_candidate_sampler``."""

    def __init__(self, num_true: int = 1, num_sampled: int = 5, unique: bool = True, range_max: int = 5,
                 seed: int = 0):
        _Seeded.__init__(self, seed, 0, num_true=num_true, num_sampled=num_sampled, unique=unique,
                         range_max=range_max)

    def __call__(self, true_classes):
        a = self.attrs
        return R.candidate_draw("LogUniformCandidateSampler", true_classes, a["num_true"], a["num_sampled"],
                                a["unique"], a["range_max"], self._rng, True)


PRIMITIVES: dict[str, type[Primitive]] = {c.__name__: c for c in (
    Bernoulli, RandomGamma, RandomPoisson, RandomCategorical, RandomChoiceWithMask, MultinomialWithReplacement,
    UniformCandidateSampler, LogUniformCandidateSampler)}
