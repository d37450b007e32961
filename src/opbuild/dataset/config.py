"""Dataset configuration (``mindspore.dataset.config``): the seed of every random operation of a pipeline.

MindSpore draws shuffles from a dataset seed that ``mindspore.set_seed`` also sets. Here the dataset seed
defaults to the context seed that :func:`opbuild.set_seed` sets (0 until then), so a pipeline's order is
repeatable from run to run; :func:`set_seed` of this module overrides it for datasets only.
"""

from __future__ import annotations

import threading

from ..core import config as _context

_lock = threading.Lock()
_override: list[int | None] = [None]  # a one-slot box: read and written under _lock
_generation = [0]  # counts set_seed calls, so random transforms restart their stream on each


def set_seed(seed: int) -> None:
    """Seed every random operation of datasets created iterators from now on (``ds.config.set_seed``).

    Raises ValueError unless ``seed`` is an int in [0, 2**32 - 1], MindSpore's range.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 2**32 - 1:
        raise ValueError(f"dataset seed must be an int in [0, 2**32 - 1], got {seed!r}")
    with _lock:
        _override[0] = seed
        _generation[0] += 1


def seed_generation() -> int:
    """How many times :func:`set_seed` was called: random transforms restart their stream when it changes."""
    with _lock:
        return _generation[0]


def get_seed() -> int:
    """The dataset seed: the last :func:`set_seed` of this module, else the context seed (opbuild.set_seed)."""
    with _lock:
        seed = _override[0]
    return int(_context.get_context("seed")) if seed is None else seed


def reset_seed() -> None:
    """Forget :func:`set_seed`, so the dataset seed follows the context seed again (mainly for tests)."""
    with _lock:
        _override[0] = None
