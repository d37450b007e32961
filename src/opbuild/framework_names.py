"""Top-level MindSpore 2.x functions around a training script: ``swap_tensors``, ``shard`` and ``set_dump``
(``data_sink`` is train/data_sink.py).

* ``swap_tensors`` exchanges two tensors' data (dtype and shape included), as MindSpore's does.
* ``shard`` gives an operator's layout across devices. In the ``stand_alone`` and ``data_parallel`` modes
  MindSpore returns the function unchanged and runs it whole, and so does opbuild; the layout modes
  (``semi_auto_parallel``, ``auto_parallel``), which split tensors across devices, are refused by opbuild's
  ``set_auto_parallel_context`` already.
* ``set_dump`` marks a Cell or Primitive for MindSpore's Ascend data dump. MindSpore's CPU build warns that
  it is not supported and does nothing; opbuild checks the arguments the same way and warns the same.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .core.tensor import Tensor
from .nn.cell import Cell
from .ops.primitive_api import Primitive


def swap_tensors(t1: Tensor, t2: Tensor) -> None:
    """Exchange the contents of ``t1`` and ``t2`` (values, dtype and shape) in place."""
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"swap_tensors: {name} must be a Tensor, got {type(t).__name__}")
        if t._data is None:
            raise RuntimeError(f"swap_tensors: {name} has no data here (a traced value or a shape declaration); "
                               "swap concrete tensors outside a compiled construct")
    t1._data, t2._data = t2._data, t1._data
    t1._value, t2._value = t2._value, t1._value


def shard(fn: Callable, in_strategy: Any, out_strategy: Any = None, parameter_plan: Any = None) -> Callable:
    """``fn`` itself: in the ``stand_alone`` and ``data_parallel`` modes MindSpore applies no layout and runs
    ``fn`` whole, and those are the only modes opbuild's ``set_auto_parallel_context`` accepts (it refuses the
    layout modes, which split operators across devices)."""
    return fn


def set_dump(target: Any, enabled: bool = True) -> None:
    """Check ``target`` (a Cell or Primitive) and ``enabled`` and warn that no dump is written: MindSpore's dump
    is an Ascend feature, and opbuild writes none (``opbuild.build_report`` describes the built kernels)."""
    if not isinstance(target, (Cell, Primitive)):
        raise ValueError(f'The "target" parameter must be an instance of Cell or Primitive, but got an instance '
                         f"of {type(target)}.")
    if not isinstance(enabled, bool):
        raise ValueError('The "enabled" parameter must be bool.')
    warnings.warn("set_dump: data dump is an Ascend feature; on opbuild's CPU target nothing is dumped",
                  UserWarning, stacklevel=2)


__all__ = ["swap_tensors", "shard", "set_dump"]
