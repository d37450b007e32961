"""MindSpore's ``Cell`` methods beyond structure and execution (cell.py): buffers, flags, forward hooks,
``parameters_dict``, ``insert_child_to_cell``/``insert_param_to_cell``, gathered in a mixin that
:class:`~opbuild.nn.cell.Cell` inherits.

Forward hooks run around the cell's call in both modes, on the concrete inputs and outputs of each call (in
GRAPH_MODE outside the compiled graph, so a hook sees values, not traced tensors). A pre-hook returning a
value replaces the inputs; a forward hook returning a value replaces the output, as MindSpore's.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..core import deferred_hooks, graph_breaks, trace
from ..core.dtypes import dtype_of
from ..core.parameter import Parameter
from ..core.tensor import Tensor, is_placeholder


class HookHandle:
    """What ``register_forward_*hook`` returns: ``remove()`` unregisters the hook."""

    def __init__(self, hooks: OrderedDict, key: int):
        self._hooks = hooks
        self._key = key

    def remove(self) -> None:
        """Unregister the hook (a second call does nothing)."""
        self._hooks.pop(self._key, None)


class CellApi:
    """Mixin of Cell's documented helper methods (see the module docstring)."""

    # ---- buffers -------------------------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Hold ``tensor`` as a non-trainable buffer named ``name`` (an attribute; listed by
        ``named_buffers``). ``persistent`` is recorded; buffers are not written to checkpoints."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"register_buffer: name must be a non-empty string without '.', got {name!r}")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"register_buffer: {name} must be a Tensor or None, got {type(tensor).__name__}")
        if name in self._params or name in self._cells:
            raise KeyError(f"register_buffer: {name!r} is already a parameter or sub-cell")
        self.__dict__.setdefault("_buffers", OrderedDict())[name] = (tensor, bool(persistent))
        object.__setattr__(self, name, tensor)

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Tensor]]:
        """(qualified name, buffer) of this cell's buffers and, with ``recurse``, its sub-cells'."""
        cells = self.cells_and_names(prefix) if recurse else iter([(prefix, self)])
        for path, cell in cells:
            for name, (_, _) in cell.__dict__.get("_buffers", {}).items():
                value = cell.__dict__.get(name)
                if value is not None:
                    yield (f"{path}.{name}" if path else name), value

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of :meth:`named_buffers`."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ---- flags ---------------------------------------------------------------------------------------
    def add_flags(self, **flags: Any) -> CellApi:
        """Set attributes on this cell (MindSpore's compile flags); returns the cell."""
        self.__dict__.setdefault("_flags", {}).update(flags)
        for k, v in flags.items():
            object.__setattr__(self, k, v)
        return self

    def add_flags_recursive(self, **flags: Any) -> CellApi:
        """:meth:`add_flags` on this cell and every sub-cell."""
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict:
        """The flags set with :meth:`add_flags`."""
        return dict(self.__dict__.get("_flags", {}))

    # ---- parameters and children ---------------------------------------------------------------------
    def parameters_dict(self, recurse: bool = True) -> OrderedDict:
        """OrderedDict of parameter name -> Parameter (the checkpoint names)."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        """The parameters with ``requires_grad`` False."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def insert_child_to_cell(self, child_name: str, child_cell) -> None:
        """Add ``child_cell`` as the sub-cell ``child_name`` (as an attribute assignment)."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"insert_child_to_cell: invalid name {child_name!r}")
        if hasattr(self, child_name) and child_name not in self._cells:
            raise KeyError(f"insert_child_to_cell: {child_name!r} is already an attribute")
        setattr(self, child_name, child_cell)

    def insert_param_to_cell(self, param_name: str, param: Parameter, check_name_contain_dot: bool = True) -> None:
        """Add ``param`` as this cell's parameter ``param_name``."""
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"insert_param_to_cell: name {param_name!r} contains '.'")
        if not isinstance(param, Parameter):
            raise TypeError(f"insert_param_to_cell: expected a Parameter, got {type(param).__name__}")
        setattr(self, param_name, param)

    def set_grad(self, requires_grad: bool = True) -> CellApi:
        """Recorded only: opbuild derives gradients from the graph whenever ``grad`` asks for them."""
        object.__setattr__(self, "requires_grad", bool(requires_grad))
        return self

    @property
    def cls_name(self) -> str:
        """The class name of the cell."""
        return type(self).__name__

    def apply(self, fn: Callable) -> CellApi:
        """Call ``fn(cell)`` on every sub-cell, children before their parent, then on this cell; returns it."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        """Prefix the names of the parameters (this cell's and, with ``recurse``, its sub-cells')."""
        if not isinstance(prefix, str):
            raise TypeError(f"update_parameters_name: prefix must be a str, got {type(prefix).__name__}")
        for p in self.get_parameters(expand=recurse):
            p.name = prefix + p.name

    def recompute(self, **kwargs: Any) -> None:
        """Recompute this cell's activations in the backward pass of a gradient instead of keeping them (less
        memory, the same values: core/recompute.py). MindSpore's keyword options are accepted."""
        self.__dict__["_recompute"] = True

    # ---- compilation ---------------------------------------------------------------------------------
    def set_inputs(self, *inputs: Tensor, **kwinputs: Tensor) -> None:
        """MindSpore's ``Cell.set_inputs``: declare the inputs' shapes and dtypes, a dynamic dimension as None
        (``Tensor(shape=[None, 3, 32, 32], dtype=mstype.float32)``). A dynamic dim 0 is a dynamic batch: every
        batch size then runs on the kernels built once, which take the batch size at run time
        (nn/batch_runtime.py; or the chunk graphs of nn/batch_chunks.py); other dynamic dims accept any
        size, built per size. Later calls are checked against the declaration; :meth:`get_inputs` returns it.
        Inputs may also be given by ``construct``'s parameter names (``set_inputs(x=...)``)."""
        if kwinputs:
            names = [n for n in inspect.signature(self.construct).parameters if n not in ("self",)]
            unknown = [k for k in kwinputs if k not in names]
            if unknown:
                raise TypeError(f"set_inputs: {unknown} are not parameters of construct{tuple(names)}")
            inputs = inputs + tuple(kwinputs[n] for n in names[len(inputs):] if n in kwinputs)
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TypeError(f"set_inputs: inputs must be Tensors, got {type(t).__name__}")
        self.__dict__["_declared_inputs"] = tuple(inputs)
        # What each call is checked against, resolved once: (NumPy dtype, dims with -1 free, dynamic batch).
        self.__dict__["_declared_spec"] = tuple(
            (dtype_of(t._type.dtype).np_dtype, tuple(t.shape), is_placeholder(t) and t.ndim > 0 and t.shape[0] == -1)
            for t in inputs)

    def get_inputs(self) -> tuple[Tensor, ...] | None:
        """The inputs given to :meth:`set_inputs` (None before)."""
        return self.__dict__.get("_declared_inputs")

    def set_jit_config(self, jit_config: Any) -> None:
        """Record a ``JitConfig`` (MindSpore chooses its graph compiler by it; opbuild has one)."""
        if not hasattr(jit_config, "jit_config_dict"):
            raise TypeError(f"set_jit_config: expected a JitConfig, got {type(jit_config).__name__}")
        self.__dict__["_jit_config"] = jit_config

    def get_jit_config(self) -> dict:
        """The ``jit_config_dict`` of the JitConfig set (empty before)."""
        config = self.__dict__.get("_jit_config")
        return dict(config.jit_config_dict) if config is not None else {}

    def compile(self, *args: Any) -> None:
        """Trace ``construct`` on ``args``' signature and build every kernel of its graph, without running it
        (the next call with that signature runs the compiled graph at once). Where control flow over tensor
        values breaks the graph, the pieces up to the first break are built (the condition needs a call's
        values; core/graph_breaks.py)."""
        args = tuple(Tensor(a) if isinstance(a, np.ndarray) else a for a in args)
        key = (self._state_signature(), trace.arg_signature(args, f"{type(self).__name__} (a Cell)"))
        graph_breaks.compile_only(self._graphs, key, self._construct_in_precision, args)

    # ---- hooks ---------------------------------------------------------------------------------------
    def _hooks(self, kind: str) -> OrderedDict:
        return self.__dict__.setdefault(kind, OrderedDict())

    def register_forward_pre_hook(self, hook_fn: Callable) -> HookHandle:
        """``hook_fn(cell, inputs)`` runs before each call; a non-None result replaces the inputs."""
        return self._add_hook("_forward_pre_hooks", hook_fn)

    def register_forward_hook(self, hook_fn: Callable) -> HookHandle:
        """``hook_fn(cell, inputs, output)`` runs after each call; a non-None result replaces the output."""
        return self._add_hook("_forward_hooks", hook_fn)

    def register_backward_hook(self, hook_fn: Callable) -> HookHandle:
        """``hook_fn(cell, grad_input, grad_output)`` runs when a gradient flows back through this cell (tuples
        of Tensors); a non-None result replaces ``grad_input`` (nn/backward_hooks.py)."""
        return self._add_hook("_backward_hooks", hook_fn)

    def _add_hook(self, kind: str, hook_fn: Callable) -> HookHandle:
        if not callable(hook_fn):
            raise TypeError(f"{kind.strip('_')}: hook must be callable, got {type(hook_fn).__name__}")
        hooks = self._hooks(kind)
        key = max(hooks, default=-1) + 1
        hooks[key] = hook_fn
        return HookHandle(hooks, key)

    def _call_with_hooks(self, call: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """``call(*args, **kwargs)`` between the forward pre-hooks and forward hooks, if any (recorded for
        after the graph has run while a PYNATIVE_MODE gradient traces: core/deferred_hooks.py)."""
        if trace.current() is not None and deferred_hooks.active():
            for hook in list(self.__dict__.get("_forward_pre_hooks", {}).values()):
                deferred_hooks.record(hook, (self, args))
            out = call(*args, **kwargs)
            for hook in list(self.__dict__.get("_forward_hooks", {}).values()):
                deferred_hooks.record(hook, (self, args, out))
            return out
        for hook in list(self.__dict__.get("_forward_pre_hooks", {}).values()):
            new = hook(self, args)
            if new is not None:
                args = new if isinstance(new, tuple) else (new,)
        out = call(*args, **kwargs)
        for hook in list(self.__dict__.get("_forward_hooks", {}).values()):
            new = hook(self, args, out)
            if new is not None:
                out = new
        return out
