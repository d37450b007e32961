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

Bounded: the table keeps the ``OPBUILD_LOADED_KERNELS`` most recently used kernels, and the library table holds
its libraries weakly. A kernel dropped from the table stays loaded while a compiled graph holds it (its function
pointer holds its library); once nothing does, its shared object is closed (targets/cpu/loader.py). A process that
keeps compiling new graphs (shapes changing, many models) would otherwise open shared objects without end and
run out of memory mappings (vm.max_map_count), after which dlopen, thread creation and large allocations fail.
"""

from __future__ import annotations

import os
import weakref
from collections import OrderedDict
from pathlib import Path

from ..cache.local import Lookup
from ..core import config
from ..targets.base import Kernel, Target
from .requests import KernelRequest


def scope(target_name: str, store: Path | None) -> str:
    """The scope of the kernels a build finds or publishes in ``store``; ``store`` None: the scope of PyNative
    calls, which serve a kernel once loaded whatever the cache path (see the module docstring)."""
    global _last_scope
    env = config.toolchain_env()
    last = _last_scope
    # Every PyNative op asks for the same scope: the last one is kept with its inputs (the environment's
    # values come as the same tuple while they are unchanged, config.toolchain_env).
    if last[2] is env and last[0] == target_name and last[1] == store:
        return last[3]
    found = "|".join((target_name, "eager" if store is None else str(store), *env))
    _last_scope = (target_name, store, env, found)
    return found


# (target name, store, toolchain settings, scope) of the last call of scope(): replaced whole, never mutated.
_last_scope: tuple = (None, None, None, "")


class LoadedKernels(OrderedDict):
    """``(scope, memo key) -> kernel``, least recently used first, at most ``config.loaded_kernels()`` of them.

    A dict to its callers (the warm path reads it with ``get``, which marks the kernel used). Safe under
    threads without a lock: each OrderedDict operation is one step under the GIL, and a key another thread
    evicted in between is a miss, never an error."""

    def get(self, key, default=None):
        kernel = super().get(key, default)
        if kernel is not default:
            try:
                self.move_to_end(key)
            except KeyError:  # evicted by another thread since
                pass
        return kernel

    def __setitem__(self, key, kernel) -> None:
        super().__setitem__(key, kernel)
        self.move_to_end(key)
        capacity = config.loaded_kernels()
        while len(self) > capacity:
            try:
                self.popitem(last=False)
            except KeyError:  # emptied by another thread
                break


class KernelMemory:
    """The process's loaded kernels (the most recently used ``OPBUILD_LOADED_KERNELS``) and the libraries open
    under them (held weakly: a library lives as long as a kernel, in this table or in a compiled graph, uses it)."""

    def __init__(self) -> None:
        self.kernels: LoadedKernels = LoadedKernels()
        # binary identity -> open library (targets: Target.load)
        self.libs: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

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


__all__ = ["KernelMemory", "LoadedKernels", "scope"]
