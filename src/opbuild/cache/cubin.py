"""Is this cubin loadable by the CUDA driver? A structural check of the ELF bytes NVRTC wrote, done before an
entry is committed and on every read, as ``elf.py`` does for the CPU's shared objects.

A cubin is an ELF executable (``ET_EXEC``) for machine ``EM_CUDA`` (190), 64-bit little-endian. Its kernels
are global function symbols of the ordinary symbol table (``.symtab``; a cubin has no dynamic symbols, and
the driver's ``cuModuleGetFunction`` finds kernels there). :func:`kernel_symbols` checks the header, that the
section header table and the symbol and string tables lie inside the file, and returns the defined global
functions. It cannot prove the driver will accept the code (only a GPU can): the compute capability is in the
entry's descriptor, and a load failure is one more kind of corruption (quarantine, rebuild).
"""

from __future__ import annotations

import struct

from .elf import MAGIC, ElfError

#: Suffix of a CUDA target's binaries (the target owns it; named here so the verifier can pick this check).
CUBIN_SUFFIX = ".cubin"
EM_CUDA = 190
ET_EXEC = 2
SHT_SYMTAB = 2
STT_FUNC = 2
STB_GLOBAL, STB_WEAK = 1, 2
_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_SHDR = struct.Struct("<IIQQQQIIQQ")  # name, type, flags, addr, offset, size, link, info, addralign, entsize
_SYM = struct.Struct("<IBBHQQ")  # name, info, other, shndx, value, size


def _inside(data: bytes, offset: int, size: int, what: str) -> None:
    if offset < 0 or size < 0 or offset + size > len(data):
        raise ElfError(f"{what} ({size} bytes at offset {offset}) ends past the end of the {len(data)}-byte "
                       "cubin (truncated?)")


def kernel_symbols(data: bytes) -> frozenset[str]:
    """The global functions (kernels) the cubin ``data`` defines, after checking its structure (module doc);
    raises :class:`ElfError` saying what is wrong."""
    if len(data) < _HEADER.size or data[:4] != MAGIC:
        raise ElfError("not an ELF file (bad magic number)" if len(data) >= 4 else f"only {len(data)} bytes")
    if data[4] != 2 or data[5] != 1:
        raise ElfError(f"ELF class/byte order {data[4]}/{data[5]}, a cubin is 2/1 (64-bit little-endian)")
    (_, e_type, machine, _, _, _, shoff, _, _, _, _, shentsize, shnum, _) = _HEADER.unpack_from(data)
    if machine != EM_CUDA:
        raise ElfError(f"built for machine {machine}, not a cubin (EM_CUDA = {EM_CUDA})")
    if e_type != ET_EXEC:
        raise ElfError(f"ELF type {e_type} is not a cubin's ({ET_EXEC}, executable)")
    if shentsize != _SHDR.size or shnum == 0:
        raise ElfError(f"section header entry size {shentsize} or count {shnum} is not a cubin's")
    _inside(data, shoff, shnum * shentsize, "section header table")
    sections = [_SHDR.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    symtab = next((s for s in sections if s[1] == SHT_SYMTAB), None)
    if symtab is None:
        raise ElfError("no symbol table")
    _, _, _, _, sym_off, sym_size, link, _, _, sym_ent = symtab
    if sym_ent != _SYM.size or link >= shnum:
        raise ElfError("malformed symbol table")
    _inside(data, sym_off, sym_size, "symbol table")
    str_off, str_size = sections[link][4], sections[link][5]
    _inside(data, str_off, str_size, "string table")
    names = []
    table = data[sym_off:sym_off + sym_size - sym_size % sym_ent]
    for name, info, _other, shndx, _value, _size in _SYM.iter_unpack(table):
        if shndx == 0 or info & 0xF != STT_FUNC or info >> 4 not in (STB_GLOBAL, STB_WEAK):
            continue
        if name >= str_size:
            raise ElfError("a symbol's name lies outside the string table")
        end = data.find(b"\0", str_off + name, str_off + str_size)
        if end < 0:
            raise ElfError("unterminated symbol name in the string table")
        names.append(data[str_off + name:end].decode("ascii", "replace"))
    return frozenset(names)


def check(data: bytes, symbols: list[str]) -> None:
    """Raise :class:`ElfError` unless ``data`` is a cubin defining every kernel of ``symbols``."""
    found = kernel_symbols(data)
    lost = [s for s in symbols if s not in found]
    if lost:
        shown = ", ".join(lost[:5]) + (f" and {len(lost) - 5} more" if len(lost) > 5 else "")
        raise ElfError(f"the cubin does not define the kernel{'s' if len(lost) > 1 else ''} {shown}")


__all__ = ["CUBIN_SUFFIX", "EM_CUDA", "check", "kernel_symbols"]
