"""The build: kernel specs in, loaded kernels and a build report out (see :mod:`opbuild.builder.driver`).

Modules: ``requests`` (a kernel's cache identity), ``toolchain`` (the compiler, or the recorded toolchain
identity when there is none), ``stores`` (which kernel_meta to read and write, the shared tier table),
``memory`` (the in-process tier), ``manifests`` (graph warm starts), ``misses`` (locks, shared fetch and
leases, batching, waiting), ``compile`` (compile + publish), ``progress``, ``driver`` (``Builder.build``).
``toolchain_info`` is what ``opbuild info`` reports about the toolchain.
"""

from __future__ import annotations

from .driver import Builder
from .requests import KernelRequest
from .toolchain import toolchain_info

__all__ = ["Builder", "KernelRequest", "toolchain_info"]
