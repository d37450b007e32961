"""More of MindSpore's ``Cell`` methods, gathered in a mixin that :class:`~opbuild.nn.cell.Cell` inherits:
``to`` (cast the parameters), ``offload`` (a device-memory hint), ``register_parameter_forward_hook`` (a
function applied to a parameter's value wherever the cell's forward reads it) and
``register_backward_pre_hook`` (refused, as ``register_backward_hook``).

A parameter forward hook is applied while ``construct`` is traced into a graph (``jit``, GRAPH_MODE, and
opbuild's traced gradients), so the hook's ops are part of the graph and gradients flow through them back to
the parameter: the attribute that holds the parameter reads as ``hook(parameter)`` for the duration of the
trace. As in MindSpore, a PYNATIVE_MODE call run op by op does not apply it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..core import trace
from ..core.dtypes import dtype_of
from ..core.parameter import Parameter

_DEVICES = (None, "CPU", "cpu")


class CellExtras:
    """Mixin of the Cell methods described in the module docstring."""

    def __getattr__(self, name: str) -> Any:
        # Only reached for a missing attribute: a Cell whose __init__ never called Cell.__init__ misses its
        # registries, which would otherwise surface as a puzzling '_params' error far from the cause.
        if not name.startswith("__") and "_params" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}.__init__ must call super().__init__() (no {name!r}: the "
                                 "Cell's parameter and sub-cell registries are made there)")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def to(self, device: str | None = None, dtype: Any = None, non_blocking: bool = False) -> Any:
        """Cast every parameter of this cell and its sub-cells to the floating ``dtype`` (MindSpore's
        ``Cell.to``); ``device`` may be None or 'CPU', the one device opbuild runs on. Returns the cell."""
        if device not in _DEVICES:
            raise ValueError(f"{type(self).__name__}.to: device must be None or 'CPU' (opbuild runs on the CPU), "
                             f"got {device!r}")
        if dtype is None:
            return self
        target = dtype_of(dtype)
        if not target.name.startswith(("float", "bfloat", "complex")):
            raise TypeError(f"{type(self).__name__}.to only accepts floating point or complex dtypes, got "
                            f"{target.name}")
        for _, cell in self.cells_and_names():
            for p in cell._params.values():
                if p is not None and p.dtype != target:
                    p._data = np.require(p._read().astype(target.np_dtype), requirements="C")
            cell._structure_changed()  # graphs traced for the old dtypes are dropped
        return self

    def offload(self, backward_prefetch: str | int = "Auto") -> None:
        """MindSpore's hint to keep this cell's activations in host memory between forward and backward
        (``Cell.offload``). opbuild runs on the CPU, where activations already live in host memory, so the
        hint is checked and recorded (``offload_info``) and changes nothing."""
        if not (backward_prefetch == "Auto" or (isinstance(backward_prefetch, int)
                                                and not isinstance(backward_prefetch, bool)
                                                and backward_prefetch >= 0)):
            raise ValueError(f"{type(self).__name__}.offload: backward_prefetch must be 'Auto' or an int >= 0, "
                             f"got {backward_prefetch!r}")
        self.__dict__["_offload"] = backward_prefetch

    def offload_info(self) -> str | int | None:
        """The ``backward_prefetch`` given to :meth:`offload` (None before)."""
        return self.__dict__.get("_offload")

    def register_backward_pre_hook(self, hook_fn: Callable) -> Any:
        """``hook_fn(cell, grad_output)`` runs when the gradient of this cell's outputs is known, before it
        flows into the cell; a non-None result replaces ``grad_output`` (nn/backward_hooks.py)."""
        return self._add_hook("_backward_pre_hooks", hook_fn)  # type: ignore[attr-defined] - CellApi's

    def register_parameter_forward_hook(self, params_hooks: list[dict]) -> None:
        """Apply ``hook(param)`` in place of each listed parameter wherever this cell's forward reads it
        (``params_hooks``: a list of ``{"params": [Parameter, ...], "hook": callable}``). The parameters must
        belong to this cell or its sub-cells."""
        if not isinstance(params_hooks, (list, tuple)):
            raise TypeError(f"register_parameter_forward_hook: params_hooks must be a list of dicts, got "
                            f"{type(params_hooks).__name__}")
        owners = {id(p): (cell, name) for _, cell in self.cells_and_names()
                  for name, p in cell._params.items() if p is not None}
        table = self.__dict__.setdefault("_param_forward_hooks", [])
        for entry in params_hooks:
            if not isinstance(entry, dict) or set(entry) != {"params", "hook"}:
                raise ValueError(f"register_parameter_forward_hook: each entry must be a dict with keys 'params' "
                                 f"and 'hook', got {entry!r}")
            hook = entry["hook"]
            if not callable(hook):
                raise TypeError(f"register_parameter_forward_hook: hook must be callable, got "
                                f"{type(hook).__name__}")
            for p in entry["params"]:
                if not isinstance(p, Parameter) or id(p) not in owners:
                    raise ValueError(f"register_parameter_forward_hook: {p!r} is not a parameter of "
                                     f"{type(self).__name__} or its sub-cells")
                cell, name = owners[id(p)]
                table.append((cell, name, p, hook))
        self._structure_changed()  # graphs traced without the hooks are dropped


@contextlib.contextmanager
def hooked_parameters(cell: Any) -> Iterator[None]:
    """While the block runs, each parameter with a forward hook on ``cell`` reads as the hook's result."""
    hooks = cell.__dict__.get("_param_forward_hooks")
    if not hooks or trace.current() is None:
        yield
        return
    done = []
    try:
        for owner, name, param, hook in hooks:
            object.__setattr__(owner, name, hook(param))
            done.append((owner, name, param))
        yield
    finally:
        for owner, name, param in reversed(done):
            object.__setattr__(owner, name, param)
