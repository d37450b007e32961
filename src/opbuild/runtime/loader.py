"""dlopen kernels and resolve their ABI entry points (argtypes set once, here)."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path

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
