"""Random composition of transforms: ``RandomApply``, ``RandomChoice`` and ``RandomOrder`` (drawn from the
stream ``ds.config.set_seed`` seeds, not MindSpore's)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._random import op_rng
from .basic import Compose


def _check(who: str, transforms: Sequence[Callable[..., Any]]) -> list[Callable[..., Any]]:
    if not isinstance(transforms, (list, tuple)) or not transforms:
        raise ValueError(f"{who}: transforms must be a non-empty list of callables")
    for t in transforms:
        if not callable(t):
            raise TypeError(f"{who}: every transform must be callable, got {type(t).__name__}")
    return list(transforms)


class RandomApply:
    """``RandomApply(transforms, prob=0.5)``: apply all of ``transforms`` in order with probability
    ``prob``, else pass the input through."""

    def __init__(self, transforms: Sequence[Callable[..., Any]], prob: float = 0.5) -> None:
        self.compose = Compose(_check("RandomApply", transforms))
        if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
            raise ValueError(f"RandomApply: prob must be a number in [0, 1], got {prob!r}")
        self.prob = float(prob)

    def __call__(self, *args: Any) -> Any:
        if op_rng().random() < self.prob:
            return self.compose(*args)
        return args if len(args) > 1 else args[0]


class RandomChoice:
    """``RandomChoice(transforms)``: apply one of ``transforms``, chosen uniformly."""

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        self.transforms = _check("RandomChoice", transforms)

    def __call__(self, *args: Any) -> Any:
        return self.transforms[int(op_rng().integers(0, len(self.transforms)))](*args)


class RandomOrder:
    """``RandomOrder(transforms)``: apply all of ``transforms`` in a random order."""

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        self.transforms = _check("RandomOrder", transforms)

    def __call__(self, *args: Any) -> Any:
        order = op_rng().permutation(len(self.transforms))
        return Compose([self.transforms[int(i)] for i in order])(*args)


__all__ = ["RandomApply", "RandomChoice", "RandomOrder"]
