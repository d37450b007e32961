"""The ``set_context`` keys MindSpore 2.10 accepts beyond the ones opbuild acts on (mode, device_target,
device_id, seed; see config.py).

Each is type-checked as MindSpore checks it and stored, so ``get_context`` returns it; none changes what
opbuild does, and the first use of each key in a process logs one note saying why (a GPU/Ascend option, a
debug dump opbuild does not write, a compiler choice its one compiler does not have). A key MindSpore does not
accept is refused with a ValueError naming it, as MindSpore refuses it.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

_log = logging.getLogger("opbuild.context")

_ASCEND = "an Ascend/GPU device option; opbuild runs on the CPU"
_DEBUG = "opbuild writes no IR or dump files (use opbuild.build_report() and `opbuild explain` to see what was built)"
_COMPILER = ("it chooses among MindSpore's graph compilers; opbuild has one (every graph is traced and its kernels "
             "cached)")

# key -> (accepted Python types, default get_context returns before a set, why it changes nothing here)
KEYS: dict[str, tuple[tuple[type, ...], object, str]] = {
    "deterministic": ((str,), "OFF", "opbuild's CPU kernels are deterministic already"),
    "max_call_depth": ((int,), 1000, "tracing inlines calls, bounded by Python's recursion limit"),
    "variable_memory_max_size": ((str,), "", _ASCEND),
    "mempool_block_size": ((str,), "1GB", _ASCEND),
    "memory_optimize_level": ((str,), "O0", "opbuild always plans memory by liveness"),
    "max_device_memory": ((str,), "1024GB", _ASCEND),
    "pynative_synchronize": ((bool,), False, "PyNative ops already run synchronously"),
    "compile_cache_path": ((str,), "", "opbuild's kernel cache root is OPBUILD_CACHE_PATH (or MS_COMPILER_CACHE_PATH)"),
    "inter_op_parallel_num": ((int,), 0, "graphs run their kernels in order on one thread"),
    "disable_format_transform": ((bool,), False, _ASCEND),
    "jit_syntax_level": ((int,), 1, "opbuild traces construct; there is no syntax level to choose"),
    "jit_config": ((dict,), {}, _COMPILER),
    "exec_order": ((str,), "bfs", "graphs run their kernels in the traced order"),
    "op_timeout": ((int,), 900, "compiler calls are bounded by OPBUILD_COMPILE_TIMEOUT"),
    "aoe_tune_mode": ((str,), "", _ASCEND),
    "aoe_config": ((dict,), {}, _ASCEND),
    "runtime_num_threads": ((int,), 30, "kernel threads follow OPBUILD_OMP_NUM_THREADS / OMP_NUM_THREADS"),
    "save_graphs": ((bool, int), 0, _DEBUG),
    "save_graphs_path": ((str,), ".", _DEBUG),
    "enable_compile_cache": ((bool,), False, "opbuild's kernel cache is always on (OPBUILD_CACHE=0 turns it off)"),
    "ascend_config": ((dict,), {}, _ASCEND),
    "gpu_config": ((dict,), {}, _ASCEND),
    "print_file_path": ((str,), "", _DEBUG),
    "env_config_path": ((str,), "", _DEBUG),
    "debug_level": ((int,), 0, _DEBUG),
    "reserve_class_name_in_scope": ((bool,), True, _DEBUG),
    "check_bprop": ((bool,), False, "gradient rules are checked when they are registered"),
    "enable_reduce_precision": ((bool,), True, _ASCEND),
    "support_binary": ((bool,), False, "construct is traced by running it, so .pyc-only code works already"),
    # Accepted by MindSpore 2.10 though deprecated there (its type checks still apply).
    "enable_graph_kernel": ((bool,), False, "fusion is on by default (OPBUILD_FUSION=0 turns it off)"),
    "graph_kernel_flags": ((str,), "", "fusion is on by default (OPBUILD_FUSION=0 turns it off)"),
    "save_compile_cache": ((bool,), False, "opbuild's kernel cache is always on"),
    "load_compile_cache": ((bool,), False, "opbuild's kernel cache is always on"),
    "enable_auto_mixed_precision": ((bool,), False, "use amp.auto_mixed_precision or Cell.to_float"),
    "jit_enable_inplace_ops": ((bool,), False, _COMPILER),
}

_JIT_LEVELS = ("O0", "O1", "O2")
_noted: set[str] = set()  # process state, as the context itself: each key's note is logged once


def check(key: str, value: object) -> object:
    """The canonical value of one of :data:`KEYS` (``save_graphs`` True/False -> 2/0, as MindSpore); a
    TypeError or ValueError naming the key when MindSpore would refuse ``value``."""
    types, _, _ = KEYS[key]
    if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
        names = " or ".join(t.__name__ for t in types)
        raise TypeError(f"set_context: {key} must be {names}, got {type(value).__name__} {value!r}")
    if key == "save_graphs":
        value = {True: 2, False: 0}.get(value, value) if isinstance(value, bool) else value
        if not 0 <= value <= 3:
            raise ValueError(f"set_context: save_graphs must be a bool or 0-3, got {value!r}")
    if key == "jit_config":
        unknown = set(value) - {"jit_level", "infer_boost", "exc_mode", "jit_syntax_level", "debug_level"}
        if unknown:
            raise ValueError(f"set_context: jit_config has unknown keys {sorted(unknown)}; MindSpore accepts "
                             "jit_level, infer_boost, exc_mode, jit_syntax_level, debug_level")
        if "jit_level" in value and value["jit_level"] not in _JIT_LEVELS:
            raise ValueError(f"set_context: jit_config['jit_level'] must be one of {_JIT_LEVELS}, got "
                             f"{value['jit_level']!r}")
    if key == "max_call_depth" and value <= 0:
        raise ValueError(f"set_context: max_call_depth must be a positive int, got {value}")
    note(key)
    return value


def note(key: str) -> None:
    """Log, once per process, that ``key`` is accepted and why it changes nothing on opbuild."""
    if key in _noted:
        return
    _noted.add(key)
    _log.warning("set_context(%s=...) is accepted for MindSpore compatibility and changes nothing on opbuild: %s",
                 key, KEYS[key][2])


def default(key: str) -> object:
    """What ``get_context(key)`` returns before the key is set."""
    return KEYS[key][1]


class DeviceInfo(NamedTuple):
    """What :func:`get_current_device` returns: ``(device_target, device_id)`` with those attribute names."""

    device_target: str
    device_id: int


def get_current_device() -> DeviceInfo:
    """MindSpore 2.x's ``get_current_device()``: the target and device id builds use."""
    from . import config  # function level: config imports this module

    return DeviceInfo(config.get_context("device_target"), config.get_context("device_id"))


def set_deterministic(deterministic: bool) -> None:
    """MindSpore 2.x's ``set_deterministic(bool)``: recorded as ``get_context('deterministic')`` ("ON"/"OFF");
    opbuild's CPU kernels are deterministic already."""
    from . import config

    if not isinstance(deterministic, bool):
        raise TypeError(f"set_deterministic: deterministic must be a bool, got {type(deterministic).__name__}")
    config.set_context(deterministic="ON" if deterministic else "OFF")


def set_recursion_limit(recursion_limit: int = 1000) -> None:
    """MindSpore 2.x's ``set_recursion_limit``: ``set_context(max_call_depth=recursion_limit)``."""
    from . import config

    config.set_context(max_call_depth=recursion_limit)
