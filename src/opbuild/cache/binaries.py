"""The kernel symbols of a cached binary, whichever target built it: a cubin's global functions
(cache/cubin.py) or a shared object's exported symbols (cache/elf.py)."""

from __future__ import annotations

from . import cubin, elf


def symbols_for(data: bytes, binary_suffix: str) -> frozenset[str]:
    """The kernel symbols of a binary of the target whose binaries end in ``binary_suffix``: a cubin's global
    functions for ``.cubin``, else the shared object's exported symbols; :class:`~.elf.ElfError` when it is not
    such a binary."""
    if binary_suffix == ".cubin":
        return cubin.kernel_symbols(data)
    return elf.exported_symbols(data)
