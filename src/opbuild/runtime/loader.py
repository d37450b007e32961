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
    # What ``getattr(lib, symbol)`` does (dlsym into a new function pointer object) without its Python
    # layers and without caching the pointer as an attribute of the library: each kernel has its own.
    fn = lib._FuncPtr((symbol, lib))
    fn.argtypes = KERNEL_ARGTYPES
    fn.restype = None
    return LoadedKernel(name, symbol, fn, lib)


# ---- preloading the libraries kernels link --------------------------------------------------------------
_preloaded: dict[str, int] = {}  # path -> dlopen handle (0: failed); preloaded libraries stay loaded
_preload_lock = threading.Lock()


def _libc_dlopen():
    """libc's ``dlopen`` as a ctypes function, or None where the process has none to offer."""
    try:
        fn = ctypes.CDLL(None).dlopen
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_char_p, ctypes.c_int]
    fn.restype = ctypes.c_void_p
    return fn


def preload(path: str) -> bool:
    """Load the shared library at ``path`` (the BLAS that GEMM and conv kernels link) with lazy binding, once
    per process; returns whether it is loaded. Errors are not raised: the kernel's own ``dlopen`` reports them.

    A kernel's ``dlopen`` binds every symbol of the libraries it pulls in at once (ctypes opens with
    RTLD_NOW), and OpenBLAS exports thousands: ~0.9 ms, most of a warm start's floor. Loaded first with lazy
    binding it costs ~0.45 ms, each BLAS function being resolved at its first call, and the kernels then find
    it loaded (the dynamic loader matches it by soname). The library is the one the kernels were linked
    against, so lazy binding leaves nothing unresolved. (A background thread would overlap the load with
    the build, but measured no faster: it contends with the building thread for the GIL and the cores.)
    """
    with _preload_lock:
        if path not in _preloaded:
            if not config.preload_enabled():
                return False
            dlopen = _libc_dlopen()
            _preloaded[path] = (dlopen(os.fsencode(path), os.RTLD_LAZY | os.RTLD_LOCAL) or 0) if dlopen else 0
        return bool(_preloaded[path])
