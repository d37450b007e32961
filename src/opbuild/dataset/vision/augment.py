"""Policies that pick among vision transforms: ``UniformAugment`` and ``RandomSelectSubpolicy``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._common import rng


class UniformAugment:
    """``UniformAugment(transforms, num_ops=2)``: apply ``num_ops`` transforms chosen uniformly (without
    repetition) from ``transforms``, in random order."""

    def __init__(self, transforms: Sequence[Callable[..., Any]], num_ops: int = 2) -> None:
        if not transforms or not all(callable(t) for t in transforms):
            raise ValueError("UniformAugment: transforms must be a non-empty list of callables")
        if not 1 <= num_ops <= len(transforms):
            raise ValueError(f"UniformAugment: num_ops must be in [1, {len(transforms)}], got {num_ops!r}")
        self.transforms, self.num_ops = list(transforms), int(num_ops)

    def __call__(self, img: Any) -> np.ndarray:
        out = img
        for k in rng().choice(len(self.transforms), self.num_ops, replace=False):
            out = self.transforms[int(k)](out)
        return np.asarray(out)


class RandomSelectSubpolicy:
    """``RandomSelectSubpolicy(policy)``: pick one sub-policy (a list of ``(transform, prob)``) uniformly and
    apply each of its transforms with its probability."""

    def __init__(self, policy: Sequence[Sequence[tuple[Callable[..., Any], float]]]) -> None:
        if not policy or not all(sub and all(callable(op) and 0 <= p <= 1 for op, p in sub) for sub in policy):
            raise ValueError("RandomSelectSubpolicy: policy must be a non-empty list of non-empty lists of "
                             "(callable, probability in [0, 1]) pairs")
        self.policy = [list(sub) for sub in policy]

    def __call__(self, img: Any) -> np.ndarray:
        gen = rng()
        out = img
        for op, p in self.policy[int(gen.integers(0, len(self.policy)))]:
            if gen.random() < p:
                out = op(out)
        return np.asarray(out)


__all__ = ["UniformAugment", "RandomSelectSubpolicy"]
