"""Is this shared object loadable here? A structural check of ELF bytes, done before anything ``dlopen``s them.

A compiler that exits 0 may still have written a truncated object (``dlopen`` maps it, and touching a page
past the end of the file kills the process with SIGBUS), garbage (``invalid ELF header``) or an object without
the kernel's symbol (``undefined symbol``). A checksum cannot tell: it only proves the bytes are the ones
recorded. :func:`check` proves what ``dlopen`` and ``dlsym`` rely on:

  * the ELF identification matches this process (magic, class, byte order, version), the object is a
    shared object (``ET_DYN``) for this machine;
  * every program header's segment (file offset + file size) lies inside the file, at least one ``PT_LOAD``
    and a ``PT_DYNAMIC`` exist, and no loadable segment claims more file bytes than memory;
  * the section header table lies inside the file and holds a dynamic symbol table (``.dynsym``) whose
    string table lies inside the file too, and which defines every expected symbol (global or weak, default
    or protected visibility: what ``dlsym`` finds).

A few ``struct`` unpacks over bytes already in memory (the caller has just hashed them), so it runs on every
publish and on the read path; no ELF library is needed for so little (docs/cache.md has the cost).
"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Iterable

MAGIC = b"\x7fELF"
ET_DYN = 3
PT_LOAD, PT_DYNAMIC = 1, 2
SHT_DYNSYM = 11
SHN_UNDEF = 0
STB_GLOBAL, STB_WEAK = 1, 2
STV_DEFAULT, STV_PROTECTED = 0, 3

# e_machine of this process's architecture (uname's spelling); None: not checked.
_MACHINES = {"x86_64": 62, "amd64": 62, "aarch64": 183, "arm64": 183, "i386": 3, "i686": 3, "armv7l": 40,
             "ppc64le": 21, "ppc64": 21, "s390x": 22, "riscv64": 243, "loongarch64": 258}
HOST_MACHINE = _MACHINES.get(os.uname().machine.lower())  # platform.machine(), without importing platform
HOST_CLASS = 2 if sys.maxsize > 2**32 else 1  # ELFCLASS64 / ELFCLASS32
HOST_DATA = 1 if sys.byteorder == "little" else 2  # ELFDATA2LSB / ELFDATA2MSB


class ElfError(ValueError):
    """The bytes are not a shared object this process can load; the message says what is wrong."""


class _Layout:
    """struct formats of one ELF class and byte order, and the field order of the records read."""

    def __init__(self, elf_class: int, data: int):
        e = "<" if data == 1 else ">"
        if elf_class == 2:
            self.header = struct.Struct(e + "16sHHIQQQIHHHHHH")
            self.phdr = struct.Struct(e + "IIQQQQQQ")  # type, flags, offset, vaddr, paddr, filesz, memsz, align
            self.shdr = struct.Struct(e + "IIQQQQIIQQ")
            self.sym = struct.Struct(e + "IBBHQQ")  # name, info, other, shndx, value, size
        else:
            self.header = struct.Struct(e + "16sHHIIIIIHHHHHH")
            self.phdr = struct.Struct(e + "IIIIIIII")  # type, offset, vaddr, paddr, filesz, memsz, flags, align
            self.shdr = struct.Struct(e + "IIIIIIIIII")
            self.sym = struct.Struct(e + "IIIBBH")  # name, value, size, info, other, shndx
        self.is64 = elf_class == 2

    def segment(self, fields: tuple) -> tuple[int, int, int, int]:
        """(type, offset, filesz, memsz) of a program header."""
        if self.is64:
            return fields[0], fields[2], fields[5], fields[6]
        return fields[0], fields[1], fields[4], fields[5]

    def symbol(self, fields: tuple) -> tuple[int, int, int, int]:
        """(name offset, info, other, shndx) of a symbol."""
        if self.is64:
            return fields[0], fields[1], fields[2], fields[3]
        return fields[0], fields[3], fields[4], fields[5]


_LAYOUTS = {(c, d): _Layout(c, d) for c in (1, 2) for d in (1, 2)}


def _table(data: bytes, offset: int, count: int, entsize: int, what: str) -> None:
    if offset < 0 or count < 0 or offset + count * entsize > len(data):
        raise ElfError(f"{what} ({count} x {entsize} bytes at offset {offset}) ends past the end of the "
                       f"{len(data)}-byte file (truncated?)")


def exported_symbols(data: bytes) -> frozenset[str]:
    """The symbols ``dlsym`` can find in the shared object ``data``, after checking its structure (module
    doc); raises :class:`ElfError` saying what is wrong."""
    if len(data) < 52 or data[:4] != MAGIC:
        raise ElfError("not an ELF file (bad magic number)" if len(data) >= 4 else f"only {len(data)} bytes")
    elf_class, elf_data, version = data[4], data[5], data[6]
    if (elf_class, elf_data) != (HOST_CLASS, HOST_DATA) or version != 1:
        raise ElfError(f"ELF class/byte order/version {elf_class}/{elf_data}/{version}, this process needs "
                       f"{HOST_CLASS}/{HOST_DATA}/1")
    lay = _LAYOUTS[(elf_class, elf_data)]
    if len(data) < lay.header.size:
        raise ElfError(f"only {len(data)} bytes, shorter than an ELF header")
    (_, e_type, machine, _, _, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum, _) = lay.header.unpack_from(data)
    if e_type != ET_DYN:
        raise ElfError(f"ELF type {e_type} is not a shared object ({ET_DYN})")
    if HOST_MACHINE is not None and machine != HOST_MACHINE:
        raise ElfError(f"built for machine {machine}, this one is {HOST_MACHINE}")
    if phentsize != lay.phdr.size or shentsize != lay.shdr.size:
        raise ElfError(f"header entry sizes {phentsize}/{shentsize}, expected {lay.phdr.size}/{lay.shdr.size}")
    if phnum == 0:
        raise ElfError("no program headers")
    _table(data, phoff, phnum, phentsize, "program header table")
    kinds = set()
    for i in range(phnum):
        p_type, offset, filesz, memsz = lay.segment(lay.phdr.unpack_from(data, phoff + i * phentsize))
        if offset + filesz > len(data):
            raise ElfError(f"segment {i} (type {p_type}) spans bytes {offset}..{offset + filesz}, past the end of "
                           f"the {len(data)}-byte file (truncated)")
        if p_type == PT_LOAD and filesz > memsz:
            raise ElfError(f"loadable segment {i} has more file bytes ({filesz}) than memory ({memsz})")
        kinds.add(p_type)
    if PT_LOAD not in kinds or PT_DYNAMIC not in kinds:
        raise ElfError("no loadable or no dynamic segment: not a shared object")
    _table(data, shoff, shnum, shentsize, "section header table")
    sections = [lay.shdr.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    dynsym = next((s for s in sections if s[1] == SHT_DYNSYM), None)
    if dynsym is None:
        raise ElfError("no dynamic symbol table")
    _, _, _, _, sym_off, sym_size, link, _, _, sym_ent = dynsym
    if sym_ent != lay.sym.size or link >= shnum:
        raise ElfError("malformed dynamic symbol table")
    _table(data, sym_off, sym_size // sym_ent, sym_ent, "dynamic symbol table")
    str_off, str_size = sections[link][4], sections[link][5]
    _table(data, str_off, str_size, 1, "dynamic string table")
    names = []
    for fields in lay.sym.iter_unpack(data[sym_off:sym_off + sym_size - sym_size % sym_ent]):
        name, info, other, shndx = lay.symbol(fields)
        if shndx == SHN_UNDEF or info >> 4 not in (STB_GLOBAL, STB_WEAK) or other & 3 not in (STV_DEFAULT,
                                                                                               STV_PROTECTED):
            continue
        if name >= str_size:
            raise ElfError("a symbol's name lies outside the dynamic string table")
        end = data.find(b"\0", str_off + name, str_off + str_size)
        if end < 0:
            raise ElfError("unterminated symbol name in the dynamic string table")
        names.append(data[str_off + name:end].decode("ascii", "replace"))
    return frozenset(names)


def missing(exported: frozenset[str], symbols: Iterable[str]) -> list[str]:
    """The ``symbols`` not in ``exported``, in order."""
    return [s for s in symbols if s not in exported]


def check(data: bytes, symbols: Iterable[str]) -> None:
    """Raise :class:`ElfError` unless ``data`` is a loadable shared object exporting every one of ``symbols``."""
    lost = missing(exported_symbols(data), symbols)
    if lost:
        shown = ", ".join(lost[:5]) + (f" and {len(lost) - 5} more" if len(lost) > 5 else "")
        raise ElfError(f"the object does not export the kernel symbol{'s' if len(lost) > 1 else ''} {shown}")
