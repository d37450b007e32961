"""The one place core reaches a layer above it: the services it uses but cannot import.

``core`` imports nothing of opbuild above it, yet some of its objects need higher layers at run time:

* the **engine** (:class:`opbuild.core.trace.Engine`): what runs an eager kernel or compiles a traced graph.
  The runtime session implements it; ops (``ops/primitive.py``), autograd and ``graph_breaks.run_compiled`` call it.
* the **tensor methods**: ``Tensor.__add__``, ``Tensor.sum`` and the other methods call the functional API
  of ``ops`` (as MindSpore's ``tensor_operator_registry`` does); ``ops`` imports ``core.tensor``, so
  ``core.tensor`` importing ``ops`` would be a cycle.
* the **sparse classes**: ``Tensor.to_coo``/``to_csr`` build ``COOTensor``/``CSRTensor`` (``opbuild.sparse``,
  which imports ``core.tensor``).
* ``mint`` and ``utils.from_dlpack``: the Tensor methods MindSpore defines by ``mint``'s functions
  (``Tensor.kthvalue``, ``Tensor.histc``, ...), ``Tensor.from_dlpack``, and the identity whose gradient calls
  a Tensor's backward hooks (``ops.grad_hooks.identity_with_grad``).

Each is named here by import path and resolved on first use: no higher module fills a slot of core when it is
imported, the dependency is written down once (:data:`PROVIDERS`), and a process that imports only
``opbuild.core`` still gets both when it first needs them. Resolving a name is an import and an attribute
lookup; the resolved object is remembered (as ``sys.modules`` remembers the module), which changes no
answer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .trace import Engine

#: service -> ``"module:attribute"``: the engine is the function returning the session, the tensor methods a
#: namespace.
PROVIDERS: dict[str, str] = {
    "engine": "opbuild.runtime.session:session",
    "tensor_methods": "opbuild.ops:TENSOR_METHODS",
    "sparse_classes": "opbuild.sparse:SPARSE_CLASSES",
    # the Tensor methods MindSpore defines by mint's functions (Tensor.kthvalue, histc, ...), and DLPack
    "mint": "opbuild:mint",
    "from_dlpack": "opbuild.utils:from_dlpack",
    "grad_identity": "opbuild.ops.grad_hooks:identity_with_grad",  # Tensor.register_hook (core/tensor_hooks.py)
    "init_fills": "opbuild.runtime.init_fill:FILLS",  # the compiled initializer fills (core/philox_fill.py)
}

_resolved: dict[str, Any] = {}


def provider(service: str) -> Any:
    """The object providing ``service`` (a key of :data:`PROVIDERS`), imported on first use."""
    found = _resolved.get(service)
    if found is None:
        module, attr = PROVIDERS[service].split(":")
        found = _resolved[service] = getattr(importlib.import_module(module), attr)
    return found


def engine() -> Engine:
    """The process's engine: the runtime session (``opbuild.runtime.session.session()``)."""
    return provider("engine")()


def tensor_methods() -> Any:
    """The namespace Tensor's methods call: the functional API plus ``getitem`` (``ops.TENSOR_METHODS``)."""
    return provider("tensor_methods")


__all__ = ["PROVIDERS", "engine", "provider", "tensor_methods"]
