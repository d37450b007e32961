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


def load_kernel(path: Path, name: str, symbol: str) -> LoadedKernel:
    """Load the verified binary at ``path`` and return its kernel entry point."""
    lib = ctypes.CDLL(str(path))
    fn = getattr(lib, symbol)
    fn.argtypes = KERNEL_ARGTYPES
    fn.restype = None
    return LoadedKernel(name, symbol, fn, lib)
