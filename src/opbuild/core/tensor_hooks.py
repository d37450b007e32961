"""Backward hooks on Tensors: ``Tensor.register_hook(hook)``, ``Tensor.hooks()``, ``Tensor.remove_hook(id)``.

A hook sees the gradient that reaches its tensor when a gradient is taken (``mindspore.grad``,
``value_and_grad``, ``GradOperation``) and may return a replacement. Two kinds of tensor get one:

* a tensor with data (an argument of the differentiated function): the hook is kept here, by the tensor's id, and
  autograd.py puts an identity whose gradient calls it right after that argument's graph input
  (:func:`apply_hooks`), so a compiled gradient graph calls it on every run; the hooks are part of the compiled
  graph's key, so adding or removing one retraces;
* a tensor being traced (an intermediate inside the differentiated function): the identity goes in at once, and
  the tensor's later uses read its output. As in MindSpore's graph mode, such a hook cannot be removed.

A Parameter's hook is refused (NotImplementedError, naming ``ops.InsertGradientOf``): the differentiated function
reads Parameters rather than taking them as arguments, so there is no argument to hook.

The identity is ``ops``' (ops/grad_hooks.py), a layer above core, reached through core/providers.py.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

from .providers import provider

_HOOKS: dict[int, dict[int, Callable[[Any], Any]]] = {}  # id(tensor) -> {handle id: hook}, in registration order
_NEXT_ID = itertools.count(1)


class TensorHookHandle:
    """What ``register_hook`` returns: ``handle.remove()`` removes the hook; ``handle.id`` is what
    ``Tensor.remove_hook`` takes."""

    def __init__(self, tensor: Any, handle_id: int):
        self.id = handle_id
        self.tensor_weakref = weakref.ref(tensor)

    def remove(self) -> None:
        """Remove the hook (nothing happens when it was removed before or its tensor is gone)."""
        tensor = self.tensor_weakref()
        if tensor is not None:
            remove(tensor, self.id)


def register(tensor: Any, hook: Callable[[Any], Any]) -> TensorHookHandle:
    """Register ``hook`` (gradient -> new gradient) on ``tensor``; its handle."""
    if not callable(hook):
        raise TypeError(f"Tensor.register_hook: hook must be a Python function, got {type(hook).__name__}")
    if hasattr(tensor, "requires_grad"):  # a Parameter: read by the traced function, not passed to it
        raise NotImplementedError(
            f"Parameter.register_hook ({tensor.name}): opbuild hooks the gradients of a differentiated function's "
            "Tensor arguments and of tensors computed inside it, not of Parameters; inside construct, wrap the "
            "parameter's use as ops.InsertGradientOf(hook)(param), or change the gradient grad returns")
    handle_id = next(_NEXT_ID)
    if tensor._data is None:  # an intermediate being traced: hooked in the graph now
        apply_hooks(tensor, [hook])
        return TensorHookHandle(tensor, handle_id)
    table = _HOOKS.get(id(tensor))
    if table is None:
        table = _HOOKS[id(tensor)] = {}
        weakref.finalize(tensor, _HOOKS.pop, id(tensor), None)  # the id may be reused once the tensor is gone
    table[handle_id] = hook
    return TensorHookHandle(tensor, handle_id)


def remove(tensor: Any, handle_id: int) -> None:
    """Remove the hook ``handle_id`` of ``tensor`` (an unknown id: nothing to do)."""
    if not isinstance(handle_id, int) or isinstance(handle_id, bool):
        raise TypeError(f"Tensor.remove_hook: handle_id must be an int (handle.id), got {type(handle_id).__name__}")
    _HOOKS.get(id(tensor), {}).pop(handle_id, None)


def hooks_of(tensor: Any) -> list[Callable[[Any], Any]]:
    """``tensor``'s hooks, in registration order."""
    return list(_HOOKS.get(id(tensor), {}).values())


def key_of(args: tuple) -> tuple:
    """The handle ids of the hooks of ``args``' tensors: part of a compiled gradient graph's key."""
    if not _HOOKS:
        return ()
    return tuple(tuple(_HOOKS.get(id(a), ())) for a in args)


def apply_hooks(tensor: Any, hooks: list[Callable[[Any], Any]]) -> None:
    """Route the gradient of the traced ``tensor`` through ``hooks`` (each gets the previous one's result; a
    None result leaves the gradient as it was): ``tensor`` is rebound to an identity whose gradient calls them."""
    def on_grad(douts: list) -> Any:
        grad = tensor._fresh(douts[0])
        for hook in hooks:
            out = hook(grad)
            grad = grad if out is None else out
        return grad

    out = provider("grad_identity")([tensor], on_grad, "Tensor.register_hook")[0]
    tensor._value = out._value
