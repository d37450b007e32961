"""``set_auto_parallel_context`` / ``get_auto_parallel_context`` / ``reset_auto_parallel_context``: how a
program asks for data-parallel training (MindSpore's API, top level and in ``mindspore.context``).

opbuild runs one process per rank and shards no operator, so the modes it accepts are ``stand_alone`` and
``data_parallel`` (the whole model on every rank, the batch split by the dataset's ``num_shards``/``shard_id``,
gradients reduced across ranks by ``nn.TrainOneStepCell``/``nn.DistributedGradReducer``). The automatic
sharding modes are refused rather than run as something else.
"""

from __future__ import annotations

import threading
from typing import Any

from .management import get_group_size, get_rank, is_initialized


class ParallelMode:
    """The parallel-mode names of ``mindspore.context.ParallelMode`` (also ``mindspore.ParallelMode``).

    opbuild runs one process per rank with no automatic sharding; the constants exist so that programs which
    name a mode (typically ``DATA_PARALLEL`` for ``set_auto_parallel_context``) import and run unchanged.
    """

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


SUPPORTED_MODES = (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL)

_DEFAULTS: dict[str, Any] = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,  # MindSpore's default: the reducer sums unless asked to average
    "device_num": None,  # None: the job's group size (1 before communication.init)
    "global_rank": None,  # None: this process's rank (0 before communication.init)
    "parameter_broadcast": True,  # a data-parallel step starts every rank from rank 0's weights
    "grad_bucket_bytes": 25 << 20,  # opbuild's: gradients reduced together per bucket (one MPI call each)
    "dataset_strategy": "data_parallel",  # MindSpore's default: each rank reads its own shard of the data
}
_context: dict[str, Any] = dict(_DEFAULTS)
_explicit: set[str] = set()  # the keys set_auto_parallel_context was given since the last reset
_lock = threading.Lock()


def _check(key: str, value: Any) -> Any:
    if key not in _DEFAULTS:
        raise ValueError(f"set_auto_parallel_context: unknown key {key!r} (known: {', '.join(_DEFAULTS)})")
    if key == "parallel_mode":
        if value not in ParallelMode.MODE_LIST:
            raise ValueError(f"set_auto_parallel_context: parallel_mode must be one of {ParallelMode.MODE_LIST}, "
                             f"got {value!r}")
        if value not in SUPPORTED_MODES:
            raise ValueError(f"set_auto_parallel_context: parallel_mode {value!r} shards operators, which opbuild "
                             f"does not do; use {ParallelMode.DATA_PARALLEL!r}")
    elif key == "dataset_strategy":
        if value not in ("data_parallel", "full_batch"):
            raise ValueError(f"set_auto_parallel_context: dataset_strategy must be 'data_parallel' or "
                             f"'full_batch' (sharding strategies are not supported), got {value!r}")
    elif key in ("gradients_mean", "parameter_broadcast"):
        if not isinstance(value, bool):
            raise TypeError(f"set_auto_parallel_context: {key} must be a bool, got {type(value).__name__}")
    elif isinstance(value, bool) or not isinstance(value, int) or value < (1 if key != "global_rank" else 0):
        raise ValueError(f"set_auto_parallel_context: {key} must be a positive int, got {value!r}")
    return value


def set_auto_parallel_context(**kwargs: Any) -> None:
    """Set keys of the parallel context (validated all first: a bad key changes nothing)."""
    checked = {k: _check(k, v) for k, v in kwargs.items()}
    with _lock:
        _context.update(checked)
        _explicit.update(checked)


def get_auto_parallel_context(attr_key: str) -> Any:
    """One key of the parallel context; ``device_num``/``global_rank`` default to the job's size and rank."""
    if attr_key not in _DEFAULTS:
        raise ValueError(f"get_auto_parallel_context: unknown key {attr_key!r} (known: {', '.join(_DEFAULTS)})")
    value = _context[attr_key]
    if value is None and attr_key == "device_num":
        return get_group_size() if is_initialized() else 1
    if value is None and attr_key == "global_rank":
        return get_rank() if is_initialized() else 0
    return value


def reset_auto_parallel_context() -> None:
    """Back to the defaults (stand-alone)."""
    with _lock:
        _context.clear()
        _context.update(_DEFAULTS)
        _explicit.clear()


def is_set(attr_key: str) -> bool:
    """Whether ``attr_key`` was given to set_auto_parallel_context since the last reset."""
    return attr_key in _explicit


def data_parallel() -> bool:
    """Whether gradients are to be reduced across ranks (parallel_mode is data_parallel)."""
    return _context["parallel_mode"] == ParallelMode.DATA_PARALLEL
