"""dlopen kernels and resolve their ABI entry points (argtypes set once, here)."""

from __future__ import annotations

import ctypes
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from .. import config

KERNEL_ARGTYPES = [ctypes.c_void_p]


@dataclass
class LoadedKernel:
    """A callable kernel: ``fn(ptr_array)``; ``lib`` keeps the shared object mapped while it is used."""

    name: str
    symbol: str
    fn: ctypes._CFuncPtr
    lib: ctypes.CDLL


def load_kernel(path: Path | str, name: str, symbol: str, libs: dict | None = None,
                ident: tuple | None = None) -> LoadedKernel:
    """Load the verified binary at ``path`` and return its kernel entry point.

    ``libs`` maps a binary's identity (device, inode, ...) to its already-open CDLL: the entries of one
    batched compile are hard links of one object, so they share one handle instead of paying for a
    ``dlopen`` and a ctypes function-pointer class each.
    """
    lib = libs.get(ident) if libs is not None and ident is not None else None
    if lib is None:
        lib = ctypes.CDLL(str(path))
        if libs is not None and ident is not None:
            libs[ident] = lib
    fn = getattr(lib, symbol)
    fn.argtypes = KERNEL_ARGTYPES
    fn.restype = None
    return LoadedKernel(name, symbol, fn, lib)


# ---- preloading the libraries kernels link --------------------------------------------------------------
_preloads: dict[str, threading.Thread] = {}
_preload_lock = threading.Lock()
_handles: list[int] = []  # preloaded libraries stay loaded for the life of the process


def _libc_dlopen():
    """libc's ``dlopen`` as a ctypes function (ctypes releases the GIL while it runs), or None."""
    try:
        fn = ctypes.CDLL(None).dlopen
    except (OSError, AttributeError):  # no dlopen in the global scope (not glibc): no preloading
        return None
    fn.argtypes = [ctypes.c_char_p, ctypes.c_int]
    fn.restype = ctypes.c_void_p
    return fn


def preload(path: str) -> None:
    """Start loading the shared library at ``path`` (the BLAS that GEMM and conv kernels link) on a
    background thread; returns at once, and does nothing if it was started before.

    Loading OpenBLAS is most of a warm start's floor: ~0.9 ms with the immediate binding that ``dlopen`` of a
    kernel applies to its dependencies, ~0.45 ms with lazy binding, and it runs here while the build computes
    descriptors and verifies entries. A kernel that links the library then finds it loaded (the dynamic
    loader matches it by soname, and serialises a kernel's ``dlopen`` behind a preload still in progress).
    Lazy binding resolves each BLAS function at its first call; the library is one the kernels were linked
    against, so nothing is missing. Errors are ignored here: the kernel's own ``dlopen`` reports them.
    """
    with _preload_lock:
        if path in _preloads or not config.preload_enabled():
            return
        dlopen = _libc_dlopen()
        if dlopen is None:
            return
        encoded = os.fsencode(path)

        def run() -> None:
            handle = dlopen(encoded, os.RTLD_LAZY | os.RTLD_LOCAL)
            if handle:
                _handles.append(handle)

        thread = threading.Thread(target=run, name="opbuild-preload", daemon=True)
        _preloads[path] = thread
        thread.start()
