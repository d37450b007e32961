"""The in-process tier: every kernel this process has loaded, and every shared object it has opened.

Key of a kernel: ``(scope, memo key)``. The memo key is ``KernelSpec.memo_key()`` (op, attributes, input and
output types: ir.py). The scope is :func:`scope`: the target, the store the kernel was found in or published
to, and the raw toolchain settings (``config.toolchain_env``: CC, OPBUILD_CFLAGS, OPBUILD_BLAS,
OPBUILD_OPENMP); PyNative calls (runtime/session.py) use the same table with a scope naming no store.
Invariant: two builds with the same key would produce the same kernel, so a hit is served
without naming the kernel; a process that changes its compiler, flags, target or cache between builds gets
other keys, never a kernel built otherwise.

Libraries are keyed by the binary's identity ``(st_dev, st_ino, st_size, st_mtime_ns)``: the entries of one
batched compile are hard links of one object and share one ``dlopen``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..cache.local import Lookup
from ..core import config
from ..targets.base import Kernel, Target
from .requests import KernelRequest


def scope(target_name: str, store: Path | None) -> str:
    """The scope of the kernels a build finds or publishes in ``store``; ``store`` None: the scope of PyNative
    calls, which serve a kernel once loaded whatever the cache path (see the module docstring)."""
    return "|".join((target_name, "eager" if store is None else str(store), *config.toolchain_env()))


class KernelMemory:
    """The process's loaded kernels and open libraries (one table each; entries are never evicted: a loaded
    kernel stays mapped as long as any compiled graph may call it)."""

    def __init__(self) -> None:
        self.kernels: dict[tuple[str, bytes], Kernel] = {}
        self.libs: dict[tuple, object] = {}  # binary identity -> open library (targets: Target.load)

    def load(self, target: Target, path: Path | str, req: KernelRequest, ident: tuple | None = None) -> Kernel:
        """Load a verified binary (one handle per binary identity, shared by the entries of a batch)."""
        if ident is None:
            st = os.stat(path)
            ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        return target.load(path, req.name, req.symbol, self.libs, ident)

    def load_found(self, target: Target, found: Lookup, req: KernelRequest) -> tuple[Kernel | None, Lookup]:
        """Load the binary of a verified hit: (kernel, the hit), or (None, a corrupt Lookup) when it cannot be
        loaded after all (dlopen's OSError, an undefined symbol): one more kind of damage, quarantined and
        rebuilt by the caller like any other."""
        try:
            return self.load(target, found.binary, req, found.ident), found
        except OSError as e:
            return None, Lookup("corrupt", f"binary cannot be loaded ({e})")

    def get(self, where: str, memo_key: bytes) -> Kernel | None:
        """The kernel loaded for ``memo_key`` in scope ``where``, or None."""
        return self.kernels.get((where, memo_key))

    def put(self, where: str, memo_key: bytes, kernel: Kernel) -> None:
        """Remember ``kernel`` (dict assignment is atomic under the GIL: no lock on the warm path)."""
        self.kernels[(where, memo_key)] = kernel


__all__ = ["KernelMemory", "scope"]
