"""MindSpore's debugging hook for Python implementations of primitives: ``vm_impl_registry`` (register a
factory under a primitive's name or class) and ``get_vm_impl_fn(prim)`` (the function the factory makes for a
primitive object or name, None when nothing is registered).

opbuild runs every primitive through its compiled kernels; the registry is only looked up by code that asks
for it, as in MindSpore, where it serves debugging."""

from __future__ import annotations

from collections import UserDict
from collections.abc import Callable
from typing import Any

from .primitive import Primitive


class VmImplRegistry(UserDict):
    """Factories ``fn(prim) -> implementation`` by primitive name (a str) or primitive class (by its id and
    its name)."""

    def register(self, prim: str | type[Primitive]) -> Callable[[Callable], Callable]:
        """Decorator: register the factory under ``prim``, a primitive name or a Primitive subclass."""
        if isinstance(prim, str):
            keys: tuple[Any, ...] = (prim,)
        elif isinstance(prim, type) and issubclass(prim, Primitive):
            keys = (id(prim), prim.__name__)
        else:
            raise TypeError(f"vm_impl_registry.register: prim must be a primitive name or a Primitive subclass, "
                            f"got {prim!r}")

        def deco(fn: Callable) -> Callable:
            for k in keys:
                self[k] = fn
            return fn

        return deco

    def get(self, prim: Any, default: Any = None) -> Any:
        """The factory for ``prim`` (a name, or a Primitive: its class first, then its name), else ``default``."""
        if isinstance(prim, str):
            return self.data.get(prim, default)
        if isinstance(prim, Primitive):
            found = self.data.get(id(type(prim)))
            return found if found is not None else self.data.get(prim.name, default)
        return default


vm_impl_registry = VmImplRegistry()
"""The process's registry (``mindspore.ops.vm_impl_registry``)."""


def get_vm_impl_fn(prim: str | Primitive) -> Callable | None:
    """The implementation the factory registered for ``prim`` (a Primitive or its name) returns when called
    with ``prim``; None when none is registered."""
    factory = vm_impl_registry.get(prim, None)
    return factory(prim) if factory else None


