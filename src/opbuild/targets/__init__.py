"""Targets: where kernels run. One folder per target behind the :class:`~opbuild.targets.base.Target` interface.

The registry (``core.config.TARGETS``, re-exported here as :data:`REGISTRY`) names each target's class by
import path, so ``config`` validates ``set_context(device_target=...)`` without importing any target;
:func:`create` imports one and makes an instance. Instances belong to their owner (the session's Builder keeps
one per target name), not to this module.

Recipe: adding a second target is one new folder, one line and its tests (``targets/cuda/`` is one: CUDA C
compiled in process by NVRTC; docs/cuda.md):

1. ``src/opbuild/targets/cuda/__init__.py``: ``class CudaTarget(Target)`` with ``name = "GPU"``,
   ``binary_suffix = ".cubin"`` (or ``.so`` for a host-side wrapper), ``identity()`` (the GPU's compute
   capability and driver version: what the generated code depends on), ``find_compiler()`` (nvcc, one file in
   ``targets/cuda/compilers/``, implementing ``targets.cpu.compilers.base.Compiler``'s contract:
   ``identity()``, ``compile()`` bounded by ``config.compile_timeout()``), ``translation_unit()`` (the
   ``__global__`` wrappers around op bodies), ``validate()`` (structural check of the binary before it is
   committed), ``load()`` (cuModuleLoad + cuModuleGetFunction into an object with ``name`` and ``fn``) and
   ``allocate()`` (device buffers), and the emitter side of the interface: ``emit(spec)``,
   ``needs_blas(op)``, ``opt_class(spec)``, ``codegen_hash(op)``, ``codegen_files(ops)``.
2. ``src/opbuild/targets/cuda/kernels/``: this target's emitters, registered by op name as the CPU's are
   (``targets/cpu/kernels/__init__.py``: ``@emits("Conv2D")``), reading the operators' descriptions in
   ``ops/`` (which never import a target), with ``targets/cuda/codegen.py`` for their shared helpers.
3. One line in ``core.config.TARGETS``: ``"GPU": "opbuild.targets.cuda:CudaTarget"``.
4. ``tests/targets/cuda/``: the target's own tests (those needing NVRTC skipped, saying so, where the ``cuda``
   extra is not installed).

The cache does not change: it stores opaque binaries under ``<op>_<hash>`` and never imports a target; the
target's name and identity are part of every descriptor, so the kernels of two targets never share a key.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ..core.config import TARGETS as REGISTRY

if TYPE_CHECKING:
    from .base import Target


def names() -> tuple[str, ...]:
    """The names of the registered targets (``config.SUPPORTED_TARGETS``)."""
    return tuple(REGISTRY)


def create(name: str) -> Target:
    """A new instance of target ``name`` (case-insensitive), its module imported on first use. KeyError if no
    such target is registered (``set_context`` validates names before they get here)."""
    module, cls = REGISTRY[name.upper()].split(":")
    return getattr(importlib.import_module(module), cls)()


__all__ = ["REGISTRY", "create", "names"]
