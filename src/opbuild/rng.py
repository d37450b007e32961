"""MindSpore 2.x's seed and generator API at the top level: ``get_seed``, ``Generator``, ``manual_seed``,
``initial_seed``, ``seed``, ``get_rng_state``/``set_rng_state`` and ``default_generator``.

A Generator holds a seed and an offset (how many numbers were drawn since the seed was set), which is all its
state is in MindSpore too; ``get_state``/``set_state`` save and restore the pair as MindSpore's 16 bytes. opbuild's
random operators draw from their own seeded streams (``set_seed``, per-op ``seed``/``seed2``); a Generator's
seed is what its ``initial_seed`` reports, and the streams' bits are not MindSpore's (docs/mindspore-compat.md).
"""

from __future__ import annotations

import random as _random

import numpy as np

from .core import config
from .core.initializer import seed_epoch
from .core.tensor import Tensor

_MAX_SEED = 2**32


def get_seed() -> int | None:
    """The global seed ``set_seed`` set (None before any call), as ``mindspore.get_seed``."""
    return int(config.get_context("seed")) if seed_epoch() > 0 else None  # type: ignore[arg-type]


class Generator:
    """A random-number generator state (``mindspore.Generator``): a seed and an offset."""

    def __init__(self) -> None:
        self._seed = _random.SystemRandom().randrange(_MAX_SEED)
        self._offset = 0

    def manual_seed(self, seed: int) -> Generator:
        """Set the seed (an int) and restart the offset; returns the generator."""
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"Generator.manual_seed: seed must be an int, got {type(seed).__name__}")
        self._seed, self._offset = seed % _MAX_SEED if seed < 0 else seed, 0
        return self

    def seed(self) -> int:
        """Seed the generator from a non-deterministic source and return that seed."""
        self._seed, self._offset = _random.SystemRandom().randrange(_MAX_SEED), 0
        return self._seed

    def initial_seed(self) -> int:
        """The seed last set."""
        return self._seed

    def get_state(self) -> Tensor:
        """The state as MindSpore stores it: 16 uint8 bytes, the seed and the offset as int64."""
        return Tensor(np.array([self._seed, self._offset], np.int64).view(np.uint8))

    def set_state(self, state) -> None:
        """Restore a state ``get_state`` returned."""
        arr = np.asarray(state.asnumpy() if isinstance(state, Tensor) else state)
        if arr.dtype != np.uint8 or arr.shape != (16,):
            raise TypeError("Generator.set_state: state must be the 16-byte uint8 Tensor get_state returned")
        self._seed, self._offset = (int(v) for v in arr.view(np.int64))

    def _step(self, n: int = 1) -> tuple[int, int]:
        """(seed, offset) for the next ``n`` numbers, advancing the offset."""
        out = (self._seed, self._offset)
        self._offset += n
        return out

    def __repr__(self) -> str:
        # MindSpore's own spelling: documented examples print the generator manual_seed returns.
        return f"<mindspore.common.generator.Generator object at {hex(id(self))}>"


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (``mindspore.manual_seed``); returns it."""
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    """The default generator's seed."""
    return default_generator.initial_seed()


def seed() -> int:
    """Seed the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def get_rng_state() -> Tensor:
    """The default generator's state."""
    return default_generator.get_state()


def set_rng_state(state) -> None:
    """Restore the default generator's state."""
    default_generator.set_state(state)
