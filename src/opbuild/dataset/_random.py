"""The random stream of random dataset transforms (audio masks and dither, vision flips and crops,
``RandomApply``/``RandomChoice``...): seeded from the dataset seed (``ds.config.set_seed``) and advanced call
by call, so a pipeline gives the same draws from run to run. The draws are not MindSpore's (its C++ operations
use their own generators), so random results match MindSpore's in distribution, shape and dtype only."""

from __future__ import annotations

import threading

import numpy as np

from .config import get_seed, seed_generation

_lock = threading.Lock()
_state: dict[str, object] = {"seed": None, "gen": None}


def op_rng() -> np.random.Generator:
    """The generator for the next random transform call (restarted by every ``ds.config.set_seed``)."""
    key = (get_seed(), seed_generation())
    with _lock:
        if _state["seed"] != key or _state["gen"] is None:
            _state["seed"], _state["gen"] = key, np.random.default_rng(key[0])
        return _state["gen"]  # type: ignore[return-value]


def reset() -> None:
    """Restart the stream from the current dataset seed (mainly for tests)."""
    with _lock:
        _state["seed"], _state["gen"] = None, None
