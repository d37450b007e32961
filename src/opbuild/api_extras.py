"""Top-level MindSpore 2.x functions that carry no computation on a single CPU process: tensor construction
from buffers (``from_numpy``, ``frombuffer``), graph-compilation hints (``mutable``, ``no_inline``,
``jit_class``, ``recompute``), log and parameter-server/algorithm contexts, and ``merge_sliced_parameter``.
Hints are accepted and change nothing here (opbuild compiles what it traces; see docs/mindspore-compat.md);
the contexts keep and return what is set, with MindSpore's defaults and key checks.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .core.dtypes import DType
from .core.parameter import Parameter
from .core.recompute import block as recomputed_block
from .core.tensor import Tensor
from .nn.cell import Cell


def from_numpy(array: np.ndarray) -> Tensor:
    """A Tensor of ``array`` (``mindspore.from_numpy``)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(array).__name__}")
    return Tensor(array)


def frombuffer(buffer, dtype: DType, count: int = -1, offset: int = 0) -> Tensor:
    """A 1-D Tensor of the items of a bytes-like ``buffer`` read as ``dtype`` (``mindspore.frombuffer``)."""
    if not isinstance(dtype, DType):
        raise TypeError(f"frombuffer: dtype must be a mindspore dtype such as mindspore.uint8, got {dtype!r}")
    return Tensor(np.frombuffer(buffer, dtype=dtype.np_dtype, count=count, offset=offset).copy(), dtype=dtype)


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """Mark a tuple/list/dict of tensors as variable for graph compilation; opbuild traces tensors as
    inputs already, so the data comes back unchanged."""
    if not isinstance(input_data, (Tensor, tuple, list, dict, int, float)):
        raise TypeError(f"mutable: input_data must be a Tensor, tuple, list, dict or scalar, got "
                        f"{type(input_data).__name__}")
    return input_data


def no_inline(fn=None):
    """Decorator: keep ``fn`` a separate subgraph in MindSpore; opbuild inlines it (same results)."""
    return fn if fn is not None else (lambda f: f)


def jit_class(cls):
    """Decorator: let a plain class's objects be used inside ``construct``; opbuild traces Python objects
    as they are, so the class comes back unchanged."""
    if not isinstance(cls, type):
        raise TypeError(f"jit_class: expected a class, got {type(cls).__name__}")
    return cls


def recompute(block, *args, use_reentrant: bool = True, output_recompute: bool = False, early_stop: bool = True,
              context_fn: Any = None, **kwargs):
    """Call the Cell ``block(*args, **kwargs)``; a gradient taken through the call recomputes the block's
    activations in its backward pass instead of keeping them (core/recompute.py: less memory, the same
    values). ``output_recompute``, ``early_stop`` and ``context_fn`` are accepted and have no effect."""
    if use_reentrant and not isinstance(block, Cell):
        raise TypeError(f"recompute: block must be a Cell when use_reentrant=True, got {type(block).__name__}")
    if not callable(block):
        raise TypeError(f"recompute: block must be callable, got {type(block).__name__}")
    with recomputed_block():
        return block(*args, **kwargs)


def ms_memory_recycle() -> None:
    """Release cached device memory (nothing is cached on opbuild's CPU target)."""


def get_level() -> str:
    """The log level ``GLOG_v`` selects ('2', warnings, by default)."""
    return os.environ.get("GLOG_v", "2")  # noqa: SIM112 - MindSpore's variable name


# MindSpore's variable names (lower-case parts included).
_LOG_CONFIG = {"GLOG_v": os.environ.get("GLOG_v", "2"),  # noqa: SIM112
               "GLOG_logtostderr": os.environ.get("GLOG_logtostderr", "1")}  # noqa: SIM112


def get_log_config() -> dict[str, str]:
    """The log settings read from the environment when the module was imported."""
    return dict(_LOG_CONFIG)


_PS_DEFAULTS: dict[str, Any] = {"enable_ps": False, "config_file_path": "", "enable_ssl": False,
                                "client_password": "", "server_password": "", "scheduler_manage_port": 11202}
_ps: dict[str, Any] = dict(_PS_DEFAULTS)


def set_ps_context(**kwargs) -> None:
    """Set parameter-server keys (kept; opbuild trains in one process and uses no parameter server)."""
    for key in kwargs:
        if key not in _PS_DEFAULTS:
            raise ValueError(f"set_ps_context: unknown key {key!r} (known: {', '.join(_PS_DEFAULTS)})")
    _ps.update(kwargs)


def get_ps_context(attr_key: str) -> Any:
    """The value of a parameter-server key."""
    if attr_key not in _PS_DEFAULTS:
        raise ValueError(f"get_ps_context: unknown key {attr_key!r} (known: {', '.join(_PS_DEFAULTS)})")
    return _ps[attr_key]


# MindSpore 2.10's defaults (the epsilon is stored as a float32, as there).
_ALGO_DEFAULTS: dict[str, Any] = {"fully_use_devices": False, "elementwise_op_strategy_follow": False,
                                  "enable_algo_approxi": False, "algo_approxi_epsilon": float(np.float32(0.1)),
                                  "tensor_slice_align_enable": False, "tensor_slice_align_size": 16}
_algo: dict[str, Any] = dict(_ALGO_DEFAULTS)


def set_algo_parameters(**kwargs) -> None:
    """Set the auto-parallel strategy-search keys (kept; they steer no search on a single CPU process)."""
    for key in kwargs:
        if key not in _ALGO_DEFAULTS:
            raise ValueError(f"set_algo_parameters: unknown key {key!r} (known: {', '.join(_ALGO_DEFAULTS)})")
    _algo.update(kwargs)


def get_algo_parameters(attr_key: str) -> Any:
    """The value of a strategy-search key."""
    if attr_key not in _ALGO_DEFAULTS:
        raise ValueError(f"get_algo_parameters: unknown key {attr_key!r} (known: {', '.join(_ALGO_DEFAULTS)})")
    return _algo[attr_key]


def reset_algo_parameters() -> None:
    """Every strategy-search key back to its default."""
    _algo.clear()
    _algo.update(_ALGO_DEFAULTS)


def merge_sliced_parameter(sliced_parameters: list, strategy: dict | None = None) -> Parameter:
    """One Parameter of the slices (concatenated along axis 0) of a parameter split across devices."""
    if not sliced_parameters or not all(isinstance(p, Parameter) for p in sliced_parameters):
        raise TypeError("merge_sliced_parameter: sliced_parameters must be a non-empty list of Parameters")
    names = {p.name for p in sliced_parameters}
    if len(names) != 1:
        raise ValueError(f"merge_sliced_parameter: the slices must share one name, got {sorted(names)}")
    if strategy is not None:
        raise NotImplementedError("merge_sliced_parameter: strategy (a layout across devices) is not supported "
                                  "by opbuild, which runs one process; pass strategy=None")
    first = sliced_parameters[0]
    data = np.concatenate([np.asarray(p.asnumpy()) for p in sliced_parameters], axis=0)
    return Parameter(Tensor(data, dtype=first.dtype), name=first.name, requires_grad=first.requires_grad)
